//! The world-info activation a run captured (`worldInfoActivation` of its prompt snapshot),
//! read tolerantly.
//!
//! Accepted shape; unknown keys are ignored and `null` counts as absent:
//!
//! ```json
//! {"timestampMs": 1767225600000, "trigger": "normal",
//!  "entries": [{"world": "Eldoria", "uid": 12, "displayName": "The capital",
//!               "comment": "capital", "content": "…", "position": "before",
//!               "constant": false}]}
//! ```
//!
//! `uid` may be a number or a string; `position` a name or SillyTavern's number (0-7, shown
//! by its name); the name is `displayName`, else `comment`, else the uid. A missing
//! `entries` or `content` counts as empty. Anything else of the wrong type makes the whole
//! activation malformed.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// SillyTavern's `world_info_position` names, by number.
const POSITION_NAMES: [&str; 8] = [
    "before", "after", "ANTop", "ANBottom", "atDepth", "EMTop", "EMBottom", "outlet",
];

/// A number or a string, kept as given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub(super) enum Scalar {
    Number(serde_json::Number),
    Text(String),
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::Text(s) => f.write_str(s),
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawActivation {
    timestamp_ms: Option<Value>,
    trigger: Option<Value>,
    entries: Option<Vec<RawEntry>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawEntry {
    world: Option<String>,
    uid: Option<Scalar>,
    display_name: Option<String>,
    comment: Option<String>,
    content: Option<String>,
    position: Option<Scalar>,
    constant: Option<bool>,
}

/// The activated entries of one generation.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Activation {
    /// Echoed into audits as captured.
    pub timestamp_ms: Value,
    pub trigger: Value,
    pub entries: Vec<ActivatedEntry>,
}

/// One activated entry.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ActivatedEntry {
    /// `worldinfo:<world>#<uid>`, or `worldinfo:activated#<position in the list>` (0-based)
    /// when the world or uid is empty or the pair was already taken.
    pub reference: String,
    pub name: String,
    pub world: String,
    pub uid: Option<Scalar>,
    pub position: Option<String>,
    pub constant: bool,
    pub content: String,
}

impl Activation {
    /// The activation in a run's snapshot value: `Ok(None)` when none was captured
    /// (absent or `null`), `Err` with the reason when it is malformed.
    pub fn from_snapshot(value: Option<&Value>) -> Result<Option<Self>, String> {
        let Some(value) = value.filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let raw = RawActivation::deserialize(value).map_err(|e| e.to_string())?;
        let mut taken = BTreeSet::new();
        let entries = raw
            .entries
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(index, entry)| ActivatedEntry::new(index, entry, &mut taken))
            .collect();
        Ok(Some(Self {
            timestamp_ms: raw.timestamp_ms.unwrap_or(Value::Null),
            trigger: raw.trigger.unwrap_or(Value::Null),
            entries,
        }))
    }

    /// The entry with `reference`.
    pub fn find(&self, reference: &str) -> Option<&ActivatedEntry> {
        self.entries.iter().find(|e| e.reference == reference)
    }
}

impl ActivatedEntry {
    fn new(index: usize, raw: RawEntry, taken: &mut BTreeSet<String>) -> Self {
        let world = raw.world.unwrap_or_default();
        let uid_text = raw.uid.as_ref().map(Scalar::to_string).unwrap_or_default();
        let natural = format!("worldinfo:{world}#{uid_text}");
        let reference = if world.is_empty() || uid_text.is_empty() || !taken.insert(natural.clone())
        {
            format!("worldinfo:activated#{index}")
        } else {
            natural
        };
        let name = [raw.display_name, raw.comment, Some(uid_text)]
            .into_iter()
            .flatten()
            .map(|name| name.trim().to_owned())
            .find(|name| !name.is_empty())
            .unwrap_or_else(|| "(unnamed)".to_owned());
        Self {
            reference,
            name,
            world,
            uid: raw.uid,
            position: raw.position.map(position_name),
            constant: raw.constant.unwrap_or(false),
            content: raw.content.unwrap_or_default(),
        }
    }
}

fn position_name(position: Scalar) -> String {
    let known = match &position {
        Scalar::Number(n) => n
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| POSITION_NAMES.get(n)),
        Scalar::Text(_) => None,
    };
    known.map_or_else(|| position.to_string(), |name| (*name).to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(value: Value) -> Activation {
        Activation::from_snapshot(Some(&value)).unwrap().unwrap()
    }

    #[test]
    fn nothing_captured_is_not_an_activation() {
        assert_eq!(Activation::from_snapshot(None), Ok(None));
        assert_eq!(Activation::from_snapshot(Some(&Value::Null)), Ok(None));
        assert!(parse(json!({})).entries.is_empty());
    }

    #[test]
    fn reads_the_tauritavern_shape() {
        let activation = parse(json!({
            "timestampMs": 1_767_225_600_000_u64,
            "trigger": "normal",
            "entries": [{"world": "lore", "uid": "12", "displayName": "Capital",
                         "constant": true, "position": "before", "content": "The capital is Alden.",
                         "key": ["capital"], "extra": {"x": 1}}]
        }));
        assert_eq!(activation.trigger, json!("normal"));
        let entry = &activation.entries[0];
        assert_eq!(entry.reference, "worldinfo:lore#12");
        assert_eq!(entry.name, "Capital");
        assert_eq!(entry.uid, Some(Scalar::Text("12".into())));
        assert_eq!(entry.position.as_deref(), Some("before"));
        assert!(entry.constant);
        assert_eq!(entry.content, "The capital is Alden.");
    }

    #[test]
    fn tolerates_sillytavern_entry_fields() {
        let activation = parse(json!({"entries": [
            {"world": "lore", "uid": 7, "comment": "Harbor", "content": "x", "position": 4},
            {"world": "lore", "uid": 8, "content": "y", "position": 42, "displayName": null},
            {"uid": 9, "content": "z"},
            {"world": "lore", "uid": 7, "content": "again"},
            {"world": "", "uid": "", "comment": "  "},
        ]}));
        let refs: Vec<&str> = activation
            .entries
            .iter()
            .map(|e| e.reference.as_str())
            .collect();
        assert_eq!(
            refs,
            [
                "worldinfo:lore#7",
                "worldinfo:lore#8",
                "worldinfo:activated#2",
                "worldinfo:activated#3",
                "worldinfo:activated#4"
            ]
        );
        let names: Vec<&str> = activation.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["Harbor", "8", "9", "7", "(unnamed)"]);
        assert_eq!(activation.entries[0].position.as_deref(), Some("atDepth"));
        assert_eq!(activation.entries[1].position.as_deref(), Some("42"));
        assert_eq!(activation.entries[4].content, "");
        assert!(activation.find("worldinfo:activated#3").is_some());
        assert!(activation.find("worldinfo:lore#9").is_none());
    }

    #[test]
    fn wrong_types_are_malformed() {
        for bad in [
            json!([]),
            json!("entries"),
            json!({"entries": {}}),
            json!({"entries": ["text"]}),
            json!({"entries": [{"content": 5}]}),
            json!({"entries": [{"uid": true}]}),
            json!({"entries": [{"constant": "yes"}]}),
        ] {
            assert!(Activation::from_snapshot(Some(&bad)).is_err(), "{bad}");
        }
    }
}
