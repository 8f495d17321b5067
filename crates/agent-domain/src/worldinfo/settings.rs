//! [`WorldInfoSettings`]: the global world-info settings, read from a SillyTavern
//! `settings.json` value, and [`max_prompt_tokens`], the token count the budget is a
//! percentage of.
//!
//! SillyTavern keeps the settings in `world_info_settings`; very old files have the same keys
//! at the top level, and those are read when `world_info_settings` is absent. A missing key
//! takes SillyTavern's code default (which is not always what its shipped `settings.json`
//! says: recursion and whole-word matching are off in code, on in the shipped file). Values
//! are coerced as JavaScript does (`Number(v)`, `Boolean(v)`); a value that is not a number
//! keeps the default.

use serde_json::Value;

use crate::json::js::{JsScalar, js_trim};

/// Code default of `world_info_depth`.
pub const DEFAULT_SCAN_DEPTH: i64 = 2;
/// Code default of `world_info_budget`, in percent; also what a value above 100 becomes.
pub const DEFAULT_BUDGET_PERCENT: f64 = 25.0;

/// The global world-info settings.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldInfoSettings {
    /// `world_info_depth`: how many of the newest messages are scanned. Default 2.
    pub depth: i64,
    /// `world_info_min_activations`: keep scanning deeper until this many entries are active.
    /// 0 is off.
    pub min_activations: i64,
    /// `world_info_min_activations_depth_max`: how deep the min-activations search may go;
    /// 0 means up to the chat length.
    pub min_activations_depth_max: i64,
    /// `world_info_budget`: percent of the max prompt tokens. Default 25; above 100 reads as 25.
    pub budget_percent: f64,
    /// `world_info_budget_cap`: absolute token cap; 0 is none.
    pub budget_cap: i64,
    /// `world_info_include_names`: scan messages as `Name: text`. Default true.
    pub include_names: bool,
    /// `world_info_recursive`: activated content is scanned for further entries.
    pub recursive: bool,
    /// `world_info_overflow_alert`: SillyTavern shows a toast when the budget is reached; here
    /// it is only carried for the host.
    pub overflow_alert: bool,
    /// `world_info_case_sensitive`.
    pub case_sensitive: bool,
    /// `world_info_match_whole_words`.
    pub match_whole_words: bool,
    /// `world_info_use_group_scoring`.
    pub use_group_scoring: bool,
    /// `world_info_character_strategy`.
    pub character_strategy: CharacterStrategy,
    /// `world_info_max_recursion_steps`: caps the number of scan passes; 0 is unlimited.
    pub max_recursion_steps: i64,
    /// `world_info.globalSelect`: the globally selected book names, as stored (a legacy
    /// string or array `world_info` is read as this list).
    pub global_select: Vec<String>,
    /// `world_info.charLore`: extra books per character.
    pub char_lore: Vec<CharLore>,
}

/// How global and character lore are interleaved (`world_info_character_strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharacterStrategy {
    /// 0: both sorted together by `order` (global first on ties).
    Evenly,
    /// 1: character lore, then global lore. The default.
    CharacterFirst,
    /// 2: global lore, then character lore.
    GlobalFirst,
}

/// Extra books linked to one character (`world_info.charLore[]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CharLore {
    /// The card's avatar file name without extension.
    pub name: String,
    pub extra_books: Vec<String>,
}

impl Default for WorldInfoSettings {
    /// SillyTavern's code defaults.
    fn default() -> Self {
        Self {
            depth: DEFAULT_SCAN_DEPTH,
            min_activations: 0,
            min_activations_depth_max: 0,
            budget_percent: DEFAULT_BUDGET_PERCENT,
            budget_cap: 0,
            include_names: true,
            recursive: false,
            overflow_alert: false,
            case_sensitive: false,
            match_whole_words: false,
            use_group_scoring: false,
            character_strategy: CharacterStrategy::CharacterFirst,
            max_recursion_steps: 0,
            global_select: Vec::new(),
            char_lore: Vec::new(),
        }
    }
}

impl WorldInfoSettings {
    /// Reads the settings from a whole `settings.json` value.
    pub fn from_settings_json(settings: &Value) -> Self {
        let source = match settings.get("world_info_settings") {
            None | Some(Value::Null) => settings,
            Some(nested) => nested,
        };
        let defaults = Self::default();
        let integer = |key: &str, default: i64| number(source, key).map_or(default, trunc);
        let flag = |key: &str, default: bool| {
            source
                .get(key)
                .map_or(default, |v| JsScalar::of_value(v).truthy())
        };
        let budget_percent =
            number(source, "world_info_budget").map_or(defaults.budget_percent, |b| {
                if b > 100.0 { DEFAULT_BUDGET_PERCENT } else { b }
            });
        let character_strategy = match number(source, "world_info_character_strategy") {
            None => defaults.character_strategy,
            Some(1.0) => CharacterStrategy::CharacterFirst,
            Some(2.0) => CharacterStrategy::GlobalFirst,
            // SillyTavern falls back to evenly for any other value.
            Some(_) => CharacterStrategy::Evenly,
        };
        let (global_select, char_lore) = read_selection(source.get("world_info"));
        Self {
            depth: integer("world_info_depth", defaults.depth),
            min_activations: integer("world_info_min_activations", defaults.min_activations),
            min_activations_depth_max: integer(
                "world_info_min_activations_depth_max",
                defaults.min_activations_depth_max,
            ),
            budget_percent,
            budget_cap: integer("world_info_budget_cap", defaults.budget_cap),
            include_names: flag("world_info_include_names", defaults.include_names),
            recursive: flag("world_info_recursive", defaults.recursive),
            overflow_alert: flag("world_info_overflow_alert", defaults.overflow_alert),
            case_sensitive: flag("world_info_case_sensitive", defaults.case_sensitive),
            match_whole_words: flag("world_info_match_whole_words", defaults.match_whole_words),
            use_group_scoring: flag("world_info_use_group_scoring", defaults.use_group_scoring),
            character_strategy,
            max_recursion_steps: integer(
                "world_info_max_recursion_steps",
                defaults.max_recursion_steps,
            ),
            global_select,
            char_lore,
        }
    }

    /// The extra books of the character whose avatar file name without extension is
    /// `avatar_stem` (the first `charLore` record with that name).
    pub fn extra_books_for(&self, avatar_stem: &str) -> &[String] {
        self.char_lore
            .iter()
            .find(|lore| lore.name == avatar_stem)
            .map_or(&[], |lore| lore.extra_books.as_slice())
    }

    /// The token budget of a scan for a prompt of at most `max_prompt_tokens` tokens:
    /// `round(percent × max / 100)`, at least 1, then capped by `budget_cap` when that is
    /// positive.
    pub fn token_budget(&self, max_prompt_tokens: u32) -> u32 {
        let raw = (self.budget_percent * f64::from(max_prompt_tokens) / 100.0).round();
        // `|| 1`: zero and NaN become 1. The cast saturates.
        let budget = if raw >= 1.0 { raw as u32 } else { 1 };
        match u32::try_from(self.budget_cap) {
            Ok(cap) if cap > 0 && budget > cap => cap,
            _ => budget,
        }
    }
}

/// The max prompt tokens the budget is a percentage of: context size minus response length.
///
/// Chat Completion (`main_api` is `"openai"`, or absent — tavern-agent talks to chat models)
/// reads `oai_settings.openai_max_context − oai_settings.openai_max_tokens`, defaulting to
/// SillyTavern's 4095 and 300. Any other `main_api` reads `max_context − amount_gen`,
/// defaulting to 2048 and 80. A negative difference is 0.
pub fn max_prompt_tokens(settings: &Value) -> u32 {
    let chat_completion = match settings.get("main_api") {
        None | Some(Value::Null) => true,
        Some(api) => api.as_str() == Some("openai"),
    };
    let (context, response) = if chat_completion {
        let oai = settings.get("oai_settings").unwrap_or(&Value::Null);
        (
            number(oai, "openai_max_context").unwrap_or(4095.0),
            number(oai, "openai_max_tokens").unwrap_or(300.0),
        )
    } else {
        (
            number(settings, "max_context").unwrap_or(2048.0),
            number(settings, "amount_gen").unwrap_or(80.0),
        )
    };
    // The cast saturates: negative becomes 0.
    (context - response).trunc() as u32
}

/// `Number(object[key])`; `None` when the key is missing or the value is not a number.
fn number(object: &Value, key: &str) -> Option<f64> {
    let n = JsScalar::of_value(object.get(key)?).to_number();
    (!n.is_nan()).then_some(n)
}

fn trunc(n: f64) -> i64 {
    n.trunc() as i64
}

/// `world_info`: `{globalSelect, charLore}`, or a legacy string or array of book names.
fn read_selection(world_info: Option<&Value>) -> (Vec<String>, Vec<CharLore>) {
    match world_info {
        Some(Value::String(name)) => (vec![name.clone()], Vec::new()),
        Some(Value::Array(names)) => (strings(names), Vec::new()),
        Some(Value::Object(object)) => {
            let global = object
                .get("globalSelect")
                .and_then(Value::as_array)
                .map(|names| strings(names))
                .unwrap_or_default();
            let char_lore = object
                .get("charLore")
                .and_then(Value::as_array)
                .map(|records| records.iter().filter_map(char_lore).collect())
                .unwrap_or_default();
            (global, char_lore)
        }
        _ => (Vec::new(), Vec::new()),
    }
}

fn char_lore(record: &Value) -> Option<CharLore> {
    let name = record.get("name")?.as_str()?;
    let extra_books = record
        .get("extraBooks")
        .and_then(Value::as_array)
        .map(|names| strings(names))
        .unwrap_or_default();
    Some(CharLore {
        name: name.to_owned(),
        extra_books,
    })
}

/// The non-blank strings of a JSON array.
fn strings(values: &[Value]) -> Vec<String> {
    values
        .iter()
        .filter_map(Value::as_str)
        .filter(|s| !js_trim(s).is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn missing_keys_take_the_code_defaults() {
        let settings = WorldInfoSettings::from_settings_json(&json!({}));
        assert_eq!(settings, WorldInfoSettings::default());
        assert_eq!(settings.depth, 2);
        assert!(!settings.recursive && !settings.match_whole_words && settings.include_names);
        assert_eq!(
            settings.character_strategy,
            CharacterStrategy::CharacterFirst
        );
    }

    #[test]
    fn world_info_settings_are_read_and_coerced() {
        let settings = WorldInfoSettings::from_settings_json(&json!({
            "world_info_depth": 9,
            "world_info_settings": {
                "world_info_depth": "5",
                "world_info_min_activations": 2,
                "world_info_min_activations_depth_max": 10,
                "world_info_budget": 150,
                "world_info_budget_cap": 300,
                "world_info_include_names": 0,
                "world_info_recursive": true,
                "world_info_overflow_alert": "yes",
                "world_info_case_sensitive": true,
                "world_info_match_whole_words": true,
                "world_info_use_group_scoring": true,
                "world_info_character_strategy": 2,
                "world_info_max_recursion_steps": 3,
                "world_info": {
                    "globalSelect": ["Eldoria", "", 7, "Lore"],
                    "charLore": [
                        {"name": "Seraphina", "extraBooks": ["Forest", "Magic"]},
                        {"extraBooks": ["nameless"]},
                        {"name": "Seraphina", "extraBooks": ["shadowed"]}
                    ]
                }
            }
        }));
        assert_eq!(settings.depth, 5);
        assert_eq!(settings.min_activations, 2);
        assert_eq!(settings.min_activations_depth_max, 10);
        assert_eq!(settings.budget_percent, 25.0);
        assert_eq!(settings.budget_cap, 300);
        assert!(!settings.include_names);
        assert!(settings.recursive && settings.overflow_alert && settings.case_sensitive);
        assert!(settings.match_whole_words && settings.use_group_scoring);
        assert_eq!(settings.character_strategy, CharacterStrategy::GlobalFirst);
        assert_eq!(settings.max_recursion_steps, 3);
        assert_eq!(settings.global_select, ["Eldoria", "Lore"]);
        assert_eq!(settings.extra_books_for("Seraphina"), ["Forest", "Magic"]);
        assert!(settings.extra_books_for("Nobody").is_empty());
    }

    #[test]
    fn legacy_top_level_keys_and_selections_are_read() {
        let settings = WorldInfoSettings::from_settings_json(&json!({
            "world_info_depth": 4,
            "world_info_character_strategy": 7,
            "world_info": "Old Book"
        }));
        assert_eq!(settings.depth, 4);
        assert_eq!(settings.character_strategy, CharacterStrategy::Evenly);
        assert_eq!(settings.global_select, ["Old Book"]);
        let settings = WorldInfoSettings::from_settings_json(&json!({
            "world_info_settings": {"world_info": ["A", "B"], "world_info_depth": "deep"}
        }));
        assert_eq!(settings.global_select, ["A", "B"]);
        assert_eq!(settings.depth, 2);
    }

    #[test]
    fn the_budget_rounds_floors_at_one_and_respects_the_cap() {
        let mut settings = WorldInfoSettings::default();
        assert_eq!(settings.token_budget(3795), 949);
        assert_eq!(settings.token_budget(0), 1);
        settings.budget_cap = 500;
        assert_eq!(settings.token_budget(3795), 500);
        settings.budget_percent = 1.0;
        assert_eq!(settings.token_budget(150), 2);
    }

    #[test]
    fn max_prompt_tokens_follow_the_api() {
        assert_eq!(max_prompt_tokens(&json!({})), 3795);
        assert_eq!(
            max_prompt_tokens(&json!({"main_api": "openai", "oai_settings": {
                "openai_max_context": 128000, "openai_max_tokens": 4000}})),
            124000
        );
        assert_eq!(
            max_prompt_tokens(&json!({"main_api": "textgenerationwebui",
                "max_context": 8192, "amount_gen": 512})),
            7680
        );
        assert_eq!(max_prompt_tokens(&json!({"main_api": "kobold"})), 1968);
        assert_eq!(
            max_prompt_tokens(&json!({"oai_settings": {"openai_max_context": 100,
                "openai_max_tokens": 300}})),
            0
        );
    }
}
