//! The guidance mailbox: notes a user sends to a running run, from any process.
//!
//! A run is driven by one process, which alone may append to its journal. Any process may
//! leave guidance in the run's mailbox; the driver takes the pending items at the start of
//! its next root or handoff round and journals them itself (see `docs/runtime.md`).

use agent_domain::run::RunId;
use async_trait::async_trait;

use super::StoreError;

/// One note waiting in a mailbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuidanceItem {
    pub guidance_id: String,
    /// The host's own id for the note, echoed in its events.
    pub client_guidance_id: Option<String>,
    pub text: String,
    /// Characters of `text`, as the mailbox limits count them.
    pub chars: u64,
}

/// How much a mailbox may hold unread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MailboxLimits {
    pub max_items: usize,
    pub max_chars: u64,
}

/// What became of a submitted note. Every answer but `Accepted` leaves the mailbox as it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Submission {
    Accepted,
    /// No live process drives the run.
    NoDriver,
    /// The run is ending: its mailbox takes nothing more.
    Closed,
    /// The note would take the pending items past a limit.
    Full {
        items: usize,
        chars: u64,
    },
}

#[async_trait]
pub trait GuidanceMailbox: Send + Sync {
    /// Leaves `item` for the process driving `run`, if one does, the mailbox is open and the
    /// pending items stay within `limits`; checked and appended atomically.
    async fn submit(
        &self,
        run: &RunId,
        item: GuidanceItem,
        limits: MailboxLimits,
    ) -> Result<Submission, StoreError>;

    /// Takes every pending item, oldest first (the driver, at a round's start).
    async fn take(&self, run: &RunId) -> Result<Vec<GuidanceItem>, StoreError>;

    /// Closes the mailbox for good and takes what was still pending (the driver, when the
    /// run is cancelled or ends). Closing a closed mailbox takes nothing.
    async fn close(&self, run: &RunId) -> Result<Vec<GuidanceItem>, StoreError>;
}
