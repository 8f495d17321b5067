//! Model gateway adapters: provider wire formats over HTTP and the scripted model.
//!
//! See this crate's README and `docs/ARCHITECTURE.md` for what it owns.

pub mod anthropic;
pub mod continuation;
pub mod gateway;
pub mod gemini;
pub mod gemini_interactions;
pub mod http;
pub mod openai_chat;
pub mod openai_responses;
pub mod scripted;
mod wire;

pub use gateway::{
    FORMAT_ANTHROPIC, FORMAT_GEMINI, FORMAT_GEMINI_INTERACTIONS, FORMAT_OPENAI_CHAT,
    FORMAT_OPENAI_RESPONSES, HttpConnection, HttpModelGateway,
};
