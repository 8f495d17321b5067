//! A run's initial prompt: taken from a snapshot the host captured, or assembled here.
//!
//! TauriTavern's front end assembles prompts with SillyTavern's PromptManager and hands the
//! runtime a *prompt snapshot* (`startRunWithPromptSnapshot`). A host that has one passes it
//! as [`PromptInput::Snapshot`]; [`validate_prompt_snapshot`] applies TauriTavern's rules
//! and converts it. A host without one (the CLI without `--prompt-snapshot`) asks for
//! [`PromptInput::Assemble`], and [`assemble_prompt`] builds a prompt from the profile, the
//! character card and the chat. Either way the run gets a [`PromptSnapshot`], whose `raw`
//! form is recorded as `input/prompt_snapshot.json`.
//!
//! A snapshot is used as given: it is the host's whole prompt, so it already carries the
//! Agent system prompt wherever its preset placed it. Only the assembler adds it.

mod assemble;
mod card;
mod error;
mod history;
mod openai;
mod snapshot;
mod system;

#[cfg(test)]
mod tests;

use agent_domain::model::AgentModelMessage;
use agent_domain::profile::ResolvedAgentProfile;
use serde_json::Value;

pub use assemble::{PromptPorts, assemble_prompt};
pub use error::PromptError;
pub use history::MAX_ASSEMBLED_HISTORY;
pub use snapshot::validate_prompt_snapshot;
pub use system::{DEFAULT_AGENT_SYSTEM_PROMPT, agent_system_prompt};

use crate::ports::ChatInfo;

/// Where a run's initial prompt comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum PromptInput {
    /// A snapshot the host captured (validated with [`validate_prompt_snapshot`]).
    Snapshot(Value),
    /// Build one with the built-in assembler ([`assemble_prompt`]).
    Assemble,
}

impl PromptInput {
    /// The run's prompt from this input: the validated snapshot, or an assembled one.
    pub async fn prepare(
        &self,
        ports: &PromptPorts,
        chat: &ChatInfo,
        input_message_count: usize,
        profile: &ResolvedAgentProfile,
    ) -> Result<PromptSnapshot, PromptError> {
        match self {
            Self::Snapshot(value) => validate_prompt_snapshot(value),
            Self::Assemble => assemble_prompt(ports, chat, input_message_count, profile).await,
        }
    }
}

/// A run's initial prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptSnapshot {
    /// The prompt in the canonical IR, in order.
    pub messages: Vec<AgentModelMessage>,
    /// The world-info activation captured with the prompt (`worldInfoActivation`), which
    /// `worldinfo.read_activated` serves; the built-in assembler captures none.
    pub world_info: Option<Value>,
    /// What the run records as `input/prompt_snapshot.json`: the validated snapshot with
    /// `stream` forced to false, or the assembled prompt in the same shape (so it can be
    /// fed back as a snapshot).
    pub raw: Value,
}
