//! An in-memory [`ChatCommitPort`]: the host's side of commits, written into a
//! [`MemoryChats`] so a test reads the chat the run left, and every request recorded as
//! the host received it.
//!
//! It follows the file committer's rules: message ids are indexes; the first commit adds
//! a reply (rollback `deleteMessage`) or replaces an assistant message's text as a new
//! swipe (rollback `deleteSwipe` of swipe 1, the message before kept for an exact
//! rollback); a later commit revises the run's message only while it ends the chat and
//! still carries the run's record. Memory messages have no swipe list, so a swipe shows as
//! the message's new text. Planned [`Faults`] make a commit fail before it writes.

use std::sync::{Arc, Mutex};

use agent_domain::json::OrderedJson;
use agent_domain::run::{AgentMessageRecord, PersistStateStatus, RollbackStrategy};
use async_trait::async_trait;
use serde_json::{Map, Value};

use super::{Faults, MemoryChats};
use crate::ports::{
    ChatCommitPort, ChatCommitReceipt, ChatCommitRequest, ChatError, ChatMessage, ChatRole,
    ChatRollbackReport, ChatRollbackRequest, ChatStore, CommitTarget, MetadataChange,
    PersistStateUpdate, RollbackError,
};

#[derive(Debug, Default)]
struct Received {
    commits: Vec<ChatCommitRequest>,
    persist_updates: Vec<PersistStateUpdate>,
    rollbacks: Vec<ChatRollbackRequest>,
}

/// Commits into the chats of a [`MemoryChats`].
#[derive(Debug)]
pub struct MemoryChatCommits {
    chats: Arc<MemoryChats>,
    received: Mutex<Received>,
    faults: Faults<ChatCommitRequest, ChatError>,
}

/// The run record a message carries, if it carries one that parses.
fn record_of(message: &ChatMessage) -> Option<AgentMessageRecord> {
    serde_json::from_value(message.agent.clone()?).ok()
}

fn record_value(record: &AgentMessageRecord) -> Result<Value, ChatError> {
    serde_json::to_value(record).map_err(|e| ChatError::Io(e.to_string()))
}

/// The message a receipt named (its index as a decimal string).
fn message_index(messages: &[ChatMessage], id: &str) -> Result<usize, ChatError> {
    id.parse::<usize>()
        .ok()
        .filter(|index| *index < messages.len())
        .ok_or_else(|| ChatError::MessageMissing(id.to_owned()))
}

impl MemoryChatCommits {
    /// The host of the chats in `chats`.
    pub fn new(chats: Arc<MemoryChats>) -> Self {
        Self {
            chats,
            received: Mutex::default(),
            faults: Faults::default(),
        }
    }

    fn with_received<T>(&self, f: impl FnOnce(&mut Received) -> T) -> T {
        f(&mut self.received.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Failures planned for commits, matched on the request.
    pub fn faults(&self) -> &Faults<ChatCommitRequest, ChatError> {
        &self.faults
    }

    /// The commits written, in order (a commit that failed is not among them).
    pub fn commits(&self) -> Vec<ChatCommitRequest> {
        self.with_received(|r| r.commits.clone())
    }

    /// The persistent-state updates recorded, in order.
    pub fn persist_updates(&self) -> Vec<PersistStateUpdate> {
        self.with_received(|r| r.persist_updates.clone())
    }

    /// The rollbacks asked for, in order.
    pub fn rollbacks(&self) -> Vec<ChatRollbackRequest> {
        self.with_received(|r| r.rollbacks.clone())
    }

    /// Sets `entries` in the chat's metadata and reports what each key held before.
    async fn set_metadata(
        &self,
        request: &ChatCommitRequest,
    ) -> Result<Vec<MetadataChange>, ChatError> {
        if request.metadata.is_empty() {
            return Ok(Vec::new());
        }
        let mut metadata = match self.chats.open(&request.chat).await?.chat_metadata {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let mut changes = Vec::new();
        for (key, after) in &request.metadata {
            let before = metadata.insert(key.clone(), after.to_value());
            changes.push(MetadataChange {
                key: key.clone(),
                before: before.as_ref().map(OrderedJson::from),
                after: after.clone(),
            });
        }
        self.chats
            .set_metadata(&request.chat, Value::Object(metadata));
        Ok(changes)
    }
}

#[async_trait]
impl ChatCommitPort for MemoryChatCommits {
    async fn commit(&self, request: ChatCommitRequest) -> Result<ChatCommitReceipt, ChatError> {
        self.faults.check(&request)?;
        let mut messages = self.chats.messages(&request.chat)?;
        let (index, rollback, previous) = match &request.target {
            CommitTarget::NewReply => {
                let index = messages.len();
                messages.push(ChatMessage::new(index, ChatRole::Assistant, "", ""));
                (index, RollbackStrategy::DeleteMessage, None)
            }
            CommitTarget::NewSwipe { index } => {
                let target = messages
                    .get(*index)
                    .filter(|m| m.role == ChatRole::Assistant)
                    .ok_or(ChatError::NoTarget("swipe"))?;
                let previous =
                    serde_json::to_string(target).map_err(|e| ChatError::Io(e.to_string()))?;
                let rollback = RollbackStrategy::DeleteSwipe { swipe_id: 1 };
                (*index, rollback, Some(previous))
            }
            CommitTarget::Revise { message_id } => {
                let index = message_index(&messages, message_id)?;
                let mismatch = || ChatError::MessageMismatch(message_id.clone());
                if index + 1 != messages.len() {
                    return Err(mismatch());
                }
                let record = record_of(&messages[index])
                    .filter(|record| record.run_id == request.run_id.as_str())
                    .ok_or_else(mismatch)?;
                (index, record.rollback.ok_or_else(mismatch)?, None)
            }
        };
        let mut record = request.record.clone();
        record.rollback = Some(rollback.clone());
        let message = &mut messages[index];
        message.name = request.author.name.clone();
        message.text = request.text.clone();
        message.agent = Some(record_value(&record)?);
        let metadata_changes = self.set_metadata(&request).await?;
        self.chats.put(&request.chat, messages);
        self.with_received(|r| r.commits.push(request));
        Ok(ChatCommitReceipt {
            message_id: index.to_string(),
            message_index: Some(index),
            rollback,
            previous_message: previous,
            metadata_changes,
        })
    }

    async fn record_persist_state(&self, update: PersistStateUpdate) -> Result<(), ChatError> {
        let mut messages = self.chats.messages(&update.chat)?;
        let index = message_index(&messages, &update.message_id)?;
        let mut record = record_of(&messages[index])
            .filter(|record| record.run_id == update.run_id.as_str())
            .ok_or_else(|| ChatError::MessageMismatch(update.message_id.clone()))?;
        record.persist_state_status = PersistStateStatus::Committed;
        record.persist_state_id = Some(update.state_id.to_string());
        record.persist_change_count = Some(update.change_count);
        messages[index].agent = Some(record_value(&record)?);
        self.chats.put(&update.chat, messages);
        self.with_received(|r| r.persist_updates.push(update));
        Ok(())
    }

    async fn rollback(
        &self,
        request: ChatRollbackRequest,
    ) -> Result<ChatRollbackReport, ChatError> {
        self.with_received(|r| r.rollbacks.push(request.clone()));
        let mut messages = self.chats.messages(&request.chat)?;
        // Every check first, highest index first.
        let mut plan = Vec::new();
        for target in &request.targets {
            let index = message_index(&messages, &target.message_id)
                .map_err(|_| RollbackError::TargetMissing(target.message_id.clone()))?;
            let record = record_of(&messages[index])
                .filter(|record| record.run_id == request.run_id.as_str())
                .ok_or(RollbackError::RunMismatch { index })?;
            let restored = match record.rollback {
                None => return Err(RollbackError::StrategyMissing { index }.into()),
                Some(RollbackStrategy::DeleteMessage) => None,
                Some(RollbackStrategy::DeleteSwipe { .. }) => Some(
                    target
                        .previous_message
                        .as_deref()
                        .and_then(|raw| serde_json::from_str::<ChatMessage>(raw).ok())
                        .ok_or(RollbackError::SwipeStateInvalid { index })?,
                ),
            };
            plan.push((index, restored));
        }
        plan.sort_by_key(|(index, _)| std::cmp::Reverse(*index));
        let mut report = ChatRollbackReport::default();
        for (index, restored) in plan {
            match restored {
                None => {
                    messages.remove(index);
                    report.deleted_messages.push(index);
                }
                Some(previous) => {
                    messages[index] = previous;
                    report.restored_messages.push(index);
                }
            }
        }
        let mut metadata = match self.chats.open(&request.chat).await?.chat_metadata {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        for change in &request.metadata {
            // A key changed since the run wrote it is left as it is.
            if metadata.get(&change.key) != Some(&change.after.to_value()) {
                continue;
            }
            match &change.before {
                Some(before) => metadata.insert(change.key.clone(), before.to_value()),
                None => metadata.remove(&change.key),
            };
            report.restored_metadata.push(change.key.clone());
        }
        self.chats
            .set_metadata(&request.chat, Value::Object(metadata));
        self.chats.put(&request.chat, messages);
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use agent_domain::event::ChatRef;
    use agent_domain::run::{CommitRecord, RecordIdentity, RunId};
    use serde_json::json;

    use super::*;
    use crate::ports::{ReplyAuthor, ReplyModel};

    fn request(chat: &ChatRef, run: &str, target: CommitTarget, text: &str) -> ChatCommitRequest {
        let identity = RecordIdentity {
            run_id: run.into(),
            workspace_id: "chat_1".into(),
            stable_chat_id: "memory-chat".into(),
            profile_id: None,
            persist_base_state_id: None,
        };
        let commit = CommitRecord {
            seq: 1,
            commit_id: "commit_1".into(),
            checkpoint_id: "cp_000001".into(),
            path: "output/main.md".into(),
            mode: "replace".into(),
            reason: None,
            chars: 0,
            words: 0,
            sha256: String::new(),
        };
        ChatCommitRequest {
            chat: chat.clone(),
            run_id: RunId::parse(run).unwrap(),
            target,
            text: text.into(),
            author: ReplyAuthor {
                name: "Alice".into(),
                ..ReplyAuthor::default()
            },
            model: ReplyModel::default(),
            reasoning: String::new(),
            generation_started: "t".into(),
            committed_at: "t".into(),
            record: AgentMessageRecord::after(&identity, &[], &commit),
            metadata: vec![("timedWorldInfo".into(), OrderedJson::from(&json!({"a": 1})))],
        }
    }

    #[tokio::test]
    async fn revises_only_the_runs_last_message_and_undoes_its_metadata() {
        let chats = Arc::new(MemoryChats::new());
        let chat = ChatRef::Group {
            chat_id: "g".into(),
        };
        chats.push(&chat, ChatRole::User, "Bob", "Hi");
        chats.set_metadata(&chat, json!({"timedWorldInfo": {"a": 0}}));
        let host = MemoryChatCommits::new(Arc::clone(&chats));
        let first = host
            .commit(request(&chat, "run_a", CommitTarget::NewReply, "One."))
            .await
            .unwrap();
        assert_eq!(
            (first.message_id.as_str(), &first.rollback),
            ("1", &RollbackStrategy::DeleteMessage)
        );
        assert_eq!(
            first.metadata_changes[0].before,
            Some(OrderedJson::from(&json!({"a": 0})))
        );
        let revise = CommitTarget::Revise {
            message_id: "1".into(),
        };
        let other_run = host
            .commit(request(&chat, "run_b", revise.clone(), "Two."))
            .await;
        assert_eq!(other_run, Err(ChatError::MessageMismatch("1".into())));
        host.commit(request(&chat, "run_a", revise.clone(), "Two."))
            .await
            .unwrap();
        assert_eq!(chats.messages(&chat).unwrap()[1].text, "Two.");
        chats.push(&chat, ChatRole::User, "Bob", "And?");
        let moved_on = host.commit(request(&chat, "run_a", revise, "Three.")).await;
        assert_eq!(moved_on, Err(ChatError::MessageMismatch("1".into())));
        assert_eq!(host.commits().len(), 2);

        let report = host
            .rollback(ChatRollbackRequest {
                chat: chat.clone(),
                run_id: RunId::parse("run_a").unwrap(),
                targets: vec![crate::ports::RollbackTarget {
                    message_id: "1".into(),
                    previous_message: None,
                }],
                metadata: first.metadata_changes,
            })
            .await
            .unwrap();
        assert_eq!(report.deleted_messages, [1]);
        assert_eq!(report.restored_metadata, ["timedWorldInfo"]);
        let texts: Vec<String> = chats
            .messages(&chat)
            .unwrap()
            .into_iter()
            .map(|m| m.text)
            .collect();
        assert_eq!(texts, ["Hi", "And?"]);
        assert_eq!(
            chats.open(&chat).await.unwrap().chat_metadata,
            json!({"timedWorldInfo": {"a": 0}})
        );
    }
}
