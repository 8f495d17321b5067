//! What an invocation's loop starts from, and the errors of driving the machine wrongly.

use agent_domain::ErrorCode;
use agent_domain::event::Presentation;
use agent_domain::model::{AgentModelMessage, GenerationParameters, ProviderState};
use agent_domain::profile::ModelRetryPolicy;
use agent_domain::run::InvocationId;
use agent_domain::tool::{InvocationToolSnapshot, TurnError};
use agent_domain::workspace::WorkspacePath;
use serde::{Deserialize, Serialize};

use super::CommitLedger;

/// Everything one invocation's loop is built from. All of it is resolved before the loop
/// starts; the machine never looks anything up.
#[derive(Debug, Clone, PartialEq)]
pub struct InvocationSetup {
    pub invocation_id: InvocationId,
    /// Foreground runs must commit explicitly before they may finish, and get
    /// auto-publish; background runs may finish without committing.
    pub presentation: Presentation,
    /// The profile's `tools.maxRounds` (at least 1).
    pub max_rounds: u32,
    /// The profile's `run.modelRetry`.
    pub model_retry: ModelRetryPolicy,
    /// The profile's messageBody artifact (`output/main.md` by default); text-only turns
    /// are captured to `direct_output.md` in its root.
    pub message_body_path: WorkspacePath,
    /// The frozen tool snapshot of this invocation; its exit policy decides how the
    /// invocation may end. Its id must equal the invocation id.
    pub snapshot: InvocationToolSnapshot,
    /// The assembled prompt (system, chat history, task packet…).
    pub messages: Vec<AgentModelMessage>,
    pub provider_state: ProviderState,
    pub parameters: GenerationParameters,
    /// The run's ledger so far: empty for the root and for return-mode children, the
    /// predecessor's ledger for a handoff target.
    pub ledger: CommitLedger,
    /// What `model_request_created` names as provider format and model.
    pub label: ModelLabel,
}

/// The provider format and model a request goes to, for request summaries.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelLabel {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_format: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// SillyTavern's name for the API (`openai`, `claude`, `makersuite`, `custom`, …),
    /// recorded on committed messages as `extra.api`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
}

impl ModelLabel {
    /// What a committed message records as its writer: `extra.api` (the SillyTavern API
    /// name, else the provider format) and `extra.model`.
    pub fn reply_model(&self) -> crate::ports::ReplyModel {
        crate::ports::ReplyModel {
            api: self
                .api
                .clone()
                .or_else(|| self.provider_format.clone())
                .unwrap_or_default(),
            model: self.model.clone().unwrap_or_default(),
        }
    }
}

/// The machine was built from inconsistent facts or driven out of order. Both are bugs of
/// the caller, never something a model or user caused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MachineError {
    #[error("tools.maxRounds must be at least 1")]
    MaxRoundsInvalid,
    #[error("the tool snapshot `{snapshot}` does not belong to invocation `{invocation}`")]
    SnapshotMismatch {
        snapshot: String,
        invocation: String,
    },
    #[error(transparent)]
    Turn(#[from] TurnError),
    /// A report arrived that the current phase does not wait for (or a step was asked for
    /// while a report is due).
    #[error("the invocation machine is {phase}; it cannot take {input}")]
    UnexpectedInput {
        phase: &'static str,
        input: &'static str,
    },
}

impl ErrorCode for MachineError {
    fn code(&self) -> &'static str {
        match self {
            Self::MaxRoundsInvalid => "agent.profile_max_rounds_invalid",
            Self::SnapshotMismatch { .. } => "tool.turn_snapshot_mismatch",
            Self::Turn(error) => error.code(),
            Self::UnexpectedInput { .. } => "agent.runtime_protocol_violation",
        }
    }
}
