//! Task and handoff briefs: checked as TauriTavern checks them (an object with a
//! non-empty `objective`, named optional strings, each at most 8,000 bytes; other keys
//! free-form) and rendered as the markdown the receiving agent reads.

use serde_json::{Map, Value};

use crate::tools::{ToolFailure, invalid};

/// Longest named string of a brief, in bytes.
pub(super) const BRIEF_STRING_MAX_BYTES: usize = 8_000;
/// Longest whole brief (free-form keys included), in bytes of compact JSON: a bound on
/// what one call can put into another agent's prompt.
pub(super) const BRIEF_MAX_BYTES: usize = 64 * 1024;

/// Checks the brief under `key`; `strings` are its optional string fields besides
/// `objective`.
pub(super) fn check(
    value: Option<&Value>,
    key: &str,
    strings: &[&str],
) -> Result<Map<String, Value>, ToolFailure> {
    let Some(Value::Object(brief)) = value else {
        return Err(invalid(format!(
            "`{key}` must be an object with at least an `objective`"
        )));
    };
    match brief.get("objective") {
        Some(Value::String(text)) if !text.trim().is_empty() => {}
        _ => {
            return Err(invalid(format!(
                "`{key}.objective` is required: a non-empty string stating the result you need"
            )));
        }
    }
    for field in std::iter::once("objective").chain(strings.iter().copied()) {
        match brief.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) if text.len() <= BRIEF_STRING_MAX_BYTES => {}
            Some(Value::String(text)) => {
                return Err(invalid(format!(
                    "`{key}.{field}` is {} bytes; at most {BRIEF_STRING_MAX_BYTES} are allowed",
                    text.len()
                )));
            }
            Some(_) => return Err(invalid(format!("`{key}.{field}` must be a string"))),
        }
    }
    let size = serde_json::to_string(brief).map_or(usize::MAX, |text| text.len());
    if size > BRIEF_MAX_BYTES {
        return Err(invalid(format!(
            "`{key}` is {size} bytes as JSON; at most {BRIEF_MAX_BYTES} are allowed. Point to \
             workspace files instead of pasting their content."
        )));
    }
    Ok(brief.clone())
}

/// The brief as markdown under `heading`: the objective and title first, then every other
/// field as a section (strings as text, anything else as JSON).
pub(super) fn render(heading: &str, brief: &Map<String, Value>) -> String {
    let mut text = format!("## {heading}\n");
    let mut field = |name: &str, value: &Value| {
        let body = match value {
            Value::String(s) => s.trim().to_owned(),
            other => format!(
                "```json\n{}\n```",
                serde_json::to_string_pretty(other).unwrap_or_default()
            ),
        };
        text.push_str(&format!("\n### {name}\n{body}\n"));
    };
    for first in ["title", "objective"] {
        if let Some(value) = brief.get(first).filter(|v| !v.is_null()) {
            field(first, value);
        }
    }
    for (name, value) in brief {
        if name != "title" && name != "objective" && !value.is_null() {
            field(name, value);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use agent_domain::ErrorCode;
    use serde_json::json;

    use super::*;

    fn message(failure: ToolFailure) -> String {
        match failure {
            ToolFailure::Recoverable { code, message } => {
                assert_eq!(code, "tool.invalid_arguments");
                message
            }
            ToolFailure::Fatal(fault) => panic!("fatal {}", fault.code()),
        }
    }

    #[test]
    fn a_brief_needs_an_objective_and_bounded_strings() {
        assert!(message(check(None, "task", &["title"]).unwrap_err()).contains("`task` must"));
        let blank = json!({"objective": "  "});
        assert!(message(check(Some(&blank), "task", &[]).unwrap_err()).contains("objective"));
        let title = json!({"objective": "x", "title": 3});
        assert!(
            message(check(Some(&title), "task", &["title"]).unwrap_err()).contains("task.title")
        );
        let long = json!({"objective": "é".repeat(4_001)});
        assert!(message(check(Some(&long), "task", &[]).unwrap_err()).contains("8002 bytes"));
        let ok = json!({"objective": "Find the ship's name", "title": null, "context": {"a": 1}});
        assert_eq!(check(Some(&ok), "task", &["title"]).unwrap().len(), 3);
        let huge = json!({"objective": "x", "context": "y".repeat(BRIEF_MAX_BYTES)});
        assert!(message(check(Some(&huge), "task", &[]).unwrap_err()).contains("as JSON"));
    }

    #[test]
    fn rendering_puts_title_and_objective_first() {
        let brief = json!({"context": {"a": 1}, "objective": "Do it", "title": "T"});
        let text = render("Task Brief", brief.as_object().unwrap());
        assert_eq!(
            text,
            "## Task Brief\n\n### title\nT\n\n### objective\nDo it\n\n### context\n```json\n{\n  \"a\": 1\n}\n```\n"
        );
    }
}
