//! The reader's fast path: a cached index of where each line of a chat file starts, so
//! reading a few messages of a 100,000-message chat is one seek and one short read.
//!
//! An index belongs to one version of one file and is reused only while the file's length,
//! modification time and identity are unchanged. Reads go through a single open handle, and
//! writers replace chats by rename, so the bytes behind a handle never change under the index;
//! as a second guard every read checks that the bytes it got are framed by newlines exactly
//! where the index says (a file edited in place fails this and is indexed again).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use agent_application::ports::ChatError;

use super::header::Header;
use super::io_error;
use super::lines::{LineOffsets, ScanError};
use super::stamp::FileStamp;

/// The line offsets and header of one version of a chat file.
#[derive(Debug)]
pub(crate) struct LineIndex {
    stamp: FileStamp,
    lines: LineOffsets,
    /// The header line; `None` when line 1 is already message 0 (see `header.rs`).
    header: Option<Vec<u8>>,
}

impl LineIndex {
    /// The header line; `None` for a chat without one.
    pub(crate) fn header(&self) -> Option<&[u8]> {
        self.header.as_deref()
    }

    /// Lines before message 0.
    fn header_lines(&self) -> usize {
        usize::from(self.header.is_some())
    }

    pub(crate) fn message_count(&self) -> usize {
        self.lines.line_count() - self.header_lines()
    }

    /// The file line (1-based) of message `index`.
    pub(crate) fn line_number(&self, index: usize) -> usize {
        index + 1 + self.header_lines()
    }

    /// Reads messages `messages` (non-empty, within the chat) from `file`; `None` when the
    /// file no longer matches the index.
    pub(crate) fn read_messages(
        &self,
        path: &Path,
        file: &mut File,
        messages: Range<usize>,
    ) -> Result<Option<MessageLines>, ChatError> {
        let first = self.header_lines();
        let lines = messages.start + first..messages.end + first;
        let block = read_span(path, file, self.lines.framed_span(lines.clone()))?;
        Ok(self
            .lines
            .unframe(lines, &block)
            .map(|inner| MessageLines { block, inner }))
    }
}

/// Consecutive message lines read in one go.
#[derive(Debug)]
pub(crate) struct MessageLines {
    block: Vec<u8>,
    /// Where in `block` the lines are, joined by `\n`.
    inner: Range<usize>,
}

impl MessageLines {
    pub(crate) fn lines(&self) -> impl Iterator<Item = &[u8]> {
        self.block[self.inner.clone()].split(|&b| b == b'\n')
    }
}

/// Indexes of the chats read so far, by path.
#[derive(Debug, Clone, Default)]
pub(crate) struct IndexCache {
    entries: Arc<Mutex<HashMap<PathBuf, Arc<LineIndex>>>>,
}

impl IndexCache {
    /// The index of the file open as `file`, reused when that file is unchanged.
    pub(crate) fn get(&self, path: &Path, file: &mut File) -> Result<Arc<LineIndex>, ChatError> {
        let stamp = stamp_of(path, file)?;
        let cached = self.entries().get(path).cloned();
        match cached {
            Some(index) if index.stamp == stamp => Ok(index),
            _ => self.rebuild(path, file),
        }
    }

    /// Indexes the file open as `file` again, whatever the cache holds.
    pub(crate) fn rebuild(
        &self,
        path: &Path,
        file: &mut File,
    ) -> Result<Arc<LineIndex>, ChatError> {
        let stamp = stamp_of(path, file)?;
        file.seek(SeekFrom::Start(0))
            .map_err(|err| io_error(path, err))?;
        let lines =
            LineOffsets::scan(BufReader::with_capacity(1 << 20, &mut *file)).map_err(|err| {
                match err {
                    ScanError::Invalid(err) => err,
                    ScanError::Io(err) => io_error(path, err),
                }
            })?;
        let header = match lines.line_count() {
            0 => None,
            _ => {
                let first = read_span(path, file, lines.span(0))?;
                Header::is_header_line(&first)?.then_some(first)
            }
        };
        let index = Arc::new(LineIndex {
            stamp,
            lines,
            header,
        });
        // A file that grew while it was scanned is indexed again on the next read.
        if index.lines.file_len() == index.stamp.file_len() {
            self.entries()
                .insert(path.to_path_buf(), Arc::clone(&index));
        }
        Ok(index)
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Arc<LineIndex>>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn stamp_of(path: &Path, file: &File) -> Result<FileStamp, ChatError> {
    file.metadata()
        .map(|meta| FileStamp::of(&meta))
        .map_err(|err| io_error(path, err))
}

fn read_span(path: &Path, file: &mut File, span: Range<u64>) -> Result<Vec<u8>, ChatError> {
    let len = usize::try_from(span.end - span.start)
        .map_err(|_| ChatError::Io(format!("{}: the chat is too large to read", path.display())))?;
    let mut bytes = vec![0u8; len];
    file.seek(SeekFrom::Start(span.start))
        .map_err(|err| io_error(path, err))?;
    file.read_exact(&mut bytes)
        .map_err(|err| io_error(path, err))?;
    Ok(bytes)
}
