//! Ranked line search inside one text (`workspace_search_files`, `skill_search`).

use super::query::Token;
use super::score::Scorer;
use crate::text::lines::split_lines;

/// One hit of [`search_lines`]: a window of lines around a matching line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineHit {
    /// First line of the window (1-based).
    pub start_line: u64,
    /// Last line of the window.
    pub end_line: u64,
    /// The matching line the window surrounds.
    pub line: u64,
    /// The matching line's score ([`Scorer`]).
    pub score: f64,
}

/// The best-scoring, non-overlapping line windows of `text`, best first.
///
/// Each line is scored on its own; every line with a score above 0 is a candidate whose
/// window is the line plus `context_lines` on each side, clamped to the text. Candidates are
/// taken by score (highest first, ties by earlier line); one whose window overlaps an
/// already taken window is dropped. Windows that merely touch are both kept. At most
/// `max_hits`. Lines are split as for reading windows, so hit line numbers can be passed
/// straight to `start_line` / `line_count`.
pub fn search_lines(
    text: &str,
    tokens: &[Token],
    context_lines: usize,
    max_hits: usize,
) -> Vec<LineHit> {
    if max_hits == 0 || tokens.is_empty() {
        return Vec::new();
    }
    let scorer = Scorer::new(tokens.to_vec());
    let lines = split_lines(text);
    let total = lines.len() as u64;
    let context = context_lines as u64;
    let mut candidates: Vec<(f64, u64)> = lines
        .iter()
        .enumerate()
        .filter_map(|(index, line)| {
            let line_score = scorer.score(line);
            (line_score > 0.0).then_some((line_score, index as u64 + 1))
        })
        .collect();
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));

    let mut hits: Vec<LineHit> = Vec::new();
    for (line_score, line) in candidates {
        let start_line = line.saturating_sub(context).max(1);
        let end_line = line.saturating_add(context).min(total);
        let overlaps = hits
            .iter()
            .any(|hit| start_line <= hit.end_line && hit.start_line <= end_line);
        if overlaps {
            continue;
        }
        hits.push(LineHit {
            start_line,
            end_line,
            line,
            score: line_score,
        });
        if hits.len() == max_hits {
            break;
        }
    }
    hits
}
