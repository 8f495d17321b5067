//! A whole chat file in memory, for writers: every line is kept as the exact bytes read, so a
//! rewrite changes only the line it means to.
//!
//! Lines end with `\n` or, in a chat saved on Windows or through a tool that converts line
//! endings, `\r\n`. A line's content excludes its ending; a replaced line keeps the ending it
//! had, and a new line gets the file's ending (that of its first line), so a CRLF chat stays
//! CRLF.

use std::collections::BTreeMap;

use agent_application::ports::ChatError;

use super::header::Header;
use super::lines::{LineOffsets, ScanError};

/// A chat file split into lines, knowing whether line 1 is a header or already message 0
/// (an old-format group chat, see `header.rs`).
#[derive(Debug)]
pub(crate) struct ChatDocument {
    bytes: Vec<u8>,
    lines: LineOffsets,
    /// Lines before message 0: 1 with a header line, 0 without.
    header_lines: usize,
    /// The line ending new lines get: the first line's, `\n` when it has none.
    eol: &'static [u8],
}

impl ChatDocument {
    pub(crate) fn parse(bytes: Vec<u8>) -> Result<Self, ChatError> {
        let lines = LineOffsets::scan(bytes.as_slice()).map_err(|err| match err {
            ScanError::Invalid(err) => err,
            ScanError::Io(err) => ChatError::Io(err.to_string()),
        })?;
        let mut doc = Self {
            bytes,
            lines,
            header_lines: 0,
            eol: b"\n",
        };
        if doc.lines.line_count() > 0 && doc.ending(0) == b"\r\n" {
            doc.eol = b"\r\n";
        }
        if doc.lines.line_count() > 0 && Header::is_header_line(doc.line(0))? {
            doc.header_lines = 1;
        }
        Ok(doc)
    }

    /// The header line; `None` for a chat without one.
    pub(crate) fn header(&self) -> Option<&[u8]> {
        (self.header_lines == 1).then(|| self.line(0))
    }

    pub(crate) fn message_count(&self) -> usize {
        self.lines.line_count() - self.header_lines
    }

    /// The file line (1-based) of message `index`.
    pub(crate) fn line_number(&self, index: usize) -> usize {
        index + self.header_lines + 1
    }

    /// The line of message `index`, if the chat has it.
    pub(crate) fn message(&self, index: usize) -> Option<&[u8]> {
        (index < self.message_count()).then(|| self.line(index + self.header_lines))
    }

    /// The file with `header` as its header line: replacing the one there is, or put before
    /// message 0 in a chat without one.
    pub(crate) fn with_header(&self, header: &[u8]) -> Vec<u8> {
        match (self.header_lines, self.lines.line_count()) {
            (1, _) => self.splice(0, header),
            (_, 0) => header.to_vec(),
            _ => [header, self.eol, &self.bytes].concat(),
        }
    }

    /// The file with message `index` (which exists) replaced by `line`.
    pub(crate) fn with_message(&self, index: usize, line: &[u8]) -> Vec<u8> {
        self.splice(index + self.header_lines, line)
    }

    /// The file with `line` added as its last message, keeping whether the file ends with a
    /// newline (SillyTavern writes none) and its line ending.
    pub(crate) fn with_appended(&self, line: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes.len() + line.len() + 2);
        out.extend_from_slice(&self.bytes);
        if self.lines.line_count() == 0 {
            out.extend_from_slice(line);
        } else if self.lines.ends_with_newline() {
            out.extend_from_slice(line);
            out.extend_from_slice(self.eol);
        } else {
            out.extend_from_slice(self.eol);
            out.extend_from_slice(line);
        }
        out
    }

    /// The file with some messages replaced (`Some(line)`) or removed (`None`), by index;
    /// every other line keeps its bytes, every line its ending, and the file keeps ending
    /// with a newline or not.
    pub(crate) fn with_edits(&self, edits: &BTreeMap<usize, Option<Vec<u8>>>) -> Vec<u8> {
        let mut lines: Vec<(&[u8], &[u8])> = Vec::new();
        for line in 0..self.lines.line_count() {
            let content = match line.checked_sub(self.header_lines) {
                Some(index) => match edits.get(&index) {
                    Some(Some(replaced)) => replaced.as_slice(),
                    Some(None) => continue,
                    None => self.line(line),
                },
                None => self.line(line),
            };
            lines.push((content, self.ending(line)));
        }
        let mut out = Vec::with_capacity(self.bytes.len());
        let last = lines.len().saturating_sub(1);
        for (i, (content, ending)) in lines.iter().enumerate() {
            out.extend_from_slice(content);
            // An empty file stays empty (a headerless chat whose every message went).
            if i < last || self.lines.ends_with_newline() {
                // Only the file's last line can lack an ending, and it stays last.
                out.extend_from_slice(if ending.is_empty() { self.eol } else { ending });
            }
        }
        out
    }

    /// The file as read.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The content of line `line`: its bytes without the ending.
    fn line(&self, line: usize) -> &[u8] {
        let (start, end) = self.content(line);
        &self.bytes[start..end]
    }

    /// What ends line `line`: `\n`, `\r\n`, or nothing for a last line without one.
    fn ending(&self, line: usize) -> &[u8] {
        let (_, end) = self.content(line);
        let next = (self.lines.span(line).end as usize + 1).min(self.bytes.len());
        &self.bytes[end..next]
    }

    /// Where the content of line `line` lies: the line without its `\n`, and without the
    /// `\r` before that `\n`.
    fn content(&self, line: usize) -> (usize, usize) {
        let span = self.lines.span(line);
        let (start, end) = (span.start as usize, span.end as usize);
        let terminated = end < self.bytes.len();
        if terminated && end > start && self.bytes[end - 1] == b'\r' {
            (start, end - 1)
        } else {
            (start, end)
        }
    }

    fn splice(&self, line: usize, with: &[u8]) -> Vec<u8> {
        let (start, end) = self.content(line);
        [&self.bytes[..start], with, &self.bytes[end..]].concat()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(bytes: &[u8]) -> ChatDocument {
        ChatDocument::parse(bytes.to_vec()).unwrap()
    }

    #[test]
    fn rewrites_touch_only_their_line() {
        let doc = doc(b"{\"h\":1}\n{\"a\":1}\n{\"b\":2}");
        assert_eq!(doc.header(), Some(&b"{\"h\":1}"[..]));
        assert_eq!(doc.message(1), Some(&b"{\"b\":2}"[..]));
        assert_eq!(doc.message(2), None);
        assert_eq!(doc.with_message(0, b"{}"), b"{\"h\":1}\n{}\n{\"b\":2}");
        assert_eq!(doc.with_header(b"{}"), b"{}\n{\"a\":1}\n{\"b\":2}");
        assert_eq!(
            doc.with_appended(b"{}"),
            b"{\"h\":1}\n{\"a\":1}\n{\"b\":2}\n{}"
        );
        let ended = ChatDocument::parse(b"{}\n{\"a\":1}\n".to_vec()).unwrap();
        assert_eq!(ended.with_appended(b"{}"), b"{}\n{\"a\":1}\n{}\n");
        assert_eq!(ended.with_message(0, b"[]"), b"{}\n[]\n");
        let edits = BTreeMap::from([(0, None), (1, Some(b"{\"c\":3}".to_vec()))]);
        assert_eq!(doc.with_edits(&edits), b"{\"h\":1}\n{\"c\":3}");
        assert_eq!(ended.with_edits(&BTreeMap::new()), b"{}\n{\"a\":1}\n");
    }

    #[test]
    fn a_crlf_chat_stays_crlf() {
        let crlf = doc(b"{\"h\":1}\r\n{\"a\":1}\r\n{\"b\":2}");
        assert_eq!(crlf.header(), Some(&b"{\"h\":1}"[..]));
        assert_eq!(crlf.message(0), Some(&b"{\"a\":1}"[..]));
        assert_eq!(crlf.with_message(0, b"{}"), b"{\"h\":1}\r\n{}\r\n{\"b\":2}");
        assert_eq!(crlf.with_header(b"{}"), b"{}\r\n{\"a\":1}\r\n{\"b\":2}");
        assert_eq!(
            crlf.with_appended(b"{}"),
            b"{\"h\":1}\r\n{\"a\":1}\r\n{\"b\":2}\r\n{}"
        );
        // The last line goes: the new last line loses its ending, as the file had none.
        let edits = BTreeMap::from([(1, None), (0, Some(b"{\"c\":3}".to_vec()))]);
        assert_eq!(crlf.with_edits(&edits), b"{\"h\":1}\r\n{\"c\":3}");
        let ended = doc(b"{}\r\n{\"a\":1}\r\n");
        assert_eq!(ended.with_appended(b"{}"), b"{}\r\n{\"a\":1}\r\n{}\r\n");
        assert_eq!(ended.with_edits(&BTreeMap::new()), b"{}\r\n{\"a\":1}\r\n");
        let none = BTreeMap::from([(0, None)]);
        assert_eq!(ended.with_edits(&none), b"{}\r\n");
        // A headerless CRLF group chat gets a CRLF header.
        let bare = doc(b"{\"mes\":\"one\"}\r\n{\"mes\":\"two\"}\r\n");
        assert_eq!(bare.header(), None);
        assert_eq!(
            bare.with_header(b"{}"),
            b"{}\r\n{\"mes\":\"one\"}\r\n{\"mes\":\"two\"}\r\n"
        );
        // Mixed endings: each line keeps its own; new lines follow the first line.
        let mixed = doc(b"{}\r\n{\"a\":1}\n{\"b\":2}\n");
        assert_eq!(
            mixed.with_edits(&BTreeMap::from([(0, Some(b"[]".to_vec()))])),
            b"{}\r\n[]\n{\"b\":2}\n"
        );
        assert_eq!(
            mixed.with_appended(b"{}"),
            b"{}\r\n{\"a\":1}\n{\"b\":2}\n{}\r\n"
        );
    }

    #[test]
    fn a_chat_of_bare_messages_has_no_header() {
        let doc = doc(b"{\"name\":\"A\",\"mes\":\"one\"}\n{\"mes\":\"two\"}");
        assert_eq!(doc.header(), None);
        assert_eq!(doc.message_count(), 2);
        assert_eq!(
            doc.message(0),
            Some(&b"{\"name\":\"A\",\"mes\":\"one\"}"[..])
        );
        assert_eq!(
            doc.with_message(0, b"{\"mes\":\"1\"}"),
            b"{\"mes\":\"1\"}\n{\"mes\":\"two\"}"
        );
        assert_eq!(
            doc.with_appended(b"{\"mes\":\"three\"}"),
            b"{\"name\":\"A\",\"mes\":\"one\"}\n{\"mes\":\"two\"}\n{\"mes\":\"three\"}"
        );
        assert_eq!(
            doc.with_header(b"{}"),
            b"{}\n{\"name\":\"A\",\"mes\":\"one\"}\n{\"mes\":\"two\"}"
        );

        // Deleting every message of a headerless chat leaves an empty file, not a lone
        // line break.
        let ended = ChatDocument::parse(b"{\"mes\":\"one\"}\n".to_vec()).unwrap();
        let all = BTreeMap::from([(0, None)]);
        assert_eq!(ended.with_edits(&all), b"");

        let empty = ChatDocument::parse(Vec::new()).unwrap();
        assert_eq!((empty.header(), empty.message_count()), (None, 0));
        assert_eq!(empty.with_appended(b"{\"mes\":\"x\"}"), b"{\"mes\":\"x\"}");
        assert_eq!(empty.with_header(b"{}"), b"{}");
    }
}
