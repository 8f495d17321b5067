//! OpenAI Chat Completions (`docs/providers.md`), also spoken by most "OpenAI-compatible"
//! servers: llama.cpp, vLLM, Ollama, OpenRouter, DeepSeek.
//!
//! [`encode`] turns a canonical request into a request body and [`decode`] turns a
//! response body into a canonical turn; both are pure so they can be tested without a
//! server. Compatible servers differ mostly in how reasoning survives between turns, which
//! the connection's `ChatDialect` decides.

mod decode;
mod encode;
mod stream;

pub use decode::decode;
pub use encode::encode;
pub use stream::ChatAssembler;

/// Producer of reasoning read from `message.reasoning_content` (DeepSeek, vLLM, SGLang).
pub const REASONING_CONTENT_PRODUCER: &str = "openai-chat:reasoning_content";

/// Producer of reasoning read from `message.reasoning` (OpenRouter's readable copy; the
/// replayable form is the native `reasoning_details`).
pub const REASONING_PRODUCER: &str = "openai-chat:reasoning";

/// Provider of the native part holding OpenRouter's `reasoning_details` array verbatim.
pub const OPENROUTER_NATIVE: &str = "openrouter";
