//! What a run is given when it starts ([`RunFacts`]) and what it reports when it ends
//! ([`RunOutcome`]): the two ends of every run, shared by the start, the driver and the
//! finish.

use std::sync::Arc;

use agent_domain::event::{
    ChatRef, ModelBindingResolvedPayload, Presentation, RunFailurePayload, RunStatus,
};
use agent_domain::json::OrderedJson;
use agent_domain::profile::ResolvedAgentProfile;
use agent_domain::run::{RunId, WorkspaceId};

use super::machine::ModelLabel;
use crate::ports::{ModelGateway, ReplyAuthor, ReplyModel};
use crate::prompt::PromptSnapshot;

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub run_id: RunId,
    /// `completed`, `partial_success`, `failed` or `cancelled`.
    pub status: RunStatus,
    /// The run's chat message as it was right after the last confirmed commit.
    pub committed_text: Option<String>,
    /// Model rounds of the root invocation.
    pub rounds: u32,
    /// Tool calls the model made (executed or refused).
    pub tool_calls: u32,
    /// Why the run failed or only partly succeeded.
    pub failure: Option<RunFailurePayload>,
}

/// Everything fixed when a run starts, handed to its driver.
pub(super) struct RunFacts {
    pub run_id: RunId,
    pub workspace_id: WorkspaceId,
    pub stable_chat_id: String,
    pub chat: ChatRef,
    pub profile: ResolvedAgentProfile,
    pub presentation: Presentation,
    pub input_message_count: usize,
    pub prompt: PromptSnapshot,
    pub model: Arc<dyn ModelGateway>,
    pub model_label: ModelLabel,
    pub model_binding: ModelBindingResolvedPayload,
    /// Who the run's message is from.
    pub author: ReplyAuthor,
    /// What the run's message says wrote it.
    pub reply_model: ReplyModel,
    /// `chat_metadata` keys the run's first commit sets (the world-info timed effects its
    /// prompt's activation left).
    pub commit_metadata: Vec<(String, OrderedJson)>,
}
