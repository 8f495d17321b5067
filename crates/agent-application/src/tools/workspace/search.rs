//! `workspace.search_files`: ranked line search over the visible text files.

use agent_domain::text::search::Query;
use agent_domain::tool::BuiltinTool;
use serde_json::{Value, json};

use super::corpus_search::{SearchReport, search_corpus_hits};
use super::errors::{Access, store_failure};
use super::paths::{ensure_visible, existing_visible_roots, scope_path};
use super::wording::count;
use crate::tools::args::invalid;
use crate::tools::{Args, InvocationScope, ToolContext, ToolFailure, ToolOutcome};

/// Hits returned when `limit` is omitted.
pub(super) const DEFAULT_SEARCH_LIMIT: u64 = 20;
/// Most hits one search returns.
pub(super) const MAX_SEARCH_LIMIT: u64 = 50;
/// Context lines on each side of a hit when `context_lines` is omitted.
pub(super) const DEFAULT_CONTEXT_LINES: u64 = 2;
/// Most context lines on each side of a hit.
pub(super) const MAX_CONTEXT_LINES: u64 = 5;
/// Folder levels a search descends.
pub(super) const SEARCH_DEPTH: u32 = 8;
/// Most files one search reads.
pub(super) const MAX_SEARCH_FILES: usize = 1_000;

pub(in crate::tools) async fn search_files(
    ctx: &mut ToolContext<'_>,
    args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    let args = Args::parse(args, &["query", "path", "limit", "context_lines"])?;
    let query =
        Query::parse(&args.required_str("query")?).ok_or_else(|| invalid("`query` is required"))?;
    let target = scope_path(&args)?;
    let limit = search_limit(&args)?;
    let context_lines = context_lines(&args)?;
    let paths = match target {
        Some(path) => {
            ensure_visible(&path, ctx.invocation)?;
            vec![path]
        }
        None => existing_visible_roots(ctx).await?,
    };
    let corpus = ctx
        .ports
        .workspace
        .search_corpus(&ctx.run.run_id, &paths, SEARCH_DEPTH, MAX_SEARCH_FILES)
        .await
        .map_err(|error| store_failure(error, Access::Browse, ctx.invocation))?;
    let report = search_corpus_hits(&corpus, &query, context_lines, limit);
    Ok(outcome(&query, &report, ctx.invocation))
}

fn search_limit(args: &Args) -> Result<usize, ToolFailure> {
    let limit = args
        .optional_u64("limit", 0, u64::MAX)?
        .unwrap_or(DEFAULT_SEARCH_LIMIT);
    if limit == 0 {
        return Err(ToolFailure::recoverable(
            "workspace.search_limit_invalid",
            format!("limit must be at least 1; omit it for {DEFAULT_SEARCH_LIMIT} hits."),
        ));
    }
    if limit > MAX_SEARCH_LIMIT {
        return Err(ToolFailure::recoverable(
            "workspace.search_limit_too_large",
            format!("limit {limit} is too large; use at most {MAX_SEARCH_LIMIT}."),
        ));
    }
    Ok(limit as usize)
}

fn context_lines(args: &Args) -> Result<usize, ToolFailure> {
    let lines = args
        .optional_u64("context_lines", 0, u64::MAX)?
        .unwrap_or(DEFAULT_CONTEXT_LINES);
    if lines > MAX_CONTEXT_LINES {
        return Err(ToolFailure::recoverable(
            "workspace.search_context_too_large",
            format!("context_lines {lines} is too large; use at most {MAX_CONTEXT_LINES}."),
        ));
    }
    Ok(lines as usize)
}

fn outcome(query: &Query, report: &SearchReport, scope: &InvocationScope) -> ToolOutcome {
    let read = scope.alias(BuiltinTool::WorkspaceReadFile);
    let mut sections = Vec::new();
    if report.hits.is_empty() {
        sections.push(format!("No workspace file matched `{}`.", query.text()));
    } else {
        sections.push(format!(
            "Found {} for `{}`. Read around a hit with {read} path=<path> start_line=<line>.",
            count(report.hits.len(), "match", "matches"),
            query.text()
        ));
        for hit in &report.hits {
            // The ref is model-facing too, so a model can cite or reopen the hit.
            sections.push(format!(
                "{}, lines {}-{} (score {:.2}) ref {}\n{}",
                hit.path,
                hit.start_line,
                hit.end_line,
                hit.score,
                hit.resource_ref(),
                hit.snippet.render_numbered()
            ));
        }
    }
    let mut notes = Vec::new();
    if report.more_hits {
        notes.push(format!(
            "More matches exist; narrow the search with path, or raise limit (at most \
             {MAX_SEARCH_LIMIT})."
        ));
    }
    if report.files_truncated {
        notes.push(format!(
            "Only the first {} were searched; give a path to search the rest.",
            count(MAX_SEARCH_FILES, "file", "files")
        ));
    }
    if report.skipped_files > 0 {
        notes.push(format!(
            "Skipped {} that {} not UTF-8 text.",
            count(report.skipped_files, "file", "files"),
            if report.skipped_files == 1 {
                "is"
            } else {
                "are"
            }
        ));
    }
    if !notes.is_empty() {
        sections.push(notes.join(" "));
    }

    let hits: Vec<Value> = report
        .hits
        .iter()
        .map(|hit| {
            json!({
                "path": hit.path,
                "score": hit.score,
                "startLine": hit.start_line,
                "endLine": hit.end_line,
                "snippet": hit.snippet.render_numbered(),
                "ref": hit.resource_ref(),
                "sha256": hit.sha256,
            })
        })
        .collect();
    let structured = json!({
        "query": query.text(),
        "hits": hits,
        "searchedFiles": report.searched_files,
        "skippedFiles": report.skipped_files,
        "truncated": report.files_truncated,
    });
    let refs = report.hits.iter().map(|hit| hit.resource_ref()).collect();
    ToolOutcome::read(sections.join("\n\n"), structured, refs)
}
