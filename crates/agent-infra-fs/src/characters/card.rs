//! The card JSON: SillyTavern's V1 (flat fields), V2 (`chara_card_v2`) and V3
//! (`chara_card_v3`, a superset of V2) formats, reduced to [`CharacterCard`].
//!
//! Every field is typed strictly: absent and `null` are tolerated (empty, `None`), a value of
//! another JSON type makes the card unreadable with the field named (`data.tags[2]`), since a
//! card that says something we cannot read would otherwise be silently misread.

use agent_application::ports::{CharacterCard, ChatRole, DepthPrompt};
use serde_json::{Map, Value};

/// SillyTavern's depth of a character's note when the card names none.
const DEFAULT_DEPTH: u32 = 4;

/// Reads a card document; `avatar` is the name of the file it came from. V2 and V3 keep
/// their fields under `data`; V1 keeps them at the top level (SillyTavern also mirrors them
/// there in V2 files, but `data` is the truth).
pub(super) fn parse_card(bytes: &[u8], avatar: &str) -> Result<CharacterCard, String> {
    let value: Value =
        serde_json::from_slice(bytes).map_err(|err| format!("the card is not JSON: {err}"))?;
    let Value::Object(top) = value else {
        return Err("the card is not a JSON object".to_owned());
    };
    let spec = top.get("spec").and_then(Value::as_str).unwrap_or_default();
    let fields = match top.get("data") {
        Some(Value::Object(data)) if spec.starts_with("chara_card_v") => Fields {
            map: data,
            prefix: "data.".to_owned(),
        },
        _ if spec.starts_with("chara_card_v") => {
            return Err(format!("a `{spec}` card has no `data` object"));
        }
        _ => Fields {
            map: &top,
            prefix: String::new(),
        },
    };
    let creator_notes = match fields.text("creator_notes")? {
        notes if notes.is_empty() => fields.text("creatorcomment")?,
        notes => notes,
    };
    let extensions = fields.object("extensions")?;
    let world = match &extensions {
        Some(extensions) => extensions.text("world")?,
        None => String::new(),
    };
    let depth_prompt = match &extensions {
        Some(extensions) => extensions
            .object("depth_prompt")?
            .map(|prompt| depth_prompt(&prompt))
            .transpose()?,
        None => None,
    };
    let character_book = match fields.map.get("character_book") {
        None | Some(Value::Null) => None,
        Some(book @ Value::Object(_)) => Some(book.clone()),
        Some(_) => return Err(fields.wrong_type("character_book", "an object")),
    };
    Ok(CharacterCard {
        avatar: avatar.to_owned(),
        name: fields.text("name")?,
        description: fields.text("description")?,
        personality: fields.text("personality")?,
        scenario: fields.text("scenario")?,
        first_message: fields.text("first_mes")?,
        alternate_greetings: fields.texts("alternate_greetings")?,
        example_dialogue: fields.text("mes_example")?,
        creator_notes: Some(creator_notes).filter(|notes| !notes.trim().is_empty()),
        system_prompt: fields.text("system_prompt")?,
        post_history_instructions: fields.text("post_history_instructions")?,
        tags: fields.texts("tags")?,
        world: Some(world).filter(|world| !world.is_empty()),
        depth_prompt,
        character_book,
    })
}

fn depth_prompt(fields: &Fields<'_>) -> Result<DepthPrompt, String> {
    let depth = match fields.map.get("depth") {
        None | Some(Value::Null) => DEFAULT_DEPTH,
        Some(Value::Number(n)) => whole_number(n).ok_or_else(|| {
            format!(
                "`{}depth` of the card is not a whole number from 0 up",
                fields.prefix
            )
        })?,
        Some(_) => return Err(fields.wrong_type("depth", "a number")),
    };
    let role = match fields.map.get("role") {
        None | Some(Value::Null) => ChatRole::System,
        Some(Value::String(role)) => match role.as_str() {
            "user" => ChatRole::User,
            "assistant" => ChatRole::Assistant,
            _ => ChatRole::System,
        },
        Some(Value::Number(n)) => match n.as_u64() {
            Some(1) => ChatRole::User,
            Some(2) => ChatRole::Assistant,
            _ => ChatRole::System,
        },
        Some(_) => return Err(fields.wrong_type("role", "a string")),
    };
    Ok(DepthPrompt {
        prompt: fields.text("prompt")?,
        depth,
        role,
    })
}

/// `n` as a `u32` when it is a whole number in range (`4` and `4.0` alike).
fn whole_number(n: &serde_json::Number) -> Option<u32> {
    if let Some(n) = n.as_u64() {
        return u32::try_from(n).ok();
    }
    let float = n.as_f64()?;
    let whole = float.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&float);
    // In range and whole, so the conversion is exact.
    whole.then_some(float as u32)
}

/// One JSON object of the card, with the path it sits at for error messages.
struct Fields<'a> {
    map: &'a Map<String, Value>,
    /// `""`, `"data."`, `"data.extensions."`, …
    prefix: String,
}

impl<'a> Fields<'a> {
    fn text(&self, key: &str) -> Result<String, String> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(text)) => Ok(text.clone()),
            Some(_) => Err(self.wrong_type(key, "a string")),
        }
    }

    fn texts(&self, key: &str) -> Result<Vec<String>, String> {
        let items = match self.map.get(key) {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(items)) => items,
            Some(_) => return Err(self.wrong_type(key, "a list of strings")),
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(text) => Ok(text.clone()),
                _ => Err(format!(
                    "`{}{key}[{i}]` of the card is not a string",
                    self.prefix
                )),
            })
            .collect()
    }

    fn object(&self, key: &str) -> Result<Option<Fields<'a>>, String> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(map)) => Ok(Some(Fields {
                map,
                prefix: format!("{}{key}.", self.prefix),
            })),
            Some(_) => Err(self.wrong_type(key, "an object")),
        }
    }

    fn wrong_type(&self, key: &str, expected: &str) -> String {
        format!("`{}{key}` of the card is not {expected}", self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(value: Value) -> Result<CharacterCard, String> {
        parse_card(value.to_string().as_bytes(), "Card.png")
    }

    #[test]
    fn v2_cards_read_their_data_object() {
        let card = parse(json!({
            "spec": "chara_card_v2", "spec_version": "2.0",
            "name": "Stale top-level name",
            "data": {"name": "Seraphina", "description": "A guardian.", "personality": null,
                     "first_mes": "Welcome.", "mes_example": "<START>", "creator_notes": "",
                     "alternate_greetings": ["Hello.", "Hi."], "system_prompt": "Be kind.",
                     "post_history_instructions": null,
                     "tags": ["forest"], "extensions": {"world": "", "talkativeness": "0.5"}}
        }))
        .unwrap();
        assert_eq!(card.avatar, "Card.png");
        assert_eq!(card.character_id(), "Card");
        assert_eq!(card.name, "Seraphina");
        assert_eq!(card.personality, "");
        assert_eq!(card.first_message, "Welcome.");
        assert_eq!(card.alternate_greetings, ["Hello.", "Hi."]);
        assert_eq!(card.example_dialogue, "<START>");
        assert_eq!(card.creator_notes, None);
        assert_eq!(card.system_prompt, "Be kind.");
        assert_eq!(card.post_history_instructions, "");
        assert_eq!(card.tags, ["forest"]);
        assert_eq!(card.world, None);
        assert_eq!(card.depth_prompt, None);
        assert!(!card.has_character_book());
    }

    #[test]
    fn extensions_carry_the_world_and_the_depth_prompt() {
        let card = parse(json!({
            "spec": "chara_card_v3",
            "data": {"name": "Seraphina",
                     "character_book": {"name": "Glade", "entries": []},
                     "extensions": {"world": "Eldoria",
                                    "depth_prompt": {"prompt": "Stay gentle.", "depth": 2.0,
                                                     "role": "assistant"}}}
        }))
        .unwrap();
        assert_eq!(card.world.as_deref(), Some("Eldoria"));
        assert_eq!(
            card.depth_prompt,
            Some(DepthPrompt {
                prompt: "Stay gentle.".into(),
                depth: 2,
                role: ChatRole::Assistant,
            })
        );
        assert_eq!(
            card.character_book,
            Some(json!({"name": "Glade", "entries": []}))
        );
    }

    #[test]
    fn depth_prompt_defaults_follow_sillytavern() {
        let prompt = |value: Value| {
            parse(json!({"spec": "chara_card_v2",
                         "data": {"extensions": {"depth_prompt": value}}}))
            .map(|card| card.depth_prompt)
        };
        let defaults = DepthPrompt {
            prompt: String::new(),
            depth: 4,
            role: ChatRole::System,
        };
        assert_eq!(prompt(json!({})), Ok(Some(defaults.clone())));
        assert_eq!(
            prompt(json!({"role": "narrator"})),
            Ok(Some(defaults.clone()))
        );
        assert_eq!(prompt(json!({"role": 7})), Ok(Some(defaults)));
        assert_eq!(
            prompt(json!({"role": 1})).unwrap().unwrap().role,
            ChatRole::User
        );
        assert_eq!(prompt(Value::Null), Ok(None));
        let err = prompt(json!({"depth": -1})).unwrap_err();
        assert!(
            err.contains("`data.extensions.depth_prompt.depth`"),
            "{err}"
        );
        let err = prompt(json!({"depth": 1.5})).unwrap_err();
        assert!(err.contains("whole number"), "{err}");
        let err = prompt(json!({"role": true})).unwrap_err();
        assert!(err.contains("`data.extensions.depth_prompt.role`"), "{err}");
        let err = prompt(json!("deep")).unwrap_err();
        assert!(err.contains("`data.extensions.depth_prompt` of the card is not an object"));
    }

    #[test]
    fn v1_cards_are_flat() {
        let card = parse(
            json!({"name": "Bram", "scenario": "A tavern.", "creatorcomment": "v1 notes",
                         "tags": ["inn"]}),
        )
        .unwrap();
        assert_eq!(card.name, "Bram");
        assert_eq!(card.scenario, "A tavern.");
        assert_eq!(card.creator_notes.as_deref(), Some("v1 notes"));
        assert_eq!(card.tags, ["inn"]);
    }

    #[test]
    fn malformed_cards_say_why() {
        assert!(parse_card(b"{", "x.json").unwrap_err().contains("not JSON"));
        assert!(parse(json!([1])).unwrap_err().contains("not a JSON object"));
        assert!(
            parse(json!({"spec": "chara_card_v3"}))
                .unwrap_err()
                .contains("no `data`")
        );
        for (data, field) in [
            (json!({"name": 7}), "`data.name`"),
            (json!({"tags": ["a", 2]}), "`data.tags[1]`"),
            (
                json!({"alternate_greetings": "hi"}),
                "`data.alternate_greetings`",
            ),
            (json!({"extensions": []}), "`data.extensions`"),
            (
                json!({"extensions": {"world": 3}}),
                "`data.extensions.world`",
            ),
            (json!({"character_book": "book"}), "`data.character_book`"),
        ] {
            let err = parse(json!({"spec": "chara_card_v2", "data": data})).unwrap_err();
            assert!(err.contains(field), "{err}");
        }
    }
}
