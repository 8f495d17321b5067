//! What a builtin tool hands back: a result for the model, audit facts, and an effect for
//! the runtime to journal (and checkpoint).

use agent_domain::ErrorCode;
use agent_domain::event::WriteMode;
use agent_domain::text::TextMetrics;
use agent_domain::tool::{AgentToolResult, ToolInvocation};
use agent_domain::workspace::WorkspacePath;
use serde_json::Value;

use crate::ports::WriteReceipt;

/// A successful tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    /// Concise Text/Markdown for the model.
    pub content: String,
    /// Audit facts (hashes, sizes, ranges) for the journal and UIs, never shown to the model.
    pub structured: Value,
    pub resource_refs: Vec<String>,
    pub effect: ToolEffect,
}

impl ToolOutcome {
    /// A read-only outcome.
    pub fn read(content: impl Into<String>, structured: Value, resource_refs: Vec<String>) -> Self {
        Self {
            content: content.into(),
            structured,
            resource_refs,
            effect: ToolEffect::None,
        }
    }

    /// The result the model and the audit file see.
    pub fn into_result(self, invocation: &ToolInvocation) -> (AgentToolResult, ToolEffect) {
        let result = AgentToolResult::success(invocation, self.content, self.structured)
            .with_resource_refs(self.resource_refs);
        (result, self.effect)
    }
}

/// A change to the workspace the runtime must journal and checkpoint.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolEffect {
    None,
    FileWritten {
        path: WorkspacePath,
        mode: WriteMode,
        receipt: WriteReceipt,
        metrics: TextMetrics,
    },
    FilePatched {
        path: WorkspacePath,
        receipt: WriteReceipt,
        replacements: usize,
        metrics: TextMetrics,
    },
}

/// How a tool call can fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolFailure {
    /// The model reads the message and can fix its call; the run goes on.
    Recoverable { code: String, message: String },
    /// The runtime itself failed (workspace integrity, I/O); the run stops.
    Fatal(ToolFault),
}

impl ToolFailure {
    pub fn recoverable(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Recoverable {
            code: code.into(),
            message: message.into(),
        }
    }

    /// Prefixes a recoverable message (to say which list item was wrong).
    pub fn prefixed(self, prefix: &str) -> Self {
        match self {
            Self::Recoverable { code, message } => Self::Recoverable {
                code,
                message: format!("{prefix}{message}"),
            },
            fatal => fatal,
        }
    }

    /// The failure as the error result the model reads. Callers handle a fatal failure
    /// before asking (it stops the run); argument parsing never produces one, so where it
    /// still arrives it is reported the same way, with its code.
    pub fn into_error_result(self, call: &ToolInvocation) -> AgentToolResult {
        match self {
            Self::Recoverable { code, message } => AgentToolResult::error(call, &code, message),
            Self::Fatal(fault) => AgentToolResult::error(call, fault.code, fault.message),
        }
    }

    /// A recoverable failure from any coded error, keeping its code and message.
    pub fn from_code<E: ErrorCode + std::fmt::Display>(error: &E) -> Self {
        Self::recoverable(error.code(), error.to_string())
    }
}

/// A runtime fault inside a tool: the run fails with this code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolFault {
    pub code: &'static str,
    pub message: String,
}

impl ErrorCode for ToolFault {
    fn code(&self) -> &'static str {
        self.code
    }
}

impl<E: ErrorCode + std::fmt::Display> From<&E> for ToolFault {
    fn from(error: &E) -> Self {
        Self {
            code: error.code(),
            message: error.to_string(),
        }
    }
}
