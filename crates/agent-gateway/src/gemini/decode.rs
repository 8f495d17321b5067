//! Gemini `generateContent` response body → canonical turn.

use agent_application::ports::ModelError;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelResponse, FinishReason, ModelRole,
    TokenUsage,
};
use agent_domain::tool::{AgentModelTool, ToolCallDecoder};
use serde_json::{Value, json};

use super::{FORMAT, MINTED_ID, NATIVE};
use crate::wire::{self, contract, invalid_response, tool_decode_error};

/// Finish reasons that mean a safety or policy filter stopped the turn.
const FILTER_REASONS: &[&str] = &[
    "SAFETY",
    "RECITATION",
    "PROHIBITED_CONTENT",
    "BLOCKLIST",
    "SPII",
    "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT",
];

/// Decodes the first candidate of a response. Tool calls are named through `tools` — the
/// tools of the request that produced this response — and nothing else.
///
/// * The candidate's parts are kept verbatim as one [`NATIVE`] part `{"parts": [...]}`, the
///   replay source (signatures included).
/// * `text` → a text part; `thought: true` → a reasoning part (producer [`NATIVE`]).
/// * `functionCall` → a tool call whose arguments are `args`; without an `id`, one is minted
///   (see the module docs) and marked so it is never sent back.
/// * `finishReason`: `STOP` → stop (tool calls when there are calls), `MAX_TOKENS` → length,
///   safety and policy reasons → content filter, `MALFORMED_FUNCTION_CALL` → an
///   `model.invalid_tool_call` error, anything else kept verbatim.
/// * No candidates and a `promptFeedback.blockReason` → a content-filter stop.
pub fn decode(body: &Value, tools: &[AgentModelTool]) -> Result<AgentModelResponse, ModelError> {
    let candidate = body
        .get("candidates")
        .and_then(Value::as_array)
        .and_then(|c| c.first());
    let block_reason = body
        .get("promptFeedback")
        .and_then(|f| f.get("blockReason"))
        .and_then(Value::as_str);
    let candidate = match (candidate, block_reason) {
        (Some(candidate), _) => candidate,
        (None, Some(_)) => &Value::Null,
        (None, None) => return Err(invalid_response(FORMAT, "the body has no candidates")),
    };
    let raw_finish = candidate.get("finishReason").and_then(Value::as_str);
    if raw_finish == Some("MALFORMED_FUNCTION_CALL") {
        let detail = candidate
            .get("finishMessage")
            .and_then(Value::as_str)
            .unwrap_or("no detail");
        return Err(contract(
            "model.invalid_tool_call",
            format!("Gemini produced a malformed function call: {detail}"),
        ));
    }
    let raw_parts = candidate
        .get("content")
        .and_then(|c| c.get("parts"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let response_id = body.get("responseId").and_then(Value::as_str);
    let minter = wire::IdMinter::new("gemini", response_id, body);

    let decoder = ToolCallDecoder::new(tools);
    let mut parts = Vec::new();
    if !raw_parts.is_empty() {
        parts.push(AgentModelContentPart::native(
            NATIVE,
            json!({"parts": raw_parts}),
        ));
    }
    let mut calls = 0usize;
    for part in &raw_parts {
        let text = part.get("text").and_then(Value::as_str);
        if let Some(call) = part.get("functionCall") {
            let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
            let args = match call.get("args") {
                None | Some(Value::Null) => json!({}),
                Some(args) => args.clone(),
            };
            let (id, metadata) = match call.get("id").and_then(Value::as_str) {
                Some(id) if !id.trim().is_empty() => (id.to_owned(), Value::Null),
                _ => (minter.mint(calls), json!({MINTED_ID: true})),
            };
            let invocation = decoder
                .decode(&id, name, args, metadata)
                .map_err(tool_decode_error)?;
            parts.push(AgentModelContentPart::ToolCall(invocation));
            calls += 1;
        } else if part.get("thought") == Some(&Value::Bool(true)) {
            parts.push(AgentModelContentPart::Reasoning {
                text: text.unwrap_or_default().to_owned(),
                summary: None,
                signature: part
                    .get("thoughtSignature")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                opaque: None,
                producer: Some(NATIVE.to_owned()),
            });
        } else if let Some(text) = text.filter(|t| !t.is_empty()) {
            parts.push(AgentModelContentPart::text(text));
        }
    }

    let finish_reason = match raw_finish {
        _ if block_reason.is_some() && candidate.is_null() => FinishReason::ContentFilter,
        Some("MAX_TOKENS") => FinishReason::Length,
        Some(raw) if FILTER_REASONS.contains(&raw) => FinishReason::ContentFilter,
        _ if calls > 0 => FinishReason::ToolCalls,
        Some("STOP" | "FINISH_REASON_UNSPECIFIED") | None => FinishReason::Stop,
        Some(raw) => FinishReason::Other(raw.to_owned()),
    };

    Ok(AgentModelResponse {
        message: AgentModelMessage::new(ModelRole::Assistant, parts),
        finish_reason,
        usage: body.get("usageMetadata").and_then(decode_usage),
        response_id: response_id.map(str::to_owned),
        model: body
            .get("modelVersion")
            .and_then(Value::as_str)
            .map(str::to_owned),
        provider_metadata: provider_metadata(candidate, body.get("promptFeedback")),
        provider_state: None,
    })
}

/// `promptTokenCount` already includes cached tokens; tool-use prompt tokens are input too.
/// Output is visible candidates plus thoughts (what is billed).
pub(super) fn decode_usage(usage: &Value) -> Option<TokenUsage> {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64);
    let prompt = count("promptTokenCount")?;
    let thoughts = count("thoughtsTokenCount");
    Some(TokenUsage {
        input_tokens: prompt.saturating_add(count("toolUsePromptTokenCount").unwrap_or_default()),
        output_tokens: count("candidatesTokenCount")
            .unwrap_or_default()
            .saturating_add(thoughts.unwrap_or_default()),
        cached_input_tokens: count("cachedContentTokenCount"),
        cache_write_tokens: None,
        reasoning_tokens: thoughts,
    })
}

/// A small audit record: the format, the raw finish reason and message, a block reason.
fn provider_metadata(candidate: &Value, feedback: Option<&Value>) -> Value {
    let mut meta = json!({"format": "gemini"});
    if let Some(raw) = candidate.get("finishReason").and_then(Value::as_str) {
        meta["finishReason"] = json!(raw);
    }
    if let Some(message) = candidate.get("finishMessage").and_then(Value::as_str) {
        meta["finishMessage"] = json!(message);
    }
    if let Some(reason) = feedback
        .and_then(|f| f.get("blockReason"))
        .and_then(Value::as_str)
    {
        meta["blockReason"] = json!(reason);
    }
    meta
}
