//! The card JSON: SillyTavern's V1 (flat fields), V2 (`chara_card_v2`) and V3
//! (`chara_card_v3`, a superset of V2) formats, reduced to [`CharacterCard`].

use agent_application::ports::CharacterCard;
use serde_json::{Map, Value};

/// Reads a card document. V2 and V3 keep their fields under `data`; V1 keeps them at the
/// top level (SillyTavern also mirrors them there in V2 files, but `data` is the truth).
/// Absent or null fields are empty; a field of the wrong type makes the card unreadable.
pub(super) fn parse_card(bytes: &[u8]) -> Result<CharacterCard, String> {
    let value: Value =
        serde_json::from_slice(bytes).map_err(|err| format!("the card is not JSON: {err}"))?;
    let Value::Object(top) = value else {
        return Err("the card is not a JSON object".to_owned());
    };
    let spec = top.get("spec").and_then(Value::as_str).unwrap_or_default();
    let (fields, prefix) = match top.get("data") {
        Some(Value::Object(data)) if spec.starts_with("chara_card_v") => (data, "data."),
        _ if spec.starts_with("chara_card_v") => {
            return Err(format!("a `{spec}` card has no `data` object"));
        }
        _ => (&top, ""),
    };
    let text = |key: &str| text_field(fields, key, prefix);
    let creator_notes = match text("creator_notes")? {
        notes if notes.is_empty() => text_field(fields, "creatorcomment", prefix)?,
        notes => notes,
    };
    Ok(CharacterCard {
        name: text("name")?,
        description: text("description")?,
        personality: text("personality")?,
        scenario: text("scenario")?,
        first_message: text("first_mes")?,
        example_dialogue: text("mes_example")?,
        creator_notes: Some(creator_notes).filter(|notes| !notes.trim().is_empty()),
    })
}

fn text_field(fields: &Map<String, Value>, key: &str, prefix: &str) -> Result<String, String> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(text)) => Ok(text.clone()),
        Some(_) => Err(format!("`{prefix}{key}` of the card is not a string")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(value: Value) -> Result<CharacterCard, String> {
        parse_card(value.to_string().as_bytes())
    }

    #[test]
    fn v2_cards_read_their_data_object() {
        let card = parse(json!({
            "spec": "chara_card_v2", "spec_version": "2.0",
            "name": "Stale top-level name",
            "data": {"name": "Seraphina", "description": "A guardian.", "personality": null,
                     "first_mes": "Welcome.", "mes_example": "<START>", "creator_notes": "",
                     "tags": ["forest"], "extensions": {}}
        }))
        .unwrap();
        assert_eq!(card.name, "Seraphina");
        assert_eq!(card.personality, "");
        assert_eq!(card.first_message, "Welcome.");
        assert_eq!(card.example_dialogue, "<START>");
        assert_eq!(card.creator_notes, None);
    }

    #[test]
    fn v1_cards_are_flat() {
        let card =
            parse(json!({"name": "Bram", "scenario": "A tavern.", "creatorcomment": "v1 notes"}))
                .unwrap();
        assert_eq!(card.name, "Bram");
        assert_eq!(card.scenario, "A tavern.");
        assert_eq!(card.creator_notes.as_deref(), Some("v1 notes"));
    }

    #[test]
    fn malformed_cards_say_why() {
        assert!(parse_card(b"{").unwrap_err().contains("not JSON"));
        assert!(parse(json!([1])).unwrap_err().contains("not a JSON object"));
        assert!(
            parse(json!({"spec": "chara_card_v3"}))
                .unwrap_err()
                .contains("no `data`")
        );
        let err = parse(json!({"spec": "chara_card_v2", "data": {"name": 7}})).unwrap_err();
        assert!(err.contains("`data.name`"), "{err}");
    }
}
