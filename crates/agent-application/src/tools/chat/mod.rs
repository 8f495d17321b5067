//! Chat tools: search and read the run's frozen chat prefix (`docs/spec-map.md`, Chat tools). Reference:
//! `docs/tools.md`.
//!
//! Both tools see only the messages `0..input_message_count` frozen when the run started;
//! a chat that has since lost some of them is a runtime fault
//! (`agent.input_history_conflict`), a missing chat file a recoverable `chat.not_found`.
//!
//! [`batch`] also serves `worldinfo_read_activated`, which reads several texts under the
//! same per-call budget.

pub(super) mod batch;
mod prefix;
mod rank;
mod read;
mod search;
#[cfg(test)]
pub(super) mod test_support;

#[cfg(feature = "internals")]
pub use rank::{ChatHit, ChatSearchFilter, search_messages};
pub(super) use read::read_messages;
pub(super) use search::search;
