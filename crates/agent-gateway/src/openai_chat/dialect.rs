//! [`Dialect`]: which flavour of Chat Completions a connection speaks.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The flavour of Chat Completions a server speaks. It decides the few places where
/// compatible servers disagree: the name of the output-length field, how reasoning effort
/// is asked for, and which reasoning must be sent back on earlier assistant turns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// OpenAI itself: `max_completion_tokens` (reasoning models reject `max_tokens`),
    /// `reasoning_effort`, no reasoning to replay.
    Openai,
    /// DeepSeek thinking mode: `reasoning_content` must come back on every assistant turn
    /// that called tools, even when it was empty, or the next request is rejected.
    Deepseek,
    /// OpenRouter: `reasoning_details` come back unchanged on their assistant message, so
    /// an upstream's thinking signatures survive; effort goes in `reasoning.effort`.
    Openrouter,
    /// Any other compatible server (llama.cpp, vLLM, Ollama): `max_tokens`, nothing
    /// replayed, nothing dialect-specific sent.
    #[default]
    Generic,
}

impl Dialect {
    /// The configuration name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::Deepseek => "deepseek",
            Self::Openrouter => "openrouter",
            Self::Generic => "generic",
        }
    }

    /// The body field that caps output tokens.
    pub(crate) fn max_tokens_field(self) -> &'static str {
        match self {
            Self::Openai => "max_completion_tokens",
            Self::Deepseek | Self::Openrouter | Self::Generic => "max_tokens",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown dialect name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown Chat Completions dialect `{0}` (expected openai, deepseek, openrouter or generic)"
)]
pub struct UnknownDialect(pub String);

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            Self::Openai,
            Self::Deepseek,
            Self::Openrouter,
            Self::Generic,
        ]
        .into_iter()
        .find(|d| d.as_str() == s)
        .ok_or_else(|| UnknownDialect(s.to_owned()))
    }
}
