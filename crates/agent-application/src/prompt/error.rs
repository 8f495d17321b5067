//! [`PromptError`]: why a run's initial prompt could not be taken or built.

use agent_domain::ErrorCode;
use agent_domain::profile::ProfileError;

use agent_domain::worldinfo::WorldInfoError;

use crate::ports::{ChatError, EngineUnavailable, StoreError};

/// Why a prompt snapshot was refused or the built-in assembler failed.
///
/// The snapshot variants carry TauriTavern's codes (the `phase2b` in some of them is the
/// name of the phase that introduced the rule), so hosts and scripts can key on them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    #[error(
        "the prompt snapshot asks for streaming (`stream: true`); agent runs do not stream \
         their prompt, so leave `stream` out or set it to false"
    )]
    StreamUnsupported,
    #[error("the prompt snapshot is not usable: {detail}")]
    InvalidSnapshot { detail: String },
    #[error(
        "the prompt snapshot brings its own `tools`; an agent run offers only the tools of its \
         profile, so remove them"
    )]
    ExternalTools,
    #[error(
        "the prompt snapshot sets `tool_choice`; an agent run chooses how tools are offered, so \
         remove the key (even a null value counts)"
    )]
    ExternalToolChoice,
    #[error(
        "messages[{index}] of the prompt snapshot is a tool turn ({what}); a snapshot must not \
         contain earlier tool calls or tool results"
    )]
    ExternalToolTurns { index: usize, what: &'static str },
    #[error("worldInfoActivation of the prompt snapshot must be an object or null, found {found}")]
    InvalidWorldInfo { found: &'static str },
    /// The profile cannot be used to assemble a prompt (no model configured).
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error(transparent)]
    Chat(#[from] ChatError),
    /// The character card could not be read.
    #[error("character card: {0}")]
    Character(StoreError),
    /// A lorebook could not be read.
    #[error("lorebook: {0}")]
    Lorebook(StoreError),
    /// A lorebook is not a lorebook (`worldinfo.book_not_json`, `worldinfo.book_invalid`).
    #[error(transparent)]
    WorldInfo(WorldInfoError),
    /// A world-info engine (the model's tokenizer) could not be built.
    #[error("world info: {0}")]
    LoreEngine(EngineUnavailable),
    /// Lorebooks apply to the chat but the host wired no world-info engines.
    #[error(
        "lorebooks apply to this chat, but this host has no world-info engines (regex keys, \
         token counting) wired; world info cannot be activated"
    )]
    LoreEnginesMissing,
    /// The profile assembles its prompt from a preset, which the built-in assembler cannot
    /// apply; a host that applies presets passes a prompt snapshot instead.
    #[error(
        "profile uses the preset `{api_id}/{name}` (`preset.mode: \"ref\"`); presets are not \
         supported by the built-in prompt assembler yet: pass a prompt snapshot, or set \
         `preset.mode` to \"currentPromptSnapshot\""
    )]
    PresetUnsupported { api_id: String, name: String },
}

impl PromptError {
    pub(crate) fn invalid(detail: impl Into<String>) -> Self {
        Self::InvalidSnapshot {
            detail: detail.into(),
        }
    }
}

impl ErrorCode for PromptError {
    fn code(&self) -> &'static str {
        match self {
            Self::StreamUnsupported => "agent.phase2b_stream_unsupported",
            Self::InvalidSnapshot { .. } => "agent.invalid_prompt_snapshot",
            Self::ExternalTools => "agent.external_tools_unsupported_phase2b",
            Self::ExternalToolChoice => "agent.external_tool_choice_unsupported_phase2b",
            Self::ExternalToolTurns { .. } => "agent.external_tool_turns_unsupported_phase2b",
            Self::InvalidWorldInfo { .. } => "agent.invalid_worldinfo_activation_snapshot",
            Self::Profile(err) => err.code(),
            Self::Chat(err) => err.code(),
            Self::Character(err) => err.code(),
            Self::PresetUnsupported { .. } => "agent.profile_preset_unsupported",
            Self::Lorebook(err) => err.code(),
            Self::WorldInfo(err) => err.code(),
            Self::LoreEngine(err) => err.code(),
            Self::LoreEnginesMissing => "worldinfo.engines_unavailable",
        }
    }
}
