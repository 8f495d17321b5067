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
mod authors_note;
mod card;
mod error;
mod history;
mod injections;
mod lore;
mod openai;
mod snapshot;
mod system;

#[cfg(test)]
mod tests;

use agent_domain::model::AgentModelMessage;
use serde_json::Value;

pub use assemble::{AssembledPrompt, PromptPorts, PromptRequest, assemble_prompt};
pub use error::PromptError;
pub use lore::RunLore;
pub use snapshot::validate_prompt_snapshot;
pub use system::{DEFAULT_AGENT_SYSTEM_PROMPT, agent_system_prompt, run_note};

/// Where a run's initial prompt comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum PromptInput {
    /// A snapshot the host captured (validated with [`validate_prompt_snapshot`]).
    Snapshot(Value),
    /// Build one with the built-in assembler ([`assemble_prompt`]).
    Assemble,
}

/// A run's initial prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptSnapshot {
    /// The prompt in the canonical IR, in order.
    pub messages: Vec<AgentModelMessage>,
    /// The world-info activation captured with the prompt (`worldInfoActivation`), which
    /// `worldinfo.read_activated` serves; `None` when none was captured (a snapshot without
    /// one, or an assembled prompt for a chat no lorebook applies to).
    pub world_info: Option<Value>,
    /// What the run records as `input/prompt_snapshot.json`: the validated snapshot with
    /// `stream` forced to false, or the assembled prompt in the same shape (so it can be
    /// fed back as a snapshot).
    pub raw: Value,
}
