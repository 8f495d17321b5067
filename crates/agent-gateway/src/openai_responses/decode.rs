//! Responses response body → canonical turn.

use agent_application::ports::ModelError;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelResponse, FinishReason, ModelRole,
    TokenUsage,
};
use agent_domain::tool::{AgentModelTool, ToolCallDecoder};
use serde_json::{Value, json};

use super::{FORMAT, NATIVE};
use crate::wire::{decode_arguments, invalid_response, tool_decode_error};

/// Decodes a Responses body. Tool calls are named through `tools` — the tools of the
/// request that produced this response — and nothing else.
///
/// * `message` → its `output_text` parts as text; a `refusal` part as text and a
///   [`FinishReason::Refusal`].
/// * `reasoning` → a [`NATIVE`] part holding the item verbatim (the replay source), plus a
///   display-only reasoning part with the summary text when there is one.
/// * `function_call` → a tool call whose id is the item's `call_id` (not its item `id`).
/// * any other item → a [`NATIVE`] part, replayed verbatim.
///
/// There is no finish reason on the wire: `incomplete` for `max_output_tokens` is
/// [`FinishReason::Length`], for `content_filter` [`FinishReason::ContentFilter`]; calls
/// mean [`FinishReason::ToolCalls`]. A `failed` body with an `error` never gets here (the
/// transport classifies it); one without is an invalid response.
pub fn decode(body: &Value, tools: &[AgentModelTool]) -> Result<AgentModelResponse, ModelError> {
    if body.get("object").and_then(Value::as_str) != Some("response") {
        return Err(invalid("the body is not a response object"));
    }
    let items = body
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("the response has no output array"))?;
    let status = body.get("status").and_then(Value::as_str);
    if status == Some("failed") {
        return Err(invalid("the response failed without an error"));
    }

    let decoder = ToolCallDecoder::new(tools);
    let mut parts = Vec::new();
    let mut has_calls = false;
    let mut refused = false;
    for item in items {
        let str_of = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or_default();
        match str_of("type") {
            "message" => {
                let content = item.get("content").and_then(Value::as_array);
                for part in content.into_iter().flatten() {
                    let text = match part.get("type").and_then(Value::as_str) {
                        Some("output_text") => part.get("text"),
                        Some("refusal") => {
                            refused = true;
                            part.get("refusal")
                        }
                        _ => None,
                    };
                    if let Some(text) = text.and_then(Value::as_str).filter(|t| !t.is_empty()) {
                        parts.push(AgentModelContentPart::text(text));
                    }
                }
            }
            "reasoning" => {
                parts.push(AgentModelContentPart::native(NATIVE, item.clone()));
                let summary: Vec<&str> = item
                    .get("summary")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.get("text").and_then(Value::as_str))
                    .filter(|t| !t.is_empty())
                    .collect();
                if !summary.is_empty() {
                    parts.push(AgentModelContentPart::Reasoning {
                        text: summary.join("\n\n"),
                        summary: None,
                        signature: None,
                        opaque: None,
                        producer: Some(NATIVE.to_owned()),
                    });
                }
            }
            "function_call" => {
                let invocation = decoder
                    .decode(
                        str_of("call_id"),
                        str_of("name"),
                        decode_arguments(item.get("arguments")),
                        Value::Null,
                    )
                    .map_err(tool_decode_error)?;
                parts.push(AgentModelContentPart::ToolCall(invocation));
                has_calls = true;
            }
            _ => parts.push(AgentModelContentPart::native(NATIVE, item.clone())),
        }
    }

    let incomplete = body
        .get("incomplete_details")
        .and_then(|d| d.get("reason"))
        .and_then(Value::as_str);
    let finish_reason = match (status, incomplete) {
        (Some("incomplete"), Some("max_output_tokens")) => FinishReason::Length,
        (Some("incomplete"), Some("content_filter")) => FinishReason::ContentFilter,
        _ if has_calls => FinishReason::ToolCalls,
        _ if refused => FinishReason::Refusal,
        (Some("completed") | None, _) => FinishReason::Stop,
        (Some(raw), _) => FinishReason::Other(raw.to_owned()),
    };

    Ok(AgentModelResponse {
        message: AgentModelMessage::new(ModelRole::Assistant, parts),
        finish_reason,
        usage: body.get("usage").and_then(decode_usage),
        response_id: body.get("id").and_then(Value::as_str).map(str::to_owned),
        model: body.get("model").and_then(Value::as_str).map(str::to_owned),
        provider_metadata: provider_metadata(body),
        provider_state: None,
    })
}

/// `input_tokens` already includes the cached ones.
pub(super) fn decode_usage(usage: &Value) -> Option<TokenUsage> {
    let count = |path: &[&str]| {
        path.iter()
            .try_fold(usage, |v, key| v.get(*key))
            .and_then(Value::as_u64)
    };
    Some(TokenUsage {
        input_tokens: count(&["input_tokens"])?,
        output_tokens: count(&["output_tokens"]).unwrap_or_default(),
        cached_input_tokens: count(&["input_tokens_details", "cached_tokens"]),
        cache_write_tokens: None,
        reasoning_tokens: count(&["output_tokens_details", "reasoning_tokens"]),
    })
}

/// A small audit record: the format, the status and why a response is incomplete.
fn provider_metadata(body: &Value) -> Value {
    let mut meta = json!({"format": "openai-responses"});
    if let Some(status) = body.get("status").and_then(Value::as_str) {
        meta["status"] = json!(status);
    }
    if let Some(details) = body.get("incomplete_details").filter(|d| d.is_object()) {
        meta["incompleteDetails"] = details.clone();
    }
    if let Some(tier) = body.get("service_tier").and_then(Value::as_str) {
        meta["serviceTier"] = json!(tier);
    }
    meta
}

fn invalid(what: &str) -> ModelError {
    invalid_response(FORMAT, what)
}
