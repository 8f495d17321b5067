//! The event journal of every run: `events.jsonl` in the run's directory, one compact JSON
//! [`JournalLine`] per line (see `docs/storage/journal.md`).
//!
//! * Appending numbers events 1, 2, 3, … without gaps. Within the process a per-run async
//!   mutex serialises appends; across processes an OS lock on the open file makes a second
//!   writer fail fast with [`JournalError::Locked`]. The writer keeps the file open, with
//!   its length and last seq, from its first append until the run's terminal event.
//! * Durability follows the data directory's policy ([`Durability`]): under `strict` every
//!   line is synced. Under `normal` an acknowledgement
//!   ([`DurabilityBarrier`](agent_domain::event::DurabilityBarrier)) first syncs every file
//!   the run stores wrote without syncing, then its own line; the start of a model round
//!   hands its line and everything pending to a background group commit. Other lines are
//!   one `write` into the page cache, done right on the calling task: a hop to the
//!   blocking pool would cost more than the write.
//! * A torn last line left by a crash is ignored by readers and truncated away by the next
//!   writer to open the file.
//! * Reading a page touches only the blocks around it: the line of a seq is found by binary
//!   search over byte offsets, so the newest page of a million-event journal costs what it
//!   costs on a small one.
//! * Followers get new events from an in-process broadcast, and poll the file for events
//!   appended by other processes.

mod follow;
mod page;
mod scan;
mod writer;

use std::collections::HashMap;
use std::fs::{File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use agent_application::ports::{
    EventDraft, EventJournal, EventQuery, EventStream, JournalError, StoreError,
};
use agent_domain::event::{DurabilityBarrier, JournalLine};
use agent_domain::run::{RunId, WorkspaceId};
use async_trait::async_trait;
use tokio::sync::broadcast;

use crate::durability::{Durability, Syncer};
use crate::layout::RunDir;
use crate::run_locator::{LocateError, RunLocator};
use crate::runs::store_io::io_error as store_io_error;
use follow::Start;
use scan::io_error;
use writer::{Appended, RunWriter};

use page::page_limit;
pub use page::{LIMIT_INVALID, belongs_to, read_page};

/// Whether a process holds the run's journal lock: drives the run, or changes it otherwise
/// (a rollback, a prune). Tested with a shared lock that is released at once.
pub(crate) fn journal_held(dir: &RunDir) -> Result<bool, StoreError> {
    journal_file_held(&dir.events())
}

/// [`journal_held`] of the journal file at `path`.
fn journal_file_held(path: &Path) -> Result<bool, StoreError> {
    let journal = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(err) => return Err(store_io_error(path, err)),
    };
    match journal.try_lock_shared() {
        Ok(()) => Ok(false),
        Err(TryLockError::WouldBlock) => Ok(true),
        Err(TryLockError::Error(err)) => Err(store_io_error(path, err)),
    }
}

/// How often a follower looks at the file for events appended by other processes.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(250);

/// Events buffered per follower before it falls back to reading the file.
const CHANNEL_CAPACITY: usize = 1024;

/// One run's writer, created by the first append and dropped after the terminal event.
type WriterSlot = Arc<tokio::sync::Mutex<Option<RunWriter>>>;

/// [`EventJournal`] over the run directories a [`RunLocator`] finds.
#[derive(Debug)]
pub struct FsEventJournal {
    locator: RunLocator,
    poll_interval: Duration,
    writers: Mutex<HashMap<RunId, WriterSlot>>,
    channels: Mutex<HashMap<RunId, broadcast::Sender<Appended>>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn join_error(err: tokio::task::JoinError) -> JournalError {
    JournalError::Io(format!("journal task failed: {err}"))
}

impl FsEventJournal {
    /// A journal syncing under the locator's durability policy, polling other writers
    /// every 250 ms.
    pub fn new(locator: RunLocator) -> Self {
        Self {
            locator,
            poll_interval: DEFAULT_POLL_INTERVAL,
            writers: Mutex::default(),
            channels: Mutex::default(),
        }
    }

    /// Chooses how often followers poll the file for other processes' appends.
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// Tells the journal which workspace a run lives in (through its shared
    /// [`RunLocator`]); a run not registered is looked up once in the run index.
    pub fn register_run(&self, run: &RunId, workspace: &WorkspaceId) {
        self.locator.register(run, workspace);
    }

    /// The run's events with a seq above `after_seq` (0: all of them), then new events as
    /// they are appended, by this process or another, until the terminal event. A journal
    /// that already ends with its terminal event yields what is left and ends.
    pub async fn follow(&self, run: &RunId, after_seq: u64) -> Result<EventStream, JournalError> {
        self.follow_from(run, Start::AfterSeq(after_seq)).await
    }

    async fn follow_from(&self, run: &RunId, start: Start) -> Result<EventStream, JournalError> {
        let path = self.events_path(run).await?;
        let receiver = lock(&self.channels)
            .entry(run.clone())
            .or_insert_with(|| broadcast::channel(CHANNEL_CAPACITY).0)
            .subscribe();
        follow::follow(path, run.clone(), start, receiver, self.poll_interval).await
    }

    /// `events.jsonl` of the run, from the registered workspace or the run index (read on
    /// the blocking pool, and only the first time).
    async fn events_path(&self, run: &RunId) -> Result<PathBuf, JournalError> {
        if let Some(dir) = self.locator.known_run_dir(run) {
            return Ok(dir.events());
        }
        let locator = self.locator.clone();
        let id = run.clone();
        let dir = tokio::task::spawn_blocking(move || locator.run_dir(&id))
            .await
            .map_err(join_error)?;
        match dir {
            Ok(dir) => Ok(dir.events()),
            Err(LocateError::UnknownRun(run)) => Err(JournalError::NotFound(run.to_string())),
            Err(other) => Err(JournalError::Io(other.to_string())),
        }
    }

    fn writer_slot(&self, run: &RunId) -> WriterSlot {
        let mut writers = lock(&self.writers);
        match writers.get(run) {
            Some(slot) => Arc::clone(slot),
            None => Arc::clone(writers.entry(run.clone()).or_default()),
        }
    }

    /// Hands an appended line to the run's followers. After the terminal event the channel
    /// is dropped, which ends every receiver once it has read that event.
    fn publish(&self, run: &RunId, appended: &Appended) {
        let mut channels = lock(&self.channels);
        let terminal = appended.line.event.is_terminal();
        if let Some(sender) = channels.get(run) {
            // No receiver left is fine: nobody is following.
            let _ = sender.send(appended.clone());
        }
        if terminal {
            channels.remove(run);
        }
    }
}

/// Opens the run's writer (blocking), its folder entry synced like any other file's.
fn open_writer(path: &Path, run: &RunId, syncer: &Syncer) -> Result<RunWriter, JournalError> {
    let writer = RunWriter::open(path, run)?;
    if let Some(dir) = path.parent() {
        syncer.dir_changed(dir);
    }
    Ok(writer)
}

/// Appends with the run's open writer, syncing what `sync` asks, and drops the writer
/// after an error (the next append recovers from the file) or after the terminal event
/// (releasing the OS lock).
fn append_locked(
    slot: &mut Option<RunWriter>,
    draft: EventDraft,
    sync: Sync,
    syncer: &Syncer,
) -> Result<Appended, JournalError> {
    let Some(writer) = slot else {
        return Err(JournalError::Io(
            "the journal writer is not open".to_owned(),
        ));
    };
    let result = match sync {
        Sync::Barrier => syncer
            .barrier()
            .map_err(sync_failed)
            .and_then(|()| writer.append(draft, true)),
        Sync::Line => writer.append(draft, true),
        Sync::None => writer.append(draft, false),
        Sync::Background => writer.append(draft, false).and_then(|appended| {
            let file = writer.handle().map_err(io_error)?;
            syncer.placed(writer.path(), file).map_err(sync_failed)?;
            syncer.barrier_in_background().map_err(sync_failed)?;
            Ok(appended)
        }),
    };
    let finished = match &result {
        Ok(appended) => appended.line.event.is_terminal(),
        Err(_) => true,
    };
    if finished {
        *slot = None;
    }
    result
}

/// What an append syncs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sync {
    /// Nothing: the line is in the page cache.
    None,
    /// The line, before `append` returns (strict policy).
    Line,
    /// Every file pending under the data directory's syncer, then the line, before
    /// `append` returns.
    Barrier,
    /// The line and every pending file, in a background group commit.
    Background,
}

fn sync_failed(err: std::io::Error) -> JournalError {
    JournalError::Io(format!("syncing the run's files: {err}"))
}

#[async_trait]
impl EventJournal for FsEventJournal {
    async fn append(&self, run: &RunId, draft: EventDraft) -> Result<JournalLine, JournalError> {
        let syncer = self.locator.syncer();
        let sync = match (syncer.durability(), draft.event.durability_barrier()) {
            (Durability::Strict, _) => Sync::Line,
            (Durability::Normal, None) => Sync::None,
            (Durability::Normal, Some(DurabilityBarrier::RoundStart)) => Sync::Background,
            (Durability::Normal, Some(_)) => Sync::Barrier,
        };
        let mut guard = self.writer_slot(run).lock_owned().await;
        if guard.is_none() {
            let path = self.events_path(run).await?;
            let (owner, syncer) = (run.clone(), syncer.clone());
            let writer = tokio::task::spawn_blocking(move || open_writer(&path, &owner, &syncer))
                .await
                .map_err(join_error)??;
            *guard = Some(writer);
        }
        // Appending without a sync is one `write`: done here. Syncing goes to the blocking
        // pool.
        let (guard, result) = if sync == Sync::None {
            let result = append_locked(&mut guard, draft, sync, syncer);
            (guard, result)
        } else {
            let syncer = syncer.clone();
            tokio::task::spawn_blocking(move || {
                let result = append_locked(&mut guard, draft, sync, &syncer);
                (guard, result)
            })
            .await
            .map_err(join_error)?
        };
        let appended = result?;
        // Still holding the run's lock, so followers receive events in seq order.
        self.publish(run, &appended);
        drop(guard);
        Ok(appended.line)
    }

    async fn read(
        &self,
        run: &RunId,
        query: &EventQuery,
    ) -> Result<Vec<JournalLine>, JournalError> {
        page_limit(query)?;
        let path = self.events_path(run).await?;
        let (run, query) = (run.clone(), query.clone());
        tokio::task::spawn_blocking(move || read_page(&path, &run, &query))
            .await
            .map_err(join_error)?
    }

    async fn subscribe(&self, run: &RunId) -> Result<EventStream, JournalError> {
        self.follow_from(run, Start::End).await
    }

    async fn is_held(&self, run: &RunId) -> Result<bool, JournalError> {
        let path = self.events_path(run).await?;
        tokio::task::spawn_blocking(move || journal_file_held(&path))
            .await
            .map_err(join_error)?
            .map_err(|err| JournalError::Io(err.to_string()))
    }
}
