//! An in-memory [`ChatStore`]: chats as lists of messages, with the reads it served recorded
//! so tests can check how a tool pages through a chat.

use std::ops::Range;
use std::sync::Mutex;

use agent_domain::event::ChatRef;
use async_trait::async_trait;
use serde_json::{Map, Value};

use crate::ports::{ChatError, ChatInfo, ChatMessage, ChatRole, ChatStore};

#[derive(Debug, Default)]
struct State {
    chats: Vec<(ChatRef, Vec<ChatMessage>)>,
    metadata: Vec<(ChatRef, Value)>,
    reads: Vec<Range<usize>>,
}

/// Chats in memory. A chat that was never put is missing (`ChatError::NotFound`).
#[derive(Debug, Default)]
pub struct MemoryChats {
    state: Mutex<State>,
}

impl MemoryChats {
    pub fn new() -> Self {
        Self::default()
    }

    fn with_state<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Replaces the messages of `chat`, numbering them 0, 1, … in order.
    pub fn put(&self, chat: &ChatRef, messages: Vec<ChatMessage>) {
        let messages = messages
            .into_iter()
            .enumerate()
            .map(|(index, message)| ChatMessage { index, ..message })
            .collect();
        self.with_state(|s| {
            s.chats.retain(|(c, _)| c != chat);
            s.chats.push((chat.clone(), messages));
        });
    }

    /// Appends one message to `chat` (creating the chat) and returns its index.
    pub fn push(&self, chat: &ChatRef, role: ChatRole, name: &str, text: &str) -> usize {
        self.with_state(|s| {
            let at = match s.chats.iter().position(|(c, _)| c == chat) {
                Some(at) => at,
                None => {
                    s.chats.push((chat.clone(), Vec::new()));
                    s.chats.len() - 1
                }
            };
            let messages = &mut s.chats[at].1;
            let index = messages.len();
            messages.push(ChatMessage::new(index, role, name, text));
            index
        })
    }

    /// Makes `metadata` (an object) the chat's `chat_metadata`; `{}` until set.
    pub fn set_metadata(&self, chat: &ChatRef, metadata: Value) {
        self.with_state(|s| {
            s.metadata.retain(|(c, _)| c != chat);
            s.metadata.push((chat.clone(), metadata));
        });
    }

    /// The ranges `read_messages` was asked for, in call order (before clamping).
    pub fn reads(&self) -> Vec<Range<usize>> {
        self.with_state(|s| s.reads.clone())
    }

    /// The messages of `chat` as they stand (not recorded as a read).
    pub fn messages(&self, chat: &ChatRef) -> Result<Vec<ChatMessage>, ChatError> {
        self.with_state(|s| {
            s.chats
                .iter()
                .find(|(c, _)| c == chat)
                .map(|(_, messages)| messages.clone())
                .ok_or_else(|| ChatError::NotFound(format!("{chat:?}")))
        })
    }
}

#[async_trait]
impl ChatStore for MemoryChats {
    async fn open(&self, chat: &ChatRef) -> Result<ChatInfo, ChatError> {
        let messages = self.messages(chat)?;
        Ok(ChatInfo {
            chat: chat.clone(),
            stable_chat_id: "memory-chat".to_owned(),
            message_count: messages.len(),
            character_name: None,
            user_name: None,
            chat_metadata: self.with_state(|s| {
                s.metadata
                    .iter()
                    .find(|(c, _)| c == chat)
                    .map_or_else(|| Value::Object(Map::new()), |(_, meta)| meta.clone())
            }),
            create_date: None,
            has_header: true,
        })
    }

    async fn read_messages(
        &self,
        chat: &ChatRef,
        range: Range<usize>,
    ) -> Result<Vec<ChatMessage>, ChatError> {
        let messages = self.messages(chat)?;
        self.with_state(|s| s.reads.push(range.clone()));
        let end = range.end.min(messages.len());
        let start = range.start.min(end);
        Ok(messages[start..end].to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn serves_clamped_ranges_and_records_them() {
        let chats = MemoryChats::new();
        let chat = ChatRef::Group {
            chat_id: "g".into(),
        };
        assert!(matches!(
            chats.open(&chat).await,
            Err(ChatError::NotFound(_))
        ));
        chats.push(&chat, ChatRole::User, "Ann", "hi");
        chats.push(&chat, ChatRole::Assistant, "Bot", "hello");
        assert_eq!(chats.open(&chat).await.unwrap().message_count, 2);
        let read = chats.read_messages(&chat, 1..9).await.unwrap();
        assert_eq!(read.len(), 1);
        assert_eq!((read[0].index, read[0].text.as_str()), (1, "hello"));
        assert!(chats.read_messages(&chat, 5..9).await.unwrap().is_empty());
        assert_eq!(chats.reads(), [1..9, 5..9]);
        assert_eq!(
            chats.open(&chat).await.unwrap().chat_metadata,
            serde_json::json!({})
        );
        chats.set_metadata(&chat, serde_json::json!({"world_info": "Eldoria"}));
        assert_eq!(
            chats.open(&chat).await.unwrap().chat_metadata["world_info"],
            "Eldoria"
        );
    }
}
