//! The search core of `workspace.search_files`: ranked line windows over a
//! [`SearchCorpus`], with no I/O, so benches and tests can call it directly.

use agent_domain::text::search::{Query, search_lines};
use agent_domain::text::{LineWindow, ReadBudget};
use agent_domain::workspace::WorkspacePath;

use crate::ports::SearchCorpus;

/// Characters shown of any one snippet line; a longer line is cut and marked.
pub(super) const SNIPPET_LINE_CHARS: usize = 400;

/// One hit: a window of lines around a matching line of one file.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    pub path: WorkspacePath,
    /// The version of the file searched.
    pub sha256: String,
    /// The matching line's score, from 0 (exclusive) to 1.
    pub score: f64,
    /// First line of the window (1-based).
    pub start_line: u64,
    /// Last line of the window.
    pub end_line: u64,
    /// The window's lines as shown; lines longer than 400 characters are cut and marked.
    pub snippet: LineWindow,
}

impl SearchHit {
    /// `workspace:<path>#L<start>-L<end>`.
    pub fn resource_ref(&self) -> String {
        format!(
            "workspace:{}#L{}-L{}",
            self.path, self.start_line, self.end_line
        )
    }
}

/// The outcome of one search over a corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchReport {
    /// The best hits: score descending, then path, then start line.
    pub hits: Vec<SearchHit>,
    /// More hits existed than the limit.
    pub more_hits: bool,
    /// Text files searched.
    pub searched_files: usize,
    /// Files skipped because they are not UTF-8 text.
    pub skipped_files: usize,
    /// The corpus stopped at its file limit, so some files were not searched.
    pub files_truncated: bool,
}

/// Searches every text file of `corpus` for `query` and keeps the best `limit` hits, each
/// with `context_lines` lines around its matching line. Files are ranked line by line with
/// the query's line tokens; windows within a file never overlap.
pub fn search_corpus_hits(
    corpus: &SearchCorpus,
    query: &Query,
    context_lines: usize,
    limit: usize,
) -> SearchReport {
    let tokens = query.line_tokens();
    let mut candidates = Vec::new();
    let mut searched_files = 0;
    for file in &corpus.files {
        let Some(text) = file.text.as_deref() else {
            continue;
        };
        searched_files += 1;
        // One hit more than needed tells whether more exist.
        for hit in search_lines(text, &tokens, context_lines, limit.saturating_add(1)) {
            candidates.push((file, text, hit));
        }
    }
    candidates.sort_by(|(a_file, _, a), (b_file, _, b)| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a_file.path.cmp(&b_file.path))
            .then(a.start_line.cmp(&b.start_line))
    });
    let more_hits = candidates.len() > limit;
    let window_lines = 2 * context_lines + 1;
    let budget = ReadBudget {
        max_lines: window_lines,
        max_chars: window_lines * SNIPPET_LINE_CHARS,
        max_line_chars: SNIPPET_LINE_CHARS,
    };
    let hits = candidates
        .into_iter()
        .take(limit)
        .filter_map(|(file, text, hit)| {
            let count = hit.end_line - hit.start_line + 1;
            let snippet =
                LineWindow::select(text, Some(hit.start_line), Some(count), &budget).ok()?;
            Some(SearchHit {
                path: file.path.clone(),
                sha256: file.sha256.clone(),
                score: hit.score,
                start_line: hit.start_line,
                end_line: hit.end_line,
                snippet,
            })
        })
        .collect();
    SearchReport {
        hits,
        more_hits,
        searched_files,
        skipped_files: corpus.files.len() - searched_files,
        files_truncated: corpus.truncated,
    }
}
