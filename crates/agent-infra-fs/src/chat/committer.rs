//! [`FsChatCommitter`]: the host's [`ChatCommitPort`], writing a run's message into the
//! SillyTavern chat file itself.

use agent_application::ports::{
    ChatCommitPort, ChatCommitReceipt, ChatCommitRequest, ChatError, ChatRole, PersistStateUpdate,
};
use agent_domain::run::GenerationType;
use async_trait::async_trait;
use serde_json::{Map, Value};

use super::document::ChatDocument;
use super::edit::{self, Generation};
use super::header::Header;
use super::locator::ChatLocator;
use super::lock::{ChatLocks, Rewrite, rewrite_chat};
use super::ordered_json::to_vec_in_order;
use super::{blocking, message};
use crate::layout::DataDir;

/// Commits runs' messages into chats under a data directory. Cheap to clone; clones share
/// the per-chat queue, and the OS lock on the chat file orders all other writers.
///
/// Where a run's first commit lands follows SillyTavern: `normal` appends a reply,
/// `regenerate` replaces the message the run hid (index `input_message_count`, not a user
/// message), `swipe` adds a swipe to it (an assistant message). Later commits of the run name
/// the message by its index and replace or append to its text.
#[derive(Debug, Clone)]
pub struct FsChatCommitter {
    data: DataDir,
    locks: ChatLocks,
}

impl FsChatCommitter {
    pub fn new(data: DataDir) -> Self {
        Self {
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
        let send_date = crate::environment::now_iso();
        rewrite_chat(&path, |doc| plan_commit(doc, request, &send_date))
    }

    /// [`ChatCommitPort::record_persist_state`] without the async wrapper (blocking).
    pub fn record_persist_state_blocking(
        &self,
        update: &PersistStateUpdate,
    ) -> Result<(), ChatError> {
        let path = ChatLocator::path_of(&self.data, &update.chat)?;
        rewrite_chat(&path, |doc| {
            let (index, original) = message_by_id(doc, &update.message_id)?;
            let line = edit_line(original, index, |fields| {
                if edit::record_state(fields, &update.run_id, &update.state_id) {
                    Ok(())
                } else {
                    Err(ChatError::MessageMissing(update.message_id.clone()))
                }
            })?;
            Ok(((), Some(doc.with_message(index, &line))))
        })
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
}

/// Where `request` lands in the chat as it is now, and the file after it.
fn plan_commit(
    doc: &ChatDocument,
    request: &ChatCommitRequest,
    send_date: &str,
) -> Result<Rewrite<ChatCommitReceipt>, ChatError> {
    let generation = Generation {
        run_id: &request.run_id,
        text: &request.text,
        send_date,
    };
    let (index, bytes) = if let Some(id) = &request.message_id {
        let (index, original) = message_by_id(doc, id)?;
        let line = edit_line(original, index, |fields| {
            if message::agent_run_id(fields) != Some(request.run_id.as_str()) {
                return Err(ChatError::MessageMissing(id.clone()));
            }
            edit::revise(fields, request.mode, &request.text);
            Ok(())
        })?;
        (index, doc.with_message(index, &line))
    } else {
        match request.generation_type {
            GenerationType::Normal => {
                let name = Header::from_line(doc.header())?.reply_name(&request.chat);
                let line = edit::new_reply(&name, &generation)?;
                (doc.message_count(), doc.with_appended(&line))
            }
            GenerationType::Regenerate => {
                let index = request.input_message_count;
                let original = target(doc, index, "regenerate", |role| role != ChatRole::User)?;
                let line = edit_line(original, index, |fields| {
                    edit::regenerate(fields, &generation);
                    Ok(())
                })?;
                (index, doc.with_message(index, &line))
            }
            GenerationType::Swipe => {
                let index = request.input_message_count;
                let original = target(doc, index, "swipe", |role| role == ChatRole::Assistant)?;
                let line = edit_line(original, index, |fields| {
                    edit::add_swipe(fields, &generation, message::line_of(index))
                })?;
                (index, doc.with_message(index, &line))
            }
        }
    };
    let receipt = ChatCommitReceipt {
        message_id: index.to_string(),
        message_index: Some(index),
    };
    Ok((receipt, Some(bytes)))
}

/// The message a regenerate or swipe targets: it must exist and have an acceptable role.
fn target<'a>(
    doc: &'a ChatDocument,
    index: usize,
    kind: &'static str,
    accepts: impl Fn(ChatRole) -> bool,
) -> Result<&'a [u8], ChatError> {
    let line = doc.message(index).ok_or(ChatError::NoTarget(kind))?;
    if accepts(message::role(&message::parse(line, index)?)) {
        Ok(line)
    } else {
        Err(ChatError::NoTarget(kind))
    }
}

/// The message a receipt named (`message_id` is its index as a decimal string).
fn message_by_id<'a>(doc: &'a ChatDocument, id: &str) -> Result<(usize, &'a [u8]), ChatError> {
    id.parse::<usize>()
        .ok()
        .and_then(|index| Some((index, doc.message(index)?)))
        .ok_or_else(|| ChatError::MessageMissing(id.to_owned()))
}

/// Message line `original` after `change`, written in its original key order.
fn edit_line(
    original: &[u8],
    index: usize,
    change: impl FnOnce(&mut Map<String, Value>) -> Result<(), ChatError>,
) -> Result<Vec<u8>, ChatError> {
    let mut fields = message::parse(original, index)?;
    change(&mut fields)?;
    to_vec_in_order(original, &Value::Object(fields)).map_err(|err| {
        ChatError::Io(format!(
            "cannot write chat line {}: {err}",
            message::line_of(index)
        ))
    })
}
