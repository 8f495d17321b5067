//! Pure types and rules of the tavern-agent runtime.
//!
//! Architecture invariant: this crate does no I/O, has no async, reads no clock and draws
//! no randomness. It depends only on `serde`, `serde_json` and `thiserror`; hashes, ids and
//! timestamps arrive as values. That keeps every rule here testable with plain values.

pub mod connection;
pub mod error;
pub mod event;
pub mod json;
pub mod mcp;
pub mod model;
pub mod profile;
pub mod retention;
pub mod run;
pub mod sillytavern;
pub mod text;
pub mod tool;
pub mod workspace;
pub mod worldinfo;

pub use error::ErrorCode;
