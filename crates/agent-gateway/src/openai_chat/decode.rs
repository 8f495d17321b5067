//! Chat Completions response body → canonical turn.

use agent_application::ports::ModelError;
use agent_domain::ErrorCode;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelResponse, FinishReason, ModelRole,
    TokenUsage,
};
use agent_domain::tool::{AgentModelTool, ToolCallDecoder};
use serde_json::{Value, json};

use super::{OPENROUTER_NATIVE, REASONING_CONTENT_PRODUCER, REASONING_PRODUCER};
use crate::wire::{contract, decode_arguments, invalid_response};

/// Decodes the first choice of a response body. Tool calls are named through `tools` —
/// the tools of the request that produced this response — and nothing else.
///
/// Whether the model called tools is read from `message.tool_calls`, never from
/// `finish_reason` alone: a forced tool choice has been recorded answering `stop` with
/// calls present.
pub fn decode(body: &Value, tools: &[AgentModelTool]) -> Result<AgentModelResponse, ModelError> {
    let choice = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| invalid("the response has no choices"))?;
    let message = choice
        .get("message")
        .filter(|m| m.is_object())
        .ok_or_else(|| invalid("the first choice has no message"))?;

    let mut parts = Vec::new();
    if let Some(reasoning) = message.get("reasoning_content").and_then(Value::as_str) {
        // Kept even when empty: DeepSeek wants the empty string back on tool-call turns.
        parts.push(reasoning_part(reasoning, REASONING_CONTENT_PRODUCER));
    } else if let Some(reasoning) = message.get("reasoning").and_then(Value::as_str)
        && !reasoning.is_empty()
    {
        parts.push(reasoning_part(reasoning, REASONING_PRODUCER));
    }
    if let Some(details) = message.get("reasoning_details")
        && details.as_array().is_some_and(|d| !d.is_empty())
    {
        parts.push(AgentModelContentPart::native(
            OPENROUTER_NATIVE,
            details.clone(),
        ));
    }
    let text = content_text(message.get("content"));
    if !text.is_empty() {
        parts.push(AgentModelContentPart::text(text));
    }
    let refusal = message
        .get("refusal")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty());
    if let Some(refusal) = refusal {
        parts.push(AgentModelContentPart::text(refusal));
    }

    let decoder = ToolCallDecoder::new(tools);
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for call in calls {
        let function = call.get("function").unwrap_or(&Value::Null);
        let alias = function
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let call_id = call.get("id").and_then(Value::as_str).unwrap_or_default();
        let arguments = decode_arguments(function.get("arguments"));
        let invocation = decoder
            .decode(call_id, alias, arguments, Value::Null)
            .map_err(|e| contract(e.code(), e.to_string()))?;
        parts.push(AgentModelContentPart::ToolCall(invocation));
    }

    let raw_finish = choice.get("finish_reason").and_then(Value::as_str);
    let finish_reason = match raw_finish {
        Some("length") => FinishReason::Length,
        Some("content_filter") => FinishReason::ContentFilter,
        _ if !calls.is_empty() => FinishReason::ToolCalls,
        _ if refusal.is_some() => FinishReason::Refusal,
        Some(raw) => FinishReason::parse(raw),
        None => FinishReason::Stop,
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

fn reasoning_part(text: &str, producer: &str) -> AgentModelContentPart {
    AgentModelContentPart::Reasoning {
        text: text.to_owned(),
        summary: None,
        signature: None,
        opaque: None,
        producer: Some(producer.to_owned()),
    }
}

/// `content` is a string, null, or (on some servers) an array of text parts.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

pub(super) fn decode_usage(usage: &Value) -> Option<TokenUsage> {
    let count = |v: &Value, path: &[&str]| {
        path.iter()
            .try_fold(v, |v, key| v.get(*key))
            .and_then(Value::as_u64)
    };
    let input = count(usage, &["prompt_tokens"])?;
    Some(TokenUsage {
        input_tokens: input,
        output_tokens: count(usage, &["completion_tokens"]).unwrap_or_default(),
        cached_input_tokens: count(usage, &["prompt_tokens_details", "cached_tokens"])
            .or_else(|| count(usage, &["prompt_cache_hit_tokens"])),
        cache_write_tokens: None,
        reasoning_tokens: count(usage, &["completion_tokens_details", "reasoning_tokens"]),
    })
}

/// A small audit record: which format answered, and the routing facts servers report.
fn provider_metadata(body: &Value) -> Value {
    let mut meta = json!({"format": "openai-chat"});
    for (wire, key) in [
        ("system_fingerprint", "systemFingerprint"),
        ("provider", "upstreamProvider"),
        ("service_tier", "serviceTier"),
    ] {
        if let Some(value) = body.get(wire).and_then(Value::as_str) {
            meta[key] = json!(value);
        }
    }
    meta
}

fn invalid(what: &str) -> ModelError {
    invalid_response("Chat Completions", what)
}
