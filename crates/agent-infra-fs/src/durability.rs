//! When the files of runs reach stable storage: the [`Durability`] policy and the
//! [`Syncer`] that applies it (see `docs/storage/durability.md`).
//!
//! Syncing costs a disk flush, and a run writes a dozen small files per tool call, so
//! syncing each one made fsync nearly all of a run's time. Under [`Durability::Normal`] the
//! run-scoped stores write without syncing and hand the file (and the folder whose entries
//! changed) to the [`Syncer`]; the journal calls [`Syncer::barrier`] before it appends an
//! event that must be durable when the append returns (a commit, the end of the run), and
//! [`Syncer::barrier_in_background`] after the start of each model round, which syncs
//! everything pending at once (a group commit) while the run goes on. Under
//! [`Durability::Strict`] every write is synced before it returns, as before, and so is
//! every journal line.
//!
//! Writes outside runs (chats, profiles, settings, skills, connections, persistent states)
//! are always synced before they return: they are few, and a chat commit must be durable
//! before the run reports it.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use crate::atomic::sync_dir;

/// How much a crash may take back (like SQLite's `synchronous`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Durability {
    /// Every write and every journal line is synced before the call returns.
    Strict,
    /// Writes of a run are synced together at its next barrier: before each model request,
    /// around each chat commit, and at the run's end. A power loss can take back the round
    /// in flight, never an acknowledged commit.
    #[default]
    Normal,
}

impl Durability {
    /// Every policy, strictest first.
    pub const ALL: [Self; 2] = [Self::Strict, Self::Normal];

    /// The name used on the command line and in the environment.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Strict => "strict",
            Self::Normal => "normal",
        }
    }
}

impl fmt::Display for Durability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no durability policy.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown durability `{0}`; use `strict` or `normal`")]
pub struct UnknownDurability(pub String);

impl agent_domain::ErrorCode for UnknownDurability {
    fn code(&self) -> &'static str {
        "storage.durability_invalid"
    }
}

impl FromStr for Durability {
    type Err = UnknownDurability;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|policy| policy.as_str() == name.trim())
            .ok_or_else(|| UnknownDurability(name.to_owned()))
    }
}

/// Pending files beyond which a write flushes at once instead of waiting for the barrier,
/// so open handles stay bounded.
const MAX_PENDING_FILES: usize = 512;

/// Syncs files now or at the next barrier, by policy. Cheap to clone; clones share what is
/// pending. One per data directory (the [`RunLocator`](crate::run_locator::RunLocator)
/// carries it to every run-scoped store).
#[derive(Debug, Clone, Default)]
pub struct Syncer {
    /// `None`: strict.
    deferred: Option<Arc<Deferred>>,
}

#[derive(Debug, Default)]
struct Deferred {
    pending: Mutex<Pending>,
    /// Held for a whole flush, taken before the pending targets: a barrier returns only
    /// once every flush that took targets before it has finished too.
    flushing: Mutex<()>,
    /// The flush a round barrier started and nobody has waited for yet.
    background: Mutex<Option<JoinHandle<io::Result<()>>>>,
}

/// What the next barrier must sync: the last handle written at each path, and folders.
#[derive(Debug, Default)]
struct Pending {
    files: HashMap<PathBuf, File>,
    dirs: BTreeSet<PathBuf>,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.files.is_empty() && self.dirs.is_empty()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Syncer {
    pub fn new(durability: Durability) -> Self {
        match durability {
            Durability::Strict => Self::strict(),
            Durability::Normal => Self {
                deferred: Some(Arc::default()),
            },
        }
    }

    /// Syncs every write before it returns.
    pub fn strict() -> Self {
        Self { deferred: None }
    }

    pub fn durability(&self) -> Durability {
        match self.deferred {
            None => Durability::Strict,
            Some(_) => Durability::Normal,
        }
    }

    /// A staged file about to be renamed or linked into place: synced now under the
    /// strict policy, so the new name never shows unsynced bytes.
    pub(crate) fn staged(&self, file: &File) -> io::Result<()> {
        match self.deferred {
            None => file.sync_all(),
            Some(_) => Ok(()),
        }
    }

    /// `file`, now in place at `path`, is synced at the next barrier (strict: it already
    /// is). Writing the same path again replaces the pending handle: only the newest file
    /// at a path needs syncing.
    pub(crate) fn placed(&self, path: &Path, file: File) -> io::Result<()> {
        let Some(deferred) = &self.deferred else {
            return Ok(());
        };
        let full = {
            let mut pending = lock(&deferred.pending);
            pending.files.insert(path.to_path_buf(), file);
            pending.files.len() >= MAX_PENDING_FILES
        };
        if full { self.barrier() } else { Ok(()) }
    }

    /// An entry of `dir` was created, renamed or linked: synced now, or at the next barrier.
    pub(crate) fn dir_changed(&self, dir: &Path) {
        match &self.deferred {
            None => sync_dir(dir),
            Some(deferred) => {
                lock(&deferred.pending).dirs.insert(dir.to_path_buf());
            }
        }
    }

    /// Makes every write handed over so far durable before it returns, including those a
    /// [`barrier_in_background`](Self::barrier_in_background) is still syncing. Nothing to
    /// do under the strict policy. An error is the first the flushes met.
    pub fn barrier(&self) -> io::Result<()> {
        let Some(deferred) = &self.deferred else {
            return Ok(());
        };
        let earlier = join_background(deferred);
        earlier.and(flush(deferred))
    }

    /// Starts making every write handed over so far durable, on a thread of its own, and
    /// returns: a group commit the run does not wait for. The flush an earlier call started
    /// is waited for first, so at most one runs at a time and a crash takes back at most
    /// what was handed over since the one before; its error is returned here. Nothing to do
    /// under the strict policy.
    pub fn barrier_in_background(&self) -> io::Result<()> {
        let Some(deferred) = &self.deferred else {
            return Ok(());
        };
        let earlier = join_background(deferred);
        if !lock(&deferred.pending).is_empty() {
            let shared = Arc::clone(deferred);
            let handle = std::thread::Builder::new()
                .name("tavern-sync".to_owned())
                .spawn(move || flush(&shared));
            match handle {
                Ok(handle) => *lock(&deferred.background) = Some(handle),
                Err(err) => return earlier.and(Err(err)),
            }
        }
        earlier
    }
}

/// Waits for the flush a round barrier started, if any.
fn join_background(deferred: &Deferred) -> io::Result<()> {
    let handle = lock(&deferred.background).take();
    match handle.map(JoinHandle::join) {
        None => Ok(()),
        Some(Ok(result)) => result,
        Some(Err(_)) => Err(io::Error::other("the background sync thread panicked")),
    }
}

/// Syncs what is pending. The flush lock is taken before the pending targets, so a flush
/// returns only after every flush that took targets before it.
fn flush(deferred: &Deferred) -> io::Result<()> {
    let _flushing = lock(&deferred.flushing);
    let pending = std::mem::take(&mut *lock(&deferred.pending));
    sync_targets(pending)
}

/// One thing a flush syncs.
#[derive(Debug)]
enum Target {
    File(File),
    Dir(PathBuf),
}

impl Target {
    fn sync(&self) -> io::Result<()> {
        match self {
            Self::File(file) => file.sync_all(),
            Self::Dir(dir) => {
                sync_dir(dir);
                Ok(())
            }
        }
    }
}

/// Threads syncing one flush's targets. Each mostly waits on the disk; together they let
/// the file system fold many files into one journal commit. (`syncfs` would take one call,
/// but it also writes out every other program's data on the same disk.)
const SYNC_THREADS: usize = 8;

/// Syncs every file and every folder (folders as best effort, like [`sync_dir`]) on up to
/// [`SYNC_THREADS`] threads taking the next one in turn; returns the first error.
fn sync_targets(pending: Pending) -> io::Result<()> {
    let Pending { files, dirs } = pending;
    let work: Vec<Target> = files
        .into_values()
        .map(Target::File)
        .chain(dirs.into_iter().map(Target::Dir))
        .collect();
    if work.len() <= 1 {
        return work.iter().try_for_each(Target::sync);
    }
    let next = AtomicUsize::new(0);
    let first_error: Mutex<Option<io::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..work.len().min(SYNC_THREADS) {
            scope.spawn(|| {
                while let Some(target) = work.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Err(err) = target.sync() {
                        lock(&first_error).get_or_insert(err);
                    }
                }
            });
        }
    });
    match first_error
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_parse_by_name() {
        for policy in Durability::ALL {
            assert_eq!(policy.as_str().parse::<Durability>(), Ok(policy));
        }
        assert_eq!(Durability::default(), Durability::Normal);
        let err = "full".parse::<Durability>().unwrap_err();
        assert_eq!(
            agent_domain::ErrorCode::code(&err),
            "storage.durability_invalid"
        );
        assert!(err.to_string().contains("`full`"), "{err}");
    }

    #[test]
    fn normal_defers_until_the_barrier_and_strict_keeps_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let syncer = Syncer::new(Durability::Normal);
        for n in 0..3 {
            let path = dir.path().join(format!("f{n}"));
            std::fs::write(&path, b"x").unwrap();
            syncer.placed(&path, File::open(&path).unwrap()).unwrap();
        }
        syncer.dir_changed(dir.path());
        let pending = |syncer: &Syncer| {
            let pending = lock(&syncer.deferred.as_ref().unwrap().pending);
            (pending.files.len(), pending.dirs.len())
        };
        assert_eq!(pending(&syncer), (3, 1));
        syncer.clone().barrier().unwrap();
        assert_eq!(pending(&syncer), (0, 0));

        // A background barrier takes what is pending on a thread of its own; the next
        // barrier waits for it.
        let path = dir.path().join("later");
        std::fs::write(&path, b"x").unwrap();
        syncer.placed(&path, File::open(&path).unwrap()).unwrap();
        syncer.barrier_in_background().unwrap();
        let background =
            |syncer: &Syncer| lock(&syncer.deferred.as_ref().unwrap().background).is_some();
        assert!(background(&syncer));
        syncer.barrier().unwrap();
        assert!(!background(&syncer));
        assert_eq!(pending(&syncer), (0, 0));
        syncer.barrier_in_background().unwrap();
        assert!(!background(&syncer), "nothing pending, nothing started");

        let strict = Syncer::strict();
        let path = dir.path().join("s");
        std::fs::write(&path, b"x").unwrap();
        strict.placed(&path, File::open(&path).unwrap()).unwrap();
        assert!(strict.deferred.is_none());
        assert_eq!(strict.durability(), Durability::Strict);
    }

    #[test]
    fn a_full_pending_list_flushes_on_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let syncer = Syncer::new(Durability::Normal);
        let path = dir.path().join("f");
        std::fs::write(&path, b"x").unwrap();
        for n in 0..MAX_PENDING_FILES {
            let name = dir.path().join(format!("f{n}"));
            syncer.placed(&name, File::open(&path).unwrap()).unwrap();
        }
        assert_eq!(
            lock(&syncer.deferred.as_ref().unwrap().pending).files.len(),
            0
        );
    }
}
