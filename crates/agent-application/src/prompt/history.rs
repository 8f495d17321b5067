//! The chat history an assembled prompt starts with: the newest messages of the run's
//! frozen prefix, within the profile's `context.initialChatHistoryMessages`.

use agent_domain::event::ChatRef;
use agent_domain::model::AgentModelMessage;

use crate::ports::{ChatError, ChatMessage, ChatRole, ChatStore};

/// How many messages `-1` ("no explicit limit") brings in. Long chats would otherwise fill
/// the context window before the agent starts; the chat tools reach everything older.
pub const MAX_ASSEMBLED_HISTORY: usize = 200;

/// Messages read per page while walking back from the end of the prefix.
const PAGE: usize = 64;

/// How many chat messages the policy asks for: `0` none, `n` the latest `n`, any negative
/// value the latest [`MAX_ASSEMBLED_HISTORY`].
pub(super) fn wanted(policy: i64) -> usize {
    match usize::try_from(policy) {
        Ok(n) => n,
        Err(_) => MAX_ASSEMBLED_HISTORY,
    }
}

/// The latest `want` messages of the first `prefix` that a prompt can carry, oldest first.
///
/// Hidden messages (`is_system`, which SillyTavern keeps out of prompts) and blank ones are
/// skipped without counting, so the window holds `want` real turns when the chat has them.
pub(super) async fn recent_messages(
    chats: &dyn ChatStore,
    chat: &ChatRef,
    prefix: usize,
    want: usize,
) -> Result<Vec<ChatMessage>, ChatError> {
    let mut newest_first = Vec::new();
    let mut end = prefix;
    while newest_first.len() < want && end > 0 {
        let start = end.saturating_sub(PAGE.max(want - newest_first.len()));
        let page = chats.read_messages(chat, start..end).await?;
        for message in page.into_iter().rev() {
            if newest_first.len() == want {
                break;
            }
            if message.role != ChatRole::System && !message.text.trim().is_empty() {
                newest_first.push(message);
            }
        }
        end = start;
    }
    newest_first.reverse();
    Ok(newest_first)
}

/// A chat message as a model turn. Group chats have many speakers, so each message names
/// its speaker; a one-to-one chat needs no names.
pub(super) fn to_model_message(message: &ChatMessage, name_speakers: bool) -> AgentModelMessage {
    let text = if name_speakers && !message.name.trim().is_empty() {
        format!("{}: {}", message.name.trim(), message.text)
    } else {
        message.text.clone()
    };
    match message.role {
        ChatRole::User => AgentModelMessage::user(text),
        _ => AgentModelMessage::assistant(text),
    }
}
