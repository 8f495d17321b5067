//! The chat history an assembled prompt carries: the visible messages of the run's frozen
//! prefix, the newest `context.initialChatHistoryMessages` of them (`-1`: all).

use agent_domain::event::ChatRef;
use agent_domain::model::AgentModelMessage;

use crate::ports::{ChatError, ChatMessage, ChatRole, ChatStore};

/// Fewest and most messages read per page while walking back from the end of the prefix.
const PAGE: (usize, usize) = (16, 1024);

/// How many chat messages the policy asks for: `0` none, `n` the latest `n`, any negative
/// value (`-1`) every one ("no explicit trimming").
pub(super) fn wanted(policy: i64) -> Option<usize> {
    usize::try_from(policy).ok()
}

/// Whether a message can reach a prompt: SillyTavern leaves hidden messages (`is_system`)
/// out of prompts and the world-info scan; a blank one says nothing.
fn visible(message: &ChatMessage) -> bool {
    !message.is_system && message.role != ChatRole::System && !message.text.trim().is_empty()
}

/// The latest `want` visible messages of the first `prefix` (all of them for `None`),
/// oldest first.
pub(super) async fn visible_messages(
    chats: &dyn ChatStore,
    chat: &ChatRef,
    prefix: usize,
    want: Option<usize>,
) -> Result<Vec<ChatMessage>, ChatError> {
    let mut newest_first = Vec::new();
    let mut end = prefix;
    let wanted = want.unwrap_or(usize::MAX);
    while newest_first.len() < wanted && end > 0 {
        let span = wanted
            .saturating_sub(newest_first.len())
            .clamp(PAGE.0, PAGE.1);
        let start = end.saturating_sub(span);
        let page = chats.read_messages(chat, start..end).await?;
        for message in page.into_iter().rev() {
            if newest_first.len() == wanted {
                break;
            }
            if visible(&message) {
                newest_first.push(message);
            }
        }
        end = start;
    }
    newest_first.reverse();
    Ok(newest_first)
}

/// How many of the first `prefix` messages the user wrote, hidden ones included (what the
/// Author's Note interval counts).
pub(super) async fn user_messages(
    chats: &dyn ChatStore,
    chat: &ChatRef,
    prefix: usize,
) -> Result<usize, ChatError> {
    let mut count = 0;
    let mut start = 0;
    while start < prefix {
        let end = prefix.min(start + PAGE.1);
        let page = chats.read_messages(chat, start..end).await?;
        count += page.iter().filter(|m| m.role == ChatRole::User).count();
        start = end;
    }
    Ok(count)
}

/// The newest `want` of `messages` (all for `None`).
pub(super) fn newest(messages: &[ChatMessage], want: Option<usize>) -> &[ChatMessage] {
    let keep = want.map_or(messages.len(), |n| n.min(messages.len()));
    &messages[messages.len() - keep..]
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
