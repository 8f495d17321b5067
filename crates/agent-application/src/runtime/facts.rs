//! What a run is given when it starts ([`RunFacts`], the models its invocations call) and
//! what it reports when it ends ([`RunOutcome`]): the two ends of every run, shared by the
//! start, the driver and the finish.

use std::sync::Arc;

use agent_domain::event::{
    ChatRef, ModelBindingResolvedPayload, Presentation, RunFailurePayload, RunStatus,
};
use agent_domain::json::OrderedJson;
use agent_domain::profile::ResolvedAgentProfile;
use agent_domain::run::{RunId, WorkspaceId};

use async_trait::async_trait;

use super::machine::ModelLabel;
use crate::ports::{ModelGateway, ReplyAuthor, ReplyModel};
use crate::prompt::PromptSnapshot;

/// A model an invocation calls, with what the journal says about it.
#[derive(Clone)]
pub struct RunModel {
    pub gateway: Arc<dyn ModelGateway>,
    /// Provider format and model, for request summaries.
    pub label: ModelLabel,
    /// Journaled as `agent_model_binding_resolved` (its `invocationId` is set by the
    /// runtime).
    pub binding: ModelBindingResolvedPayload,
}

impl std::fmt::Debug for RunModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunModel")
            .field("label", &self.label)
            .field("binding", &self.binding)
            .finish_non_exhaustive()
    }
}

/// Why a profile's model cannot be bound (an unknown connection, an unset key variable).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ModelBindError {
    pub code: &'static str,
    pub message: String,
}

/// Finds the model of an invocation whose profile is not the run's own (a delegated
/// child, a handoff target), so a cheap model can serve as a researcher. The host
/// implements it: only the host knows connections and keys.
#[async_trait]
pub trait ModelBinder: Send + Sync {
    /// `Ok(None)`: the profile has no model of its own and calls the run's model.
    async fn bind(
        &self,
        profile: &ResolvedAgentProfile,
    ) -> Result<Option<RunModel>, ModelBindError>;
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub run_id: RunId,
    /// `completed`, `partial_success`, `failed` or `cancelled`.
    pub status: RunStatus,
    /// The run's chat message as it was right after the last confirmed commit.
    pub committed_text: Option<String>,
    /// Model rounds of the invocations that owned the run (the root, then each handoff
    /// target).
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
    /// The models of other profiles' invocations; `None`: they call the run's model.
    pub models: Option<Arc<dyn ModelBinder>>,
    /// Who the run's message is from.
    pub author: ReplyAuthor,
    /// What the run's message says wrote it.
    pub reply_model: ReplyModel,
    /// `chat_metadata` keys the run's first commit sets (the world-info timed effects its
    /// prompt's activation left).
    pub commit_metadata: Vec<(String, OrderedJson)>,
}

impl RunFacts {
    /// The model the run was started with.
    pub fn run_model(&self) -> RunModel {
        RunModel {
            gateway: Arc::clone(&self.model),
            label: self.model_label.clone(),
            binding: self.model_binding.clone(),
        }
    }
}
