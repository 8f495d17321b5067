//! One lorebook entry ([`WorldEntry`]) with every field SillyTavern's scan reads, each with
//! its default.
//!
//! Files are written by many tools, so reading is tolerant: a missing or `null` field, or one
//! of the wrong type, takes the default SillyTavern's entry editor gives a new entry. Booleans
//! are read with JavaScript truthiness (`1` is true, `""` is false) and numbers with
//! JavaScript's `Number()` (a numeric string counts); counts (depth, timed effects, recursion
//! levels) are truncated to integers. The entry's original JSON object is kept as well,
//! because its exact text feeds the entry hash (see [`super::ScanEntry`]).

use serde::Serialize;

use crate::json::js::{is_js_whitespace, js_trim};
use crate::json::{JsObject, OrderedJson};

/// The default `order` (insertion priority) of an entry.
pub const DEFAULT_ORDER: f64 = 100.0;
/// The default `depth` of an at-depth entry, and SillyTavern's `DEFAULT_DEPTH`.
pub const DEFAULT_DEPTH: i64 = 4;
/// The default inclusion-group weight, and SillyTavern's `DEFAULT_WEIGHT`.
pub const DEFAULT_GROUP_WEIGHT: f64 = 100.0;

/// A lorebook entry, read from one member of the file's `entries` object.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldEntry {
    /// `uid`; the member's key when the field is missing or not an integer.
    pub uid: i64,
    /// `key`: primary keys; any one matching meets the primary condition.
    pub keys: Vec<String>,
    /// `keysecondary`: used only when `selective` and non-empty.
    pub secondary_keys: Vec<String>,
    /// `comment`: the title, never scanned.
    pub comment: String,
    /// `content`, as stored (decorator lines included).
    pub content: String,
    pub constant: bool,
    /// Read only by vector search, which this engine does not implement.
    pub vectorized: bool,
    /// Default true.
    pub selective: bool,
    pub selective_logic: SelectiveLogic,
    /// `addMemo`: editor only.
    pub add_memo: bool,
    /// Higher is more important and lands later (nearer the chat). Default 100.
    pub order: f64,
    pub position: EntryPosition,
    pub disable: bool,
    pub ignore_budget: bool,
    pub exclude_recursion: bool,
    pub prevent_recursion: bool,
    /// `delayUntilRecursion`: 0 off, else the recursion level (`true` is level 1).
    pub delay_until_recursion: u32,
    /// Percent, default 100.
    pub probability: f64,
    /// Default true.
    pub use_probability: bool,
    /// For [`EntryPosition::AtDepth`]. Default 4.
    pub depth: i64,
    /// For [`EntryPosition::AtDepth`]. `null` is system.
    pub role: PromptRole,
    /// `outletName`, for [`EntryPosition::Outlet`].
    pub outlet_name: String,
    /// `group`: inclusion group names separated by commas; see [`WorldEntry::group_names`].
    pub group: String,
    pub group_override: bool,
    /// Default 100.
    pub group_weight: f64,
    /// `scanDepth`: `None` uses the global scan depth.
    pub scan_depth: Option<i64>,
    /// `None` uses the global setting.
    pub case_sensitive: Option<bool>,
    /// `None` uses the global setting.
    pub match_whole_words: Option<bool>,
    /// `None` uses the global setting.
    pub use_group_scoring: Option<bool>,
    /// Quick-Reply hook, not used by the scan.
    pub automation_id: String,
    /// Messages an activation stays active; 0 is off.
    pub sticky: i64,
    /// Messages an activation blocks further activations; 0 is off.
    pub cooldown: i64,
    /// The chat must have at least this many messages; 0 is off.
    pub delay: i64,
    /// The `match*` flags: texts besides the chat added to this entry's scan.
    pub match_sources: MatchSources,
    /// Generation types this entry is limited to; empty means all.
    pub triggers: Vec<String>,
    /// `None` when the file has no (or a `null`) `characterFilter`.
    pub character_filter: Option<CharacterFilter>,
    /// Editor ordering only. Defaults to the uid.
    pub display_index: i64,
    /// The member as stored, in file order.
    pub(super) raw: JsObject,
}

/// How secondary keys combine (`selectiveLogic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum SelectiveLogic {
    /// 0: at least one secondary key matches.
    AndAny,
    /// 1: at least one secondary key does not match.
    NotAll,
    /// 2: no secondary key matches.
    NotAny,
    /// 3: every secondary key matches.
    AndAll,
    /// Any other number: SillyTavern never satisfies it.
    Unknown(i64),
}

/// Where an activated entry's content goes (`position`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum EntryPosition {
    /// 0: before the character definitions.
    #[serde(rename = "before")]
    Before,
    /// 1: after the character definitions.
    #[serde(rename = "after")]
    After,
    /// 2: above the Author's Note.
    #[serde(rename = "ANTop")]
    AuthorsNoteTop,
    /// 3: below the Author's Note.
    #[serde(rename = "ANBottom")]
    AuthorsNoteBottom,
    /// 4: injected into the chat at `depth` with `role`.
    #[serde(rename = "atDepth")]
    AtDepth,
    /// 5: example-dialogue blocks before the card's examples.
    #[serde(rename = "EMTop")]
    ExamplesTop,
    /// 6: example-dialogue blocks after the card's examples.
    #[serde(rename = "EMBottom")]
    ExamplesBottom,
    /// 7: only through the `{{outlet::Name}}` macro.
    #[serde(rename = "outlet")]
    Outlet,
    /// Any other number: SillyTavern places such an entry nowhere.
    #[serde(untagged)]
    Unknown(i64),
}

impl EntryPosition {
    /// The position SillyTavern stores as `number`.
    pub fn from_number(number: i64) -> Self {
        match number {
            0 => Self::Before,
            1 => Self::After,
            2 => Self::AuthorsNoteTop,
            3 => Self::AuthorsNoteBottom,
            4 => Self::AtDepth,
            5 => Self::ExamplesTop,
            6 => Self::ExamplesBottom,
            7 => Self::Outlet,
            other => Self::Unknown(other),
        }
    }

    /// SillyTavern's name for the position (`before`, `ANTop`, …); `None` for an unknown one.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            Self::Before => "before",
            Self::After => "after",
            Self::AuthorsNoteTop => "ANTop",
            Self::AuthorsNoteBottom => "ANBottom",
            Self::AtDepth => "atDepth",
            Self::ExamplesTop => "EMTop",
            Self::ExamplesBottom => "EMBottom",
            Self::Outlet => "outlet",
            Self::Unknown(_) => return None,
        })
    }
}

/// The chat role of an at-depth injection (`role`: 0 system, 1 user, 2 assistant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PromptRole {
    System,
    User,
    Assistant,
}

impl PromptRole {
    /// The role stored as `number`; `null` and unknown numbers are system.
    pub fn from_number(number: Option<i64>) -> Self {
        match number {
            Some(1) => Self::User,
            Some(2) => Self::Assistant,
            _ => Self::System,
        }
    }

    /// SillyTavern's number for the role.
    pub fn number(self) -> u8 {
        match self {
            Self::System => 0,
            Self::User => 1,
            Self::Assistant => 2,
        }
    }
}

/// Which texts besides the chat an entry's keys are also matched against.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchSources {
    pub persona_description: bool,
    pub character_description: bool,
    pub character_personality: bool,
    /// The character's depth prompt (creator's note).
    pub character_depth_prompt: bool,
    pub scenario: bool,
    pub creator_notes: bool,
}

/// `characterFilter`: limits an entry to (or excludes it from) some characters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CharacterFilter {
    /// When true, the listed characters and tags are excluded instead of required.
    pub is_exclude: bool,
    /// Card avatar file names without extension.
    pub names: Vec<String>,
    /// Tag ids.
    pub tags: Vec<String>,
}

impl WorldEntry {
    /// Reads the member `key` of a lorebook's `entries` object. `None` when the member is not
    /// an object, or when neither its `uid` nor `key` is an integer.
    pub(super) fn from_member(key: &str, value: &OrderedJson) -> Option<Self> {
        let raw = value.as_object()?;
        let fields = Fields(raw);
        let uid = fields
            .number("uid")
            .filter(|n| n.fract() == 0.0)
            .map(|n| n as i64)
            .or_else(|| key.parse::<i64>().ok())?;
        Some(Self {
            uid,
            keys: fields.strings("key"),
            secondary_keys: fields.strings("keysecondary"),
            comment: fields.string("comment"),
            content: fields.string("content"),
            constant: fields.flag("constant", false),
            vectorized: fields.flag("vectorized", false),
            selective: fields.flag("selective", true),
            selective_logic: match fields.integer("selectiveLogic").unwrap_or(0) {
                0 => SelectiveLogic::AndAny,
                1 => SelectiveLogic::NotAll,
                2 => SelectiveLogic::NotAny,
                3 => SelectiveLogic::AndAll,
                other => SelectiveLogic::Unknown(other),
            },
            add_memo: fields.flag("addMemo", false),
            order: fields.number("order").unwrap_or(DEFAULT_ORDER),
            position: EntryPosition::from_number(fields.integer("position").unwrap_or(0)),
            disable: fields.flag("disable", false),
            ignore_budget: fields.flag("ignoreBudget", false),
            exclude_recursion: fields.flag("excludeRecursion", false),
            prevent_recursion: fields.flag("preventRecursion", false),
            delay_until_recursion: fields.recursion_level("delayUntilRecursion"),
            probability: fields.number("probability").unwrap_or(100.0),
            use_probability: fields.flag("useProbability", true),
            depth: fields.integer("depth").unwrap_or(DEFAULT_DEPTH),
            role: PromptRole::from_number(fields.integer("role")),
            outlet_name: fields.string("outletName"),
            group: fields.string("group"),
            group_override: fields.flag("groupOverride", false),
            group_weight: fields.number("groupWeight").unwrap_or(DEFAULT_GROUP_WEIGHT),
            scan_depth: fields.integer("scanDepth"),
            case_sensitive: fields.optional_flag("caseSensitive"),
            match_whole_words: fields.optional_flag("matchWholeWords"),
            use_group_scoring: fields.optional_flag("useGroupScoring"),
            automation_id: fields.string("automationId"),
            sticky: fields.integer("sticky").unwrap_or(0),
            cooldown: fields.integer("cooldown").unwrap_or(0),
            delay: fields.integer("delay").unwrap_or(0),
            match_sources: MatchSources {
                persona_description: fields.flag("matchPersonaDescription", false),
                character_description: fields.flag("matchCharacterDescription", false),
                character_personality: fields.flag("matchCharacterPersonality", false),
                character_depth_prompt: fields.flag("matchCharacterDepthPrompt", false),
                scenario: fields.flag("matchScenario", false),
                creator_notes: fields.flag("matchCreatorNotes", false),
            },
            triggers: fields.strings("triggers"),
            character_filter: raw
                .get("characterFilter")
                .and_then(OrderedJson::as_object)
                .map(|filter| {
                    let filter = Fields(filter);
                    CharacterFilter {
                        is_exclude: filter.flag("isExclude", false),
                        names: filter.strings("names"),
                        tags: filter.strings("tags"),
                    }
                }),
            display_index: fields.integer("displayIndex").unwrap_or(uid),
            raw: raw.clone(),
        })
    }

    /// The inclusion groups: `group` split on a comma and the whitespace after it, empty
    /// names dropped.
    pub fn group_names(&self) -> Vec<&str> {
        self.group
            .split(',')
            .enumerate()
            .map(|(i, name)| {
                if i == 0 {
                    name
                } else {
                    name.trim_start_matches(is_js_whitespace)
                }
            })
            .filter(|name| !name.is_empty())
            .collect()
    }

    /// A name for people: the comment, else the primary keys joined with `, `.
    pub fn display_name(&self) -> String {
        if js_trim(&self.comment).is_empty() {
            self.keys.join(", ")
        } else {
            self.comment.clone()
        }
    }
}

/// Typed, tolerant reads of an entry object's fields.
struct Fields<'a>(&'a JsObject);

impl Fields<'_> {
    /// The field, with `null` counted as missing.
    fn get(&self, key: &str) -> Option<&OrderedJson> {
        self.0.get(key).filter(|v| !matches!(v, OrderedJson::Null))
    }

    /// JavaScript truthiness; `default` when missing.
    fn flag(&self, key: &str, default: bool) -> bool {
        self.optional_flag(key).unwrap_or(default)
    }

    fn optional_flag(&self, key: &str) -> Option<bool> {
        self.get(key).map(|value| value.scalar().truthy())
    }

    /// JavaScript `Number()` of the field; `None` when missing, not a number, or an array or
    /// object.
    fn number(&self, key: &str) -> Option<f64> {
        let n = self.get(key)?.scalar().to_number();
        (!n.is_nan()).then_some(n)
    }

    /// [`Fields::number`] truncated toward zero (saturating).
    fn integer(&self, key: &str) -> Option<i64> {
        self.number(key).map(|n| n.trunc() as i64)
    }

    /// `true` is level 1; positive numbers are levels; anything else is off (0).
    fn recursion_level(&self, key: &str) -> u32 {
        match self.get(key) {
            Some(OrderedJson::Bool(true)) => 1,
            Some(_) => self
                .integer(key)
                .map_or(0, |n| u32::try_from(n.max(0)).unwrap_or(u32::MAX)),
            None => 0,
        }
    }

    /// A string field; `""` when missing or not a string.
    fn string(&self, key: &str) -> String {
        match self.get(key) {
            Some(OrderedJson::String(s)) => s.clone(),
            _ => String::new(),
        }
    }

    /// The string items of an array field; empty when missing or not an array.
    fn strings(&self, key: &str) -> Vec<String> {
        match self.get(key) {
            Some(OrderedJson::Array(items)) => items
                .iter()
                .filter_map(|item| match item {
                    OrderedJson::String(s) => Some(s.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(json: &str) -> WorldEntry {
        WorldEntry::from_member("7", &OrderedJson::parse(json).unwrap()).unwrap()
    }

    #[test]
    fn an_empty_object_takes_every_default() {
        let e = entry("{}");
        assert_eq!(e.uid, 7);
        assert!(e.keys.is_empty() && e.secondary_keys.is_empty());
        assert!(e.selective && e.use_probability && !e.constant && !e.disable);
        assert_eq!(e.selective_logic, SelectiveLogic::AndAny);
        assert_eq!(e.order, 100.0);
        assert_eq!(e.position, EntryPosition::Before);
        assert_eq!(e.probability, 100.0);
        assert_eq!((e.depth, e.role), (4, PromptRole::System));
        assert_eq!(e.group_weight, 100.0);
        assert_eq!(e.scan_depth, None);
        assert_eq!(
            (e.case_sensitive, e.match_whole_words, e.use_group_scoring),
            (None, None, None)
        );
        assert_eq!((e.sticky, e.cooldown, e.delay), (0, 0, 0));
        assert_eq!(e.delay_until_recursion, 0);
        assert_eq!(e.match_sources, MatchSources::default());
        assert_eq!(e.character_filter, None);
        assert_eq!(e.display_index, 7);
    }

    #[test]
    fn nulls_take_defaults_and_javascript_coercions_apply() {
        let e = entry(
            r#"{"uid": 3, "selective": null, "role": null, "order": "50", "constant": 1,
                "scanDepth": null, "caseSensitive": false, "sticky": 2.9, "position": 9,
                "selectiveLogic": 3, "key": ["a", 5, "b"], "content": 42,
                "characterFilter": {"names": ["alice"], "tags": null}}"#,
        );
        assert_eq!(e.uid, 3);
        assert!(e.selective);
        assert_eq!(e.role, PromptRole::System);
        assert_eq!(e.order, 50.0);
        assert!(e.constant);
        assert_eq!(e.scan_depth, None);
        assert_eq!(e.case_sensitive, Some(false));
        assert_eq!(e.sticky, 2);
        assert_eq!(e.position, EntryPosition::Unknown(9));
        assert_eq!(e.selective_logic, SelectiveLogic::AndAll);
        assert_eq!(e.keys, ["a", "b"]);
        assert_eq!(e.content, "");
        assert_eq!(
            e.character_filter,
            Some(CharacterFilter {
                is_exclude: false,
                names: vec!["alice".into()],
                tags: vec![],
            })
        );
    }

    #[test]
    fn delay_until_recursion_reads_true_as_level_one() {
        assert_eq!(
            entry(r#"{"delayUntilRecursion": true}"#).delay_until_recursion,
            1
        );
        assert_eq!(
            entry(r#"{"delayUntilRecursion": false}"#).delay_until_recursion,
            0
        );
        assert_eq!(
            entry(r#"{"delayUntilRecursion": 3}"#).delay_until_recursion,
            3
        );
        assert_eq!(
            entry(r#"{"delayUntilRecursion": -2}"#).delay_until_recursion,
            0
        );
    }

    #[test]
    fn groups_split_on_commas_and_following_whitespace() {
        let e = entry(r#"{"group": "alpha, beta ,gamma,,  delta"}"#);
        assert_eq!(e.group_names(), ["alpha", "beta ", "gamma", "delta"]);
    }

    #[test]
    fn a_member_without_an_integer_uid_is_unreadable() {
        let value = OrderedJson::parse(r#"{"uid": "x"}"#).unwrap();
        assert_eq!(WorldEntry::from_member("abc", &value), None);
        assert_eq!(WorldEntry::from_member("abc", &OrderedJson::Null), None);
        assert_eq!(
            WorldEntry::from_member("12", &value).map(|e| e.uid),
            Some(12)
        );
    }

    #[test]
    fn display_name_falls_back_to_keys() {
        assert_eq!(entry(r#"{"comment": "Capital"}"#).display_name(), "Capital");
        assert_eq!(
            entry(r#"{"comment": " ", "key": ["a", "b"]}"#).display_name(),
            "a, b"
        );
    }
}
