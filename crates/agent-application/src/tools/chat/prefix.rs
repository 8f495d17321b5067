//! The run's frozen chat prefix: the messages `0..input_message_count` the chat tools may
//! see, read through the [`ChatStore`](crate::ports::ChatStore) port.

use std::ops::Range;

use agent_domain::ErrorCode;

use super::super::{ToolContext, ToolFailure, ToolFault};
use crate::ports::{ChatError, ChatMessage, ChatRole};

/// The messages of the run's chat a tool may see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FrozenPrefix {
    /// Messages in the prefix; indexes `0..len` are visible.
    pub len: usize,
}

impl FrozenPrefix {
    /// Opens the run's chat and checks it still holds the whole prefix.
    pub async fn open(ctx: &ToolContext<'_>) -> Result<Self, ToolFailure> {
        let info = ctx
            .ports
            .chats
            .open(&ctx.run.chat)
            .await
            .map_err(chat_failure)?;
        let len = ctx.run.input_message_count;
        if info.message_count < len {
            let found = format!("it now has {} messages", info.message_count);
            return Err(history_conflict(len, &found));
        }
        Ok(Self { len })
    }

    /// The messages in `range`, which must lie inside the prefix.
    pub async fn read(
        &self,
        ctx: &ToolContext<'_>,
        range: Range<usize>,
    ) -> Result<Vec<ChatMessage>, ToolFailure> {
        let wanted = range.len();
        let messages = ctx
            .ports
            .chats
            .read_messages(&ctx.run.chat, range.clone())
            .await
            .map_err(chat_failure)?;
        let in_place = messages
            .iter()
            .enumerate()
            .all(|(offset, message)| message.index == range.start + offset);
        if messages.len() != wanted || !in_place {
            let found = format!(
                "reading messages {}..{} returned {} of {wanted}",
                range.start,
                range.end,
                messages.len()
            );
            return Err(history_conflict(self.len, &found));
        }
        Ok(messages)
    }

    /// The message at `index`, which must lie inside the prefix.
    pub async fn read_one(
        &self,
        ctx: &ToolContext<'_>,
        index: usize,
    ) -> Result<ChatMessage, ToolFailure> {
        let mut messages = self.read(ctx, index..index + 1).await?;
        messages
            .pop()
            .ok_or_else(|| history_conflict(self.len, &format!("message {index} is missing")))
    }
}

/// The name of a role as tools print it.
pub(super) fn role_name(role: ChatRole) -> &'static str {
    match role {
        ChatRole::User => "user",
        ChatRole::Assistant => "assistant",
        ChatRole::System => "system",
    }
}

/// `1 message`, `2 messages`.
pub(super) fn messages(n: usize) -> String {
    if n == 1 {
        "1 message".to_owned()
    } else {
        format!("{n} messages")
    }
}

/// The ref of a whole message.
pub(super) fn message_ref(index: usize) -> String {
    format!("chat:current#{index}")
}

/// A missing chat is something the model can work around; anything else stops the run.
fn chat_failure(error: ChatError) -> ToolFailure {
    match error {
        ChatError::NotFound(_) => ToolFailure::recoverable(
            error.code(),
            "The current chat file could not be found, so its history cannot be searched \
             or read. Continue with the context you already have.",
        ),
        other => ToolFailure::Fatal(ToolFault::from(&other)),
    }
}

/// The chat lost messages the run had already taken as its input.
fn history_conflict(expected: usize, found: &str) -> ToolFailure {
    ToolFailure::Fatal(ToolFault {
        code: "agent.input_history_conflict",
        message: format!(
            "the run's input is the first {expected} chat messages, but the chat changed: {found}"
        ),
    })
}
