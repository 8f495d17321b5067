//! [`Fault`]: a runtime failure met while driving a run (a port error, a host commit that
//! failed, a tool's fatal fault). It ends the invocation through
//! [`InvocationMachine::fail`](super::machine::InvocationMachine::fail).

use agent_domain::ErrorCode;
use agent_domain::event::RunFailurePayload;

/// A failure that ends the run (as failed, or as partial success after a commit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Fault {
    pub code: &'static str,
    pub message: String,
    pub retryable: bool,
}

impl Fault {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            retryable: false,
        }
    }

    /// The fault of any coded error, keeping its code and message.
    pub fn of<E: ErrorCode + std::fmt::Display + ?Sized>(error: &E) -> Self {
        Self::new(error.code(), error.to_string())
    }

    /// The same fault with a message that says what was being done.
    pub fn context(mut self, doing: &str) -> Self {
        self.message = format!("{doing}: {}", self.message);
        self
    }

    /// The `run_failed` / `run_partial_success` payload.
    pub fn payload(&self) -> RunFailurePayload {
        RunFailurePayload::new(self.code, self.message.clone(), self.retryable)
    }
}
