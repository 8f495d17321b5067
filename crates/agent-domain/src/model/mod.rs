//! The canonical model IR: requests, messages, content parts, responses and opaque
//! provider state.
//!
//! The runtime talks to every provider in these types; adapters translate them to and
//! from their wire format. Portable parts carry what all providers share, `Native` parts
//! carry what only one provider understands, and [`ProviderState`] carries continuation
//! facts between the calls of one invocation. [`check_transcript`] states the pairing
//! invariant of tool calls and results that every request must satisfy.

mod message;
mod provider_state;
mod request;
mod response;
mod transcript;

pub use message::{AgentModelContentPart, AgentModelMessage, MediaData, ModelRole};
pub use provider_state::{
    NativeContinuation, ProviderContinuation, ProviderState, ProviderStateError,
    ProviderStateSummary,
};
pub use request::{AgentModelRequest, GenerationParameters, ReasoningEffort};
pub use response::{AgentModelResponse, FinishReason, ModelContractError, TokenUsage};
pub use transcript::{TranscriptError, check_transcript};
