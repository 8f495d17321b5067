//! Text engines of the tavern-agent runtime: a JavaScript-compatible regex engine and
//! tokenizers, implementing the engine traits of `agent_domain::worldinfo`.
//!
//! * [`JsRegexEngine`] compiles lorebook regex keys (`/pattern/flags`) with ECMAScript
//!   semantics on `regress`.
//! * [`TiktokenCounter`] counts tokens with OpenAI's bundled BPE encodings (`tiktoken-rs`),
//!   choosing the encoding from a model name ([`Encoding::for_model`]; `cl100k_base` by
//!   default).
//!
//! A host builds both once and hands them to a scan:
//! `ScanEngines { regex: &JsRegexEngine, tokens: &TiktokenCounter::for_model(model)?, .. }`.
//!
//! This crate is an adapter: it depends on `agent-domain` and its engines, never on another
//! adapter or the host.

mod regex;
mod tokens;

pub use regex::JsRegexEngine;
pub use tokens::{Encoding, TiktokenCounter, TokenizerError};
