//! Staging for files we rename into SillyTavern's folders.
//!
//! SillyTavern shows every file of a chat folder, and a temp file staged beside a chat would
//! stay there for good if its writer crashed. So a chat is staged in a folder of our own,
//! `_tauritavern/agent-workspaces/.staging/<writer>/`, on the same file system, and renamed
//! from there: the chat folder only ever sees the finished file.
//!
//! Each [`Staging`] is one writer. Before its first write it creates `<writer>.lock` and
//! holds an OS lock on it for as long as it lives, then its folder `<writer>/`. A writer
//! whose lock is free is dead, so a new writer first removes the folders of dead ones. Temps
//! left beside chats by older versions (`.<chat>.jsonl.tmp-<32 hex>`) carry no sign of their
//! writer: the first write of a writer into a folder removes those older than an hour, and
//! the temps there of dead writers (`stale.rs`).

use std::collections::HashSet;
use std::fs::{self, File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::atomic::{sync_dir, write_atomic, write_new};
use crate::stale::Sweeper;

/// How old a temp file of an older version must be before it counts as abandoned.
pub const LEGACY_TEMP_AGE: Duration = Duration::from_secs(60 * 60);

const LOCK_SUFFIX: &str = ".lock";

/// One writer's staging folder under a staging root, created on first use. Clones share it.
#[derive(Debug, Clone)]
pub struct Staging {
    root: PathBuf,
    writer: Arc<Mutex<Option<Writer>>>,
}

/// The live part of a [`Staging`]: its folder, the lock that proves it alive, and the
/// folders whose old temps it already removed.
#[derive(Debug)]
struct Writer {
    dir: PathBuf,
    lock_path: PathBuf,
    lock: Option<File>,
    swept: HashSet<PathBuf>,
}

impl Staging {
    /// A writer staging under `root` (see `DataDir::staging`). Nothing is created yet.
    pub fn new(root: PathBuf) -> Self {
        Self {
            root,
            writer: Arc::new(Mutex::new(None)),
        }
    }

    /// Replaces `target` with `bytes` atomically: staged in this writer's folder, synced,
    /// renamed over `target`, and the target's folder synced. When the staging root lies on
    /// another file system than `target` (the rename cannot cross), the temp file is staged
    /// beside `target` instead ([`write_atomic`]).
    pub fn write_atomic(&self, target: &Path, bytes: &[u8]) -> io::Result<()> {
        let dir = {
            let mut slot = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
            let writer = match slot.as_mut() {
                Some(writer) => writer,
                None => slot.insert(Writer::start(&self.root)?),
            };
            if let Some(folder) = target.parent() {
                writer.sweep_legacy(folder);
            }
            writer.dir.clone()
        };
        // The folder lives as long as `self`: writes into it need not hold the mutex.
        let tmp = dir.join(format!("{}.tmp", uuid::Uuid::new_v4().simple()));
        write_new(&tmp, bytes)?;
        match fs::rename(&tmp, target) {
            Ok(()) => {
                if let Some(folder) = target.parent() {
                    sync_dir(folder);
                }
                Ok(())
            }
            Err(err) => {
                let _ = fs::remove_file(&tmp);
                if err.kind() == io::ErrorKind::CrossesDevices {
                    write_atomic(target, bytes)
                } else {
                    Err(err)
                }
            }
        }
    }
}

impl Writer {
    /// Takes a fresh writer name, locks it, removes what dead writers left, and creates the
    /// folder. The lock is taken before the folder exists, so no sweeper can mistake the new
    /// folder for a dead writer's.
    fn start(root: &Path) -> io::Result<Self> {
        fs::create_dir_all(root)?;
        let name = format!("p{}-{}", std::process::id(), uuid::Uuid::new_v4().simple());
        let lock_path = root.join(format!("{name}{LOCK_SUFFIX}"));
        let lock = File::create_new(&lock_path)?;
        lock.lock()?;
        remove_dead_writers(root);
        let dir = root.join(&name);
        fs::create_dir(&dir)?;
        Ok(Self {
            dir,
            lock_path,
            lock: Some(lock),
            swept: HashSet::new(),
        })
    }

    /// Removes abandoned temps from `folder`, once per folder: those of dead writers (a
    /// write that fell back to staging beside the chat) and old ones of older versions.
    fn sweep_legacy(&mut self, folder: &Path) {
        if self.swept.insert(folder.to_path_buf())
            && let Some(root) = self.dir.parent()
        {
            Sweeper::new(root.to_path_buf()).sweep_dir(folder);
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
        // Unlock before removing the lock file (Windows refuses to delete an open file).
        drop(self.lock.take());
        let _ = fs::remove_file(&self.lock_path);
    }
}

/// Removes the folder and lock file of every writer under `root` whose lock is free: its
/// process is gone. Best effort; a live writer's lock is never free.
pub fn remove_dead_writers(root: &Path) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(writer) = name.to_str().and_then(|n| n.strip_suffix(LOCK_SUFFIX)) else {
            continue;
        };
        let lock_path = entry.path();
        let Ok(lock) = File::open(&lock_path) else {
            continue;
        };
        match lock.try_lock() {
            Ok(()) => {
                let _ = fs::remove_dir_all(root.join(writer));
                drop(lock);
                let _ = fs::remove_file(&lock_path);
            }
            Err(TryLockError::WouldBlock | TryLockError::Error(_)) => {}
        }
    }
}

/// Whether `name` is a temp file an atomic write of ours leaves beside its target:
/// `.tmp-<32 hex>`, or `.<name>.tmp-<32 hex>` as older versions named them.
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.')
        && name
            .rsplit_once(".tmp-")
            .is_some_and(|(_, id)| id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_write_lands_whole_and_stages_outside_the_target_folder() {
        let dir = tempfile::tempdir().unwrap();
        let (root, chats) = (dir.path().join("staging"), dir.path().join("chats"));
        fs::create_dir(&chats).unwrap();
        let staging = Staging::new(root.clone());
        let target = chats.join("chat.jsonl");
        staging.write_atomic(&target, b"one").unwrap();
        staging.write_atomic(&target, b"two").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"two");
        assert_eq!(names(&chats), ["chat.jsonl"]);
        // The writer's folder (empty) and its lock, until the writer goes.
        assert_eq!(names(&root).len(), 2);
        assert!(names(&root.join(&names(&root)[0])).is_empty());
        drop(staging);
        assert!(names(&root).is_empty());
    }

    #[test]
    fn dead_writers_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("staging");
        let target = dir.path().join("chat.jsonl");
        let live = Staging::new(root.clone());
        live.write_atomic(&target, b"live").unwrap();
        // A crashed writer: its folder holds a staged chat that was never renamed, and
        // nobody holds its lock.
        fs::create_dir(root.join("p1-dead")).unwrap();
        fs::write(root.join("p1-dead/abc.tmp"), "a whole chat").unwrap();
        File::create(root.join("p1-dead.lock")).unwrap();
        let mut before = names(&root);
        assert_eq!(before.len(), 4);
        let next = Staging::new(root.clone());
        next.write_atomic(&target, b"next").unwrap();
        let after = names(&root);
        assert!(
            !after.iter().any(|name| name.starts_with("p1-dead")),
            "{after:?}"
        );
        before.retain(|name| !name.starts_with("p1-dead"));
        assert!(before.iter().all(|name| after.contains(name)), "{after:?}");
        assert_eq!(after.len(), 4, "the live writer and the new one");
    }

    #[test]
    fn a_writer_killed_after_staging_is_cleaned_up_by_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let (root, chats) = (dir.path().join("staging"), dir.path().join("chats"));
        fs::create_dir(&chats).unwrap();
        let target = chats.join("chat.jsonl");
        let crashed = Staging::new(root.clone());
        crashed.write_atomic(&target, b"first").unwrap();
        // The crash: a whole copy staged, never renamed; the process (and with it the
        // lock) goes away without any cleanup.
        let mut writer = crashed.writer.lock().unwrap().take().unwrap();
        fs::write(writer.dir.join("abc.tmp"), b"second, never renamed").unwrap();
        drop(writer.lock.take());
        std::mem::forget(writer);
        assert_eq!(names(&root).len(), 2);

        Staging::new(root.clone())
            .write_atomic(&target, b"third")
            .unwrap();
        assert!(names(&root).is_empty(), "{:?}", names(&root));
        assert_eq!(names(&chats), ["chat.jsonl"]);
        assert_eq!(fs::read(&target).unwrap(), b"third");
    }

    #[test]
    fn only_our_old_temps_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let hex = "0123456789abcdef0123456789abcdef";
        let ours_old = format!(".chat.jsonl.tmp-{hex}");
        let ours_new = format!(".tmp-{hex}");
        for name in [
            ours_old.as_str(),
            ours_new.as_str(),
            "chat.jsonl",
            ".chat.jsonl.tmp-123",
            "notes.tmp-0123",
        ] {
            fs::write(dir.path().join(name), "x").unwrap();
        }
        let two_hours_ago = SystemTime::now() - Duration::from_secs(7200);
        for name in [ours_old.as_str(), "chat.jsonl", ".chat.jsonl.tmp-123"] {
            File::options()
                .write(true)
                .open(dir.path().join(name))
                .unwrap()
                .set_modified(two_hours_ago)
                .unwrap();
        }
        Sweeper::new(dir.path().join(".staging")).sweep_dir(dir.path());
        assert_eq!(
            names(dir.path()),
            [
                ".chat.jsonl.tmp-123",
                ours_new.as_str(),
                "chat.jsonl",
                "notes.tmp-0123"
            ]
        );
        assert!(is_temp_name(&ours_old) && is_temp_name(&ours_new));
        assert!(!is_temp_name(
            "chat.jsonl.tmp-0123456789abcdef0123456789abcdef"
        ));
    }
}
