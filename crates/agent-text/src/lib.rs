//! Text engines of the tavern-agent runtime: a JavaScript-compatible regex engine and
//! tokenizers, implementing the engine traits of `agent_domain::worldinfo`.
//!
//! * [`JsRegexEngine`] compiles lorebook regex keys (`/pattern/flags`) with ECMAScript
//!   semantics on `regress`.
//! * [`TiktokenCounter`] counts tokens with OpenAI's bundled BPE encodings (`tiktoken-rs`),
//!   choosing the encoding from a model name ([`Encoding::for_model`]; `cl100k_base` by
//!   default).
//!
//! [`TextEngines`] offers both through the application's `LoreEngines` port, which is how a
//! host wires them into the runtime (`AgentRuntime::with_lore_engines`).
//!
//! This crate is an adapter: it depends on `agent-domain` and `agent-application` (for the
//! port), never on another adapter or the host.

mod engines;
mod regex;
mod tokens;

pub use engines::TextEngines;
pub use regex::JsRegexEngine;
pub use tokens::{Encoding, TiktokenCounter, TokenizerError};
