//! [`ScriptError`]: why a script cannot be used. Raised once, when the script is
//! parsed, so a bad script stops the host before any run is created. Reading the file is
//! the host's part (the CLI refuses FIFOs, devices and files over 16 MiB with
//! `script.unreadable` and `script.too_large`, `docs/scripted-model.md`).

use agent_domain::ErrorCode;

/// A script that does not follow the format of `docs/scripted-model.md`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScriptError {
    /// The text is not JSON, or not a script. `at` says where, in the script's own terms
    /// (`script`, `turns[2].tool_calls[0]`, `agents.reviewer[0].error`), so the author
    /// can find the mistake without counting lines.
    #[error("invalid script at {at}: {message}")]
    Invalid { at: String, message: String },
}

impl ScriptError {
    /// An invalid-script error at `at`.
    pub(crate) fn invalid(at: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            at: at.into(),
            message: message.into(),
        }
    }
}

impl ErrorCode for ScriptError {
    fn code(&self) -> &'static str {
        match self {
            Self::Invalid { .. } => "script.invalid",
        }
    }
}
