//! Reading `events.jsonl` without reading all of it.
//!
//! A journal is a sequence of `\n`-terminated JSON lines whose `seq` grows with the byte
//! offset. That order is the index: the line holding a seq is found by binary search over
//! byte offsets (a few small reads, whatever the file size), and pages are read forwards
//! or backwards from there. Nothing is cached, so nothing can go stale, and a file written
//! by another process is read exactly like one written by this one.
//!
//! The *committed end* excludes a torn last line (see [`Scan::tail`]); every line before it
//! must parse, and one that does not is [`JournalError::Corrupt`] with its line number. So is
//! a seq out of order: every reader checks that the lines it meets one after another are
//! numbered 1, 2, 3, … ([`SeqOrder`]), and finding the end checks the last two lines.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

use agent_application::ports::JournalError;
use agent_domain::event::JournalLine;
use serde::Deserialize;

/// Bytes read per block when paging.
const BLOCK: usize = 32 * 1024;
/// Bytes read per binary-search probe: one line, usually.
const PROBE: usize = 4 * 1024;

/// The committed part of a journal file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Tail {
    /// Everything before this offset is whole lines; a torn last line starts here.
    pub end: u64,
    /// The last event line, if there is one.
    pub last: Option<LastLine>,
}

/// Where the last event line starts and its seq.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LastLine {
    pub start: u64,
    pub seq: u64,
}

/// One raw line: its start offset and its bytes, `\n` included when present.
pub(super) type RawLine = (u64, Vec<u8>);

/// Just enough of a line to order it. A strict prefix of a JSON object never parses, so
/// this also tells a whole line from a torn one, without knowing every event type.
#[derive(Deserialize)]
struct SeqOnly {
    seq: u64,
}

/// Whitespace-only lines carry nothing and are skipped everywhere.
pub(super) fn is_blank(line: &[u8]) -> bool {
    line.trim_ascii().is_empty()
}

fn seq_of(line: &[u8]) -> Option<u64> {
    serde_json::from_slice::<SeqOnly>(line).ok().map(|s| s.seq)
}

/// Blocking reads of one journal file, naming `run` in errors.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scan<'a> {
    file: &'a File,
    run: &'a str,
}

impl<'a> Scan<'a> {
    pub fn new(file: &'a File, run: &'a str) -> Self {
        Self { file, run }
    }

    /// Finds the committed end of a file of `len` bytes.
    ///
    /// The last non-blank line is torn when it lacks its `\n` or is not a `{"seq": …}`
    /// object (a crash mid-append leaves a prefix, or zeroes after a power loss); it and
    /// anything after it lie beyond the committed end. Only one line can be torn: a bad
    /// line before it is corruption, and so is a last line whose seq does not follow the
    /// line before it (or is not 1 when it is the only one), which a writer would
    /// otherwise number after.
    pub fn tail(&self, len: u64) -> Result<Tail, JournalError> {
        let mut lines = self.backward(len);
        let mut end = len;
        let mut torn = false;
        while let Some((start, bytes)) = lines.next_line().map_err(io_error)? {
            let terminated = bytes.ends_with(b"\n");
            if is_blank(&bytes) {
                if !terminated {
                    end = start;
                }
                continue;
            }
            match seq_of(&bytes) {
                Some(seq) if terminated => {
                    let mut order = SeqOrder::backward(Some(seq));
                    order.check(self, start, seq)?;
                    match self.previous_event_line(&mut lines)? {
                        Some((before, before_seq)) => order.check(self, before, before_seq)?,
                        None => order.finish(self)?,
                    }
                    return Ok(Tail {
                        end,
                        last: Some(LastLine { start, seq }),
                    });
                }
                _ if !torn => {
                    torn = true;
                    end = start;
                }
                _ => return Err(self.corrupt(start, "not a journal line".to_owned())),
            }
        }
        Ok(Tail { end, last: None })
    }

    /// The next non-blank line of a backward walk, with its seq.
    fn previous_event_line(
        &self,
        lines: &mut Backward<'_>,
    ) -> Result<Option<(u64, u64)>, JournalError> {
        while let Some((start, bytes)) = lines.next_line().map_err(io_error)? {
            if !is_blank(&bytes) {
                return Ok(Some((start, self.seq(start, &bytes)?)));
            }
        }
        Ok(None)
    }

    /// The start of the first line with `seq >= target`, or the committed end.
    pub fn offset_of(&self, tail: &Tail, target: u64) -> Result<u64, JournalError> {
        let Some(last) = tail.last else {
            return Ok(tail.end);
        };
        if target > last.seq {
            return Ok(tail.end);
        }
        // Invariants: event lines starting before `lo` have seq < target; no event line
        // starts in [hi, found); the line at `found` has seq >= target.
        let (mut lo, mut hi, mut found) = (0, last.start, last.start);
        while lo < hi && hi - lo > BLOCK as u64 {
            let mid = lo + (hi - lo) / 2;
            match self.first_event_line(mid, found)? {
                None => hi = mid,
                Some((start, seq, _)) if seq >= target => (found, hi) = (start, mid),
                Some((_, _, next)) => lo = next,
            }
        }
        if lo < hi {
            let mut lines = self.forward(lo, found)?;
            while let Some((start, bytes)) = lines.next_line().map_err(io_error)? {
                if start >= hi {
                    break;
                }
                if !is_blank(&bytes) && self.seq(start, &bytes)? >= target {
                    return Ok(start);
                }
            }
        }
        Ok(found)
    }

    /// The first non-blank line starting in `[from, limit)`: `(start, seq, next start)`.
    /// `limit` must be a line start.
    fn first_event_line(
        &self,
        from: u64,
        limit: u64,
    ) -> Result<Option<(u64, u64, u64)>, JournalError> {
        // Begin one byte early: the rest of the line holding `from - 1` is skipped, so the
        // next line starts at `from` or later.
        let begin = from.saturating_sub(1);
        let mut lines = self.lines(begin, limit, PROBE)?;
        if from > 0 && lines.next_line().map_err(io_error)?.is_none() {
            return Ok(None);
        }
        while let Some((start, bytes)) = lines.next_line().map_err(io_error)? {
            if !is_blank(&bytes) {
                let next = start + bytes.len() as u64;
                return Ok(Some((start, self.seq(start, &bytes)?, next)));
            }
        }
        Ok(None)
    }

    fn seq(&self, start: u64, bytes: &[u8]) -> Result<u64, JournalError> {
        seq_of(bytes).ok_or_else(|| self.corrupt(start, "not a journal line".to_owned()))
    }

    /// Parses a whole line that lies before the committed end.
    pub fn parse(&self, start: u64, bytes: &[u8]) -> Result<JournalLine, JournalError> {
        serde_json::from_slice(bytes).map_err(|err| self.corrupt(start, err.to_string()))
    }

    /// Lines in `[start, end)`, first to last; `start` must be a line start.
    pub fn forward(&self, start: u64, end: u64) -> Result<Forward<'a>, JournalError> {
        self.lines(start, end, BLOCK)
    }

    fn lines(&self, start: u64, end: u64, buffer: usize) -> Result<Forward<'a>, JournalError> {
        Ok(Forward {
            reader: self.reader(start, end, buffer).map_err(io_error)?,
            offset: start,
        })
    }

    fn reader(
        &self,
        start: u64,
        end: u64,
        buffer: usize,
    ) -> io::Result<io::Take<BufReader<&'a File>>> {
        let mut reader = BufReader::with_capacity(buffer, self.file);
        reader.seek(SeekFrom::Start(start))?;
        Ok(reader.take(end.saturating_sub(start)))
    }

    /// Lines ending at or before `end`, last to first; `end` must be a line boundary.
    pub fn backward(&self, end: u64) -> Backward<'a> {
        Backward {
            file: self.file,
            buf: Vec::new(),
            loaded: end,
        }
    }

    /// A corruption error naming the 1-based line that starts at `offset`. Counting lines
    /// reads the file up to there; only this error path pays for it.
    pub fn corrupt(&self, offset: u64, detail: String) -> JournalError {
        match self.line_number(offset) {
            Ok(line) => JournalError::Corrupt {
                run: self.run.to_owned(),
                line,
                detail,
            },
            Err(err) => io_error(err),
        }
    }

    fn line_number(&self, offset: u64) -> io::Result<u64> {
        let mut reader = self.reader(0, offset, BLOCK)?;
        let mut newlines = 0u64;
        loop {
            let chunk = reader.fill_buf()?;
            if chunk.is_empty() {
                return Ok(newlines + 1);
            }
            newlines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
            let consumed = chunk.len();
            reader.consume(consumed);
        }
    }
}

/// Checks that the event lines a reader meets one after another are numbered without a
/// gap, a repeat or a step back: each seq is one more than the seq of the line before it in
/// the file, and the first line's is 1. Reading backwards, each is one less than the line
/// after it. A line out of order is [`JournalError::Corrupt`], naming the later of the two
/// lines in the file, whichever way it was read.
#[derive(Debug, Clone, Copy)]
pub(super) struct SeqOrder {
    backward: bool,
    /// The seq the next line met must have; `None` while any seq will do.
    expected: Option<u64>,
    /// The start and seq of the last line met.
    last: Option<(u64, u64)>,
}

impl SeqOrder {
    /// Reading forwards; the first line met must have seq `first` (if given).
    pub fn forward(first: Option<u64>) -> Self {
        Self {
            backward: false,
            expected: first,
            last: None,
        }
    }

    /// Reading backwards; the first line met must have seq `first` (if given).
    pub fn backward(first: Option<u64>) -> Self {
        Self {
            backward: true,
            expected: first,
            last: None,
        }
    }

    /// Checks the line starting at `start`, with `seq`, met next.
    pub fn check(&mut self, scan: &Scan<'_>, start: u64, seq: u64) -> Result<(), JournalError> {
        if let Some(expected) = self.expected
            && seq != expected
        {
            return Err(match self.last {
                // Name the later line: the one whose seq does not follow its predecessor.
                Some((last_start, last_seq)) if self.backward => scan.corrupt(
                    last_start,
                    format!("seq {last_seq} follows seq {seq}; seqs go up by one"),
                ),
                Some((_, last_seq)) => scan.corrupt(
                    start,
                    format!("seq {seq} follows seq {last_seq}; seqs go up by one"),
                ),
                None => scan.corrupt(start, format!("seq {seq} where seq {expected} belongs")),
            });
        }
        self.expected = if self.backward {
            seq.checked_sub(1)
        } else {
            seq.checked_add(1)
        };
        self.last = Some((start, seq));
        Ok(())
    }

    /// The reader ran out of lines. A backward reader is at the start of the file, so the
    /// last line it met must be seq 1; a forward one is at the committed end, whose order
    /// [`Scan::tail`] checked.
    pub fn finish(&self, scan: &Scan<'_>) -> Result<(), JournalError> {
        match self.last {
            Some((start, seq)) if self.backward && seq != 1 => Err(scan.corrupt(
                start,
                format!("the journal starts at seq {seq}; it must start at 1"),
            )),
            _ => Ok(()),
        }
    }
}

/// Lines read front to back (see [`Scan::forward`]).
#[derive(Debug)]
pub(super) struct Forward<'a> {
    reader: io::Take<BufReader<&'a File>>,
    offset: u64,
}

impl Forward<'_> {
    /// The next line; the last one may lack its `\n` when the range ends mid-line.
    pub fn next_line(&mut self) -> io::Result<Option<RawLine>> {
        let mut bytes = Vec::new();
        let read = self.reader.read_until(b'\n', &mut bytes)?;
        if read == 0 {
            return Ok(None);
        }
        let start = self.offset;
        self.offset += read as u64;
        Ok(Some((start, bytes)))
    }
}

/// Lines read back to front in blocks (see [`Scan::backward`]).
#[derive(Debug)]
pub(super) struct Backward<'a> {
    file: &'a File,
    /// Bytes `[loaded, loaded + buf.len())`: what lies before the lines already returned.
    buf: Vec<u8>,
    loaded: u64,
}

impl Backward<'_> {
    /// The previous line; the first one returned may lack its `\n`.
    pub fn next_line(&mut self) -> io::Result<Option<RawLine>> {
        loop {
            // The line's own `\n` is its last byte; the one before it ends the line before.
            let search = self.buf.len().saturating_sub(1);
            if let Some(at) = self.buf[..search].iter().rposition(|&b| b == b'\n') {
                let line = self.buf.split_off(at + 1);
                return Ok(Some((self.loaded + at as u64 + 1, line)));
            }
            if self.loaded == 0 {
                return Ok((!self.buf.is_empty()).then(|| (0, std::mem::take(&mut self.buf))));
            }
            let size = self.loaded.min(BLOCK as u64);
            let start = self.loaded - size;
            let mut block = vec![0; size as usize];
            let mut file = self.file;
            file.seek(SeekFrom::Start(start))?;
            file.read_exact(&mut block)?;
            block.extend_from_slice(&self.buf);
            self.buf = block;
            self.loaded = start;
        }
    }
}

pub(super) fn io_error(err: io::Error) -> JournalError {
    JournalError::Io(err.to_string())
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn file_with(bytes: &[u8]) -> File {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        file
    }

    fn event(seq: u64, pad: usize) -> String {
        format!("{{\"seq\":{seq},\"pad\":\"{}\"}}\n", "x".repeat(pad))
    }

    #[test]
    fn backward_returns_every_line_across_blocks() {
        let mut text = String::new();
        for seq in 1..=50 {
            text.push_str(&event(seq, seq as usize * 97 % 5000));
        }
        text.push_str("\n{\"seq\":51"); // a blank line and a torn tail
        let file = file_with(text.as_bytes());
        let scan = Scan::new(&file, "run_1");
        let mut lines = scan.backward(text.len() as u64);
        let mut got = Vec::new();
        while let Some((start, bytes)) = lines.next_line().unwrap() {
            assert_eq!(
                &text.as_bytes()[start as usize..start as usize + bytes.len()],
                bytes
            );
            got.push(bytes);
        }
        got.reverse();
        assert_eq!(got.concat(), text.as_bytes());
        assert_eq!(got.len(), 52);
    }

    #[test]
    fn tail_excludes_one_torn_line() {
        let good = format!("{}{}", event(1, 3), event(2, 3));
        let cases: [(&str, u64, Option<u64>); 7] = [
            ("", 0, None),
            ("\n\n", 2, None),
            (&good, good.len() as u64, Some(2)),
            (&format!("{good}\n  \n"), good.len() as u64 + 4, Some(2)),
            (
                &format!("{good}{{\"seq\":3,\"pa"),
                good.len() as u64,
                Some(2),
            ),
            (&format!("{good}{{\"seq\":3}}"), good.len() as u64, Some(2)),
            (&format!("{good}\0\0\0\n\n"), good.len() as u64, Some(2)),
        ];
        for (text, end, last) in cases {
            let file = file_with(text.as_bytes());
            let tail = Scan::new(&file, "run_1").tail(text.len() as u64).unwrap();
            assert_eq!(
                (tail.end, tail.last.map(|l| l.seq)),
                (end, last),
                "{text:?}"
            );
        }
    }

    #[test]
    fn the_last_seq_must_follow_the_one_before_it() {
        let torn = "{\"seq\":4,\"pa";
        let cases = [
            (format!("{}{}{}", event(1, 0), event(2, 0), event(2, 0)), 3),
            (format!("{}{}", event(1, 0), event(3, 0)), 2),
            (format!("{}{}", event(2, 0), event(1, 0)), 2),
            (event(2, 0), 1),
            (format!("{}\n\n{}{torn}", event(1, 0), event(3, 0)), 4),
        ];
        for (text, line) in cases {
            let file = file_with(text.as_bytes());
            let err = Scan::new(&file, "run_1")
                .tail(text.len() as u64)
                .unwrap_err();
            assert!(
                matches!(err, JournalError::Corrupt { line: l, .. } if l == line),
                "{text:?}: {err:?}"
            );
        }
        let whole = format!("{}\n{}{torn}", event(1, 0), event(2, 0));
        let file = file_with(whole.as_bytes());
        let tail = Scan::new(&file, "run_1").tail(whole.len() as u64).unwrap();
        assert_eq!(tail.last.map(|l| l.seq), Some(2));
    }

    #[test]
    fn two_bad_lines_at_the_end_are_corruption() {
        let text = format!("{}\n{}garbage\n{{\"seq\":3", event(1, 0), event(2, 0));
        let file = file_with(text.as_bytes());
        let err = Scan::new(&file, "run_1")
            .tail(text.len() as u64)
            .unwrap_err();
        assert!(
            matches!(err, JournalError::Corrupt { line: 4, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn offset_of_agrees_with_a_linear_search() {
        // Large enough for the binary search to run, with blank lines and long lines.
        let mut text = String::new();
        let mut starts = Vec::new();
        for seq in 1..=3000u64 {
            if seq % 7 == 0 {
                text.push_str("\n \n");
            }
            starts.push((seq, text.len() as u64));
            text.push_str(&event(
                seq,
                (seq as usize * 31) % 300 + if seq % 500 == 0 { 40_000 } else { 0 },
            ));
        }
        let file = file_with(text.as_bytes());
        let scan = Scan::new(&file, "run_1");
        let tail = scan.tail(text.len() as u64).unwrap();
        for target in 0..=3001u64 {
            let expected = starts
                .iter()
                .find(|(seq, _)| *seq >= target)
                .map_or(tail.end, |(_, start)| *start);
            assert_eq!(
                scan.offset_of(&tail, target).unwrap(),
                expected,
                "target {target}"
            );
        }
    }

    #[test]
    fn a_bad_line_met_by_the_search_is_named() {
        let mut text = String::new();
        for seq in 1..=2000u64 {
            text.push_str(&if seq == 1000 {
                "oops\n".to_owned()
            } else {
                event(seq, 40)
            });
        }
        let file = file_with(text.as_bytes());
        let scan = Scan::new(&file, "run_1");
        let tail = scan.tail(text.len() as u64).unwrap();
        let err = (1..=2000)
            .find_map(|t| scan.offset_of(&tail, t).err())
            .unwrap();
        assert!(
            matches!(err, JournalError::Corrupt { line: 1000, .. }),
            "{err:?}"
        );
    }
}
