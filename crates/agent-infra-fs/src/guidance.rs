//! [`FsGuidanceMailbox`]: the guidance mailbox of a run as `guidance-mailbox.json` in its
//! directory, changed only under an OS lock on `guidance-mailbox.lock` and replaced
//! atomically, so submitting processes and the driver never lose or repeat a note.
//!
//! The process driving a run holds the OS lock of its `events.jsonl` for as long as it
//! drives it; a free journal lock means no process drives the run, and a note is refused.

use std::fs::OpenOptions;

use agent_application::ports::{
    GuidanceItem, GuidanceMailbox, MailboxLimits, StoreError, Submission,
};
use agent_domain::run::RunId;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::journal::journal_held;
use crate::layout::RunDir;
use crate::run_locator::{Cost, RunLocator};
use crate::runs::store_io::{io_error, read_json, write_json};

/// The [`GuidanceMailbox`] port over run directories.
#[derive(Debug, Clone)]
pub struct FsGuidanceMailbox {
    locator: RunLocator,
}

impl FsGuidanceMailbox {
    pub fn new(locator: RunLocator) -> Self {
        Self { locator }
    }
}

/// The mailbox file. A missing file is an open, empty mailbox.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct MailboxFile {
    closed: bool,
    pending: Vec<StoredItem>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredItem {
    guidance_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_guidance_id: Option<String>,
    text: String,
    chars: u64,
}

impl From<GuidanceItem> for StoredItem {
    fn from(item: GuidanceItem) -> Self {
        Self {
            guidance_id: item.guidance_id,
            client_guidance_id: item.client_guidance_id,
            text: item.text,
            chars: item.chars,
        }
    }
}

impl From<StoredItem> for GuidanceItem {
    fn from(item: StoredItem) -> Self {
        Self {
            guidance_id: item.guidance_id,
            client_guidance_id: item.client_guidance_id,
            text: item.text,
            chars: item.chars,
        }
    }
}

/// Runs `change` on the mailbox under its lock and saves it when `change` says so.
fn locked<T>(
    dir: &RunDir,
    change: impl FnOnce(&mut MailboxFile) -> Result<(T, bool), StoreError>,
) -> Result<T, StoreError> {
    let lock_path = dir.guidance_lock();
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|err| io_error(&lock_path, err))?;
    lock.lock().map_err(|err| io_error(&lock_path, err))?;
    let path = dir.guidance_mailbox();
    let mut mailbox: MailboxFile = read_json(&path)?.unwrap_or_default();
    let (value, changed) = change(&mut mailbox)?;
    if changed {
        write_json(&path, &mailbox)?;
    }
    Ok(value)
}

fn submit_blocking(
    dir: &RunDir,
    item: GuidanceItem,
    limits: MailboxLimits,
) -> Result<Submission, StoreError> {
    locked(dir, |mailbox| {
        if mailbox.closed {
            return Ok((Submission::Closed, false));
        }
        if !journal_held(dir)? {
            return Ok((Submission::NoDriver, false));
        }
        let items = mailbox.pending.len();
        let chars: u64 = mailbox.pending.iter().map(|item| item.chars).sum();
        if items + 1 > limits.max_items || chars + item.chars > limits.max_chars {
            return Ok((Submission::Full { items, chars }, false));
        }
        mailbox.pending.push(item.into());
        Ok((Submission::Accepted, true))
    })
}

fn take_blocking(dir: &RunDir, close: bool) -> Result<Vec<GuidanceItem>, StoreError> {
    // Nothing was ever submitted: no lock file is made for a run nobody guides.
    if !close && !dir.guidance_mailbox().exists() {
        return Ok(Vec::new());
    }
    locked(dir, |mailbox| {
        let taken: Vec<GuidanceItem> = mailbox.pending.drain(..).map(Into::into).collect();
        let changed = !taken.is_empty() || (close && !mailbox.closed);
        mailbox.closed |= close;
        Ok((taken, changed))
    })
}

#[async_trait]
impl GuidanceMailbox for FsGuidanceMailbox {
    async fn submit(
        &self,
        run: &RunId,
        item: GuidanceItem,
        limits: MailboxLimits,
    ) -> Result<Submission, StoreError> {
        self.locator
            .with_run_dir(run, Cost::Small, move |dir| {
                submit_blocking(&dir, item, limits)
            })
            .await
    }

    async fn take(&self, run: &RunId) -> Result<Vec<GuidanceItem>, StoreError> {
        self.locator
            .with_run_dir(run, Cost::Small, |dir| take_blocking(&dir, false))
            .await
    }

    async fn close(&self, run: &RunId) -> Result<Vec<GuidanceItem>, StoreError> {
        self.locator
            .with_run_dir(run, Cost::Small, |dir| take_blocking(&dir, true))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::DataDir;
    use agent_domain::run::WorkspaceId;
    use std::fs;

    fn item(id: &str, text: &str) -> GuidanceItem {
        GuidanceItem {
            guidance_id: id.into(),
            client_guidance_id: None,
            text: text.into(),
            chars: text.chars().count() as u64,
        }
    }

    const LIMITS: MailboxLimits = MailboxLimits {
        max_items: 2,
        max_chars: 10,
    };

    #[tokio::test]
    async fn notes_need_a_driver_fit_the_limits_and_stop_at_close() {
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path());
        let locator = RunLocator::new(data.clone());
        let run = RunId::parse("run_1").unwrap();
        let ws = WorkspaceId::parse("chat_1").unwrap();
        locator.register(&run, &ws);
        let run_dir = data.run_dir(&ws, &run);
        fs::create_dir_all(run_dir.path()).unwrap();
        let mailbox = FsGuidanceMailbox::new(locator);
        // No journal, then a journal nobody holds: nobody drives the run.
        assert_eq!(
            mailbox.submit(&run, item("g0", "a"), LIMITS).await.unwrap(),
            Submission::NoDriver
        );
        let journal = std::fs::File::create(run_dir.events()).unwrap();
        assert_eq!(
            mailbox.submit(&run, item("g0", "a"), LIMITS).await.unwrap(),
            Submission::NoDriver
        );
        journal.lock().unwrap();
        assert!(mailbox.take(&run).await.unwrap().is_empty());
        for id in ["g1", "g2"] {
            assert_eq!(
                mailbox
                    .submit(&run, item(id, "four"), LIMITS)
                    .await
                    .unwrap(),
                Submission::Accepted
            );
        }
        assert_eq!(
            mailbox.submit(&run, item("g3", "x"), LIMITS).await.unwrap(),
            Submission::Full { items: 2, chars: 8 }
        );
        let taken = mailbox.take(&run).await.unwrap();
        assert_eq!(taken, vec![item("g1", "four"), item("g2", "four")]);
        assert_eq!(
            mailbox
                .submit(&run, item("g4", "eleven char"), LIMITS)
                .await
                .unwrap(),
            Submission::Full { items: 0, chars: 0 }
        );
        mailbox
            .submit(&run, item("g5", "late"), LIMITS)
            .await
            .unwrap();
        assert_eq!(mailbox.close(&run).await.unwrap(), vec![item("g5", "late")]);
        assert!(mailbox.close(&run).await.unwrap().is_empty());
        assert_eq!(
            mailbox.submit(&run, item("g6", "a"), LIMITS).await.unwrap(),
            Submission::Closed
        );
        assert!(mailbox.take(&run).await.unwrap().is_empty());
    }
}
