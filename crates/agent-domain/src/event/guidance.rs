//! Payloads of user-guidance events: text a user sends to a running agent, which joins
//! the next root or handoff round as one user message.

use serde::{Deserialize, Serialize};

/// `user_guidance_submitted`: the mailbox accepted a guidance item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GuidanceSubmittedPayload {
    pub guidance_id: String,
    /// The host's own id for the item, echoed so it can match its UI state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_guidance_id: Option<String>,
    pub text: String,
    pub chars: u64,
    pub words: u64,
}

/// The two ends of a guidance item's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GuidanceStatus {
    Applied,
    Discarded,
}

/// `user_guidance_applied`: pending items were merged into one user message of a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GuidanceAppliedPayload {
    pub guidance_ids: Vec<String>,
    pub client_guidance_ids: Vec<String>,
    pub invocation_id: String,
    pub round: u32,
    pub count: u32,
    pub chars: u64,
    pub words: u64,
    /// The first characters of the merged text.
    pub preview: String,
    /// Index of the guidance message in the request's message list.
    pub message_index: u32,
    pub request_message_count: u32,
    pub status: GuidanceStatus,
}

/// Why pending guidance was dropped unread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum GuidanceDiscardReason {
    RunCancelRequested,
    RunCancelledBeforeNextModelRequest,
    RunFinishedBeforeNextModelRequest,
    RunFailedBeforeNextModelRequest,
    RunPartialSuccessBeforeNextModelRequest,
}

/// `user_guidance_discarded`: pending items will never reach the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GuidanceDiscardedPayload {
    pub guidance_ids: Vec<String>,
    pub client_guidance_ids: Vec<String>,
    pub count: u32,
    pub chars: u64,
    pub reason: GuidanceDiscardReason,
    pub status: GuidanceStatus,
}
