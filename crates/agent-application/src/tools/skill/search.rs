//! `skill.search`: ranked line search inside one visible skill.

use agent_domain::text::TextMetrics;
use agent_domain::text::search::Query;
use agent_domain::tool::BuiltinTool;
use serde_json::{Value, json};

use super::access::{
    BUDGET_EXHAUSTED, charge, line_ref, optional_path, require_budget, store_failure, visible_skill,
};
use crate::tools::args::invalid;
use crate::tools::{
    Args, SearchHit, SearchReport, ToolContext, ToolFailure, ToolOutcome, search_corpus_hits,
};

/// Most files one search reads.
const MAX_FILES: usize = 1_000;
const DEFAULT_LIMIT: u64 = 20;
const MAX_LIMIT: u64 = 50;
const DEFAULT_CONTEXT_LINES: u64 = 2;
const MAX_CONTEXT_LINES: u64 = 5;

/// Searches the text files of a skill (or of one file or folder in it) for `query` and
/// returns the best line windows, ranked as `workspace_search_files` ranks them (snippet
/// lines longer than 400 characters are cut). Non-text files are skipped and counted. The
/// characters of the snippets are charged to the reading budget; when they exceed what is
/// left, nothing is returned or charged. No hits is a successful answer.
pub(in crate::tools) async fn search(
    ctx: &mut ToolContext<'_>,
    args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    let args = Args::parse(args, &["name", "query", "path", "limit", "context_lines"])?;
    let name = args.required_str("name")?;
    let raw_query = args.required_str("query")?;
    let path = optional_path(&args, "path")?;
    let limit = limit(&args)?;
    let read = ctx.invocation.alias(BuiltinTool::SkillRead);
    let context_lines = context_lines(&args, &read)?;
    let query = Query::parse(&raw_query).ok_or_else(|| invalid("`query` is required"))?;

    let skill = visible_skill(ctx, &name)?;
    let remaining = require_budget(ctx)?;
    let corpus = ctx
        .ports
        .skills
        .search_corpus(&skill.skill_ref(), path.as_ref(), MAX_FILES)
        .await
        .map_err(|err| store_failure(ctx, err, &name, path.as_ref()))?;

    let report = search_corpus_hits(&corpus, &query, context_lines, limit);
    let returned: usize = report.hits.iter().map(|hit| hit.snippet.chars).sum();
    if returned as u64 > remaining {
        return Err(ToolFailure::recoverable(
            BUDGET_EXHAUSTED,
            format!(
                "these snippets need {returned} characters, but only {remaining} remain of your \
                 skill reading budget; narrow the search with path, a smaller limit or fewer \
                 context_lines."
            ),
        ));
    }
    charge(ctx, returned);

    let content = render(&name, &query, &report, &read);
    let refs: Vec<String> = report.hits.iter().map(|hit| hit_ref(&name, hit)).collect();
    let hits: Vec<Value> = report
        .hits
        .iter()
        .map(|hit| hit_facts(&name, hit))
        .collect();
    let words: usize = report
        .hits
        .iter()
        .map(|hit| TextMetrics::of(&hit.snippet.plain_text()).words)
        .sum();
    let structured = json!({
        "name": name,
        "scope": skill.scope,
        "query": query.text(),
        "path": path,
        "hits": hits,
        "searchedFiles": report.searched_files,
        "skippedFiles": report.skipped_files,
        "filesTruncated": report.files_truncated,
        "truncated": report.more_hits,
        "returnedChars": returned,
        "returnedWords": words,
    });
    Ok(ToolOutcome::read(content, structured, refs))
}

/// `limit`: 1 to 50, default 20.
fn limit(args: &Args) -> Result<usize, ToolFailure> {
    match args.optional_u64("limit", 0, u64::MAX)? {
        None => Ok(DEFAULT_LIMIT as usize),
        Some(0) => Err(ToolFailure::recoverable(
            "skill.search_limit_invalid",
            format!("limit must be from 1 to {MAX_LIMIT}."),
        )),
        Some(n) if n > MAX_LIMIT => Err(ToolFailure::recoverable(
            "skill.search_limit_too_large",
            format!("limit must be at most {MAX_LIMIT}; narrow the search with path instead."),
        )),
        Some(n) => Ok(n as usize),
    }
}

/// `context_lines`: 0 to 5, default 2.
fn context_lines(args: &Args, read_alias: &str) -> Result<usize, ToolFailure> {
    match args.optional_u64("context_lines", 0, u64::MAX)? {
        None => Ok(DEFAULT_CONTEXT_LINES as usize),
        Some(n) if n > MAX_CONTEXT_LINES => Err(ToolFailure::recoverable(
            "skill.search_context_too_large",
            format!(
                "context_lines must be at most {MAX_CONTEXT_LINES}; read more around a hit with \
                 {read_alias} start_line and line_count."
            ),
        )),
        Some(n) => Ok(n as usize),
    }
}

/// A summary line, each hit's numbered lines, and notes on what was left out.
fn render(name: &str, query: &Query, report: &SearchReport, read_alias: &str) -> String {
    let found = report.hits.len();
    let mut content = if found == 0 {
        format!("No text in skill `{name}` matched `{}`.", query.text())
    } else {
        format!(
            "Found {found} match{} for `{}` in skill `{name}`. Read more with {read_alias} \
             name={name} path=<path> start_line=<line>.",
            if found == 1 { "" } else { "es" },
            query.text()
        )
    };
    for hit in &report.hits {
        content.push_str(&format!(
            "\n\n{} lines {}-{}:\n{}",
            hit.path,
            hit.start_line,
            hit.end_line,
            hit.snippet.render_numbered()
        ));
    }
    push_notes(&mut content, report);
    content
}

fn hit_ref(name: &str, hit: &SearchHit) -> String {
    line_ref(name, &hit.path, hit.start_line, hit.end_line)
}

fn hit_facts(name: &str, hit: &SearchHit) -> Value {
    let snippet = hit.snippet.plain_text();
    json!({
        "path": hit.path,
        "score": hit.score,
        "startLine": hit.start_line,
        "endLine": hit.end_line,
        "snippet": snippet,
        "chars": hit.snippet.chars,
        "words": TextMetrics::of(&snippet).words,
        "sha256": hit.sha256,
        "ref": hit_ref(name, hit),
    })
}

/// Notes on what the search left out.
fn push_notes(content: &mut String, report: &SearchReport) {
    let skipped = report.skipped_files;
    if skipped > 0 {
        let files = if skipped == 1 {
            "file that is"
        } else {
            "files that are"
        };
        content.push_str(&format!("\n\nSkipped {skipped} {files} not text."));
    }
    if report.files_truncated {
        content.push_str(&format!(
            "\n\nOnly the first {MAX_FILES} files were searched; give path to search one folder."
        ));
    }
    if report.more_hits {
        content.push_str("\n\nMore matches exist; raise limit or narrow the search with path.");
    }
}
