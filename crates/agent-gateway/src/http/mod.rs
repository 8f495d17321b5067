//! The HTTP transport every provider format shares: one JSON POST, its body read in full,
//! and every failure classified into a [`ModelError`] the runtime's retry policy can act
//! on.
//!
//! Formats differ in what they send and how they read a success; they agree on how a
//! failure looks (an HTTP status, an `error` envelope, a retry hint), so classification
//! lives here once instead of in every adapter.
//!
//! [`ModelError`]: agent_application::ports::ModelError

mod classify;
mod redact;
mod retry_after;
mod transport;

pub use classify::{UPSTREAM_INVALID_RESPONSE, classify_reply, classify_transport};
pub use redact::{Redactor, WITHHELD};
pub use retry_after::retry_after_ms;
pub use transport::{HttpReply, HttpTimeouts, ProviderHttp, Streamed};
