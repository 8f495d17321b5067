//! `skill.list`: the invocation's visible skills, one line each.

use agent_domain::tool::BuiltinTool;
use serde_json::{Value, json};

use crate::tools::{Args, ToolContext, ToolFailure, ToolOutcome};

/// What the model reads when no skill is visible.
const NO_SKILLS: &str = "No skills are available to you under the current profile.";

/// Lists the visible skills as `- <name>: <description>` lines with a hint to read them.
/// Reads no skill file, so it costs no reading budget.
pub(in crate::tools) async fn list(
    ctx: &mut ToolContext<'_>,
    args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    Args::parse(args, &[])?;
    let skills: Vec<_> = ctx.invocation.skills.resolved.visible_skills().collect();
    let structured = json!({ "skills": skills });
    if skills.is_empty() {
        return Ok(ToolOutcome::read(NO_SKILLS, structured, Vec::new()));
    }
    let lines: Vec<String> = skills
        .iter()
        .map(|skill| format!("- {}: {}", skill.name, one_line(&skill.description)))
        .collect();
    let read = ctx.invocation.alias(BuiltinTool::SkillRead);
    let content = format!(
        "{}\n\nRead a skill with {read} name=<name> (its SKILL.md) before relying on it.",
        lines.join("\n")
    );
    Ok(ToolOutcome::read(content, structured, Vec::new()))
}

/// `text` with every run of whitespace (line breaks included) collapsed to one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
