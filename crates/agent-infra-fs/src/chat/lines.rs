//! Splitting a chat file into lines, and refusing the shapes SillyTavern would not write.
//!
//! Lines end with `\n`; a final `\n` ends the last line rather than starting an empty one.
//! A blank (whitespace-only) line anywhere is an error, because it would shift every later
//! message index. Whether line 1 is a header or already a message is not decided here (see
//! `header::first_line`); an empty file has no lines at all.

use std::io::{self, Read};
use std::ops::Range;

use agent_application::ports::ChatError;

/// Where every line of one chat file starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineOffsets {
    /// Start of each line, plus one past the end of the last line (where its `\n` would be).
    starts: Vec<u64>,
    len: u64,
}

impl LineOffsets {
    /// Scans `reader` (the whole file, from its start) in one pass.
    pub(crate) fn scan(mut reader: impl Read) -> Result<Self, ScanError> {
        let mut scanner = Scanner {
            starts: vec![0],
            pos: 0,
            has_content: false,
        };
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return scanner.finish(),
                Ok(n) => scanner.feed(&buf[..n])?,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(ScanError::Io(err)),
            }
        }
    }

    /// Every line of the file, the header (if any) included.
    pub(crate) fn line_count(&self) -> usize {
        self.starts.len() - 1
    }

    /// The bytes of line `line` (0-based) without its `\n`. `line < line_count()`.
    pub(crate) fn span(&self, line: usize) -> Range<u64> {
        self.starts[line]..self.starts[line + 1] - 1
    }

    /// The bytes of the lines `lines`, with the `\n` before the first (unless it is the
    /// file's first line) and, when there is one, after the last: reading exactly these lets a
    /// reader check the index still fits the file. `lines` is non-empty and ends at most at
    /// `line_count()`.
    pub(crate) fn framed_span(&self, lines: Range<usize>) -> Range<u64> {
        let start = match lines.start {
            0 => 0,
            line => self.starts[line] - 1,
        };
        start..self.starts[lines.end].min(self.len)
    }

    /// Where in `block` (as read from [`Self::framed_span`]) the lines `lines` are, joined by
    /// `\n`; `None` when the block does not frame exactly those lines, i.e. the file changed.
    pub(crate) fn unframe(&self, lines: Range<usize>, block: &[u8]) -> Option<Range<usize>> {
        let begin = match lines.start {
            0 => 0,
            _ if block.first() == Some(&b'\n') => 1,
            _ => return None,
        };
        let end = if self.starts[lines.end] <= self.len {
            (block.len() > begin + 1 && block.last() == Some(&b'\n')).then(|| block.len() - 1)?
        } else {
            block.len()
        };
        let newlines = block
            .get(begin..end)?
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        (newlines + 1 == lines.len()).then_some(begin..end)
    }

    pub(crate) fn ends_with_newline(&self) -> bool {
        self.starts.last() == Some(&self.len)
    }

    pub(crate) fn file_len(&self) -> u64 {
        self.len
    }
}

/// Why a chat file could not be split into lines.
#[derive(Debug)]
pub(crate) enum ScanError {
    Invalid(ChatError),
    Io(io::Error),
}

impl From<ChatError> for ScanError {
    fn from(err: ChatError) -> Self {
        Self::Invalid(err)
    }
}

struct Scanner {
    starts: Vec<u64>,
    pos: u64,
    /// Whether the line being scanned has a byte other than JSON whitespace so far.
    has_content: bool,
}

impl Scanner {
    fn feed(&mut self, mut chunk: &[u8]) -> Result<(), ChatError> {
        while let Some(newline) = chunk.iter().position(|&b| b == b'\n') {
            self.note(&chunk[..newline]);
            self.pos += newline as u64 + 1;
            self.end_line()?;
            chunk = &chunk[newline + 1..];
        }
        self.note(chunk);
        self.pos += chunk.len() as u64;
        Ok(())
    }

    fn note(&mut self, part: &[u8]) {
        if !self.has_content {
            self.has_content = part.iter().any(|b| !matches!(b, b' ' | b'\t' | b'\r'));
        }
    }

    fn end_line(&mut self) -> Result<(), ChatError> {
        if !self.has_content {
            return Err(blank_line(self.starts.len()));
        }
        self.starts.push(self.pos);
        self.has_content = false;
        Ok(())
    }

    fn finish(mut self) -> Result<LineOffsets, ScanError> {
        let last_start = self.starts.last().copied().unwrap_or_default();
        if self.pos > last_start {
            // The last line has no `\n`; record where it would be.
            if !self.has_content {
                return Err(blank_line(self.starts.len()).into());
            }
            self.starts.push(self.pos + 1);
        }
        Ok(LineOffsets {
            starts: self.starts,
            len: self.pos,
        })
    }
}

/// The error for a blank line numbered `line` (1-based).
fn blank_line(line: usize) -> ChatError {
    if line == 1 {
        ChatError::InvalidHeader("line 1 is blank".into())
    } else {
        ChatError::InvalidMessage {
            line,
            detail: "blank line".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(bytes: &[u8]) -> Result<LineOffsets, ChatError> {
        LineOffsets::scan(bytes).map_err(|err| match err {
            ScanError::Invalid(err) => err,
            ScanError::Io(err) => ChatError::Io(err.to_string()),
        })
    }

    fn spans(bytes: &[u8]) -> Vec<&[u8]> {
        let lines = scan(bytes).unwrap();
        (0..lines.line_count())
            .map(|i| {
                let span = lines.span(i);
                &bytes[span.start as usize..span.end as usize]
            })
            .collect()
    }

    #[test]
    fn a_final_newline_ends_the_last_line() {
        assert_eq!(
            spans(b"{}\n{\"a\":1}\n{\"b\":2}"),
            [&b"{}"[..], b"{\"a\":1}", b"{\"b\":2}"]
        );
        assert_eq!(spans(b"{}\n{\"a\":1}\n"), [&b"{}"[..], b"{\"a\":1}"]);
        assert!(scan(b"{}\n{}\n").unwrap().ends_with_newline());
        assert!(!scan(b"{}\n{}").unwrap().ends_with_newline());
        assert_eq!(scan(b"{}").unwrap().line_count(), 1);
        assert_eq!(scan(b"").unwrap().line_count(), 0);
    }

    #[test]
    fn the_first_line_is_framed_by_the_file_start() {
        let bytes = b"{\"a\":1}\n{\"b\":2}";
        let lines = scan(bytes).unwrap();
        assert_eq!(lines.framed_span(0..1), 0..8);
        assert_eq!(lines.unframe(0..1, &bytes[0..8]), Some(0..7));
        assert_eq!(lines.framed_span(0..2), 0..15);
        assert_eq!(lines.unframe(0..2, &bytes[0..15]), Some(0..15));
        assert_eq!(lines.unframe(0..1, b"{\"a\":1}x"), None);
        assert_eq!(lines.unframe(1..2, &bytes[7..15]), Some(1..8));
        assert_eq!(lines.unframe(1..2, &bytes[8..15]), None);
    }

    #[test]
    fn lines_split_across_reads_are_joined() {
        let body = format!("{{}}\n{}\n{{}}", "x".repeat(600_000));
        let lines = scan(body.as_bytes()).unwrap();
        assert_eq!(lines.line_count(), 3);
        assert_eq!(lines.span(1), 3..600_003);
        assert_eq!(lines.framed_span(1..3), 2..600_006);
        let framed = &body.as_bytes()[2..600_006];
        assert_eq!(lines.unframe(1..3, framed), Some(1..600_004));
        assert_eq!(lines.unframe(1..2, framed), None);
        assert_eq!(lines.unframe(1..3, &framed[1..]), None);
    }

    #[test]
    fn blank_lines_are_refused_with_their_number() {
        for (bytes, line) in [
            (&b"{}\n{}\n\n{}"[..], 3),
            (b"{}\n \r\n{}", 2),
            (b"{}\n{}\n\n", 3),
            (b"{}\n  ", 2),
        ] {
            assert_eq!(
                scan(bytes).unwrap_err(),
                ChatError::InvalidMessage {
                    line,
                    detail: "blank line".into()
                },
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
        }
        assert!(matches!(
            scan(b"\n{}").unwrap_err(),
            ChatError::InvalidHeader(_)
        ));
    }
}
