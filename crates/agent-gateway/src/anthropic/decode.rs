//! Anthropic Messages response body → canonical turn.

use agent_application::ports::ModelError;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelResponse, FinishReason, ModelRole,
    TokenUsage,
};
use agent_domain::tool::{AgentModelTool, ToolCallDecoder};
use serde_json::{Value, json};

use super::{FORMAT, NATIVE};
use crate::wire::{invalid_response, tool_decode_error};

/// Decodes a Messages response. Tool calls are named through `tools` — the tools of the
/// request that produced this response — and nothing else.
///
/// * `text` → a text part.
/// * `thinking` / `redacted_thinking` → a [`NATIVE`] part holding the block verbatim (the
///   replay source), plus a display-only reasoning part when the thinking text is not empty.
/// * `tool_use` → a tool call whose arguments are the `input` object.
/// * any other block (server tools, their results) → a [`NATIVE`] part, replayed verbatim.
///
/// A refusal without text gets the `stop_details.explanation` as its text.
pub fn decode(body: &Value, tools: &[AgentModelTool]) -> Result<AgentModelResponse, ModelError> {
    if body.get("type").and_then(Value::as_str) != Some("message") {
        return Err(invalid("the body is not a message"));
    }
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("the message has no content array"))?;

    let decoder = ToolCallDecoder::new(tools);
    let mut parts = Vec::new();
    let mut has_calls = false;
    for block in blocks {
        match block
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "text" => {
                let text = block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if !text.is_empty() {
                    parts.push(AgentModelContentPart::text(text));
                }
            }
            "thinking" => {
                parts.push(AgentModelContentPart::native(NATIVE, block.clone()));
                let text = block
                    .get("thinking")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if !text.is_empty() {
                    parts.push(AgentModelContentPart::Reasoning {
                        text: text.to_owned(),
                        summary: None,
                        signature: None,
                        opaque: None,
                        producer: Some(NATIVE.to_owned()),
                    });
                }
            }
            "tool_use" => {
                let id = block.get("id").and_then(Value::as_str).unwrap_or_default();
                let name = block
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let input = match block.get("input") {
                    Some(input @ Value::Object(_)) => input.clone(),
                    None | Some(Value::Null) => json!({}),
                    Some(other) => other.clone(),
                };
                let invocation = decoder
                    .decode(id, name, input, Value::Null)
                    .map_err(tool_decode_error)?;
                parts.push(AgentModelContentPart::ToolCall(invocation));
                has_calls = true;
            }
            _ => parts.push(AgentModelContentPart::native(NATIVE, block.clone())),
        }
    }

    let raw_stop = body.get("stop_reason").and_then(Value::as_str);
    let finish_reason = match raw_stop {
        Some("max_tokens") => FinishReason::Length,
        _ if has_calls => FinishReason::ToolCalls,
        Some("refusal") => FinishReason::Refusal,
        Some("end_turn" | "stop_sequence") | None => FinishReason::Stop,
        Some("tool_use") => FinishReason::ToolCalls,
        Some(raw) => FinishReason::Other(raw.to_owned()),
    };
    let stop_details = body.get("stop_details").filter(|d| d.is_object());
    if finish_reason == FinishReason::Refusal
        && !parts.iter().any(|p| p.as_text().is_some())
        && let Some(explanation) = stop_details
            .and_then(|d| d.get("explanation"))
            .and_then(Value::as_str)
            .filter(|e| !e.is_empty())
    {
        parts.push(AgentModelContentPart::text(explanation));
    }

    Ok(AgentModelResponse {
        message: AgentModelMessage::new(ModelRole::Assistant, parts),
        finish_reason,
        usage: body.get("usage").and_then(decode_usage),
        response_id: body.get("id").and_then(Value::as_str).map(str::to_owned),
        model: body.get("model").and_then(Value::as_str).map(str::to_owned),
        provider_metadata: provider_metadata(body, stop_details),
        provider_state: None,
    })
}

/// Anthropic reports uncached input only in `input_tokens`; the canonical input count
/// includes cache reads and cache writes.
pub(super) fn decode_usage(usage: &Value) -> Option<TokenUsage> {
    let count = |v: &Value, path: &[&str]| {
        path.iter()
            .try_fold(v, |v, key| v.get(*key))
            .and_then(Value::as_u64)
    };
    let uncached = count(usage, &["input_tokens"])?;
    let cache_read = count(usage, &["cache_read_input_tokens"]);
    let cache_write = count(usage, &["cache_creation_input_tokens"]);
    Some(TokenUsage {
        input_tokens: uncached
            .saturating_add(cache_read.unwrap_or_default())
            .saturating_add(cache_write.unwrap_or_default()),
        output_tokens: count(usage, &["output_tokens"]).unwrap_or_default(),
        cached_input_tokens: cache_read,
        cache_write_tokens: cache_write,
        reasoning_tokens: count(usage, &["output_tokens_details", "thinking_tokens"]),
    })
}

/// A small audit record: the format, and what Anthropic said about the stop.
fn provider_metadata(body: &Value, stop_details: Option<&Value>) -> Value {
    let mut meta = json!({"format": "anthropic"});
    if let Some(raw) = body.get("stop_reason").and_then(Value::as_str) {
        meta["stopReason"] = json!(raw);
    }
    if let Some(sequence) = body.get("stop_sequence").and_then(Value::as_str) {
        meta["stopSequence"] = json!(sequence);
    }
    if let Some(details) = stop_details {
        meta["stopDetails"] = details.clone();
    }
    if let Some(tier) = body
        .get("usage")
        .and_then(|u| u.get("service_tier"))
        .and_then(Value::as_str)
    {
        meta["serviceTier"] = json!(tier);
    }
    meta
}

fn invalid(what: &str) -> ModelError {
    invalid_response(FORMAT, what)
}
