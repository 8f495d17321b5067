//! The writing end of one run's journal, owned by one process at a time.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

use agent_application::ports::{EventDraft, JournalError};
use agent_domain::event::JournalLine;
use agent_domain::run::RunId;

use super::scan::{Scan, io_error};

/// A line just appended and the file length after it (where a follower continues).
#[derive(Debug, Clone)]
pub(super) struct Appended {
    pub line: JournalLine,
    pub end: u64,
}

/// An open, OS-locked `events.jsonl` with the two facts appending needs, recovered once
/// from the tail when opened: the committed length and the last seq.
#[derive(Debug)]
pub(super) struct RunWriter {
    file: File,
    path: PathBuf,
    /// The line being written, kept to reuse its allocation.
    buffer: Vec<u8>,
    run: String,
    len: u64,
    last_seq: u64,
}

impl RunWriter {
    /// Opens (creating it and its directory) and locks the journal, then truncates a torn
    /// last line away. Another open file holding the lock (another process, or another
    /// journal instance) makes this [`JournalError::Locked`]; it never waits.
    pub fn open(path: &Path, run: &RunId) -> Result<Self, JournalError> {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(io_error)?;
        }
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io_error)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(JournalError::Locked(run.to_string())),
            Err(TryLockError::Error(err)) => return Err(io_error(err)),
        }
        let len = file.metadata().map_err(io_error)?.len();
        let tail = Scan::new(&file, run.as_str()).tail(len)?;
        if tail.end < len {
            file.set_len(tail.end).map_err(io_error)?;
            file.sync_data().map_err(io_error)?;
        }
        Ok(Self {
            file,
            path: path.to_path_buf(),
            buffer: Vec::with_capacity(1024),
            run: run.to_string(),
            len: tail.end,
            last_seq: tail.last.map_or(0, |last| last.seq),
        })
    }

    /// Where the journal is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A second handle on the open file, for syncing it elsewhere.
    pub fn handle(&self) -> std::io::Result<File> {
        self.file.try_clone()
    }

    /// Writes the next line with one `write` of the whole line and its `\n`, then syncs the
    /// data when `sync`. After an error the writer must be dropped: the next append reopens
    /// the file and recovers from it as after a crash.
    pub fn append(&mut self, draft: EventDraft, sync: bool) -> Result<Appended, JournalError> {
        let seq = self.last_seq + 1;
        let id = format!("evt_{}", uuid::Uuid::new_v4().simple());
        let line = JournalLine::new(seq, id, self.run.as_str(), draft.timestamp, draft.event);
        let bytes = &mut self.buffer;
        bytes.clear();
        serde_json::to_writer(&mut *bytes, &line)
            .map_err(|err| JournalError::Io(err.to_string()))?;
        bytes.push(b'\n');
        if let Err(err) = (&self.file).write_all(bytes) {
            // Best effort: a partial line left here is a torn tail the reopen repairs.
            let _ = self.file.set_len(self.len);
            return Err(io_error(err));
        }
        if sync {
            self.file.sync_data().map_err(io_error)?;
        }
        self.len += bytes.len() as u64;
        self.last_seq = seq;
        Ok(Appended {
            line,
            end: self.len,
        })
    }
}
