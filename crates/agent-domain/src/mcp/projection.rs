//! What the model is shown of an MCP call's answer. The audit keeps the full raw result; the
//! model gets markdown sections: the text, `## Details` from structured content, `## Notes`
//! on content it cannot see, `## Error details` from a server error's data. Results longer
//! than the profile's inline limit are stored as a readable view, whose lines this module
//! hard-wraps, and the model gets a prefix preview.

use serde_json::Value;

use super::{McpCallOutcome, McpContent};

/// What the model sees when a tool answered with nothing.
pub const EMPTY_RESULT: &str = "The MCP tool completed without content.";
/// The longest line of a readable view, and the length of the preview, in chars.
pub const READABLE_LINE_CHARS: usize = 3_000;

/// The model-facing markdown of an outcome.
pub fn project(outcome: &McpCallOutcome) -> String {
    let mut sections = Vec::new();
    match outcome {
        McpCallOutcome::Result { result } => {
            let text = result
                .content
                .iter()
                .filter_map(|block| match block {
                    McpContent::Text { text } => Some(text.as_str()),
                    McpContent::Other { .. } => None,
                })
                .collect::<Vec<_>>()
                .join("\n\n");
            let duplicate = result
                .structured_content
                .as_ref()
                .and_then(|structured| serde_json::to_string(structured).ok())
                .is_some_and(|json| json == text);
            if !text.is_empty() && !duplicate {
                sections.push(text);
            }
            if let Some(structured) = &result.structured_content {
                sections.push(format!("## Details\n\n{}", bullets(structured)));
            }
            let notes: Vec<String> = result
                .content
                .iter()
                .enumerate()
                .filter_map(|(index, block)| match block {
                    McpContent::Other { kind, .. } => Some(format!(
                        "- Content block {} is of type `{kind}`, which is not shown as text.",
                        index + 1
                    )),
                    McpContent::Text { .. } => None,
                })
                .collect();
            if !notes.is_empty() {
                sections.push(format!("## Notes\n\n{}", notes.join("\n")));
            }
        }
        McpCallOutcome::ServerError {
            code,
            message,
            data,
        } => {
            sections.push(format!(
                "The MCP server refused the call (JSON-RPC {code}): {message}"
            ));
            if let Some(data) = data {
                sections.push(format!("## Error details\n\n{}", bullets(data)));
            }
        }
        McpCallOutcome::Unsupported {
            response_type,
            message,
        } => sections.push(format!(
            "The MCP server answered with an unsupported `{response_type}` response: {message}"
        )),
    }
    if sections.is_empty() {
        return EMPTY_RESULT.to_owned();
    }
    sections.join("\n\n")
}

/// An object as `- **key**: value` lines (strings bare, anything else as compact JSON); any
/// other value as one bullet.
fn bullets(value: &Value) -> String {
    let show = |value: &Value| match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match value {
        Value::Object(map) if !map.is_empty() => map
            .iter()
            .map(|(key, value)| format!("- **{key}**: {}", show(value)))
            .collect::<Vec<_>>()
            .join("\n"),
        other => format!("- {}", show(other)),
    }
}

/// `text` with every line longer than [`READABLE_LINE_CHARS`] chars broken into lines of
/// that length, so the readable view can be read with line ranges.
pub fn hard_wrap(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (index, line) in text.split('\n').enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let chars: Vec<char> = line.chars().collect();
        for (chunk_index, chunk) in chars.chunks(READABLE_LINE_CHARS).enumerate() {
            if chunk_index > 0 {
                out.push('\n');
            }
            out.extend(chunk);
        }
    }
    out
}

/// The first [`READABLE_LINE_CHARS`] chars of `text`.
pub fn prefix_preview(text: &str) -> &str {
    match text.char_indices().nth(READABLE_LINE_CHARS) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::mcp::McpToolResult;

    fn result(content: Vec<McpContent>, structured: Option<Value>) -> McpCallOutcome {
        McpCallOutcome::Result {
            result: McpToolResult {
                is_error: false,
                content,
                structured_content: structured,
            },
        }
    }

    fn text(text: &str) -> McpContent {
        McpContent::Text { text: text.into() }
    }

    #[test]
    fn text_details_and_notes_become_sections() {
        let image = McpContent::Other {
            kind: "image".into(),
            raw: json!({"type": "image"}),
        };
        let shown = project(&result(
            vec![text("It is warm."), image, text("Bring water.")],
            Some(json!({"city": "Paris", "temp": 21})),
        ));
        assert_eq!(
            shown,
            "It is warm.\n\nBring water.\n\n## Details\n\n- **city**: Paris\n- **temp**: 21\n\n\
             ## Notes\n\n- Content block 2 is of type `image`, which is not shown as text."
        );
    }

    #[test]
    fn text_that_repeats_the_structured_content_is_shown_once() {
        let structured = json!({"a": 1});
        let shown = project(&result(
            vec![text(&structured.to_string())],
            Some(structured),
        ));
        assert_eq!(shown, "## Details\n\n- **a**: 1");
    }

    #[test]
    fn empty_results_errors_and_unsupported_answers_say_so() {
        assert_eq!(project(&result(vec![], None)), EMPTY_RESULT);
        let error = McpCallOutcome::ServerError {
            code: -32602,
            message: "bad params".into(),
            data: Some(json!({"field": "path"})),
        };
        assert_eq!(
            project(&error),
            "The MCP server refused the call (JSON-RPC -32602): bad params\n\n\
             ## Error details\n\n- **field**: path"
        );
        let task = McpCallOutcome::Unsupported {
            response_type: "task".into(),
            message: "not followed".into(),
        };
        assert!(project(&task).contains("unsupported `task` response"));
    }

    #[test]
    fn long_lines_wrap_and_previews_stop_at_a_char_boundary() {
        let long = "é".repeat(READABLE_LINE_CHARS * 2 + 5);
        let wrapped = hard_wrap(&format!("short\n{long}"));
        let lengths: Vec<usize> = wrapped.split('\n').map(|l| l.chars().count()).collect();
        assert_eq!(
            lengths,
            vec![5, READABLE_LINE_CHARS, READABLE_LINE_CHARS, 5]
        );
        assert_eq!(prefix_preview(&long).chars().count(), READABLE_LINE_CHARS);
        assert_eq!(prefix_preview("short"), "short");
    }
}
