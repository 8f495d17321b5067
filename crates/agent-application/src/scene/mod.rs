//! [`ChatScene`]: who is in a chat when a run starts: the user's persona (and so the user's
//! name), the character who replies (in a group chat, the member the run speaks as), the
//! group's members, and the chat's metadata and SillyTavern settings a prompt reads.
//!
//! Gathered from the chat, the character cards, the group file, the persona avatars and
//! SillyTavern's `settings.json`, with SillyTavern's rules
//! (`agent_domain::sillytavern`). The header's `user_name` / `character_name` are only used
//! when nothing better names the user or the character: SillyTavern 1.18 writes `"unused"`
//! there, and older versions wrote the names as they were at save time.

mod error;

use std::collections::HashSet;

use agent_domain::event::ChatRef;
use agent_domain::sillytavern::{
    GroupMember, MacroNames, Persona, PersonaTarget, SpokenBy, card_stem, choose_speaker,
    display_name, resolve_persona,
};
use serde_json::Value;

pub use error::SceneError;

use crate::ports::{
    CharacterCard, ChatInfo, ChatMessage, ChatRole, ChatStore, Clock, Group, ReplyAuthor,
    UserDataPorts,
};

/// How many earlier messages are looked at for the group member who spoke last.
const SPEAKER_LOOKBACK: usize = 64;

/// What a host may decide about the scene instead of the chat.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SceneRequest {
    /// The user's name, replacing the persona's (`run --user-name`).
    pub user_name: Option<String>,
    /// In a group chat, the member to speak as: card file, its stem or name (`run --as`).
    pub speak_as: Option<String>,
}

/// Who is in a chat.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatScene {
    pub user: Persona,
    /// The card of the character who replies; `None` when it has none (or, in a group
    /// chat without a group file, no member is known).
    pub character: Option<CharacterCard>,
    /// Who the run's message is from.
    pub author: ReplyAuthor,
    /// The group of a group chat.
    pub group: Option<GroupScene>,
    /// The chat's `chat_metadata` (an old group chat keeps it in its group file); `{}` when
    /// it has none.
    pub chat_metadata: Value,
    /// SillyTavern's `settings.json`, when there is one.
    pub settings: Option<Value>,
}

/// A group chat's group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupScene {
    pub id: String,
    pub name: String,
    pub members: Vec<GroupMember>,
}

impl ChatScene {
    /// What `{{user}}`, `{{char}}` and `{{group}}` stand for (without outlets).
    pub fn macro_names(&self) -> MacroNames {
        let group = match &self.group {
            Some(group) => group
                .members
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            None => self.author.name.clone(),
        };
        MacroNames {
            user: self.user.name.clone(),
            character: self.author.name.clone(),
            group,
            outlets: Default::default(),
        }
    }
}

/// Which messages of a chat a run stands on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SceneFrame {
    /// The run's frozen prefix: the chat's first `prefix` messages.
    pub prefix: usize,
    /// Whether the run adds a swipe to the message right after the prefix (a regenerate or
    /// a swipe): in a group chat, the member who wrote it speaks again.
    pub swipes_next: bool,
}

/// Gathers the scene of `chat` for a run standing on `frame`.
pub async fn gather(
    user_data: &UserDataPorts,
    chats: &dyn ChatStore,
    clock: &dyn Clock,
    chat: &ChatInfo,
    frame: SceneFrame,
    request: &SceneRequest,
) -> Result<ChatScene, SceneError> {
    let settings = user_data
        .settings
        .load()
        .await
        .map_err(SceneError::Settings)?;
    let (character, author, group, chat_metadata) = match &chat.chat {
        ChatRef::Character { character_id, .. } => {
            let card = load_card(user_data, character_id).await?;
            let name = card_name(card.as_ref())
                .or_else(|| chat.character_name.clone())
                .unwrap_or_else(|| character_id.clone());
            let author = ReplyAuthor {
                name,
                ..ReplyAuthor::default()
            };
            (card, author, None, chat.chat_metadata.clone())
        }
        ChatRef::Group { chat_id } => {
            let found = user_data
                .groups
                .find_by_chat(chat_id)
                .await
                .map_err(SceneError::Group)?;
            let recent = recent_messages(chats, &chat.chat, frame).await?;
            let metadata = match &found {
                Some(group) if !chat.has_header => group
                    .chat_metadata(chat_id)
                    .map_or_else(empty_object, |meta| Value::Object(meta.clone())),
                _ => chat.chat_metadata.clone(),
            };
            let (card, author, group) = match found {
                Some(group) => {
                    let cast = Cast {
                        group: &group,
                        recent: &recent,
                        swipes_newest: frame.swipes_next,
                    };
                    speaker(user_data, cast, request, clock.now_millis()).await?
                }
                None => (None, unknown_group_speaker(&recent, request), None),
            };
            (card, author, group, metadata)
        }
        _ => (
            None,
            ReplyAuthor::default(),
            None,
            chat.chat_metadata.clone(),
        ),
    };
    let avatars: HashSet<String> = user_data
        .persona_avatars
        .list()
        .await
        .map_err(SceneError::Personas)?
        .into_iter()
        .collect();
    let lock = chat_metadata.get("persona").and_then(Value::as_str);
    let card_avatar = character.as_ref().map(|card| card.avatar.clone());
    let target = match (&group, &card_avatar) {
        (Some(group), _) => Some(PersonaTarget::Group { id: &group.id }),
        (None, Some(avatar)) => Some(PersonaTarget::Character { avatar }),
        (None, None) => None,
    };
    let mut user = resolve_persona(
        settings.as_ref(),
        lock,
        &|avatar| avatars.contains(avatar),
        target,
    );
    if settings.is_none()
        && let Some(name) = &chat.user_name
    {
        user.name = name.clone();
    }
    if let Some(name) = request
        .user_name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        user.name = name.to_owned();
    }
    Ok(ChatScene {
        user,
        character,
        author,
        group,
        chat_metadata,
        settings,
    })
}

/// A group and what its chat shows of who spoke.
struct Cast<'a> {
    group: &'a Group,
    /// The chat's last messages, newest first.
    recent: &'a [ChatMessage],
    /// Whether the newest of `recent` is the message the run adds a swipe to.
    swipes_newest: bool,
}

/// The member a group run speaks as, with its card and the group's members.
async fn speaker(
    user_data: &UserDataPorts,
    cast: Cast<'_>,
    request: &SceneRequest,
    now_millis: u64,
) -> Result<(Option<CharacterCard>, ReplyAuthor, Option<GroupScene>), SceneError> {
    let group = cast.group;
    let mut members = Vec::new();
    let mut cards = Vec::new();
    for avatar in &group.members {
        let stem = card_stem(avatar);
        let card = load_card(user_data, stem).await?;
        let name = card_name(card.as_ref()).unwrap_or_else(|| stem.to_owned());
        members.push(GroupMember {
            avatar: avatar.clone(),
            name,
            disabled: group.disabled_members.contains(avatar),
        });
        cards.push(card);
    }
    let (swiped, earlier) = match cast.recent.split_first() {
        Some((newest, earlier)) if cast.swipes_newest => (Some(spoken_by(newest)), earlier),
        _ => (None, cast.recent),
    };
    let spoken = earlier
        .iter()
        .filter(|m| m.role != ChatRole::User)
        .map(spoken_by);
    let chosen = choose_speaker(&members, request.speak_as.as_deref(), swiped, spoken)?;
    let at = members
        .iter()
        .position(|member| member == chosen)
        .unwrap_or_default();
    let author = ReplyAuthor {
        name: chosen.name.clone(),
        avatar: Some(chosen.avatar.clone()),
        generation_id: Some(now_millis),
    };
    let scene = GroupScene {
        id: group.id.clone(),
        name: group.name.clone(),
        members,
    };
    Ok((cards.swap_remove(at), author, Some(scene)))
}

async fn load_card(
    user_data: &UserDataPorts,
    character_id: &str,
) -> Result<Option<CharacterCard>, SceneError> {
    user_data
        .characters
        .load(character_id)
        .await
        .map_err(SceneError::Card)
}

/// The name a card gives its character (as SillyTavern shows it), unless blank.
fn card_name(card: Option<&CharacterCard>) -> Option<String> {
    card.map(|card| display_name(&card.name))
        .filter(|name| !name.is_empty())
}

/// What a message says of who wrote it.
fn spoken_by(message: &ChatMessage) -> SpokenBy<'_> {
    SpokenBy {
        name: &message.name,
        original_avatar: message.original_avatar.as_deref(),
        force_avatar: message.force_avatar.as_deref(),
    }
}

/// The speaker of a group chat whose group file is gone: the member asked for, else the
/// last one who spoke (the writer of the message a swipe adds to is the newest), by name.
fn unknown_group_speaker(recent: &[ChatMessage], request: &SceneRequest) -> ReplyAuthor {
    let name = request
        .speak_as
        .clone()
        .or_else(|| {
            recent
                .iter()
                .find(|m| m.role == ChatRole::Assistant && !m.name.trim().is_empty())
                .map(|m| m.name.trim().to_owned())
        })
        .unwrap_or_else(|| "Assistant".to_owned());
    ReplyAuthor {
        name,
        ..ReplyAuthor::default()
    }
}

/// The last messages of the prefix, and the message a swipe adds to, newest first.
async fn recent_messages(
    chats: &dyn ChatStore,
    chat: &ChatRef,
    frame: SceneFrame,
) -> Result<Vec<ChatMessage>, SceneError> {
    let end = frame.prefix + usize::from(frame.swipes_next);
    let start = end.saturating_sub(SPEAKER_LOOKBACK);
    let mut messages = chats.read_messages(chat, start..end).await?;
    messages.reverse();
    Ok(messages)
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

#[cfg(test)]
mod tests;
