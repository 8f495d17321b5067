//! Which temps are stale, and sweeping them.
//!
//! Every temp file or folder a store stages beside its target carries its writer in its
//! name: `.tmp-<writer>-<uuid>` ([`crate::atomic::temp_path_for`]) or
//! `.<name>.<kind>-<writer>-<uuid>` (folder swaps). A writer is one open data directory of
//! one process: the first temp it names creates `<writer>.lock` in the data directory's
//! `.staging/` folder and holds an OS lock on it until the last [`DataDir`] of that data
//! directory in the process is dropped, which removes the file. So a temp is stale exactly
//! when its writer's lock file is missing or its lock is free: the process that staged it
//! is gone (killed, crashed) and nobody will rename or remove it. A live writer's temps are
//! never touched, whichever process sweeps.
//!
//! Temps of older versions (`.tmp-<uuid>`, `.<name>.tmp-<uuid>`) name no writer; like
//! `staging.rs`, a sweep removes them once they are older than [`LEGACY_TEMP_AGE`]. A temp
//! staged outside every open data directory (a skill exported elsewhere) names no writer
//! either.
//!
//! Sweeps are cheap and targeted (see `docs/storage/README.md`): the run index and the chat's
//! shared folders when a run is created, the run index when it is listed, and a run's whole
//! folder the first time this process opens a run it did not create.
//!
//! [`DataDir`]: crate::layout::DataDir

use std::collections::HashMap;
use std::fs::{self, File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use std::time::SystemTime;

use agent_domain::run::WorkspaceId;

use crate::layout::{DataDir, RunDir};
use crate::staging::{LEGACY_TEMP_AGE, is_temp_name, remove_dead_writers};

const LOCK_SUFFIX: &str = ".lock";
/// Hex digits of a writer id in temp names: short, so a temp name stays far below 255 bytes.
const WRITER_LEN: usize = 16;
const UUID_LEN: usize = 32;

/// The writer of one data directory in this process; shared by every `DataDir` of it.
#[derive(Debug)]
pub struct Writer {
    /// The folders temps of this data directory are staged under (`<root>`, `_tauritavern/`).
    roots: Vec<PathBuf>,
    /// Where the writer's lock file goes (`DataDir::staging`).
    lock_dir: PathBuf,
    id: String,
    /// The held lock, taken on the first temp named.
    lock: Mutex<Option<File>>,
}

/// Every live writer of the process, so a temp path finds the writer of its data directory.
fn registry() -> &'static Mutex<Vec<Weak<Writer>>> {
    static WRITERS: OnceLock<Mutex<Vec<Weak<Writer>>>> = OnceLock::new();
    WRITERS.get_or_init(|| Mutex::new(Vec::new()))
}

impl Writer {
    /// The writer of the data directory whose temps live under `roots`, with its lock in
    /// `lock_dir`: the live one of this process, or a new one. Creates nothing on disk.
    pub(crate) fn for_data_dir(roots: Vec<PathBuf>, lock_dir: PathBuf) -> Arc<Self> {
        let mut writers = registry().lock().unwrap_or_else(PoisonError::into_inner);
        writers.retain(|writer| writer.strong_count() > 0);
        if let Some(live) = writers
            .iter()
            .filter_map(Weak::upgrade)
            .find(|writer| writer.lock_dir == lock_dir && writer.roots == roots)
        {
            return live;
        }
        let id = uuid::Uuid::new_v4().simple().to_string()[..WRITER_LEN].to_owned();
        let writer = Arc::new(Self {
            roots,
            lock_dir,
            id,
            lock: Mutex::new(None),
        });
        writers.push(Arc::downgrade(&writer));
        writer
    }

    /// A sweeper that reads writers' locks where this one keeps its own.
    pub fn sweeper(&self) -> Sweeper {
        Sweeper::new(self.lock_dir.clone())
    }

    fn lock_path(&self) -> PathBuf {
        self.lock_dir.join(format!("{}{LOCK_SUFFIX}", self.id))
    }

    /// The writer id, once its lock is held (taken now if need be).
    fn locked_id(&self) -> io::Result<&str> {
        let mut slot = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            fs::create_dir_all(&self.lock_dir)?;
            let file = File::create(self.lock_path())?;
            file.lock()?;
            *slot = Some(file);
        }
        Ok(&self.id)
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        let held = self
            .lock
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(file) = held {
            // Unlock before removing (Windows refuses to delete an open file).
            drop(file);
            let _ = fs::remove_file(self.lock_path());
        }
    }
}

/// The unique tail of a temp name beside `target`: `<writer>-<uuid>` when `target` lies in
/// a data directory open in this process (its writer's lock is then held), else `<uuid>`.
pub fn temp_tag(target: &Path) -> String {
    let uuid = uuid::Uuid::new_v4().simple();
    let writer = registry()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .filter_map(Weak::upgrade)
        .find(|writer| writer.roots.iter().any(|root| target.starts_with(root)));
    match writer.as_deref().map(Writer::locked_id) {
        Some(Ok(id)) => format!("{id}-{uuid}"),
        // Without a held lock the temp names no writer, so no sweep mistakes it for a dead
        // writer's; only the age rule for old temps applies to it.
        Some(Err(_)) | None => uuid.to_string(),
    }
}

/// The writer a temp name of ours names: `.…tmp-<writer>-<uuid>` or `.…old-<writer>-<uuid>`.
pub fn writer_of(name: &str) -> Option<&str> {
    if !name.starts_with('.') {
        return None;
    }
    let (rest, uuid) = name.rsplit_once('-')?;
    let (kind, writer) = rest.rsplit_once('-')?;
    let hex = |s: &str, len: usize| s.len() == len && s.bytes().all(|b| b.is_ascii_hexdigit());
    (hex(uuid, UUID_LEN)
        && hex(writer, WRITER_LEN)
        && (kind.ends_with("tmp") || kind.ends_with("old")))
    .then_some(writer)
}

/// Removes stale temps, deciding each writer's liveness once per sweep.
#[derive(Debug)]
pub struct Sweeper {
    lock_dir: PathBuf,
    alive: HashMap<String, bool>,
    now: SystemTime,
}

impl Sweeper {
    /// A sweeper for a data directory whose writers lock in `lock_dir` (`DataDir::staging`).
    pub fn new(lock_dir: PathBuf) -> Self {
        Self {
            lock_dir,
            alive: HashMap::new(),
            now: SystemTime::now(),
        }
    }

    /// Whether `writer` still holds its lock. A missing lock file means it ended or died.
    fn is_alive(&mut self, writer: &str) -> bool {
        let lock_dir = &self.lock_dir;
        *self.alive.entry(writer.to_owned()).or_insert_with(|| {
            let Ok(file) = File::open(lock_dir.join(format!("{writer}{LOCK_SUFFIX}"))) else {
                return false;
            };
            match file.try_lock() {
                Ok(()) => false,
                // Busy, or the lock cannot be tested: keep its temps.
                Err(TryLockError::WouldBlock | TryLockError::Error(_)) => true,
            }
        })
    }

    /// Whether the entry `name` (with `meta`) is a temp nobody will finish.
    fn is_stale(&mut self, name: &str, meta: &fs::Metadata) -> bool {
        if let Some(writer) = writer_of(name) {
            return !self.is_alive(writer);
        }
        is_temp_name(name)
            && meta
                .modified()
                .ok()
                .and_then(|modified| self.now.duration_since(modified).ok())
                .is_some_and(|age| age > LEGACY_TEMP_AGE)
    }

    /// Removes the stale temps directly in `folder`; returns the folders it kept, for a
    /// recursive sweep. Best effort: what cannot be read or removed now is left to the next.
    pub fn sweep_dir(&mut self, folder: &Path) -> Vec<PathBuf> {
        self.visit_dir(folder, &mut |path, is_dir| {
            if is_dir {
                drop(fs::remove_dir_all(path));
            } else {
                drop(fs::remove_file(path));
            }
        })
    }

    /// Calls `stale` with each stale temp directly in `folder` (and whether it is a
    /// folder); returns the other folders, which are never links.
    fn visit_dir(&mut self, folder: &Path, stale: &mut impl FnMut(&Path, bool)) -> Vec<PathBuf> {
        let mut folders = Vec::new();
        let Ok(entries) = fs::read_dir(folder) else {
            return folders;
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            let is_stale = entry
                .file_name()
                .to_str()
                .is_some_and(|name| self.is_stale(name, &meta));
            let path = entry.path();
            // `metadata` of a `DirEntry` does not follow links: a link is never walked.
            match (is_stale, meta.is_dir()) {
                (true, is_dir) => stale(&path, is_dir),
                (false, true) => folders.push(path),
                (false, false) => {}
            }
        }
        folders
    }

    /// Removes the stale temps anywhere under `root`.
    pub fn sweep_tree(&mut self, root: &Path) {
        let mut stack = vec![root.to_path_buf()];
        while let Some(folder) = stack.pop() {
            stack.extend(self.sweep_dir(&folder));
        }
    }

    /// The stale temps anywhere under `root`, left in place (the doctor reports them).
    pub fn find_in_tree(&mut self, root: &Path) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(folder) = stack.pop() {
            let folders = self.visit_dir(&folder, &mut |path, _| found.push(path.to_owned()));
            stack.extend(folders);
        }
        found
    }
}

/// Sweeps the run index (`index/runs/`, `index/run-summaries/`): flat folders every
/// process writes into.
pub fn sweep_run_index(data: &DataDir) {
    let mut sweeper = data.sweeper();
    sweeper.sweep_dir(&data.run_index_dir());
    sweeper.sweep_dir(&data.run_summaries_dir());
}

/// Sweeps what a new run of a chat shares with the chat's other runs: the run index, the
/// chat's folder (the browsable `persist/` swap and its note), its `persistent-states/`,
/// and the staging folders of dead chat writers. Flat folders only: no run is walked.
pub fn sweep_for_new_run(data: &DataDir, workspace: &WorkspaceId) {
    sweep_run_index(data);
    sweep_chat(data, workspace);
    remove_dead_writers(&data.staging());
}

/// Sweeps a run's whole folder and its chat's shared folders: for a run this process did
/// not create, the first time it opens it (`runs show`, `runs cancel`, a resume).
pub fn sweep_opened_run(data: &DataDir, workspace: &WorkspaceId, run: &RunDir) {
    data.sweeper().sweep_tree(run.path());
    sweep_chat(data, workspace);
}

fn sweep_chat(data: &DataDir, workspace: &WorkspaceId) {
    let mut sweeper = data.sweeper();
    sweeper.sweep_dir(&data.chat_workspace(workspace));
    sweeper.sweep_dir(&data.persistent_states(workspace));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const UUID: &str = "0123456789abcdef0123456789abcdef";

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn names_of_writers_are_read_back() {
        let w = "00112233aabbccdd";
        assert_eq!(writer_of(&format!(".tmp-{w}-{UUID}")), Some(w));
        assert_eq!(writer_of(&format!(".persist.old-{w}-{UUID}")), Some(w));
        assert_eq!(writer_of(&format!(".persist.tmp-{w}-{UUID}")), Some(w));
        assert_eq!(writer_of(&format!(".tmp-{UUID}")), None);
        assert_eq!(writer_of(&format!("tmp-{w}-{UUID}")), None);
        assert_eq!(writer_of(&format!(".notes-{w}-{UUID}")), None);
        assert_eq!(writer_of(&format!(".tmp-{w}x-{UUID}")), None);
    }

    #[test]
    fn only_temps_of_dead_writers_go() {
        let dir = tempfile::tempdir().unwrap();
        let (locks, data) = (dir.path().join(".staging"), dir.path().join("run"));
        fs::create_dir_all(&locks).unwrap();
        fs::create_dir_all(data.join("checkpoints")).unwrap();
        let (live, dead, gone) = ("1111111111111111", "2222222222222222", "3333333333333333");
        // The live writer's lock is held by another open file, as another process would.
        let held = File::create(locks.join(format!("{live}.lock"))).unwrap();
        held.lock().unwrap();
        File::create(locks.join(format!("{dead}.lock"))).unwrap();
        for writer in [live, dead, gone] {
            fs::write(data.join(format!(".tmp-{writer}-{UUID}")), "run.json").unwrap();
            let staged = data.join(format!("checkpoints/.tmp-{writer}-{UUID}"));
            fs::create_dir(&staged).unwrap();
            fs::write(staged.join("checkpoint.json"), "{}").unwrap();
        }
        fs::write(data.join("run.json"), "{}").unwrap();
        fs::write(data.join(format!(".tmp-{UUID}")), "older version, fresh").unwrap();
        let old = data.join(format!(".run.json.tmp-{UUID}"));
        fs::write(&old, "older version, old").unwrap();
        File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(7200))
            .unwrap();

        Sweeper::new(locks.clone()).sweep_tree(&data);

        let live_temp = format!(".tmp-{live}-{UUID}");
        assert_eq!(
            names(&data),
            [
                format!(".tmp-{UUID}"),
                live_temp.clone(),
                "checkpoints".into(),
                "run.json".into()
            ]
        );
        assert_eq!(names(&data.join("checkpoints")), [live_temp]);
        drop(held);
        Sweeper::new(locks).sweep_tree(&data);
        assert_eq!(names(&data.join("checkpoints")), Vec::<String>::new());
    }

    #[test]
    fn a_writer_locks_before_naming_and_unlocks_when_its_data_dir_goes() {
        let dir = tempfile::tempdir().unwrap();
        let (locks, root) = (dir.path().join(".staging"), dir.path().join("data"));
        let writer = Writer::for_data_dir(vec![root.clone()], locks.clone());
        let same = Writer::for_data_dir(vec![root.clone()], locks.clone());
        assert!(Arc::ptr_eq(&writer, &same));
        assert!(!locks.exists(), "nothing is created before a temp is named");

        let tag = temp_tag(&root.join("runs/run.json"));
        let (id, _) = tag.split_once('-').unwrap();
        let temp = root.join(format!(".tmp-{tag}"));
        fs::create_dir_all(&root).unwrap();
        fs::write(&temp, "being written").unwrap();
        // Another sweeper (in this process or another) sees the writer alive.
        Sweeper::new(locks.clone()).sweep_dir(&root);
        assert!(temp.exists());
        assert_eq!(names(&locks), [format!("{id}.lock")]);

        drop((writer, same));
        assert!(names(&locks).is_empty());
        Sweeper::new(locks).sweep_dir(&root);
        assert!(!temp.exists());
        // Outside every open data directory a temp names no writer.
        assert_eq!(temp_tag(&dir.path().join("elsewhere")).len(), UUID_LEN);
    }
}
