//! The persona a chat's user speaks as, and so the user's name (`{{user}}`).
//!
//! SillyTavern picks the persona when a chat opens, in this order: the chat's lock
//! (`chat_metadata.persona`, an avatar file) when that avatar still exists; else the first
//! persona connected to the chat's character or group (`persona_descriptions[avatar]
//! .connections`); else the default persona; else
//! the persona selected last (`user_avatar`). The user's name is that persona's name
//! (`power_user.personas[avatar]`), else the name saved last (`username`), else `User`.
//!
//! When several personas are connected to one chat, SillyTavern takes the first in the
//! settings file's order, or asks the user when multiple connections are allowed. The
//! settings arrive here as a `serde_json` map, which sorts its keys, so "first" is the first
//! avatar file name in byte order; a host that must be sure locks the persona to the chat or
//! names the user itself.

use serde_json::Value;

/// The name SillyTavern uses when nothing names the user.
const DEFAULT_USER_NAME: &str = "User";

/// Who the chat is with, as persona connections name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PersonaTarget<'a> {
    /// A one-to-one chat with the card whose file is `avatar` (`Seraphina.png`).
    Character { avatar: &'a str },
    /// A group chat of the group `id`.
    Group { id: &'a str },
}

/// The persona a chat's user speaks as.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Persona {
    /// The persona's avatar file (`user-default.png`); `None` when the settings name none.
    pub avatar: Option<String>,
    /// The user's name.
    pub name: String,
    /// The persona description, for the prompt and for world-info entries that scan it.
    pub description: String,
    /// The persona's lorebook, a world name.
    pub lorebook: Option<String>,
}

/// Resolves the persona of a chat.
///
/// `settings` is SillyTavern's `settings.json` (`None` when there is none), `chat_lock` the
/// chat's `chat_metadata.persona`, `avatar_exists` whether a persona avatar file is still
/// there. Without settings the persona has no avatar and is named `User`.
pub fn resolve_persona(
    settings: Option<&Value>,
    chat_lock: Option<&str>,
    avatar_exists: &dyn Fn(&str) -> bool,
    target: Option<PersonaTarget<'_>>,
) -> Persona {
    let Some(settings) = settings else {
        return Persona {
            name: DEFAULT_USER_NAME.to_owned(),
            ..Persona::default()
        };
    };
    let power = settings.get("power_user");
    let descriptions = power.and_then(|p| p.get("persona_descriptions"));
    let avatar = chat_lock
        .filter(|avatar| !avatar.is_empty() && avatar_exists(avatar))
        .map(str::to_owned)
        .or_else(|| connected(descriptions, target))
        .or_else(|| text(power.and_then(|p| p.get("default_persona"))))
        .or_else(|| text(settings.get("user_avatar")));
    let name = avatar
        .as_deref()
        .and_then(|avatar| text(power?.get("personas")?.get(avatar)))
        .or_else(|| text(settings.get("username")))
        .unwrap_or_else(|| DEFAULT_USER_NAME.to_owned());
    let described = avatar
        .as_deref()
        .and_then(|avatar| descriptions?.get(avatar));
    let description = described
        .and_then(|d| d.get("description"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let lorebook = text(described.and_then(|d| d.get("lorebook")));
    Persona {
        avatar,
        name,
        description,
        lorebook,
    }
}

/// The first persona connected to `target` (see the module docs for which is first).
fn connected(descriptions: Option<&Value>, target: Option<PersonaTarget<'_>>) -> Option<String> {
    let (kind, id) = match target? {
        PersonaTarget::Character { avatar } => ("character", avatar),
        PersonaTarget::Group { id } => ("group", id),
    };
    let descriptions = descriptions?.as_object()?;
    descriptions.iter().find_map(|(avatar, described)| {
        let connections = described.get("connections")?.as_array()?;
        connections
            .iter()
            .any(|c| {
                c.get("type").and_then(Value::as_str) == Some(kind)
                    && c.get("id").and_then(Value::as_str) == Some(id)
            })
            .then(|| avatar.clone())
    })
}

/// A non-blank string value, trimmed.
fn text(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn settings() -> Value {
        json!({
            "username": "Ann",
            "user_avatar": "user-default.png",
            "power_user": {
                "personas": {"user-default.png": "Ann", "knight.png": "Sir Aldric", "bard.png": ""},
                "persona_descriptions": {
                    "user-default.png": {"description": "A traveller.", "position": 0},
                    "knight.png": {"description": "A knight of {{char}}'s order.",
                                   "lorebook": "Knights",
                                   "connections": [{"type": "character", "id": "Seraphina.png"}]},
                    "bard.png": {"description": "", "connections": [{"type": "group", "id": "1716"}]},
                },
                "default_persona": null,
            },
        })
    }

    fn all_exist(_: &str) -> bool {
        true
    }

    #[test]
    fn the_chat_lock_wins_when_its_avatar_exists() {
        let s = settings();
        let locked = resolve_persona(Some(&s), Some("knight.png"), &all_exist, None);
        assert_eq!(locked.name, "Sir Aldric");
        assert_eq!(locked.lorebook.as_deref(), Some("Knights"));
        let gone = resolve_persona(Some(&s), Some("knight.png"), &|a| a != "knight.png", None);
        assert_eq!(gone.avatar.as_deref(), Some("user-default.png"));
        assert_eq!(gone.name, "Ann");
    }

    #[test]
    fn connections_then_the_default_then_the_last_selected() {
        let s = settings();
        let seraphina = PersonaTarget::Character {
            avatar: "Seraphina.png",
        };
        let connected = resolve_persona(Some(&s), None, &all_exist, Some(seraphina));
        assert_eq!(connected.avatar.as_deref(), Some("knight.png"));
        assert_eq!(connected.description, "A knight of {{char}}'s order.");
        // A connected persona with an empty name keeps the name saved last.
        let group = resolve_persona(
            Some(&s),
            None,
            &all_exist,
            Some(PersonaTarget::Group { id: "1716" }),
        );
        assert_eq!(
            (group.avatar.as_deref(), group.name.as_str()),
            (Some("bard.png"), "Ann")
        );
        let mut with_default = settings();
        with_default["power_user"]["default_persona"] = json!("knight.png");
        let other = PersonaTarget::Character { avatar: "Bram.png" };
        let default = resolve_persona(Some(&with_default), None, &all_exist, Some(other));
        assert_eq!(default.name, "Sir Aldric");
        let plain = resolve_persona(Some(&s), None, &all_exist, Some(other));
        assert_eq!(
            (plain.name.as_str(), plain.description.as_str()),
            ("Ann", "A traveller.")
        );
    }

    #[test]
    fn without_settings_or_names_the_user_is_user() {
        assert_eq!(
            resolve_persona(None, Some("x.png"), &all_exist, None).name,
            "User"
        );
        let bare = json!({"user_avatar": "a.png"});
        let persona = resolve_persona(Some(&bare), None, &all_exist, None);
        assert_eq!(
            (persona.avatar.as_deref(), persona.name.as_str()),
            (Some("a.png"), "User")
        );
    }
}
