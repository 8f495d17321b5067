//! The errors of the runtime facade.

use agent_domain::ErrorCode;
use agent_domain::profile::ProfileError;
use agent_domain::run::{InputPrefixError, InvalidId, PersistBaseError, RunId, StableChatIdError};
use agent_domain::workspace::WorkspacePath;

use crate::ports::{ChatError, JournalError, StoreError, WorkspaceError};
use crate::profiles::ProfileServiceError;
use crate::prompt::PromptError;
use crate::scene::SceneError;

/// Why a run could not be started. On every one of these **no run exists**: nothing was
/// written for it (opening a chat without a stable id does give the chat one, as
/// SillyTavern would on save).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartRunError {
    /// The prompt snapshot is unusable (`agent.phase2b_stream_unsupported`,
    /// `agent.external_tools_unsupported_phase2b`, …) or could not be assembled.
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// The profile could not be found or resolved (`agent.profile_not_found`, …).
    #[error(transparent)]
    Profile(#[from] ProfileServiceError),
    /// The profile may not start a run (`agent.profile_not_direct_runnable`,
    /// `agent.profile_model_requires_configuration`).
    #[error(transparent)]
    ProfileRule(#[from] ProfileError),
    /// A foreground run needs `workspace.commit` (`agent.foreground_commit_unavailable`).
    #[error(
        "profile `{profile_id}` cannot run in the foreground: it is not given workspace.commit"
    )]
    ForegroundCommitUnavailable { profile_id: String },
    /// Who is in the chat cannot be read (`sillytavern.settings_invalid`, a damaged card or
    /// group, `chat.member_not_found`).
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// The chat cannot be opened or read (`chat.not_found`, `agent.invalid_chat_path`, …).
    #[error(transparent)]
    Chat(#[from] ChatError),
    #[error(transparent)]
    StableChatId(#[from] StableChatIdError),
    /// `agent.swipe_target_invalid`.
    #[error(transparent)]
    InputPrefix(#[from] InputPrefixError),
    /// `agent.persist_state_status_invalid`, `agent.persist_state_missing`.
    #[error(transparent)]
    PersistBase(#[from] PersistBaseError),
    /// The id source produced an id that is not a storage id.
    #[error(transparent)]
    InvalidId(#[from] InvalidId),
    /// The run record could not be created.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The run's first events could not be journaled; the run record, already written, is
    /// marked failed.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// A prepared request's invocation could not be set up (its tool snapshot does not
    /// compile); a run meets the same fault after it starts, and fails with it.
    #[error("{message}")]
    Setup { code: &'static str, message: String },
}

impl From<super::fault::Fault> for StartRunError {
    fn from(fault: super::fault::Fault) -> Self {
        Self::Setup {
            code: fault.code,
            message: fault.message,
        }
    }
}

impl ErrorCode for StartRunError {
    fn code(&self) -> &'static str {
        match self {
            Self::Prompt(error) => error.code(),
            Self::Profile(error) => error.code(),
            Self::ProfileRule(error) => error.code(),
            Self::ForegroundCommitUnavailable { .. } => "agent.foreground_commit_unavailable",
            Self::Scene(error) => error.code(),
            Self::Chat(error) => error.code(),
            Self::StableChatId(error) => error.code(),
            Self::InputPrefix(error) => error.code(),
            Self::PersistBase(error) => error.code(),
            Self::InvalidId(error) => error.code(),
            Self::Store(error) => error.code(),
            Self::Journal(error) => error.code(),
            Self::Setup { code, .. } => code,
        }
    }
}

/// Why a facade call on an existing run failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `Locked` means another process drives the run.
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// The chat could not be changed (a rollback's checks, `agent.rollback_*`).
    #[error(transparent)]
    Chat(#[from] ChatError),
    /// Hosts read the five workspace roots and `tool-results/`, nothing else of a run.
    #[error("`{0}` is not a workspace file a host may read")]
    PathNotReadable(WorkspacePath),
    /// No checkpoint at or before the event holds the file: the run had not written it
    /// by then (`docs/runtime.md`, Reading a file at an event).
    #[error(
        "`{path}` had not been written by event {at_seq}: no checkpoint up to it holds the file"
    )]
    FileNotWrittenYet { path: WorkspacePath, at_seq: u64 },
    /// Retention slimmed the run: its checkpoints, and with them every earlier version of
    /// its files, are gone; the journal is kept.
    #[error(
        "the checkpoints of run {run} were pruned by retention (slimmed at {at}): earlier versions of its files can no longer be read"
    )]
    CheckpointsPruned { run: RunId, at: String },
    /// A stored model response does not parse.
    #[error("the model response of run {run}, round {round} is unreadable: {detail}")]
    ModelTurnInvalid {
        run: RunId,
        round: u32,
        detail: String,
    },
    /// A journal or record write failed while cancelling, or a request was refused (the
    /// message does not repeat the code).
    #[error("{message}")]
    Fault { code: &'static str, message: String },
}

impl ErrorCode for RuntimeError {
    fn code(&self) -> &'static str {
        match self {
            Self::Store(error) => error.code(),
            Self::Journal(error) => error.code(),
            Self::Workspace(error) => error.code(),
            Self::Chat(error) => error.code(),
            Self::PathNotReadable(_) => "workspace.path_not_visible",
            Self::FileNotWrittenYet { .. } => "workspace.file_not_found",
            Self::CheckpointsPruned { .. } => "workspace.checkpoints_pruned",
            Self::ModelTurnInvalid { .. } => "agent.model_response_invalid",
            Self::Fault { code, .. } => code,
        }
    }
}

impl From<super::fault::Fault> for RuntimeError {
    fn from(fault: super::fault::Fault) -> Self {
        Self::Fault {
            code: fault.code,
            message: fault.message,
        }
    }
}
