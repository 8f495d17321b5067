//! [`AgentModelResponse`]: one decoded model turn, and the checks the runtime applies to
//! it before acting on its tool calls.

use std::collections::HashSet;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::{AgentModelMessage, ProviderState};
use crate::error::ErrorCode;
use crate::tool::ToolInvocation;

/// Why the model stopped. Providers disagree (Gemini says `STOP` for tool calls, forced
/// tool choice says `stop` with calls present), so the runtime acts on the tool calls it
/// finds, never on this value alone.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FinishReason {
    Stop,
    ToolCalls,
    /// The output-token limit cut the turn short.
    Length,
    ContentFilter,
    Refusal,
    /// A provider reason without a portable meaning, kept verbatim.
    Other(String),
}

impl FinishReason {
    /// The portable name, or the provider's own for [`FinishReason::Other`].
    pub fn as_str(&self) -> &str {
        match self {
            Self::Stop => "stop",
            Self::ToolCalls => "tool_calls",
            Self::Length => "length",
            Self::ContentFilter => "content_filter",
            Self::Refusal => "refusal",
            Self::Other(raw) => raw,
        }
    }

    /// Reads a portable name; anything else becomes [`FinishReason::Other`].
    pub fn parse(raw: &str) -> Self {
        match raw {
            "stop" => Self::Stop,
            "tool_calls" => Self::ToolCalls,
            "length" => Self::Length,
            "content_filter" => Self::ContentFilter,
            "refusal" => Self::Refusal,
            other => Self::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for FinishReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for FinishReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for FinishReason {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Self::parse(&String::deserialize(deserializer)?))
    }
}

/// Token counts, normalised by the adapter: `input_tokens` includes cached and
/// cache-written input, `output_tokens` includes reasoning. The breakdowns are subsets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
}

impl TokenUsage {
    /// Input plus output.
    pub fn total_tokens(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }

    /// The sum of two calls' usage; a breakdown stays absent only while both lack it.
    pub fn plus(&self, other: &TokenUsage) -> TokenUsage {
        let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
        };
        TokenUsage {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
            cached_input_tokens: add(self.cached_input_tokens, other.cached_input_tokens),
            cache_write_tokens: add(self.cache_write_tokens, other.cache_write_tokens),
            reasoning_tokens: add(self.reasoning_tokens, other.reasoning_tokens),
        }
    }
}

/// One model turn in canonical form: the assistant message (text, reasoning, tool calls,
/// native parts) plus what the provider said about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentModelResponse {
    pub message: AgentModelMessage,
    pub finish_reason: FinishReason,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// A small, provider-shaped record for audits (never the raw body, never secrets).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub provider_metadata: Value,
    /// The continuation the adapter hands back for the invocation's next call
    /// (`docs/spec-map.md`, Provider state); `None` keeps the current state. Never serialised: the journal
    /// records only its summary, and `model-responses/` never holds it.
    #[serde(skip)]
    pub provider_state: Option<ProviderState>,
}

impl AgentModelResponse {
    /// The tool calls, in order.
    pub fn tool_calls(&self) -> Vec<&ToolInvocation> {
        self.message.tool_calls()
    }

    /// The visible text.
    pub fn text(&self) -> String {
        self.message.text()
    }

    /// The readable reasoning.
    pub fn reasoning_text(&self) -> String {
        self.message.reasoning_text()
    }

    /// Checks the call ids of this turn: each must be non-blank and unique within the
    /// response. Ids are opaque; a missing one is never invented.
    pub fn validate_call_ids(&self) -> Result<(), ModelContractError> {
        let mut seen = HashSet::new();
        for call in self.tool_calls() {
            if call.call_id.trim().is_empty() {
                return Err(ModelContractError::MissingCallId {
                    tool_id: call.tool_id.to_string(),
                });
            }
            if !seen.insert(call.call_id.as_str()) {
                return Err(ModelContractError::DuplicateCallId {
                    call_id: call.call_id.clone(),
                });
            }
        }
        Ok(())
    }
}

/// A model turn the runtime cannot act on. Fail-fast: never retried, never repaired.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelContractError {
    #[error("the model called `{tool_id}` without a tool call id")]
    MissingCallId { tool_id: String },
    #[error("the model used tool call id `{call_id}` more than once in one response")]
    DuplicateCallId { call_id: String },
}

impl ErrorCode for ModelContractError {
    fn code(&self) -> &'static str {
        match self {
            Self::MissingCallId { .. } => "model.invalid_tool_call",
            Self::DuplicateCallId { .. } => "model.duplicate_tool_call_id",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AgentModelContentPart, ModelRole};
    use crate::tool::ToolId;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn call(id: &str) -> AgentModelContentPart {
        AgentModelContentPart::ToolCall(ToolInvocation {
            call_id: id.into(),
            tool_id: ToolId::parse("workspace.write_file").unwrap(),
            arguments: json!({"path": "output/main.md", "content": "x"}),
            provider_metadata: Value::Null,
        })
    }

    fn response(parts: Vec<AgentModelContentPart>) -> AgentModelResponse {
        AgentModelResponse {
            message: AgentModelMessage::new(ModelRole::Assistant, parts),
            finish_reason: FinishReason::ToolCalls,
            usage: None,
            response_id: None,
            model: None,
            provider_metadata: Value::Null,
            provider_state: None,
        }
    }

    #[test]
    fn call_ids_must_be_present_and_unique() {
        assert!(
            response(vec![call("a"), call("b")])
                .validate_call_ids()
                .is_ok()
        );
        assert!(
            response(vec![AgentModelContentPart::text("no calls")])
                .validate_call_ids()
                .is_ok()
        );
        for blank in ["", "  "] {
            let err = response(vec![call("a"), call(blank)])
                .validate_call_ids()
                .unwrap_err();
            assert_eq!(err.code(), "model.invalid_tool_call");
        }
        let err = response(vec![call("a"), call("b"), call("a")])
            .validate_call_ids()
            .unwrap_err();
        assert_eq!(err.code(), "model.duplicate_tool_call_id");
        assert_eq!(
            err,
            ModelContractError::DuplicateCallId {
                call_id: "a".into()
            }
        );
    }

    #[test]
    fn helpers_delegate_to_the_message() {
        let r = response(vec![
            AgentModelContentPart::reasoning("think"),
            AgentModelContentPart::text("say"),
            call("a"),
        ]);
        assert_eq!(r.text(), "say");
        assert_eq!(r.reasoning_text(), "think");
        assert_eq!(r.tool_calls().len(), 1);
    }

    #[test]
    fn finish_reasons_keep_unknown_values() {
        let all = [
            FinishReason::Stop,
            FinishReason::ToolCalls,
            FinishReason::Length,
            FinishReason::ContentFilter,
            FinishReason::Refusal,
            FinishReason::Other("MALFORMED_FUNCTION_CALL".into()),
        ];
        for reason in all {
            let json = serde_json::to_value(&reason).unwrap();
            assert_eq!(json, json!(reason.as_str()));
            assert_eq!(
                serde_json::from_value::<FinishReason>(json).unwrap(),
                reason
            );
        }
        assert_eq!(FinishReason::parse("stop"), FinishReason::Stop);
        assert_eq!(FinishReason::Length.to_string(), "length");
    }

    #[test]
    fn usage_and_json_round_trip() {
        let mut r = response(vec![AgentModelContentPart::text("hi")]);
        r.finish_reason = FinishReason::Stop;
        r.usage = Some(TokenUsage {
            input_tokens: 100,
            output_tokens: 20,
            cached_input_tokens: Some(64),
            cache_write_tokens: None,
            reasoning_tokens: Some(5),
        });
        r.response_id = Some("resp_1".into());
        r.model = Some("m-1".into());
        assert_eq!(r.usage.map(|u| u.total_tokens()), Some(120));
        let value = serde_json::to_value(&r).unwrap();
        assert_eq!(
            value,
            json!({
                "message": {"role": "assistant", "parts": [{"type": "text", "text": "hi"}]},
                "finishReason": "stop",
                "usage": {"inputTokens": 100, "outputTokens": 20, "cachedInputTokens": 64, "reasoningTokens": 5},
                "responseId": "resp_1",
                "model": "m-1"
            })
        );
        assert_eq!(
            serde_json::from_value::<AgentModelResponse>(value).unwrap(),
            r
        );
    }
}
