//! Builders of the events the machine journals through its steps, plus
//! [`tool_outcome_event`] for the driver, so `tool_call_completed` / `tool_call_failed`
//! are decided in one place for executed and rejected calls alike.

use agent_domain::event::{
    ModelCompletedPayload, NarrationPreview, RunEvent, ToolCallOutcomePayload,
};
use agent_domain::model::AgentModelResponse;
use agent_domain::text::TextMetrics;
use agent_domain::tool::AgentToolResult;

/// Longest narration preview, in characters.
pub const NARRATION_PREVIEW_CHARS: usize = 280;

/// `tool_call_completed` for a successful result, `tool_call_failed` (warn level) for an
/// error result the model reads. Fatal failures are the driver's own event.
pub fn tool_outcome_event(
    round: u32,
    invocation_id: &str,
    result: &AgentToolResult,
    elapsed_ms: u64,
) -> RunEvent {
    let payload = ToolCallOutcomePayload {
        round,
        invocation_id: invocation_id.to_owned(),
        call_id: result.call_id.clone(),
        tool_id: result.tool_id.clone(),
        is_error: result.is_error,
        error_code: result.error_code.clone(),
        message: result.is_error.then(|| result.content.clone()),
        elapsed_ms,
        resource_refs: result.resource_refs.clone(),
        fatal: false,
    };
    if result.is_error {
        RunEvent::ToolCallFailed(payload)
    } else {
        RunEvent::ToolCallCompleted(payload)
    }
}

/// `model_completed`: counts of what the turn said, with a narration preview when the
/// turn also called tools. Never previews reasoning.
pub(super) fn model_completed(
    round: u32,
    invocation_id: &str,
    response: &AgentModelResponse,
    response_path: String,
) -> ModelCompletedPayload {
    let text = response.text();
    let reasoning = response.reasoning_text();
    let text_metrics = TextMetrics::of(&text);
    let reasoning_metrics = TextMetrics::of(&reasoning);
    let visible = text.trim();
    let tool_call_count = len_u32(response.tool_calls().len());
    let narration = (tool_call_count > 0 && !visible.is_empty()).then(|| narration(visible));
    ModelCompletedPayload {
        round,
        invocation_id: invocation_id.to_owned(),
        model_response_path: response_path,
        tool_call_count,
        text_chars: u64_of(text_metrics.chars),
        text_words: u64_of(text_metrics.words),
        has_assistant_text: !visible.is_empty(),
        assistant_text_chars: u64_of(text_metrics.chars),
        assistant_text_words: u64_of(text_metrics.words),
        has_reasoning: reasoning_metrics.chars > 0,
        reasoning_chars: u64_of(reasoning_metrics.chars),
        reasoning_words: u64_of(reasoning_metrics.words),
        narration,
        usage: response.usage,
    }
}

fn narration(visible: &str) -> NarrationPreview {
    let metrics = TextMetrics::of(visible);
    let truncated = metrics.chars > NARRATION_PREVIEW_CHARS;
    NarrationPreview {
        source: "assistantText".into(),
        text: visible.chars().take(NARRATION_PREVIEW_CHARS).collect(),
        total_chars: u64_of(metrics.chars),
        total_words: u64_of(metrics.words),
        truncated,
    }
}

fn len_u32(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

fn u64_of(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
