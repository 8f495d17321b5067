//! [`FsChatStore`]: the [`ChatStore`] port over SillyTavern chat files.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::ops::Range;
use std::path::Path;

use agent_application::ports::{ChatError, ChatInfo, ChatMessage, ChatStore};
use agent_domain::event::ChatRef;
use agent_domain::run::parse_stable_chat_id;
use async_trait::async_trait;
use serde_json::{Map, Value};

use super::header::Header;
use super::index::{IndexCache, LineIndex};
use super::locator::ChatLocator;
use super::lock::{ChatLocks, rewrite_chat};
use super::{blocking, io_error, message};
use crate::layout::DataDir;
use crate::staging::Staging;

/// Reads chats under a data directory. Cheap to clone; clones share the index cache.
///
/// Opening a chat without a stable id (`chat_metadata.integrity`) gives it one, as SillyTavern
/// does when it saves: a fresh UUID v4 written into the header atomically, every other line
/// kept byte for byte. A group chat without a header line (SillyTavern 1.12 and earlier) is
/// read as it is and never given a header: its stable id is its chat id. A character chat
/// always has a header line in SillyTavern, so one whose first line is a message (or that is
/// empty) is refused rather than misread.
#[derive(Debug, Clone)]
pub struct FsChatStore {
    data: DataDir,
    indexes: IndexCache,
    locks: ChatLocks,
    staging: Staging,
}

impl FsChatStore {
    pub fn new(data: DataDir) -> Self {
        Self {
            staging: Staging::new(data.staging()),
            data,
            indexes: IndexCache::default(),
            locks: ChatLocks::default(),
        }
    }

    /// [`ChatStore::open`] without the async wrapper (blocking). Writers in other processes
    /// are still excluded by the OS lock.
    pub fn open_blocking(&self, chat: &ChatRef) -> Result<ChatInfo, ChatError> {
        let path = ChatLocator::path_of(&self.data, chat)?;
        let index = self.indexes.get(&path, &mut open(&path)?)?;
        let Some(line) = index.header() else {
            return headerless_info(chat, index.message_count());
        };
        let header = Header::parse(line)?;
        if let Some(id) = header.stable_chat_id()? {
            return info(chat, id, index.message_count(), &header);
        }
        rewrite_chat(&path, &self.staging, |doc| {
            let Some(line) = doc.header() else {
                // The header went away while we waited for the lock.
                return Ok((headerless_info(chat, doc.message_count())?, None));
            };
            let header = Header::parse(line)?;
            // Someone may have given the chat its id while we waited for the lock.
            if let Some(id) = header.stable_chat_id()? {
                return Ok((info(chat, id, doc.message_count(), &header)?, None));
            }
            let id = uuid::Uuid::new_v4().to_string();
            let result = info(chat, id.clone(), doc.message_count(), &header)?;
            let line = header.with_integrity(line, &id)?;
            Ok((result, Some(doc.with_header(&line))))
        })
    }

    /// [`ChatStore::read_messages`] without the async wrapper (blocking).
    pub fn read_messages_blocking(
        &self,
        chat: &ChatRef,
        range: Range<usize>,
    ) -> Result<Vec<ChatMessage>, ChatError> {
        let path = ChatLocator::path_of(&self.data, chat)?;
        let mut file = open(&path)?;
        let index = self.indexes.get(&path, &mut file)?;
        if index.header().is_none() {
            headerless_info(chat, index.message_count())?;
        }
        if let Some(messages) = read_with(&index, &path, &mut file, range.clone())? {
            return Ok(messages);
        }
        // The file changed under the index (it was edited in place): index it again, once.
        let index = self.indexes.rebuild(&path, &mut file)?;
        read_with(&index, &path, &mut file, range).and_then(|messages| {
            messages.ok_or_else(|| {
                ChatError::Io(format!(
                    "{}: the chat changed while it was read",
                    path.display()
                ))
            })
        })
    }
}

/// The stable id stored in `chat`, read from its first line without writing anything: the
/// header's `chat_metadata.integrity` (`None` when it has none yet), or for a group chat
/// without a header line its chat id. Decided as [`FsChatStore::open_blocking`] decides
/// it, so the workspace named after it is the one a run would use. Blocking.
pub(crate) fn stored_stable_id(
    data: &DataDir,
    chat: &ChatRef,
) -> Result<Option<String>, ChatError> {
    let path = ChatLocator::path_of(data, chat)?;
    let mut line = Vec::new();
    BufReader::new(open(&path)?)
        .read_until(b'\n', &mut line)
        .map_err(|err| io_error(&path, err))?;
    if line.is_empty() {
        return headerless_info(chat, 0).map(|info| Some(info.stable_chat_id));
    }
    let line = line.strip_suffix(b"\n").unwrap_or(&line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if !Header::is_header_line(line)? {
        return headerless_info(chat, 1).map(|info| Some(info.stable_chat_id));
    }
    Header::parse(line)?.stable_chat_id()
}

/// Messages `range` (clamped to the chat) through `index`; `None` if the index is stale.
fn read_with(
    index: &LineIndex,
    path: &Path,
    file: &mut File,
    range: Range<usize>,
) -> Result<Option<Vec<ChatMessage>>, ChatError> {
    let count = index.message_count();
    let range = range.start.min(count)..range.end.min(count);
    if range.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let Some(read) = index.read_messages(path, file, range.clone())? else {
        return Ok(None);
    };
    read.lines()
        .zip(range)
        .map(|(line, i)| message::read_message(line, index.line_number(i), i))
        .collect::<Result<_, _>>()
        .map(Some)
}

#[async_trait]
impl ChatStore for FsChatStore {
    async fn open(&self, chat: &ChatRef) -> Result<ChatInfo, ChatError> {
        let _turn = self.locks.acquire(chat).await;
        let (store, chat) = (self.clone(), chat.clone());
        blocking(move || store.open_blocking(&chat)).await
    }

    async fn read_messages(
        &self,
        chat: &ChatRef,
        range: Range<usize>,
    ) -> Result<Vec<ChatMessage>, ChatError> {
        let (store, chat) = (self.clone(), chat.clone());
        blocking(move || store.read_messages_blocking(&chat, range)).await
    }
}

fn open(path: &Path) -> Result<File, ChatError> {
    File::open(path).map_err(|err| io_error(path, err))
}

fn info(
    chat: &ChatRef,
    stable_chat_id: String,
    message_count: usize,
    header: &Header,
) -> Result<ChatInfo, ChatError> {
    Ok(ChatInfo {
        chat: chat.clone(),
        stable_chat_id,
        message_count,
        character_name: header.character_name(),
        user_name: header.user_name(),
        chat_metadata: header.chat_metadata()?,
        create_date: header.create_date(),
        has_header: true,
    })
}

/// A chat without a header line: an old-format group chat, whose stable id is its chat id.
/// SillyTavern always writes a header into a character chat, so there a missing one means the
/// file is not a chat we can read.
fn headerless_info(chat: &ChatRef, message_count: usize) -> Result<ChatInfo, ChatError> {
    let stable_chat_id = match chat {
        ChatRef::Group { chat_id } => parse_stable_chat_id(chat_id)
            .map_err(|err| ChatError::InvalidHeader(format!("group chat id: {err}")))?,
        _ if message_count == 0 => {
            return Err(ChatError::InvalidHeader("the chat file is empty".into()));
        }
        _ => {
            return Err(ChatError::InvalidHeader(
                "line 1 is a message, not the chat header a character chat starts with".into(),
            ));
        }
    };
    Ok(ChatInfo {
        chat: chat.clone(),
        stable_chat_id,
        message_count,
        character_name: None,
        user_name: None,
        chat_metadata: Value::Object(Map::new()),
        create_date: None,
        has_header: false,
    })
}
