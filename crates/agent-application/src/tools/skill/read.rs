//! `skill.read`: a line window of one text file of a visible skill.

use agent_domain::text::{LineWindow, RangeNamespace, ReadBudget, TextMetrics};
use agent_domain::tool::BuiltinTool;
use agent_domain::workspace::WorkspacePath;
use serde_json::{Value, json};

use super::access::{
    FILE_NOT_TEXT, charge, line_ref, optional_path, remaining_budget, require_budget, skill_path,
    store_failure, visible_skill,
};
use crate::tools::{Args, ToolContext, ToolFailure, ToolOutcome};

/// The file read when the model gives no path.
const DEFAULT_FILE: &str = "SKILL.md";

/// Reads lines `start_line..` (default: the whole file) of a skill file within the reading
/// budget: at most the per-call budget, at most what is left of the invocation's. A file too
/// long for that comes back as a preview saying where to continue; the characters shown are
/// charged.
pub(in crate::tools) async fn read(
    ctx: &mut ToolContext<'_>,
    args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    let args = Args::parse(args, &["name", "path", "start_line", "line_count"])?;
    let name = args.required_str("name")?;
    let path = match optional_path(&args, "path")? {
        Some(path) => path,
        None => skill_path(DEFAULT_FILE)?,
    };
    let start_line = args.optional_u64("start_line", 0, u64::MAX)?;
    let line_count = args.optional_u64("line_count", 0, u64::MAX)?;

    let skill = visible_skill(ctx, &name)?;
    let remaining = require_budget(ctx)?;
    let file = ctx
        .ports
        .skills
        .read_file(&skill.skill_ref(), &path)
        .await
        .map_err(|err| store_failure(ctx, err, &name, Some(&path)))?;
    let Some(text) = file.text else {
        return Err(ToolFailure::recoverable(
            FILE_NOT_TEXT,
            format!("`{path}` of skill `{name}` is not UTF-8 text, so it cannot be read."),
        ));
    };
    let budget = call_budget(remaining, ctx.invocation.skills.max_chars_per_call);
    let window = LineWindow::select(&text, start_line, line_count, &budget).map_err(|err| {
        ToolFailure::recoverable(err.code_in(RangeNamespace::Skill), err.to_string())
    })?;
    charge(ctx, window.chars);

    let content = render(ctx, &name, &path, &window);
    let plain = window.plain_text();
    let structured = json!({
        "name": name,
        "scope": skill.scope,
        "path": path,
        "sha256": file.sha256,
        "window": window.facts(),
        "chars": window.chars,
        "words": TextMetrics::of(&plain).words,
        "budgetRemaining": remaining_budget(ctx),
    });
    let refs = vec![if window.total_lines == 0 {
        format!("skill:{name}/{path}")
    } else {
        line_ref(&name, &path, window.start_line, window.end_line)
    }];
    Ok(ToolOutcome::read(content, structured, refs))
}

/// The window budget of one call: the skill budget for what remains of the invocation's
/// characters, capped by the profile's per-call limit.
fn call_budget(remaining: u64, per_call: u64) -> ReadBudget {
    let remaining = usize::try_from(remaining).unwrap_or(usize::MAX);
    let per_call = usize::try_from(per_call).unwrap_or(usize::MAX);
    ReadBudget::skill(per_call, remaining)
}

/// A header naming the file and lines, the numbered lines, and, for a preview, how to read
/// on; a note when the budget is now used up.
fn render(ctx: &ToolContext<'_>, name: &str, path: &WorkspacePath, window: &LineWindow) -> String {
    if window.total_lines == 0 {
        return format!("{name}/{path} is empty.");
    }
    let mut out = format!(
        "{name}/{path} lines {}-{} of {}\n\n{}",
        window.start_line,
        window.end_line,
        window.total_lines,
        window.render_numbered()
    );
    let read = ctx.invocation.alias(BuiltinTool::SkillRead);
    if let Some(hint) = window.continuation_hint(&format!("{read} name={name} path={path}")) {
        out.push_str("\n\n");
        out.push_str(&hint);
    }
    if remaining_budget(ctx) == 0 {
        out.push_str("\n\nYour skill reading budget for this task is now used up.");
    }
    out
}
