//! The threads that sync files for group commits.
//!
//! A flush syncs a few dozen files at a time, and syncing them side by side lets the file
//! system fold them into one journal commit. Starting threads for each flush cost more than
//! the syncs themselves on a fast disk (a round barrier flushes once per model round), so
//! the process keeps [`SYNC_THREADS`] threads for its whole life, parked on a queue while
//! there is nothing to sync. A flush hands its targets over as one [`Batch`] and may wait
//! for it, or keep it to wait for later (a background group commit).

use std::io;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use super::lock;
use crate::atomic::sync_dir;

/// Threads syncing files. Each mostly waits on the disk. (`syncfs` would take one call,
/// but it also writes out every other program's data on the same disk.)
const SYNC_THREADS: usize = 8;

/// One thing a flush syncs.
#[derive(Debug)]
pub(super) enum Target {
    File(std::fs::File),
    /// Synced as best effort, like [`sync_dir`].
    Dir(PathBuf),
}

impl Target {
    pub fn sync(&self) -> io::Result<()> {
        match self {
            Self::File(file) => file.sync_all(),
            Self::Dir(dir) => {
                sync_dir(dir);
                Ok(())
            }
        }
    }
}

/// The targets of one flush, synced by the pool; cheap to clone, and every clone can wait.
#[derive(Debug, Clone)]
pub(super) struct Batch(Arc<Progress>);

#[derive(Debug, Default)]
struct Progress {
    state: Mutex<BatchState>,
    done: Condvar,
}

#[derive(Debug, Default)]
struct BatchState {
    remaining: usize,
    first_error: Option<(io::ErrorKind, String)>,
}

impl Batch {
    /// Hands `targets` to the pool (or syncs them here when the pool cannot run).
    pub fn submit(targets: Vec<Target>) -> Self {
        let batch = Self(Arc::new(Progress {
            state: Mutex::new(BatchState {
                remaining: targets.len(),
                first_error: None,
            }),
            done: Condvar::new(),
        }));
        match queue() {
            Some(queue) => {
                for target in targets {
                    if let Err(refused) = queue.send((target, batch.clone())) {
                        let (target, batch) = refused.0;
                        batch.finish(target.sync());
                    }
                }
            }
            None => targets
                .into_iter()
                .for_each(|target| batch.finish(target.sync())),
        }
        batch
    }

    /// Waits until every target is synced; the first error any of them met.
    pub fn wait(&self) -> io::Result<()> {
        let mut state = lock(&self.0.state);
        while state.remaining > 0 {
            state = self
                .0
                .done
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        match &state.first_error {
            None => Ok(()),
            Some((kind, message)) => Err(io::Error::new(*kind, message.clone())),
        }
    }

    /// Whether `other` is this batch.
    #[cfg(test)]
    pub fn is(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    fn finish(&self, result: io::Result<()>) {
        let mut state = lock(&self.0.state);
        if let Err(err) = result {
            state
                .first_error
                .get_or_insert_with(|| (err.kind(), err.to_string()));
        }
        state.remaining -= 1;
        if state.remaining == 0 {
            self.0.done.notify_all();
        }
    }
}

type Job = (Target, Batch);

/// The pool's queue, its threads started on first use; `None` when no thread could be
/// started (flushes then sync on the caller's thread).
fn queue() -> Option<&'static Sender<Job>> {
    static QUEUE: OnceLock<Option<Sender<Job>>> = OnceLock::new();
    QUEUE.get_or_init(start).as_ref()
}

fn start() -> Option<Sender<Job>> {
    let (sender, receiver) = channel::<Job>();
    let receiver = Arc::new(Mutex::new(receiver));
    let mut started = 0;
    for n in 0..SYNC_THREADS {
        let receiver = Arc::clone(&receiver);
        let spawned = std::thread::Builder::new()
            .name(format!("tavern-sync-{n}"))
            .spawn(move || work(&receiver));
        started += usize::from(spawned.is_ok());
    }
    (started > 0).then_some(sender)
}

/// One pool thread: takes the next target, syncs it, reports to its batch.
fn work(receiver: &Mutex<Receiver<Job>>) {
    loop {
        let job = lock(receiver).recv();
        match job {
            Ok((target, batch)) => batch.finish(target.sync()),
            Err(_) => return,
        }
    }
}
