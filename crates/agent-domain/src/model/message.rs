//! Messages and content parts of the canonical model IR.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tool::{AgentToolResult, ToolInvocation};

/// Who speaks a message. Tool results travel in `tool` messages right after the assistant
/// message that asked for them; adapters move them where their provider wants them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ModelRole {
    System,
    User,
    Assistant,
    Tool,
}

/// Where the bytes of a media part are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MediaData {
    /// Inline bytes, base64-encoded without a `data:` prefix.
    Base64(String),
    /// A URL the provider fetches itself.
    Url(String),
}

/// One piece of a message.
///
/// Portable parts (text, reasoning, tool calls and results, media, resource references)
/// are what every adapter understands. A provider's own blocks — Anthropic thinking and
/// redacted thinking in their original order, Gemini parts with their `thoughtSignature`,
/// OpenAI Responses output items with `encrypted_content` — travel as [`Native`] parts
/// next to the portable projection of the same turn. An adapter replays the native parts
/// of its own provider and ignores everyone else's, so continuity tokens never leak across
/// providers or models.
///
/// [`Native`]: AgentModelContentPart::Native
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum AgentModelContentPart {
    /// Visible text.
    Text { text: String },
    /// Model reasoning. `text` may be empty when the provider hides it (Anthropic
    /// `display: omitted`, encrypted-only OpenAI reasoning).
    Reasoning {
        text: String,
        /// A provider-written summary, when it differs from the text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
        /// A signature binding the reasoning to its producer (Anthropic thinking signature,
        /// Gemini thought signature). Only sent back to `producer`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
        /// Encrypted reasoning that must come back verbatim (OpenAI `encrypted_content`,
        /// Anthropic redacted thinking data). Only sent back to `producer`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        opaque: Option<String>,
        /// Which provider format (and model, if it matters) produced `signature`/`opaque`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        producer: Option<String>,
    },
    /// A decoded tool call; its arguments are kept exactly as the model sent them.
    ToolCall(ToolInvocation),
    /// A tool's answer to one call.
    ToolResult(AgentToolResult),
    /// An image, audio clip or document.
    Media { mime_type: String, data: MediaData },
    /// A reference to a resource (a workspace file, a chat message) the model may read.
    ResourceRef {
        uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// A provider's own block, opaque to everything but that provider's adapter. Stored
    /// and replayed unchanged, and only to the model that produced it: `model` is stamped
    /// by the gateway that decoded it (absent when the origin is unknown).
    Native {
        provider: String,
        value: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
}

impl AgentModelContentPart {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// A reasoning part with readable text only.
    pub fn reasoning(text: impl Into<String>) -> Self {
        Self::Reasoning {
            text: text.into(),
            summary: None,
            signature: None,
            opaque: None,
            producer: None,
        }
    }

    /// A native part of `provider`, its model not known yet.
    pub fn native(provider: impl Into<String>, value: Value) -> Self {
        Self::Native {
            provider: provider.into(),
            value,
            model: None,
        }
    }

    /// Whether this is a native part a request to `model` must not carry: one stamped with
    /// another model. Continuity tokens (signatures, encrypted reasoning) are bound to the
    /// model that issued them.
    pub fn is_native_of_another_model(&self, model: &str) -> bool {
        matches!(self, Self::Native { model: Some(m), .. } if m != model)
    }

    /// The text of a text part.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text { text } => Some(text),
            _ => None,
        }
    }

    /// The invocation of a tool-call part.
    pub fn as_tool_call(&self) -> Option<&ToolInvocation> {
        match self {
            Self::ToolCall(call) => Some(call),
            _ => None,
        }
    }

    /// The result of a tool-result part.
    pub fn as_tool_result(&self) -> Option<&AgentToolResult> {
        match self {
            Self::ToolResult(result) => Some(result),
            _ => None,
        }
    }
}

/// One message of a model conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentModelMessage {
    pub role: ModelRole,
    pub parts: Vec<AgentModelContentPart>,
}

impl AgentModelMessage {
    /// A message from its parts.
    pub fn new(role: ModelRole, parts: Vec<AgentModelContentPart>) -> Self {
        Self { role, parts }
    }

    /// A system message with one text part.
    pub fn system(text: impl Into<String>) -> Self {
        Self::new(ModelRole::System, vec![AgentModelContentPart::text(text)])
    }

    /// A user message with one text part.
    pub fn user(text: impl Into<String>) -> Self {
        Self::new(ModelRole::User, vec![AgentModelContentPart::text(text)])
    }

    /// An assistant message with one text part.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::new(
            ModelRole::Assistant,
            vec![AgentModelContentPart::text(text)],
        )
    }

    /// A tool message carrying one result.
    pub fn tool_result(result: AgentToolResult) -> Self {
        Self::new(
            ModelRole::Tool,
            vec![AgentModelContentPart::ToolResult(result)],
        )
    }

    /// Appends a part.
    pub fn with_part(mut self, part: AgentModelContentPart) -> Self {
        self.parts.push(part);
        self
    }

    /// The visible text: every text part, concatenated in order.
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter_map(AgentModelContentPart::as_text)
            .collect()
    }

    /// The readable reasoning: every non-empty reasoning text, blank-line separated.
    pub fn reasoning_text(&self) -> String {
        let texts: Vec<&str> = self
            .parts
            .iter()
            .filter_map(|part| match part {
                AgentModelContentPart::Reasoning { text, .. } if !text.is_empty() => {
                    Some(text.as_str())
                }
                _ => None,
            })
            .collect();
        texts.join("\n\n")
    }

    /// The tool calls, in the order the model made them.
    pub fn tool_calls(&self) -> Vec<&ToolInvocation> {
        self.parts
            .iter()
            .filter_map(AgentModelContentPart::as_tool_call)
            .collect()
    }

    /// The tool results, in order.
    pub fn tool_results(&self) -> Vec<&AgentToolResult> {
        self.parts
            .iter()
            .filter_map(AgentModelContentPart::as_tool_result)
            .collect()
    }

    /// Stamps every native part whose model is unknown with `model`, the model that just
    /// produced this message.
    pub fn stamp_native_model(&mut self, model: &str) {
        for part in &mut self.parts {
            if let AgentModelContentPart::Native {
                model: m @ None, ..
            } = part
            {
                *m = Some(model.to_owned());
            }
        }
    }

    /// The native values of one provider, in order.
    pub fn native_parts<'a>(&'a self, provider: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.parts.iter().filter_map(move |part| match part {
            AgentModelContentPart::Native {
                provider: p, value, ..
            } if p == provider => Some(value),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::ToolId;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn call(id: &str) -> ToolInvocation {
        ToolInvocation {
            call_id: id.into(),
            tool_id: ToolId::parse("workspace.read_file").unwrap(),
            arguments: json!({"path": "output/main.md"}),
            provider_metadata: Value::Null,
        }
    }

    #[test]
    fn helpers_read_the_parts() {
        let message = AgentModelMessage::new(
            ModelRole::Assistant,
            vec![
                AgentModelContentPart::reasoning("first"),
                AgentModelContentPart::text("Hello, "),
                AgentModelContentPart::ToolCall(call("c1")),
                AgentModelContentPart::reasoning(""),
                AgentModelContentPart::reasoning("second"),
                AgentModelContentPart::text("world"),
                AgentModelContentPart::native("anthropic", json!({"type": "thinking"})),
                AgentModelContentPart::ToolCall(call("c2")),
            ],
        );
        assert_eq!(message.text(), "Hello, world");
        assert_eq!(message.reasoning_text(), "first\n\nsecond");
        let ids: Vec<_> = message
            .tool_calls()
            .iter()
            .map(|c| c.call_id.as_str())
            .collect();
        assert_eq!(ids, ["c1", "c2"]);
        assert_eq!(message.native_parts("anthropic").count(), 1);
        assert_eq!(message.native_parts("gemini").count(), 0);
        assert!(message.tool_results().is_empty());
    }

    #[test]
    fn constructors() {
        assert_eq!(AgentModelMessage::system("s").role, ModelRole::System);
        assert_eq!(AgentModelMessage::user("u").text(), "u");
        assert_eq!(AgentModelMessage::assistant("a").role, ModelRole::Assistant);
        let result = crate::tool::AgentToolResult::success(&call("c1"), "ok", Value::Null);
        let tool = AgentModelMessage::tool_result(result.clone());
        assert_eq!(tool.role, ModelRole::Tool);
        assert_eq!(tool.tool_results(), [&result]);
        let with = AgentModelMessage::user("a").with_part(AgentModelContentPart::text("b"));
        assert_eq!(with.text(), "ab");
    }

    #[test]
    fn part_json_shapes() {
        let parts = vec![
            AgentModelContentPart::text("hi"),
            AgentModelContentPart::Reasoning {
                text: String::new(),
                summary: Some("sum".into()),
                signature: Some("sig".into()),
                opaque: None,
                producer: Some("anthropic".into()),
            },
            AgentModelContentPart::ToolCall(call("c1")),
            AgentModelContentPart::Media {
                mime_type: "image/png".into(),
                data: MediaData::Base64("aGk=".into()),
            },
            AgentModelContentPart::ResourceRef {
                uri: "workspace:output/main.md".into(),
                title: None,
            },
            AgentModelContentPart::native("gemini", json!({"text": "x", "thoughtSignature": "s"})),
        ];
        let json = serde_json::to_value(&parts).unwrap();
        assert_eq!(
            json,
            json!([
                {"type": "text", "text": "hi"},
                {"type": "reasoning", "text": "", "summary": "sum", "signature": "sig", "producer": "anthropic"},
                {"type": "tool_call", "callId": "c1", "toolId": "builtin:workspace.read_file",
                 "arguments": {"path": "output/main.md"}},
                {"type": "media", "mimeType": "image/png", "data": {"base64": "aGk="}},
                {"type": "resource_ref", "uri": "workspace:output/main.md"},
                {"type": "native", "provider": "gemini", "value": {"text": "x", "thoughtSignature": "s"}}
            ])
        );
        let back: Vec<AgentModelContentPart> = serde_json::from_value(json).unwrap();
        assert_eq!(back, parts);
    }

    #[test]
    fn native_parts_round_trip_unchanged() {
        let value = json!({
            "type": "reasoning",
            "id": "rs_1",
            "encrypted_content": "gAAAA…",
            "summary": [{"type": "summary_text", "text": "t"}],
            "nested": {"n": 1.5, "big": 18446744073709551615u64, "neg": -3, "null": null, "list": [true, "x"]}
        });
        let part = AgentModelContentPart::native("openai_responses", value.clone());
        let text = serde_json::to_string(&part).unwrap();
        let back: AgentModelContentPart = serde_json::from_str(&text).unwrap();
        assert_eq!(back, part);
        match back {
            AgentModelContentPart::Native { value: v, .. } => assert_eq!(v, value),
            other => panic!("not native: {other:?}"),
        }
    }
}
