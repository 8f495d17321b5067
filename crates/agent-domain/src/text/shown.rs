//! [`ShownWindow`]: a line window whose budget counts exactly what the model is shown.
//!
//! Batch reads (`chat_read_messages`, `worldinfo_read_activated`) promise a per-call cap on
//! the text they return. A [`LineWindow`] budget counts line characters only; here every
//! character of the body the model reads counts: line separators, and for a partial read
//! the `N | ` line-number prefixes and any cut marker. A text that fits whole is shown
//! plain; otherwise the leading lines that fit are shown numbered.

use super::budget::ReadBudget;
use super::range_error::LineRangeError;
use super::window::{LineWindow, Range, WindowLine, cut_marker, digits};

/// The lines one batch read shows, and the body exactly as shown.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShownWindow {
    pub window: LineWindow,
    /// The body the model reads: the plain text when the window is complete, else the
    /// numbered lines ([`LineWindow::render_numbered`]).
    pub text: String,
    /// Characters (Unicode scalars) of `text`: at most the budget given, unless the budget
    /// cannot even hold the first line's number and cut marker (then that line is marked
    /// cut and the window is a preview; batch reads leave such a text for the next call).
    pub chars: usize,
}

impl ShownWindow {
    /// Selects the lines `start_line ..= start_line + line_count - 1` of `text` (defaults
    /// as [`LineWindow::select`]) so that the shown body has at most `max_chars`
    /// characters. A first line too long for the budget is cut, leaving room for its
    /// marker; later lines are never cut, they wait for the next read.
    pub fn select(
        text: &str,
        start_line: Option<u64>,
        line_count: Option<u64>,
        max_chars: usize,
    ) -> Result<Self, LineRangeError> {
        let Some(range) = Range::of(text, start_line, line_count)? else {
            return Ok(Self::of(LineWindow::empty()));
        };
        if let Some(whole) = Self::whole(&range, max_chars) {
            return Ok(whole);
        }
        // Line numbers are right-aligned to the widest shown, so the prefix width depends
        // on where the window ends: try each width and keep the window showing most lines.
        let widest = digits(range.requested_end);
        let mut best = Self::numbered(&range, max_chars, digits(range.start), widest);
        for width in digits(range.start) + 1..=widest {
            let candidate = Self::numbered(&range, max_chars, width, widest);
            if candidate.window.lines.len() > best.window.lines.len() {
                best = candidate;
            }
        }
        Ok(best)
    }

    /// The leading lines of `range` that fit `max_chars` when numbered `width` digits wide
    /// (never past the last line such a number can name).
    fn numbered(range: &Range<'_>, max_chars: usize, width: usize, widest: usize) -> Self {
        let last = if width < widest {
            10u64.pow(width as u32) - 1
        } else {
            u64::MAX
        };
        let mut lines: Vec<WindowLine> = Vec::new();
        let (mut used, mut plain) = (0usize, 0usize);
        for (number, raw) in range.requested() {
            let first = lines.is_empty();
            if !first && (lines.len() >= ReadBudget::MAX_LINES || number > last) {
                break;
            }
            let overhead = width + " | ".len() + usize::from(!first);
            let len = raw.chars().count();
            if used + overhead + len <= max_chars {
                used += overhead + len;
                plain += len;
                lines.push(WindowLine::shown(number, raw, len));
                continue;
            }
            if first {
                let marker = cut_marker(len).chars().count();
                let room = max_chars.saturating_sub(overhead + marker).min(len);
                plain += room;
                let mut line = WindowLine::shown(number, raw, room);
                line.cut = true;
                lines.push(line);
            }
            break;
        }
        Self::of(LineWindow::assemble(range, lines, plain))
    }

    /// The whole text, plain, when the range asks for all of it and it fits.
    fn whole(range: &Range<'_>, max_chars: usize) -> Option<Self> {
        let everything = range.start == 1 && range.requested_end == range.total;
        if !everything || range.total > ReadBudget::MAX_LINES as u64 {
            return None;
        }
        let lengths: Vec<usize> = range.lines.iter().map(|l| l.chars().count()).collect();
        let plain: usize = lengths.iter().sum();
        let separators = range.lines.len() - 1;
        if plain + separators > max_chars {
            return None;
        }
        let lines = range
            .requested()
            .zip(lengths)
            .map(|((number, raw), len)| WindowLine::shown(number, raw, len))
            .collect();
        Some(Self::of(LineWindow::assemble(range, lines, plain)))
    }

    fn of(window: LineWindow) -> Self {
        let text = if window.complete {
            window.plain_text()
        } else {
            window.render_numbered()
        };
        let chars = text.chars().count();
        Self {
            window,
            text,
            chars,
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn a_text_that_fits_is_shown_plain_and_counted_with_its_newlines() {
        let shown = ShownWindow::select("ab\ncd\n", None, None, 5).unwrap();
        assert!(shown.window.complete);
        assert_eq!((shown.text.as_str(), shown.chars), ("ab\ncd", 5));
    }

    #[test]
    fn a_text_one_character_too_long_is_numbered_within_the_budget() {
        let text = "ab\ncd\nef";
        let shown = ShownWindow::select(text, None, None, 7).unwrap();
        assert!(shown.window.preview && !shown.window.complete);
        // "1 | ab" is 6 characters; "\n2 | cd" would make 13.
        assert_eq!((shown.text.as_str(), shown.chars), ("1 | ab", 6));
        let roomy = ShownWindow::select(text, None, None, 20).unwrap();
        assert_eq!(roomy.text, "ab\ncd\nef");
        let numbered = ShownWindow::select(text, Some(2), None, 13).unwrap();
        assert_eq!(
            (numbered.text.as_str(), numbered.chars),
            ("2 | cd\n3 | ef", 13)
        );
    }

    #[test]
    fn a_long_first_line_is_cut_with_room_for_its_marker() {
        let line = "x".repeat(100);
        let shown = ShownWindow::select(&line, None, None, 60).unwrap();
        assert_eq!(shown.window.lines[0].cut, true);
        assert!(shown.chars <= 60, "{}", shown.chars);
        assert!(shown.text.ends_with("more characters]"), "{}", shown.text);
    }

    #[test]
    fn the_budget_is_never_exceeded() {
        let text: String = (0..300)
            .map(|i| format!("{}\n", "y".repeat(i % 97)))
            .collect();
        for max in [64, 65, 99, 100, 101, 999, 8_000, 20_000] {
            for start in [None, Some(7)] {
                let shown = ShownWindow::select(&text, start, None, max).unwrap();
                assert!(shown.chars <= max, "{max}: {}", shown.chars);
                assert_eq!(shown.chars, shown.text.chars().count());
            }
        }
        for tiny in [0, 1, 5] {
            let shown = ShownWindow::select(&text, None, None, tiny).unwrap();
            let fits = shown.chars <= tiny;
            assert!(
                fits || (shown.window.preview && shown.window.lines[0].cut),
                "{tiny}"
            );
        }
    }
}
