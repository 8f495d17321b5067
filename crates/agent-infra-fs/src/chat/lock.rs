//! Serialising writers of one chat.
//!
//! Two layers: [`ChatLocks`] queues writers of the same chat inside this process on the async
//! runtime, so waiting never occupies a blocking thread; [`rewrite_chat`] then takes the OS
//! lock on the chat file itself, which also orders writers in other processes. The chat
//! folder belongs to SillyTavern, so no lock file is added to it.
//!
//! Writers replace the file by renaming a new one into place, so a lock taken on the old file
//! is worthless once the rename happened: after locking, the writer checks that the path still
//! names the file it locked, and starts over otherwise.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use agent_application::ports::ChatError;
use agent_domain::event::ChatRef;
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

use super::document::ChatDocument;
use super::io_error;
use super::stamp::FileStamp;
use crate::staging::Staging;

/// How often a writer starts over because the chat was replaced while it waited.
const LOCK_ATTEMPTS: usize = 16;

/// One queue per chat for the writers of this process.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChatLocks {
    queues: Arc<Mutex<HashMap<ChatRef, Arc<AsyncMutex<()>>>>>,
}

impl ChatLocks {
    /// Waits for this process's turn to write `chat`.
    pub(crate) async fn acquire(&self, chat: &ChatRef) -> OwnedMutexGuard<()> {
        let queue = {
            let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(queues.entry(chat.clone()).or_default())
        };
        queue.lock_owned().await
    }
}

/// What an edit of a chat decided: its result, and the new file bytes if anything changes.
pub(crate) type Rewrite<T> = (T, Option<Vec<u8>>);

/// Runs `edit` on the chat as it is now, under the OS lock, and writes the new bytes (if any)
/// atomically, staged outside the chat folder, before letting go of the lock. Blocking.
pub(crate) fn rewrite_chat<T>(
    path: &Path,
    staging: &Staging,
    edit: impl FnOnce(&ChatDocument) -> Result<Rewrite<T>, ChatError>,
) -> Result<T, ChatError> {
    let mut file = lock_current(path)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|err| io_error(path, err))?;
    let (result, rewritten) = edit(&ChatDocument::parse(bytes)?)?;
    if let Some(rewritten) = rewritten {
        staging
            .write_atomic(path, &rewritten)
            .map_err(|err| io_error(path, err))?;
    }
    drop(file);
    Ok(result)
}

/// Deletes the chat file once no writer holds it (a writer that waited for it then finds
/// it gone). Blocking.
pub(crate) fn remove_chat(path: &Path) -> Result<(), ChatError> {
    let file = lock_current(path)?;
    fs::remove_file(path).map_err(|err| io_error(path, err))?;
    drop(file);
    if let Some(folder) = path.parent() {
        crate::atomic::sync_dir(folder);
    }
    Ok(())
}

/// Opens the chat and holds its OS lock, making sure the locked file is still the one at
/// `path`.
fn lock_current(path: &Path) -> Result<File, ChatError> {
    for _ in 0..LOCK_ATTEMPTS {
        let file = File::open(path).map_err(|err| io_error(path, err))?;
        file.lock().map_err(|err| io_error(path, err))?;
        let locked = file.metadata().map_err(|err| io_error(path, err))?;
        let current = match fs::symlink_metadata(path) {
            Ok(meta) => meta,
            // Removed while we waited: the next open reports it.
            Err(_) => continue,
        };
        if FileStamp::of(&locked).same_file(&FileStamp::of(&current)) {
            return Ok(file);
        }
    }
    Err(ChatError::Io(format!(
        "{}: the chat kept being replaced while waiting for its lock",
        path.display()
    )))
}
