//! [`FsChatCommitter`]: the host's [`ChatCommitPort`], writing a run's message into the
//! SillyTavern chat file itself.

use agent_application::ports::{
    ChatCommitPort, ChatCommitReceipt, ChatCommitRequest, ChatError, ChatRole, ChatRollbackReport,
    ChatRollbackRequest, CommitTarget, MetadataChange, PersistStateUpdate,
};
use agent_domain::json::OrderedJson;
use agent_domain::run::RollbackStrategy;
use async_trait::async_trait;

use super::document::ChatDocument;
use super::header::Header;
use super::locator::ChatLocator;
use super::lock::{ChatLocks, Rewrite, rewrite_chat};
use super::{blocking, edit, message, rollback};
use crate::layout::DataDir;
use crate::staging::Staging;

/// Commits runs' messages into chats under a data directory. Cheap to clone; clones share
/// the per-chat queue, and the OS lock on the chat file orders all other writers.
///
/// The run's first commit writes a new reply ([`CommitTarget::NewReply`]) or a new swipe of
/// the message a regenerate or swipe targets ([`CommitTarget::NewSwipe`], an assistant
/// message); later commits rewrite that message ([`CommitTarget::Revise`]). See `edit` for
/// the exact shape of what is written.
#[derive(Debug, Clone)]
pub struct FsChatCommitter {
    data: DataDir,
    locks: ChatLocks,
    staging: Staging,
}

impl FsChatCommitter {
    pub fn new(data: DataDir) -> Self {
        Self {
            staging: Staging::new(data.staging()),
            data,
            locks: ChatLocks::default(),
        }
    }

    /// [`ChatCommitPort::commit`] without the async wrapper (blocking).
    pub fn commit_blocking(
        &self,
        request: &ChatCommitRequest,
    ) -> Result<ChatCommitReceipt, ChatError> {
        let path = ChatLocator::path_of(&self.data, &request.chat)?;
        rewrite_chat(&path, &self.staging, |doc| plan_commit(doc, request))
    }

    /// [`ChatCommitPort::record_persist_state`] without the async wrapper (blocking).
    pub fn record_persist_state_blocking(
        &self,
        update: &PersistStateUpdate,
    ) -> Result<(), ChatError> {
        let path = ChatLocator::path_of(&self.data, &update.chat)?;
        rewrite_chat(&path, &self.staging, |doc| {
            let (index, mut message) = message_by_id(doc, &update.message_id)?;
            let recorded = edit::record_state(
                &mut message,
                &update.run_id,
                &update.state_id,
                update.base_state_id.as_ref(),
                update.change_count,
            );
            if !recorded {
                return Err(ChatError::MessageMismatch(update.message_id.clone()));
            }
            Ok(((), Some(doc.with_message(index, &line(&message)))))
        })
    }

    /// [`ChatCommitPort::rollback`] without the async wrapper (blocking).
    pub fn rollback_blocking(
        &self,
        request: &ChatRollbackRequest,
    ) -> Result<ChatRollbackReport, ChatError> {
        let path = ChatLocator::path_of(&self.data, &request.chat)?;
        rewrite_chat(&path, &self.staging, |doc| rollback::plan(doc, request))
    }
}

#[async_trait]
impl ChatCommitPort for FsChatCommitter {
    async fn commit(&self, request: ChatCommitRequest) -> Result<ChatCommitReceipt, ChatError> {
        let _turn = self.locks.acquire(&request.chat).await;
        let committer = self.clone();
        blocking(move || committer.commit_blocking(&request)).await
    }

    async fn record_persist_state(&self, update: PersistStateUpdate) -> Result<(), ChatError> {
        let _turn = self.locks.acquire(&update.chat).await;
        let committer = self.clone();
        blocking(move || committer.record_persist_state_blocking(&update)).await
    }

    async fn rollback(
        &self,
        request: ChatRollbackRequest,
    ) -> Result<ChatRollbackReport, ChatError> {
        let _turn = self.locks.acquire(&request.chat).await;
        let committer = self.clone();
        blocking(move || committer.rollback_blocking(&request)).await
    }
}

/// Where `request` lands in the chat as it is now, and the file after it.
fn plan_commit(
    doc: &ChatDocument,
    request: &ChatCommitRequest,
) -> Result<Rewrite<ChatCommitReceipt>, ChatError> {
    let (index, rollback, previous, mut bytes) = match &request.target {
        CommitTarget::NewReply => {
            let reply = edit::new_reply(request)?;
            let index = doc.message_count();
            let bytes = doc.with_appended(&line(&reply));
            (index, RollbackStrategy::DeleteMessage, None, bytes)
        }
        CommitTarget::NewSwipe { index } => {
            let index = *index;
            let original = doc.message(index).ok_or(ChatError::NoTarget("swipe"))?;
            let mut target = message::parse_ordered(original, doc.line_number(index))?;
            if message::ordered_role(&target) != ChatRole::Assistant {
                return Err(ChatError::NoTarget("swipe"));
            }
            let swipe_id = edit::add_swipe(&mut target, request, doc.line_number(index))?;
            let bytes = doc.with_message(index, &line(&target));
            let previous = String::from_utf8_lossy(original).into_owned();
            (
                index,
                RollbackStrategy::DeleteSwipe { swipe_id },
                Some(previous),
                bytes,
            )
        }
        CommitTarget::Revise { message_id } => {
            let (index, mut target) = message_by_id(doc, message_id)?;
            // A later commit rewrites the run's message only while it ends the chat, as
            // TauriTavern's does: anything written after it means the chat moved on.
            if index + 1 != doc.message_count() {
                return Err(ChatError::MessageMismatch(message_id.clone()));
            }
            let rollback = edit::revise(&mut target, request, message_id)?;
            let bytes = doc.with_message(index, &line(&target));
            (index, rollback, None, bytes)
        }
    };
    let mut metadata_changes = Vec::new();
    if !request.metadata.is_empty() {
        (bytes, metadata_changes) = with_metadata(bytes, &request.metadata)?;
    }
    let receipt = ChatCommitReceipt {
        message_id: index.to_string(),
        message_index: Some(index),
        rollback,
        previous_message: previous,
        metadata_changes,
    };
    Ok((receipt, Some(bytes)))
}

/// `bytes` (a whole chat) with `entries` set in its header's `chat_metadata`, and what each
/// key held before. An old-format group chat has no header: its metadata lives in the group
/// file, which a run does not write, so it is left as it is.
fn with_metadata(
    bytes: Vec<u8>,
    entries: &[(String, OrderedJson)],
) -> Result<(Vec<u8>, Vec<MetadataChange>), ChatError> {
    let doc = ChatDocument::parse(bytes)?;
    let Some(header) = doc.header() else {
        return Ok((doc.into_bytes(), Vec::new()));
    };
    let edits: Vec<(&str, Option<&OrderedJson>)> = entries
        .iter()
        .map(|(key, value)| (key.as_str(), Some(value)))
        .collect();
    let (line, before) = Header::parse(header)?.with_metadata(header, &edits)?;
    let changes = entries
        .iter()
        .zip(before)
        .map(|((key, after), before)| MetadataChange {
            key: key.clone(),
            before,
            after: after.clone(),
        })
        .collect();
    Ok((doc.with_header(&line), changes))
}

/// The message a receipt named (`message_id` is its index as a decimal string), parsed.
fn message_by_id(doc: &ChatDocument, id: &str) -> Result<(usize, OrderedJson), ChatError> {
    let (index, raw) = id
        .parse::<usize>()
        .ok()
        .and_then(|index| Some((index, doc.message(index)?)))
        .ok_or_else(|| ChatError::MessageMissing(id.to_owned()))?;
    Ok((index, message::parse_ordered(raw, doc.line_number(index))?))
}

/// A message as its JSONL line, as `JSON.stringify` writes it.
pub(super) fn line(message: &OrderedJson) -> Vec<u8> {
    message.to_js_vec()
}
