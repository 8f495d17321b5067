//! In-memory [`GuidanceMailbox`]: each run's pending notes and whether its mailbox closed.
//! There is no other process here, so every run counts as driven.

use std::collections::HashMap;
use std::sync::Mutex;

use agent_domain::run::RunId;
use async_trait::async_trait;

use crate::ports::{GuidanceItem, GuidanceMailbox, MailboxLimits, StoreError, Submission};

#[derive(Debug, Default)]
struct Mailbox {
    closed: bool,
    pending: Vec<GuidanceItem>,
}

/// Guidance mailboxes, in memory.
#[derive(Debug, Default)]
pub struct MemoryGuidanceMailbox {
    boxes: Mutex<HashMap<RunId, Mailbox>>,
}

impl MemoryGuidanceMailbox {
    pub fn new() -> Self {
        Self::default()
    }

    fn with<T>(&self, run: &RunId, f: impl FnOnce(&mut Mailbox) -> T) -> T {
        let mut boxes = self.boxes.lock().unwrap_or_else(|p| p.into_inner());
        f(boxes.entry(run.clone()).or_default())
    }
}

#[async_trait]
impl GuidanceMailbox for MemoryGuidanceMailbox {
    async fn submit(
        &self,
        run: &RunId,
        item: GuidanceItem,
        limits: MailboxLimits,
    ) -> Result<Submission, StoreError> {
        Ok(self.with(run, |mailbox| {
            if mailbox.closed {
                return Submission::Closed;
            }
            let items = mailbox.pending.len();
            let chars: u64 = mailbox.pending.iter().map(|item| item.chars).sum();
            if items + 1 > limits.max_items || chars + item.chars > limits.max_chars {
                return Submission::Full { items, chars };
            }
            mailbox.pending.push(item);
            Submission::Accepted
        }))
    }

    async fn take(&self, run: &RunId) -> Result<Vec<GuidanceItem>, StoreError> {
        Ok(self.with(run, |mailbox| std::mem::take(&mut mailbox.pending)))
    }

    async fn close(&self, run: &RunId) -> Result<Vec<GuidanceItem>, StoreError> {
        Ok(self.with(run, |mailbox| {
            mailbox.closed = true;
            std::mem::take(&mut mailbox.pending)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn notes_wait_within_limits_until_taken_or_closed() {
        let mailbox = MemoryGuidanceMailbox::new();
        let run = RunId::parse("run_1").unwrap();
        let limits = MailboxLimits {
            max_items: 1,
            max_chars: 5,
        };
        let item = |id: &str| GuidanceItem {
            guidance_id: id.into(),
            client_guidance_id: None,
            text: "note".into(),
            chars: 4,
        };
        let accepted = mailbox.submit(&run, item("g1"), limits).await.unwrap();
        assert_eq!(accepted, Submission::Accepted);
        let full = mailbox.submit(&run, item("g2"), limits).await.unwrap();
        assert_eq!(full, Submission::Full { items: 1, chars: 4 });
        assert_eq!(mailbox.take(&run).await.unwrap(), vec![item("g1")]);
        mailbox.submit(&run, item("g3"), limits).await.unwrap();
        assert_eq!(mailbox.close(&run).await.unwrap(), vec![item("g3")]);
        let closed = mailbox.submit(&run, item("g4"), limits).await.unwrap();
        assert_eq!(closed, Submission::Closed);
    }
}
