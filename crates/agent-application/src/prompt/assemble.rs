//! The built-in prompt assembler, used when the host has no prompt snapshot: the agent's
//! system prompt, the character card, the chat's latest messages and the task.

use std::sync::Arc;

use agent_domain::event::ChatRef;
use agent_domain::model::AgentModelMessage;
use agent_domain::profile::{PresetBinding, ResolvedAgentProfile};
use agent_domain::tool::BuiltinTool;
use serde_json::json;

use super::card::{Names, render_card};
use super::history::{recent_messages, to_model_message, wanted};
use super::openai::to_openai;
use super::system::{agent_system_prompt, run_note};
use super::{PromptError, PromptSnapshot};
use crate::ports::{CharacterCard, CharacterCards, ChatInfo, ChatStore};

/// The ports the assembler reads.
#[derive(Clone)]
pub struct PromptPorts {
    pub chats: Arc<dyn ChatStore>,
    pub characters: Arc<dyn CharacterCards>,
}

impl std::fmt::Debug for PromptPorts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PromptPorts { .. }")
    }
}

/// Builds the initial prompt of a run on `chat` whose frozen prefix is the first
/// `input_message_count` messages. In order:
///
/// 1. system: the profile's Agent system prompt and a note on this run's reply file and
///    publishing tools;
/// 2. system: the character card, for a character chat whose card exists;
/// 3. the latest messages of the prefix, per `context.initialChatHistoryMessages`;
/// 4. user: what to write.
///
/// Whether this is a fresh reply or a new version of one follows from the prefix: a
/// regenerate or swipe freezes a prefix shorter than the chat (its target message is set
/// aside), and then the task asks for a new version. A profile without a configured model
/// is refused (`agent.profile_model_requires_configuration`), as every prompt assembly is.
pub async fn assemble_prompt(
    ports: &PromptPorts,
    chat: &ChatInfo,
    input_message_count: usize,
    profile: &ResolvedAgentProfile,
) -> Result<PromptSnapshot, PromptError> {
    profile.ensure_model_configured()?;
    if let PresetBinding::Ref { preset, .. } = &profile.preset {
        return Err(PromptError::PresetUnsupported {
            api_id: preset.api_id.clone(),
            name: preset.name.clone(),
        });
    }
    let card = match &chat.chat {
        ChatRef::Character { character_id, .. } => ports
            .characters
            .load(character_id)
            .await
            .map_err(PromptError::Character)?,
        _ => None,
    };
    let character = character_name(chat, card.as_ref());
    let user = non_blank(chat.user_name.as_deref()).unwrap_or("User");
    let is_group = matches!(chat.chat, ChatRef::Group { .. });

    let mut messages = vec![AgentModelMessage::system(format!(
        "{}\n\n{}",
        agent_system_prompt(profile).trim_end(),
        run_note(profile)
    ))];
    let names = character.map(|character| Names { character, user });
    if let (Some(card), Some(names)) = (&card, names)
        && let Some(text) = render_card(card, names)
    {
        messages.push(AgentModelMessage::system(text));
    }
    let want = wanted(profile.context.initial_chat_history_messages);
    let history =
        recent_messages(ports.chats.as_ref(), &chat.chat, input_message_count, want).await?;
    messages.extend(history.iter().map(|m| to_model_message(m, is_group)));
    let shown_all = history.first().is_none_or(|first| first.index == 0);
    let task = Task {
        character,
        prefix: input_message_count,
        new_version: input_message_count < chat.message_count,
        older_hidden: !shown_all || (history.is_empty() && input_message_count > 0),
        can_read_chat: profile.is_tool_visible(&BuiltinTool::ChatReadMessages.id())
            || profile.is_tool_visible(&BuiltinTool::ChatSearch.id()),
    };
    messages.push(AgentModelMessage::user(task.instruction()));

    let raw = json!({
        "chatCompletionPayload": {"messages": to_openai(&messages), "stream": false},
        "assembledBy": {
            "assembler": "builtin",
            "profileId": profile.id.as_str(),
            "character": character,
            "inputMessageCount": input_message_count,
            "historyMessages": history.len(),
        },
    });
    Ok(PromptSnapshot {
        messages,
        world_info: None,
        raw,
    })
}

/// Who replies: the card's name, else the chat header's, else the character folder. A
/// group chat has no single character.
fn character_name<'a>(chat: &'a ChatInfo, card: Option<&'a CharacterCard>) -> Option<&'a str> {
    let ChatRef::Character { character_id, .. } = &chat.chat else {
        return None;
    };
    card.and_then(|card| non_blank(Some(&card.name)))
        .or_else(|| non_blank(chat.character_name.as_deref()))
        .or(Some(character_id.as_str()))
}

fn non_blank(text: Option<&str>) -> Option<&str> {
    text.map(str::trim).filter(|text| !text.is_empty())
}

/// The closing user message: what this generation asks for.
#[derive(Debug)]
struct Task<'a> {
    character: Option<&'a str>,
    prefix: usize,
    new_version: bool,
    older_hidden: bool,
    can_read_chat: bool,
}

impl Task<'_> {
    fn instruction(&self) -> String {
        let mut text = match (self.character, self.new_version, self.prefix) {
            (Some(who), false, 0) => format!("The chat is empty. Write {who}'s opening message."),
            (None, false, 0) => "The chat is empty. Write its opening message.".to_owned(),
            (Some(who), false, _) => format!("Write {who}'s next reply in the chat above."),
            (None, false, _) => "Write the next reply in the chat above.".to_owned(),
            (Some(who), true, _) => format!(
                "Write a new version of {who}'s latest reply to the chat above. The previous \
                 version has been set aside and is not shown; write a fresh take on the moment."
            ),
            (None, true, _) => "Write a new version of the latest reply to the chat above. The \
                 previous version has been set aside and is not shown; write a fresh take on \
                 the moment."
                .to_owned(),
        };
        if self.older_hidden && self.can_read_chat {
            text.push_str(
                " Earlier messages of the chat are not shown here; search or read the chat \
                 when you need them.",
            );
        }
        text.push_str(" Work as your instructions above describe.");
        text
    }
}
