//! A whole chat file in memory, for writers: every line is kept as the exact bytes read, so a
//! rewrite changes only the line it means to.

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
        };
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
            _ => [header, b"\n", &self.bytes].concat(),
        }
    }

    /// The file with message `index` (which exists) replaced by `line`.
    pub(crate) fn with_message(&self, index: usize, line: &[u8]) -> Vec<u8> {
        self.splice(index + self.header_lines, line)
    }

    /// The file with `line` added as its last message, keeping whether the file ends with a
    /// newline (SillyTavern writes none).
    pub(crate) fn with_appended(&self, line: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes.len() + line.len() + 1);
        out.extend_from_slice(&self.bytes);
        if self.lines.line_count() == 0 {
            out.extend_from_slice(line);
        } else if self.lines.ends_with_newline() {
            out.extend_from_slice(line);
            out.push(b'\n');
        } else {
            out.push(b'\n');
            out.extend_from_slice(line);
        }
        out
    }

    /// The file with some messages replaced (`Some(line)`) or removed (`None`), by index;
    /// every other line keeps its bytes, and the file keeps ending with a newline or not.
    pub(crate) fn with_edits(&self, edits: &BTreeMap<usize, Option<Vec<u8>>>) -> Vec<u8> {
        let mut lines: Vec<&[u8]> = self.header().into_iter().collect();
        for index in 0..self.message_count() {
            match edits.get(&index) {
                Some(Some(line)) => lines.push(line),
                Some(None) => {}
                None => lines.push(self.line(index + self.header_lines)),
            }
        }
        let mut out = lines.join(&b'\n');
        // An empty file stays empty (a headerless chat whose every message went).
        if self.lines.ends_with_newline() && !lines.is_empty() {
            out.push(b'\n');
        }
        out
    }

    /// The file as read.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    fn line(&self, line: usize) -> &[u8] {
        let span = self.lines.span(line);
        &self.bytes[span.start as usize..span.end as usize]
    }

    fn splice(&self, line: usize, with: &[u8]) -> Vec<u8> {
        let span = self.lines.span(line);
        let (before, after) = (
            &self.bytes[..span.start as usize],
            &self.bytes[span.end as usize..],
        );
        [before, with, after].concat()
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
