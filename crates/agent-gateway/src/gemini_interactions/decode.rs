//! Gemini Interactions response body → canonical turn.

use agent_application::ports::{ModelError, ModelErrorKind};
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelResponse, FinishReason, ModelRole,
    TokenUsage,
};
use agent_domain::tool::{AgentModelTool, ToolCallDecoder};
use serde_json::{Value, json};

use super::{FORMAT, MINTED_ID, NATIVE};
use crate::wire::{self, decode_arguments, invalid_response, tool_decode_error};

/// Decodes an interaction. Tool calls are named through `tools` — the tools of the request
/// that produced this response — and nothing else.
///
/// * The model's steps (`steps[]`, or the older `outputs[]`) are kept verbatim as one
///   [`NATIVE`] part `{"steps": [...]}`, the replay source — unknown step types included.
/// * `thought` → a reasoning part (producer [`NATIVE`]) with the summary text, if any, and
///   the signature.
/// * `function_call` → a tool call whose id is the step's `id` (minted and marked when
///   absent, see the module docs) and whose arguments are the step's object.
/// * `model_output` text (and a bare `text` item of the older shape) → text parts.
/// * `status`: `incomplete` → length; `requires_action`, or any status with calls → tool
///   calls; `completed` → stop; anything else kept verbatim. A `failed` interaction that
///   reached this far (no `error` for the transport to classify) is a transient error.
/// * Usage: `total_input_tokens` (+ tool-use tokens) is input; output is
///   `total_output_tokens` plus `total_thought_tokens`, which the API counts apart.
pub fn decode(body: &Value, tools: &[AgentModelTool]) -> Result<AgentModelResponse, ModelError> {
    if body
        .get("object")
        .and_then(Value::as_str)
        .is_some_and(|o| o != "interaction")
    {
        return Err(invalid_response(FORMAT, "the body is not an interaction"));
    }
    let status = body.get("status").and_then(Value::as_str);
    if status == Some("failed") {
        return Err(ModelError::new(
            ModelErrorKind::Transient,
            format!("{FORMAT}: the interaction failed without an error"),
        ));
    }
    let (steps, legacy) = match (
        body.get("steps").and_then(Value::as_array),
        body.get("outputs").and_then(Value::as_array),
    ) {
        (Some(steps), _) => (steps.clone(), false),
        (None, Some(outputs)) => (outputs.clone(), true),
        (None, None) if status.is_some() => (Vec::new(), false),
        (None, None) => {
            return Err(invalid_response(
                FORMAT,
                "the body has neither steps nor a status",
            ));
        }
    };
    let interaction_id = body
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.trim().is_empty());
    let minter = wire::IdMinter::new("interactions", interaction_id, body);

    let decoder = ToolCallDecoder::new(tools);
    let mut parts = Vec::new();
    if !steps.is_empty() {
        parts.push(AgentModelContentPart::native(
            NATIVE,
            json!({"steps": steps}),
        ));
    }
    let mut calls = 0usize;
    for step in &steps {
        match step.get("type").and_then(Value::as_str) {
            Some("thought") => {
                let text = summary_text(step.get("summary"));
                let signature = step
                    .get("signature")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty());
                if !text.is_empty() || signature.is_some() {
                    parts.push(AgentModelContentPart::Reasoning {
                        text,
                        summary: None,
                        signature: signature.map(str::to_owned),
                        opaque: None,
                        producer: Some(NATIVE.to_owned()),
                    });
                }
            }
            Some("function_call") => {
                let name = step.get("name").and_then(Value::as_str).unwrap_or_default();
                let arguments = match step.get("arguments") {
                    None | Some(Value::Null) => json!({}),
                    raw => decode_arguments(raw),
                };
                let (id, metadata) = match step
                    .get("id")
                    .and_then(Value::as_str)
                    .filter(|id| !id.trim().is_empty())
                {
                    Some(id) => (id.to_owned(), Value::Null),
                    None => (minter.mint(calls), json!({MINTED_ID: true})),
                };
                let invocation = decoder
                    .decode(&id, name, arguments, metadata)
                    .map_err(tool_decode_error)?;
                parts.push(AgentModelContentPart::ToolCall(invocation));
                calls += 1;
            }
            Some("model_output") => {
                let content = step.get("content").and_then(Value::as_array);
                for item in content.into_iter().flatten() {
                    push_text(item, &mut parts);
                }
            }
            // The older `outputs[]` shape lists content items directly.
            Some("text") => push_text(step, &mut parts),
            _ => {}
        }
    }

    let finish_reason = match status {
        Some("incomplete") => FinishReason::Length,
        _ if calls > 0 => FinishReason::ToolCalls,
        Some("requires_action") => FinishReason::ToolCalls,
        Some("completed") | None => FinishReason::Stop,
        Some(raw) => FinishReason::Other(raw.to_owned()),
    };

    Ok(AgentModelResponse {
        message: AgentModelMessage::new(ModelRole::Assistant, parts),
        finish_reason,
        usage: body.get("usage").and_then(decode_usage),
        response_id: interaction_id.map(str::to_owned),
        model: body.get("model").and_then(Value::as_str).map(str::to_owned),
        provider_metadata: provider_metadata(body, legacy),
        provider_state: None,
    })
}

/// A non-empty `{type: "text", text}` item as a text part.
fn push_text(item: &Value, parts: &mut Vec<AgentModelContentPart>) {
    if item.get("type").and_then(Value::as_str) == Some("text")
        && let Some(text) = item
            .get("text")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
    {
        parts.push(AgentModelContentPart::text(text));
    }
}

/// The readable text of a thought's `summary` (a list of text items, or a plain string).
fn summary_text(summary: Option<&Value>) -> String {
    match summary {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.get("text").and_then(Value::as_str))
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    }
}

/// Input includes cached and tool-use prompt tokens; thoughts are counted apart from
/// `total_output_tokens` and added to output (what is billed).
fn decode_usage(usage: &Value) -> Option<TokenUsage> {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64);
    let input = count("total_input_tokens")?;
    let thoughts = count("total_thought_tokens");
    Some(TokenUsage {
        input_tokens: input.saturating_add(count("total_tool_use_tokens").unwrap_or_default()),
        output_tokens: count("total_output_tokens")
            .unwrap_or_default()
            .saturating_add(thoughts.unwrap_or_default()),
        cached_input_tokens: count("total_cached_tokens"),
        cache_write_tokens: None,
        reasoning_tokens: thoughts,
    })
}

/// A small audit record: the format, the status, the service tier, and whether the body
/// had the older `outputs[]` shape.
fn provider_metadata(body: &Value, legacy: bool) -> Value {
    let mut meta = json!({"format": "gemini-interactions"});
    if let Some(status) = body.get("status").and_then(Value::as_str) {
        meta["status"] = json!(status);
    }
    if let Some(tier) = body.get("service_tier").and_then(Value::as_str) {
        meta["serviceTier"] = json!(tier);
    }
    if legacy {
        meta["legacyOutputs"] = json!(true);
    }
    meta
}
