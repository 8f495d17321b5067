//! The text engines a world-info scan needs and this crate cannot own: JavaScript regular
//! expressions for regex keys, and the tokenizer of the run's model for the token budget.

use std::sync::Arc;

use agent_domain::ErrorCode;
use agent_domain::worldinfo::{KeyRegexEngine, TokenCounter};

/// The engines of a world-info scan; a host that wants world info in assembled prompts wires
/// an implementation (`agent-text` has one).
pub trait LoreEngines: Send + Sync {
    /// Compiles `/pattern/flags` keys with JavaScript semantics.
    fn regex(&self) -> &(dyn KeyRegexEngine + Send + Sync);

    /// The tokenizer of `model` (its family's; a default one for models it does not know, or
    /// when `model` is `None`).
    fn tokenizer(
        &self,
        model: Option<&str>,
    ) -> Result<Arc<dyn TokenCounter + Send + Sync>, EngineUnavailable>;
}

/// An engine could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EngineUnavailable {
    pub code: &'static str,
    pub message: String,
}

impl ErrorCode for EngineUnavailable {
    fn code(&self) -> &'static str {
        self.code
    }
}
