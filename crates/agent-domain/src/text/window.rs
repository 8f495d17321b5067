//! [`LineWindow`]: the lines of a text that one read shows, within a [`ReadBudget`].
//!
//! Every model-visible text read is addressed by a 1-based `start_line` and an optional
//! `line_count`. When the requested lines do not fit the budget, the read still succeeds:
//! the window holds the leading lines that fit, says where to continue, and a single line
//! too long for the budget is cut and marked.

use serde::{Deserialize, Serialize};

use super::budget::ReadBudget;
use super::lines::split_lines;
use super::range_error::LineRangeError;

#[cfg(test)]
mod tests;

/// One line of a [`LineWindow`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WindowLine {
    /// 1-based line number in the whole text.
    pub number: u64,
    /// The shown text, without its line terminator; only the leading part when `cut`.
    pub text: String,
    /// Whether the line was longer than the budget and only its start is shown.
    pub cut: bool,
    /// Characters of the line left out (0 unless `cut`).
    pub omitted_chars: usize,
}

impl WindowLine {
    /// Line `number`, showing the first `shown` characters of `raw`.
    pub(super) fn shown(number: u64, raw: &str, shown: usize) -> Self {
        let len = raw.chars().count();
        Self {
            number,
            text: take_chars(raw, shown).to_owned(),
            cut: shown < len,
            omitted_chars: len.saturating_sub(shown),
        }
    }
}

/// The lines one read shows, plus the facts a model needs to continue reading.
///
/// An empty text yields an empty, complete window reported as lines 0-0 of 0.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LineWindow {
    /// First line shown (1-based; 0 for an empty text).
    pub start_line: u64,
    /// Last line shown (0 for an empty text).
    pub end_line: u64,
    /// Lines in the whole text.
    pub total_lines: u64,
    /// The line after `end_line`, when the text goes on.
    pub next_start_line: Option<u64>,
    /// The shown lines, in order.
    pub lines: Vec<WindowLine>,
    /// The budget stopped the window early: fewer lines than requested, or a cut line.
    pub preview: bool,
    /// The window shows every line of the text in full: this read observed the whole text.
    pub complete: bool,
    /// Characters shown, summed over the lines (line separators not counted).
    pub chars: usize,
}

/// The serialisable summary of a [`LineWindow`] for a tool result's `structured` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowFacts {
    /// As [`LineWindow::start_line`].
    pub start_line: u64,
    /// As [`LineWindow::end_line`].
    pub end_line: u64,
    /// As [`LineWindow::total_lines`].
    pub total_lines: u64,
    /// As [`LineWindow::next_start_line`]; omitted at the end of the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_start_line: Option<u64>,
    /// As [`LineWindow::preview`].
    pub preview: bool,
    /// As [`LineWindow::complete`].
    pub complete: bool,
    /// Numbers of the lines that were cut.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cut_lines: Vec<u64>,
}

impl LineWindow {
    /// Selects the lines `start_line ..= start_line + line_count - 1` of `text` that fit
    /// `budget`.
    ///
    /// `start_line` defaults to 1 and a missing `line_count` means "to the end". Lines come
    /// from splitting on `\n`; a final `\n` does not start an extra empty line and a `\r`
    /// before a line end is dropped. The window always shows at least one line when the
    /// range has any; further lines are added while both the line and character budgets
    /// hold. A line longer than `budget.max_line_chars` (or, for the first line, than
    /// `budget.max_chars`) is cut at a character boundary and marked.
    pub fn select(
        text: &str,
        start_line: Option<u64>,
        line_count: Option<u64>,
        budget: &ReadBudget,
    ) -> Result<LineWindow, LineRangeError> {
        let Some(range) = Range::of(text, start_line, line_count)? else {
            return Ok(Self::empty());
        };
        let max_lines = budget.max_lines.max(1);
        let mut lines: Vec<WindowLine> = Vec::new();
        let mut chars = 0usize;
        for (number, raw) in range.requested() {
            let first = lines.is_empty();
            if !first && lines.len() >= max_lines {
                break;
            }
            let cap = if first {
                budget.max_line_chars.min(budget.max_chars)
            } else {
                budget.max_line_chars
            };
            let len = raw.chars().count();
            let shown = len.min(cap);
            if !first && chars + shown > budget.max_chars {
                break;
            }
            chars += shown;
            lines.push(WindowLine::shown(number, raw, shown));
        }

        Ok(Self::assemble(&range, lines, chars))
    }

    /// The window of `lines`: consecutive lines from the start of `range`.
    pub(super) fn assemble(range: &Range<'_>, lines: Vec<WindowLine>, chars: usize) -> Self {
        let (start, requested_end, total) = (range.start, range.requested_end, range.total);
        let end = start + lines.len() as u64 - 1;
        let any_cut = lines.iter().any(|line| line.cut);
        Self {
            start_line: start,
            end_line: end,
            total_lines: total,
            next_start_line: (end < total).then_some(end + 1),
            preview: end < requested_end || any_cut,
            complete: start == 1 && end == total && !any_cut,
            chars,
            lines,
        }
    }

    pub(super) fn empty() -> Self {
        Self {
            start_line: 0,
            end_line: 0,
            total_lines: 0,
            next_start_line: None,
            lines: Vec::new(),
            preview: false,
            complete: true,
            chars: 0,
        }
    }

    /// The lines as the model sees them: `<n> | <text>`, numbers right-aligned to the widest
    /// number shown, joined by `\n`. A cut line ends with
    /// ` … [line cut: N more characters]`.
    pub fn render_numbered(&self) -> String {
        let width = digits(self.end_line);
        let rendered: Vec<String> = self
            .lines
            .iter()
            .map(|line| {
                let mut out = format!("{:>width$} | {}", line.number, line.text);
                if line.cut {
                    out.push_str(&cut_marker(line.omitted_chars));
                }
                out
            })
            .collect();
        rendered.join("\n")
    }

    /// The exact text shown, lines joined by `\n`, without numbers or cut markers (only the
    /// shown part of a cut line). Read-state records this as the observed fragment.
    pub fn plain_text(&self) -> String {
        let texts: Vec<&str> = self.lines.iter().map(|line| line.text.as_str()).collect();
        texts.join("\n")
    }

    /// For a preview, one or two sentences telling the model what it got and how to read on
    /// with `tool_alias` (the caller may add context, e.g. `chat_read_messages index=4`).
    /// `None` when the window shows everything that was asked for.
    pub fn continuation_hint(&self, tool_alias: &str) -> Option<String> {
        if !self.preview {
            return None;
        }
        let mut hint = format!(
            "Showing lines {}-{} of {}; the rest did not fit the read budget.",
            self.start_line, self.end_line, self.total_lines
        );
        let cut = self.cut_lines();
        match cut.as_slice() {
            [] => {}
            [one] => hint.push_str(&format!(
                " Line {one} is too long to show in full and was cut; \
                 its remainder cannot be read with line ranges."
            )),
            many => {
                let list: Vec<String> = many.iter().map(u64::to_string).collect();
                hint.push_str(&format!(
                    " Lines {} are too long to show in full and were cut; \
                     their remainders cannot be read with line ranges.",
                    list.join(", ")
                ));
            }
        }
        if let Some(next) = self.next_start_line {
            hint.push_str(&format!(" Continue with {tool_alias} start_line={next}."));
        }
        Some(hint)
    }

    /// The facts for a tool result's `structured` payload.
    pub fn facts(&self) -> WindowFacts {
        WindowFacts {
            start_line: self.start_line,
            end_line: self.end_line,
            total_lines: self.total_lines,
            next_start_line: self.next_start_line,
            preview: self.preview,
            complete: self.complete,
            cut_lines: self.cut_lines(),
        }
    }

    fn cut_lines(&self) -> Vec<u64> {
        self.lines
            .iter()
            .filter(|line| line.cut)
            .map(|line| line.number)
            .collect()
    }
}

/// A validated line range of a text: its lines and the requested span within them.
pub(super) struct Range<'a> {
    pub(super) lines: Vec<&'a str>,
    /// First requested line (1-based, within `1..=total`).
    pub(super) start: u64,
    /// Last requested line (within `start..=total`).
    pub(super) requested_end: u64,
    pub(super) total: u64,
}

impl<'a> Range<'a> {
    /// Checks `start_line` / `line_count` against `text`; `None` for an empty text (whose
    /// only valid range is the empty one).
    pub(super) fn of(
        text: &'a str,
        start_line: Option<u64>,
        line_count: Option<u64>,
    ) -> Result<Option<Self>, LineRangeError> {
        let start = start_line.unwrap_or(1);
        if start == 0 {
            return Err(LineRangeError::StartLineZero);
        }
        if line_count == Some(0) {
            return Err(LineRangeError::LineCountZero);
        }
        let lines = split_lines(text);
        let total = lines.len() as u64;
        if start > total.max(1) {
            return Err(LineRangeError::StartBeyondEnd {
                start_line: start,
                total_lines: total,
            });
        }
        if total == 0 {
            return Ok(None);
        }
        let requested_end = match line_count {
            Some(count) => start.saturating_add(count - 1).min(total),
            None => total,
        };
        Ok(Some(Self {
            lines,
            start,
            requested_end,
            total,
        }))
    }

    /// The requested lines, numbered.
    pub(super) fn requested(&self) -> impl Iterator<Item = (u64, &'a str)> + '_ {
        // `start` and `requested_end` are within 1..=total, so they index `lines`.
        self.lines[(self.start - 1) as usize..self.requested_end as usize]
            .iter()
            .enumerate()
            .map(|(offset, line)| (self.start + offset as u64, *line))
    }
}

/// The first `n` characters of `s` (all of `s` when shorter), cut at a char boundary.
pub(super) fn take_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((index, _)) => &s[..index],
        None => s,
    }
}

pub(super) fn digits(mut n: u64) -> usize {
    let mut width = 1;
    while n >= 10 {
        n /= 10;
        width += 1;
    }
    width
}

pub(super) fn cut_marker(omitted: usize) -> String {
    let unit = if omitted == 1 {
        "character"
    } else {
        "characters"
    };
    format!(" … [line cut: {omitted} more {unit}]")
}
