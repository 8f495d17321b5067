//! Following a journal: the events after a seq, then new ones as they are appended, until
//! the terminal event.
//!
//! Two sources feed a follower. Appends made through the same [`FsEventJournal`] arrive on
//! an in-process broadcast channel, without touching the file. Appends made by another
//! process (or another journal instance) are found by polling the file's length and reading
//! only the committed bytes past the follower's offset. Both carry seqs, so whichever
//! delivers an event first wins and the other copy is skipped. A lagging receiver simply
//! falls back to the file.
//!
//! [`FsEventJournal`]: super::FsEventJournal

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_application::ports::{EventStream, JournalError};
use agent_domain::event::JournalLine;
use agent_domain::run::RunId;
use futures::StreamExt;
use tokio::sync::broadcast::{self, error::RecvError};

use super::scan::{Scan, SeqOrder, Tail, io_error, is_blank};
use super::writer::Appended;

/// Lines parsed per file read, so following a long journal from the start streams it.
const BATCH: usize = 1024;

/// Where a follower starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Start {
    /// Right after this seq (0: from the first event).
    AfterSeq(u64),
    /// After the events already in the file.
    End,
}

/// A follower's place in the file: the committed offset it has read up to, the seq the line
/// there must have, and the seq it hands out next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cursor {
    offset: u64,
    /// The seq of the line at `offset`: lines read from the file must be numbered on from
    /// it, or the journal is corrupt.
    file_seq: u64,
    next_seq: u64,
    /// The file length when everything in it was read and it had no torn tail; polling
    /// skips the read while the length stays the same.
    seen_len: Option<u64>,
    /// The journal already ends with its terminal event.
    ended: bool,
}

impl Start {
    /// The seq the follower starts after, in a journal whose last seq is `last_seq`.
    fn after(self, last_seq: u64) -> u64 {
        match self {
            Self::AfterSeq(seq) => seq,
            Self::End => last_seq,
        }
    }
}

/// Finds where to start (blocking). A missing file is an empty journal.
fn locate(path: &Path, run: &RunId, start: Start) -> Result<Cursor, JournalError> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            return Ok(Cursor {
                offset: 0,
                file_seq: 1,
                next_seq: start.after(0).saturating_add(1),
                seen_len: None,
                ended: false,
            });
        }
        Err(err) => return Err(io_error(err)),
    };
    let len = file.metadata().map_err(io_error)?.len();
    let scan = Scan::new(&file, run.as_str());
    let tail = scan.tail(len)?;
    let last_seq = tail.last.map_or(0, |last| last.seq);
    let after = start.after(last_seq);
    if after < last_seq {
        // Start at the line of `after` itself (it is read and skipped), so a repeat of it
        // is caught like any other line out of order.
        let (offset, file_seq) = match after {
            0 => (0, 1),
            after => (scan.offset_of(&tail, after)?, after),
        };
        return Ok(Cursor {
            offset,
            file_seq,
            next_seq: after + 1,
            seen_len: None,
            ended: false,
        });
    }
    Ok(Cursor {
        offset: tail.end,
        file_seq: last_seq + 1,
        next_seq: after.saturating_add(1),
        seen_len: (tail.end == len).then_some(len),
        ended: ends_with_terminal(&scan, &tail)?,
    })
}

/// Whether the last committed line ends the journal: a terminal event, or a note written
/// after one (a rollback); nothing more will follow while someone waits.
fn ends_with_terminal(scan: &Scan<'_>, tail: &Tail) -> Result<bool, JournalError> {
    let Some(last) = tail.last else {
        return Ok(false);
    };
    let mut lines = scan.forward(last.start, tail.end)?;
    match lines.next_line().map_err(io_error)? {
        Some((start, bytes)) => {
            let event = scan.parse(start, &bytes)?.event;
            Ok(event.is_terminal() || event.is_after_end())
        }
        None => Ok(false),
    }
}

/// New lines and whether more may follow at once.
type Batch = (Vec<JournalLine>, bool);

/// Reads committed lines past the cursor (blocking), at most [`BATCH`] of them. A line that
/// does not parse or is out of order ends the batch; read again, it is the error.
fn read_new(path: &Path, run: &RunId, cursor: &mut Cursor) -> Result<Batch, JournalError> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok((Vec::new(), false)),
        Err(err) => return Err(io_error(err)),
    };
    let len = file.metadata().map_err(io_error)?.len();
    if cursor.seen_len == Some(len) {
        return Ok((Vec::new(), false));
    }
    let scan = Scan::new(&file, run.as_str());
    let tail = scan.tail(len)?;
    let mut lines = scan.forward(cursor.offset, tail.end)?;
    let mut order = SeqOrder::forward(Some(cursor.file_seq));
    let mut batch = Vec::new();
    while batch.len() < BATCH {
        let Some((start, bytes)) = lines.next_line().map_err(io_error)? else {
            cursor.seen_len = (tail.end == len).then_some(len);
            return Ok((batch, false));
        };
        let end = start + bytes.len() as u64;
        if is_blank(&bytes) {
            cursor.offset = end;
            continue;
        }
        let checked = scan.parse(start, &bytes).and_then(|line| {
            order.check(&scan, start, line.seq)?;
            Ok(line)
        });
        let line = match checked {
            Ok(line) => line,
            // Hand out the good lines first; the next read starts at the bad one.
            Err(_) if !batch.is_empty() => return Ok((batch, true)),
            Err(err) => return Err(err),
        };
        cursor.offset = end;
        cursor.file_seq = line.seq + 1;
        if line.seq >= cursor.next_seq {
            cursor.next_seq = line.seq + 1;
            batch.push(line);
        }
    }
    Ok((batch, true))
}

struct Follower {
    path: PathBuf,
    run: RunId,
    cursor: Cursor,
    pending: VecDeque<JournalLine>,
    /// The file may hold lines the follower has not read yet.
    stale: bool,
    done: bool,
    receiver: Option<broadcast::Receiver<Appended>>,
    poll: Duration,
}

impl Follower {
    async fn next(&mut self) -> Option<Result<JournalLine, JournalError>> {
        loop {
            if let Some(line) = self.pending.pop_front() {
                if line.event.is_terminal() || line.event.is_after_end() {
                    self.done = true;
                    self.pending.clear();
                }
                return Some(Ok(line));
            }
            if self.done || self.cursor.ended {
                return None;
            }
            if self.stale {
                self.stale = false;
                if let Err(err) = self.read_file().await {
                    self.done = true;
                    return Some(Err(err));
                }
                continue;
            }
            match self.wait().await {
                Some(appended) if appended.line.seq == self.cursor.next_seq => {
                    self.cursor.offset = appended.end;
                    self.cursor.file_seq = appended.line.seq + 1;
                    self.cursor.next_seq += 1;
                    self.cursor.seen_len = Some(appended.end);
                    self.pending.push_back(appended.line);
                }
                Some(appended) if appended.line.seq < self.cursor.next_seq => {}
                _ => self.stale = true,
            }
        }
    }

    async fn read_file(&mut self) -> Result<(), JournalError> {
        let (path, run, mut cursor) = (self.path.clone(), self.run.clone(), self.cursor);
        let (cursor, batch) = tokio::task::spawn_blocking(move || {
            let batch = read_new(&path, &run, &mut cursor);
            (cursor, batch)
        })
        .await
        .map_err(|err| JournalError::Io(err.to_string()))?;
        let (batch, more) = batch?;
        // A full batch may leave more behind: read again before waiting.
        self.stale = more;
        self.cursor = cursor;
        self.pending.extend(batch);
        Ok(())
    }

    /// Waits for an in-process append, or until it is time to look at the file (`None`:
    /// the poll interval passed, or the receiver lagged or closed).
    async fn wait(&mut self) -> Option<Appended> {
        let Some(receiver) = self.receiver.as_mut() else {
            tokio::time::sleep(self.poll).await;
            return None;
        };
        match tokio::time::timeout(self.poll, receiver.recv()).await {
            Ok(Ok(appended)) => Some(appended),
            Ok(Err(RecvError::Lagged(_))) | Err(_) => None,
            Ok(Err(RecvError::Closed)) => {
                self.receiver = None;
                None
            }
        }
    }
}

/// A stream of the run's events from `start` until the terminal event. `receiver` must be
/// subscribed before the file is looked at, so no append falls between the two.
pub(super) async fn follow(
    path: PathBuf,
    run: RunId,
    start: Start,
    receiver: broadcast::Receiver<Appended>,
    poll: Duration,
) -> Result<EventStream, JournalError> {
    let (located_path, located_run) = (path.clone(), run.clone());
    let cursor = tokio::task::spawn_blocking(move || locate(&located_path, &located_run, start))
        .await
        .map_err(|err| JournalError::Io(err.to_string()))??;
    let follower = Follower {
        path,
        run,
        stale: !cursor.ended,
        cursor,
        pending: VecDeque::new(),
        done: false,
        receiver: Some(receiver),
        poll,
    };
    Ok(
        futures::stream::unfold(follower, |mut follower| async move {
            let item = follower.next().await?;
            Some((item, follower))
        })
        .boxed(),
    )
}
