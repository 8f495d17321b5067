//! The model gateway: one call of a model with a canonical request, answered with a
//! canonical response or a classified error the runtime's retry policy can act on.
//!
//! A call is made whole ([`ModelGateway::generate`]) or streamed
//! ([`ModelGateway::stream`]): a stream of [`ModelDelta`]s as the model writes, ending in
//! the same [`AgentModelResponse`] the whole call would have answered. Deltas are for live
//! display only; the response at the end is what the runtime records.
//!
//! Cancellation is by dropping the future or the stream: the runtime races a call against
//! the run's cancellation and drops the loser, which aborts any request in flight.

use agent_domain::ErrorCode;
use agent_domain::event::InvocationKind;
use agent_domain::model::{AgentModelRequest, AgentModelResponse, TokenUsage};
use agent_domain::run::{InvocationId, RunId};
use async_trait::async_trait;
use futures::stream::{self, BoxStream, StreamExt};

/// One model call attempt, with the identity an adapter may need (the scripted model picks
/// its list by profile; providers key caches by session).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelCall {
    pub run_id: RunId,
    pub invocation_id: InvocationId,
    pub invocation_kind: InvocationKind,
    pub profile_id: String,
    /// 1-based round of the invocation.
    pub round: u32,
    /// 1-based attempt within the round (retries count up).
    pub attempt: u32,
    pub request: AgentModelRequest,
}

/// Calls a model.
#[async_trait]
pub trait ModelGateway: Send + Sync {
    /// One call, answered whole.
    async fn generate(&self, call: ModelCall) -> Result<AgentModelResponse, ModelError>;

    /// One call, streamed: deltas as they arrive, then exactly one
    /// [`ModelStreamItem::Completed`] (or an error, after which nothing follows). The
    /// response equals what [`generate`](Self::generate) answers for the same content.
    /// Dropping the stream cancels the call.
    ///
    /// The default answers whole and yields only the completed response: gateways that
    /// cannot stream (the scripted model, a connection with streaming off) need nothing more.
    fn stream(&self, call: ModelCall) -> BoxStream<'_, Result<ModelStreamItem, ModelError>> {
        stream::once(async move { self.generate(call).await.map(ModelStreamItem::Completed) })
            .boxed()
    }

    /// The invocation made its last call: a gateway releases what it kept for it between
    /// calls (the Responses WebSocket adapter closes the invocation's socket). The runtime
    /// says so once per invocation, whatever its outcome. The default keeps nothing.
    fn end_invocation(&self, run_id: &RunId, invocation_id: &InvocationId) {
        let _ = (run_id, invocation_id);
    }
}

/// One item of a streamed model call.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelStreamItem {
    /// A piece of the answer as it was written; not part of any record.
    Delta(ModelDelta),
    /// The whole answer, as [`ModelGateway::generate`] would have returned it.
    Completed(AgentModelResponse),
}

/// A piece of a model's answer while it streams. Tool calls are numbered by their
/// position among the turn's tool calls (`index`), since providers send ids late or never.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelDelta {
    /// Visible text.
    Text(String),
    /// Reasoning the provider shows (a summary or raw thinking text).
    Reasoning(String),
    /// A tool call began; `name` is the alias the model used.
    ToolCallStarted { index: usize, name: String },
    /// A slice of a tool call's argument JSON.
    ToolCallArguments { index: usize, fragment: String },
    /// A tool call's arguments are complete.
    ToolCallFinished { index: usize },
    /// Token counts so far (the last one is authoritative).
    Usage(TokenUsage),
}

/// What went wrong with a model call, in classes the retry policy understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelErrorKind {
    /// Too many requests (HTTP 429, Anthropic 529-style overload counts as `Overloaded`).
    RateLimited,
    /// The provider is overloaded right now.
    Overloaded,
    /// A network failure, a 5xx, or a response that broke off.
    Transient,
    /// No answer in time.
    Timeout,
    /// The prompt is longer than the model accepts.
    ContextLength,
    /// The key is missing, wrong or lacks permission.
    Auth,
    /// Billing or quota exhausted.
    Quota,
    /// The provider refused the request as malformed.
    InvalidRequest,
    /// The response broke the tool-call contract (unknown alias, missing or duplicate call
    /// id, lost native metadata).
    ContractViolation,
    /// The scripted model has no turn left for this caller.
    ScriptExhausted,
    /// Anything else.
    Other,
}

/// A classified model failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ModelError {
    pub kind: ModelErrorKind,
    /// The stable `namespace.code` (`model.rate_limited`, `model.script_exhausted`, …).
    pub code: &'static str,
    pub message: String,
    /// HTTP status, when there was one.
    pub status: Option<u16>,
    /// The provider's own error code, when it gave one.
    pub provider_code: Option<String>,
    /// How long the provider asked us to wait before retrying.
    pub retry_after_ms: Option<u64>,
}

impl ModelError {
    /// A failure of `kind` with its default code.
    pub fn new(kind: ModelErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            code: kind.default_code(),
            message: message.into(),
            status: None,
            provider_code: None,
            retry_after_ms: None,
        }
    }

    /// Only rate limits, overload and transient faults (network, timeout, 5xx) are retried;
    /// auth, quota, invalid requests, context length and contract violations never are.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self.kind,
            ModelErrorKind::RateLimited
                | ModelErrorKind::Overloaded
                | ModelErrorKind::Transient
                | ModelErrorKind::Timeout
        )
    }
}

impl ModelErrorKind {
    /// The code a failure of this kind carries unless the adapter names a more specific one.
    pub fn default_code(self) -> &'static str {
        match self {
            Self::RateLimited => "model.rate_limited",
            Self::Overloaded => "model.overloaded",
            Self::Transient => "model.transient",
            Self::Timeout => "model.timeout",
            Self::ContextLength => "model.context_length_exceeded",
            Self::Auth => "model.unauthorized",
            Self::Quota => "model.quota_exceeded",
            Self::InvalidRequest => "model.invalid_request",
            Self::ContractViolation => "model.invalid_tool_call",
            Self::ScriptExhausted => "model.script_exhausted",
            Self::Other => "model.provider_error",
        }
    }
}

impl ErrorCode for ModelError {
    fn code(&self) -> &'static str {
        self.code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_transient_classes_are_retried() {
        use ModelErrorKind::*;
        for kind in [RateLimited, Overloaded, Transient, Timeout] {
            assert!(ModelError::new(kind, "x").is_retryable(), "{kind:?}");
        }
        for kind in [
            ContextLength,
            Auth,
            Quota,
            InvalidRequest,
            ContractViolation,
            ScriptExhausted,
            Other,
        ] {
            assert!(!ModelError::new(kind, "x").is_retryable(), "{kind:?}");
        }
        assert_eq!(
            ModelError::new(ScriptExhausted, "x").code(),
            "model.script_exhausted"
        );
    }
}
