//! Payloads of model-turn events: request, attempts and retries, stored responses,
//! provider-state changes, the completed turn, direct output and drift recovery.

use serde::{Deserialize, Serialize};

use super::ModelRequestSummary;
use crate::model::{ProviderStateSummary, TokenUsage};
use crate::tool::ToolTurnContract;
use crate::workspace::WorkspacePath;

/// `model_request_created`: one round's request is built; `turn` is the contract that
/// advertised tools and decodes aliases for exactly this round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelRequestCreatedPayload {
    pub round: u32,
    pub invocation_id: String,
    pub request: ModelRequestSummary,
    pub turn: ToolTurnContract,
}

/// `model_call_attempt_started`: attempt `attempt` (1-based) of a round's model call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCallAttemptStartedPayload {
    pub round: u32,
    pub invocation_id: String,
    pub attempt: u32,
    pub max_retries: u32,
}

/// `model_call_attempt_failed`: one attempt failed; `willRetry` says whether another follows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCallAttemptFailedPayload {
    pub round: u32,
    pub invocation_id: String,
    pub attempt: u32,
    pub max_retries: u32,
    pub retryable: bool,
    pub will_retry: bool,
    /// The failure's error code, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub message: String,
}

/// `model_call_retry_scheduled`: the next attempt starts after `intervalMs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCallRetryScheduledPayload {
    pub round: u32,
    pub invocation_id: String,
    pub next_attempt: u32,
    pub interval_ms: u64,
}

/// `model_response_stored`: the response audit file was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelResponseStoredPayload {
    pub round: u32,
    pub invocation_id: String,
    /// Run-relative path (`model-responses/round-001.json`, or under `<inv>/` for children).
    pub path: String,
    pub response_id: Option<String>,
    pub model: Option<String>,
}

/// `provider_state_updated`: the invocation's continuation state after a successful call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderStateUpdatedPayload {
    pub round: u32,
    pub invocation_id: String,
    pub provider_state: ProviderStateSummary,
}

/// A short preview of the visible text of a turn that also called tools, so timelines
/// can show what the model said while acting. Never taken from reasoning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NarrationPreview {
    /// Always `assistantText`.
    pub source: String,
    /// At most 280 characters of the visible text.
    pub text: String,
    pub total_chars: u64,
    pub total_words: u64,
    pub truncated: bool,
}

/// `model_completed`: what a round's response contained, in counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCompletedPayload {
    pub round: u32,
    pub invocation_id: String,
    pub model_response_path: String,
    pub tool_call_count: u32,
    pub text_chars: u64,
    pub text_words: u64,
    /// Whether the visible text is non-blank.
    pub has_assistant_text: bool,
    pub assistant_text_chars: u64,
    pub assistant_text_words: u64,
    pub has_reasoning: bool,
    pub reasoning_chars: u64,
    pub reasoning_words: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub narration: Option<NarrationPreview>,
    /// The tokens the provider reported for this call (an extension of TauriTavern's payload;
    /// absent when the provider reports none, as the scripted model does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
}

/// `direct_output_captured`: a text-only turn was saved to the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DirectOutputCapturedPayload {
    pub round: u32,
    pub invocation_id: String,
    pub path: WorkspacePath,
    pub chars: u64,
    pub words: u64,
    pub sha256: String,
    pub model_response_path: String,
}

/// `drift_recovery_attempted`: the model answered without tools and was reminded to use
/// its ending tool; the loop continues while rounds remain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DriftRecoveryAttemptedPayload {
    pub round: u32,
    pub invocation_id: String,
    pub attempt: u32,
    /// `maxRounds - 1`: recovery is only bounded by the remaining rounds.
    pub max_attempts: u32,
    pub max_rounds: u32,
    /// Always `max_rounds`.
    pub limit_reason: String,
    /// Confirmed chat commits so far in the run.
    pub committed_count: u32,
    /// Always `model.tool_call_required`.
    pub reason_code: String,
}
