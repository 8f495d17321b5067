//! SillyTavern chats: reading the messages a run may see, and committing its message.
//!
//! A chat is a JSONL file: line 1 is a header object (`chat_metadata`, and the deprecated
//! `user_name` / `character_name`), every following line one message (message index 0 is
//! line 2). Character chats live at `chats/<character>/<file>.jsonl`, group chats at
//! `group chats/<id>.jsonl`; both use the same format, except that group chats written by
//! SillyTavern 1.12 and earlier have no header line (message index 0 is line 1; their metadata
//! is in the group file). `header.rs` decides which a file is.
//!
//! * [`ChatLocator`] maps a `--chat` path to a [`ChatRef`] and back, refusing `..` and
//!   symlinks.
//! * [`FsChatStore`] reads: a per-file index of line offsets (rebuilt when the file's length,
//!   modification time or identity changes) lets it seek straight to the messages asked for.
//! * [`FsChatCommitter`] writes this run's message. Every write holds the chat's locks (an
//!   in-process queue and an OS lock on the file), rewrites the file atomically (a temp file
//!   staged in our own folder, then renamed over the chat: see `crate::staging`) and changes
//!   exactly one line: untouched lines keep their bytes, and the changed line keeps its key
//!   order and unknown keys.
//!
//! [`ChatRef`]: agent_domain::event::ChatRef

mod committer;
mod document;
mod edit;
mod header;
mod index;
mod lines;
mod locator;
mod lock;
mod message;
mod rollback;
mod stamp;
mod store;

pub use committer::FsChatCommitter;

/// Checks a whole chat file, `bytes`, as opening it for a run and reading every message
/// would: no blank line, a header that is a JSON object with a valid string
/// `chat_metadata.integrity` (when it has one), every message line a JSON object. The
/// error names the line.
pub fn check_chat_bytes(bytes: Vec<u8>) -> Result<(), agent_application::ports::ChatError> {
    let doc = document::ChatDocument::parse(bytes)?;
    if let Some(header) = doc.header() {
        header::Header::parse(header)?.stable_chat_id()?;
    }
    for index in 0..doc.message_count() {
        if let Some(line) = doc.message(index) {
            message::read_message(line, doc.line_number(index), index)?;
        }
    }
    Ok(())
}
pub use locator::ChatLocator;
pub(crate) use lock::remove_chat;
pub use store::FsChatStore;
pub(crate) use store::stored_stable_id;

use std::io;
use std::path::Path;

use agent_application::ports::ChatError;

/// A file-system error on `path`, with "not found" kept distinguishable.
fn io_error(path: &Path, err: io::Error) -> ChatError {
    if err.kind() == io::ErrorKind::NotFound {
        ChatError::NotFound(path.display().to_string())
    } else {
        ChatError::Io(format!("{}: {err}", path.display()))
    }
}

/// Runs blocking chat I/O on the blocking pool.
pub(crate) async fn blocking<T, F>(work: F) -> Result<T, ChatError>
where
    F: FnOnce() -> Result<T, ChatError> + Send + 'static,
    T: Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| ChatError::Io(format!("chat task failed: {err}")))?
}
