//! The Author's Note, as SillyTavern's Author's Note extension decides it for a turn.
//!
//! The chat's `note_*` metadata wins; a chat without a value takes the defaults of
//! `extension_settings.note` (`default`, `defaultInterval`, `defaultPosition`,
//! `defaultDepth`, `defaultRole`), then SillyTavern's built-in ones (interval 1, in the
//! chat at depth 4 as system). The note is inserted on a turn when the user's messages so far
//! reach its interval: an interval of 1 always inserts, 0 or less never does, and otherwise
//! `n` user messages insert it when `n % interval == 0` (with fewer messages than the
//! interval, never). In a one-to-one chat the character's note (`extension_settings.note
//! .chara`, when "use" is checked) replaces the chat's or goes before or after it. The
//! world-info entries placed "AN top" and "AN bottom" go around the note, and only on turns
//! that insert it.

use agent_domain::sillytavern::card_stem;
use agent_domain::worldinfo::PromptRole;
use serde_json::Value;

use super::injections::{DEFAULT_DEPTH, Injection};
use super::lore::RunLore;
use crate::scene::ChatScene;

/// The Author's Note's key among extension prompts.
pub(super) const AUTHORS_NOTE_KEY: &str = "2_floating_prompt";
/// `note_position` of a note inside the chat (0 and 2 go with the prompts before it).
const IN_CHAT: i64 = 1;

/// The Author's Note of a turn that inserts it, before world info adds its entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NoteTurn {
    /// The note's text (the chat's, the character's, or both).
    pub text: String,
    position: i64,
    depth: usize,
    role: PromptRole,
    /// `extension_settings.note.allowWIScan`: world info scans the note (and the character's
    /// depth prompt).
    pub scanned: bool,
}

/// Where the Author's Note goes this turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum AuthorsNote {
    /// Not inserted this turn.
    None,
    /// In the chat, as an [`Injection`].
    InChat(Injection),
    /// With the other prompts before the chat (`note_position` 0 or 2).
    InPrompt(String),
}

/// Whether world info scans the Author's Note and the character's depth prompt
/// (`extension_settings.note.allowWIScan`).
pub(super) fn scanned_by_world_info(scene: &ChatScene) -> bool {
    note_settings(scene)
        .and_then(|note| note.get("allowWIScan"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// The note's insertion interval; only one above 1 needs the user's messages counted.
pub(super) fn interval(scene: &ChatScene) -> i64 {
    setting(scene, "note_interval", "defaultInterval")
        .map_or(Some(1), integer)
        .unwrap_or(1)
}

/// The note of a turn whose prefix holds `user_messages` user messages (hidden ones
/// included, as SillyTavern counts them); `None` when this turn does not insert it.
pub(super) fn this_turn(scene: &ChatScene, user_messages: usize) -> Option<NoteTurn> {
    let interval = interval(scene);
    let count = if interval == 1 {
        1
    } else {
        i64::try_from(user_messages).unwrap_or(i64::MAX)
    };
    if count <= 0 || interval <= 0 {
        return None;
    }
    let till = if count >= interval {
        count % interval
    } else {
        interval - count
    };
    if till != 0 {
        return None;
    }
    let setting = |key, default_key| setting(scene, key, default_key);
    let chat_note = setting("note_prompt", "default")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let position = setting("note_position", "defaultPosition")
        .and_then(integer)
        .unwrap_or(IN_CHAT);
    let depth = setting("note_depth", "defaultDepth")
        .and_then(integer)
        .and_then(|d| usize::try_from(d).ok())
        .unwrap_or(DEFAULT_DEPTH);
    let role = PromptRole::from_number(setting("note_role", "defaultRole").and_then(integer));
    Some(NoteTurn {
        text: with_character_note(scene, chat_note),
        position,
        depth,
        role,
        scanned: scanned_by_world_info(scene),
    })
}

impl NoteTurn {
    /// The note with world info's "AN top/bottom" entries around it, where it goes; nothing
    /// when that leaves it blank.
    pub(super) fn placed(self, lore: Option<&RunLore>) -> AuthorsNote {
        let text = match lore {
            Some(lore) => lore.activation.placement.authors_note_with(&self.text),
            None => self.text,
        };
        if text.trim().is_empty() {
            return AuthorsNote::None;
        }
        if self.position == IN_CHAT {
            AuthorsNote::InChat(Injection {
                depth: self.depth,
                role: self.role,
                key: AUTHORS_NOTE_KEY.to_owned(),
                text,
            })
        } else {
            AuthorsNote::InPrompt(text)
        }
    }
}

/// A note setting: the chat's `key`, else `extension_settings.note[default_key]`.
fn setting<'a>(scene: &'a ChatScene, key: &str, default_key: &str) -> Option<&'a Value> {
    scene
        .chat_metadata
        .get(key)
        .filter(|v| !v.is_null())
        .or_else(|| note_settings(scene).and_then(|d| d.get(default_key)))
        .filter(|v| !v.is_null())
}

/// `extension_settings.note` of SillyTavern's settings.
fn note_settings(scene: &ChatScene) -> Option<&Value> {
    scene
        .settings
        .as_ref()?
        .get("extension_settings")?
        .get("note")
        .filter(|note| note.is_object())
}

/// The chat's note combined with the character's (one-to-one chats only): `useChara` notes
/// replace it (position 0), or go before (1) or after (2) it on their own line.
fn with_character_note(scene: &ChatScene, chat_note: &str) -> String {
    let character = match (&scene.group, &scene.character) {
        (None, Some(card)) => card,
        _ => return chat_note.to_owned(),
    };
    let stem = card_stem(&character.avatar);
    let note = note_settings(scene)
        .and_then(|d| d.get("chara"))
        .and_then(Value::as_array)
        .and_then(|notes| {
            notes
                .iter()
                .find(|n| n.get("name").and_then(Value::as_str) == Some(stem))
        })
        .filter(|n| n.get("useChara").and_then(Value::as_bool) == Some(true));
    let Some(note) = note else {
        return chat_note.to_owned();
    };
    let own = note
        .get("prompt")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match note.get("position").and_then(integer) {
        Some(1) => format!("{own}\n{chat_note}"),
        Some(2) => format!("{chat_note}\n{own}"),
        _ => own.to_owned(),
    }
}

/// A setting that SillyTavern keeps as a number (older files: a numeric string).
fn integer(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f.trunc() as i64)),
        Value::String(s) => s.trim().parse::<f64>().ok().map(|f| f.trunc() as i64),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ports::{CharacterCard, ReplyAuthor};
    use agent_domain::sillytavern::Persona;

    fn scene(metadata: Value, settings: Option<Value>) -> ChatScene {
        ChatScene {
            user: Persona::default(),
            character: Some(CharacterCard {
                avatar: "Seraphina.png".into(),
                ..CharacterCard::default()
            }),
            author: ReplyAuthor::default(),
            group: None,
            chat_metadata: metadata,
            settings,
        }
    }

    fn inserted(scene: &ChatScene, users: usize) -> bool {
        this_turn(scene, users).is_some()
    }

    #[test]
    fn the_interval_counts_the_users_messages_as_sillytavern_does() {
        let every =
            |interval: Value| scene(json!({"note_prompt": "n", "note_interval": interval}), None);
        // Interval 1 (and no interval): every turn, even before the user spoke.
        for chat in [every(json!(1)), scene(json!({"note_prompt": "n"}), None)] {
            assert!((0..5).all(|users| inserted(&chat, users)));
        }
        // 0 or less: never.
        for interval in [json!(0), json!(-3)] {
            assert!(!(0..5).any(|users| inserted(&every(interval.clone()), users)));
        }
        // 3: on the 3rd, 6th, … user message; never before the 3rd.
        let third = every(json!(3));
        let turns: Vec<usize> = (0..8).filter(|&u| inserted(&third, u)).collect();
        assert_eq!(turns, [3, 6]);
        // A numeric string, as older settings keep it.
        let turns: Vec<usize> = (0..5)
            .filter(|&u| inserted(&every(json!("2")), u))
            .collect();
        assert_eq!(turns, [2, 4]);
    }

    #[test]
    fn settings_supply_what_the_chat_does_not_say() {
        let settings = json!({"extension_settings": {"note": {
            "default": "Stay in character.", "defaultInterval": 2, "defaultPosition": 0,
            "defaultDepth": 2, "defaultRole": 1, "allowWIScan": true,
        }}});
        let chat = scene(json!({}), Some(settings.clone()));
        assert!(this_turn(&chat, 1).is_none());
        let turn = this_turn(&chat, 2).unwrap();
        assert_eq!(turn.text, "Stay in character.");
        assert!(turn.scanned);
        assert_eq!(
            turn.placed(None),
            AuthorsNote::InPrompt("Stay in character.".into())
        );
        // The chat's own values win.
        let own = scene(
            json!({"note_prompt": "Rain.", "note_interval": 1, "note_position": 1, "note_depth": 0}),
            Some(settings),
        );
        let AuthorsNote::InChat(injection) = this_turn(&own, 1).unwrap().placed(None) else {
            panic!("expected the note in the chat");
        };
        assert_eq!(
            (injection.text.as_str(), injection.depth, injection.role),
            ("Rain.", 0, PromptRole::User)
        );
    }

    #[test]
    fn a_characters_note_replaces_or_joins_the_chats() {
        let with = |position: i64, use_chara: bool| {
            let settings = json!({"extension_settings": {"note": {"chara": [
                {"name": "Other", "prompt": "not this", "useChara": true, "position": 0},
                {"name": "Seraphina", "prompt": "Forest magic.", "useChara": use_chara, "position": position},
            ]}}});
            let chat = scene(json!({"note_prompt": "Rain."}), Some(settings));
            this_turn(&chat, 1).unwrap().text
        };
        assert_eq!(with(0, true), "Forest magic.");
        assert_eq!(with(1, true), "Forest magic.\nRain.");
        assert_eq!(with(2, true), "Rain.\nForest magic.");
        assert_eq!(with(1, false), "Rain.");
    }

    #[test]
    fn a_blank_note_is_not_placed() {
        let chat = scene(json!({"note_prompt": "  "}), None);
        assert_eq!(this_turn(&chat, 1).unwrap().placed(None), AuthorsNote::None);
    }
}
