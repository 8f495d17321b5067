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
//! The syncing itself is done by a pool of threads that lives as long as the process
//! ([`pool`]).
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
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::atomic::sync_dir;

mod pool;

use pool::{Batch, Target};

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
    /// The flush the last round barrier started; waiting for it again once it is done
    /// costs nothing.
    background: Mutex<Option<Batch>>,
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

    fn into_targets(self) -> Vec<Target> {
        let Self { files, dirs } = self;
        files
            .into_values()
            .map(Target::File)
            .chain(dirs.into_iter().map(Target::Dir))
            .collect()
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

    /// Starts making every write handed over so far durable, on the sync pool, and
    /// returns: a group commit the run does not wait for. The flush an earlier call started
    /// is waited for first, so at most one runs at a time and a crash takes back at most
    /// what was handed over since the one before; its error is returned here. Nothing to do
    /// under the strict policy.
    pub fn barrier_in_background(&self) -> io::Result<()> {
        let Some(deferred) = &self.deferred else {
            return Ok(());
        };
        let earlier = join_background(deferred);
        let pending = std::mem::take(&mut *lock(&deferred.pending));
        if !pending.is_empty() {
            *lock(&deferred.background) = Some(Batch::submit(pending.into_targets()));
        }
        earlier
    }
}

/// Waits for the flush the last round barrier started, if any.
fn join_background(deferred: &Deferred) -> io::Result<()> {
    let batch = lock(&deferred.background).clone();
    batch.map_or(Ok(()), |batch| batch.wait())
}

/// Syncs what is pending. The flush lock is taken before the pending targets, so a flush
/// returns only after every flush that took targets before it.
fn flush(deferred: &Deferred) -> io::Result<()> {
    let _flushing = lock(&deferred.flushing);
    let pending = std::mem::take(&mut *lock(&deferred.pending));
    let mut targets = pending.into_targets();
    if targets.len() <= 1 {
        return targets.pop().map_or(Ok(()), |target| target.sync());
    }
    Batch::submit(targets).wait()
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

        // A background barrier hands what is pending to the sync pool; the next barrier
        // waits for it.
        let path = dir.path().join("later");
        std::fs::write(&path, b"x").unwrap();
        syncer.placed(&path, File::open(&path).unwrap()).unwrap();
        syncer.barrier_in_background().unwrap();
        assert_eq!(pending(&syncer), (0, 0));
        let background = || lock(&syncer.deferred.as_ref().unwrap().background).clone();
        let started = background().expect("a batch was handed to the pool");
        syncer.barrier().unwrap();
        started.wait().unwrap();
        syncer.barrier_in_background().unwrap();
        assert!(
            started.is(&background().unwrap()),
            "nothing pending, nothing started"
        );

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
