//! The whole path a host takes: settings, book selection, book files, the scan list, the scan,
//! and the records it produces.

use serde_json::json;

use super::support::{FakeRegex, WordCounter, expand_macros};
use crate::worldinfo::{
    BookSources, CharacterContext, FixedChance, GenerationTrigger, ScanEngines, ScanInput,
    ScanMessage, WorldBook, WorldInfoSettings, activate, collect_entries, max_prompt_tokens,
    select_books,
};

const ELDORIA: &str = r#"{"entries": {
    "0": {"uid": 0, "key": ["capital"], "position": 0,
          "content": "Alden is the capital of {{char}}'s homeland."},
    "1": {"uid": 1, "key": ["Alden"], "position": 1, "comment": "Alden",
          "content": "Alden has three gates."},
    "2": {"uid": 2, "constant": true, "position": 4, "depth": 1, "role": 0,
          "content": "Keep the tone gentle."}
}}"#;
const SERAPHINA: &str = r#"{"entries": {"0": {"uid": 0, "key": ["forest"], "order": 50,
    "content": "{{char}} guards the forest."}}}"#;
const FOREST: &str = r#"{"entries": {"0": {"uid": 0, "key": ["glade"], "position": 7,
    "outletName": "Places", "content": "The glade is sacred."}}}"#;
const CHAT_NOTES: &str = r#"{"entries": {"0": {"uid": 0, "constant": true, "position": 2,
    "content": "The chat is set at dusk."}}}"#;

#[test]
fn a_generation_from_settings_to_snapshot_record() {
    let settings_json = json!({
        "main_api": "openai",
        "oai_settings": {"openai_max_context": 8192, "openai_max_tokens": 500},
        "world_info_settings": {
            "world_info_depth": 2,
            "world_info_recursive": true,
            "world_info_match_whole_words": true,
            "world_info": {
                "globalSelect": ["Eldoria", "Deleted Book"],
                "charLore": [{"name": "Seraphina", "extraBooks": ["Seraphina's Forest"]}]
            }
        }
    });
    let settings = WorldInfoSettings::from_settings_json(&settings_json);
    let available: Vec<String> = ["Chat Notes", "Eldoria", "Seraphina", "Seraphina's Forest"]
        .map(str::to_owned)
        .to_vec();
    let selection = select_books(&BookSources {
        global_select: &settings.global_select,
        available: &available,
        character_world: Some("Seraphina"),
        character_extra_books: settings.extra_books_for("Seraphina"),
        chat_world: Some("Chat Notes"),
        persona_world: None,
    });
    let books: Vec<WorldBook> = [
        ("Eldoria", ELDORIA),
        ("Seraphina", SERAPHINA),
        ("Seraphina's Forest", FOREST),
        ("Chat Notes", CHAT_NOTES),
    ]
    .iter()
    .map(|(name, text)| WorldBook::parse(name, text).unwrap())
    .collect();
    let entries = collect_entries(&selection, &books, settings.character_strategy);
    let input = ScanInput {
        messages: vec![
            ScanMessage::new("Seraphina", "Welcome, traveler."),
            ScanMessage::new("Alex", "Tell me about the capital and the forest glade."),
        ],
        trigger: GenerationTrigger::Normal,
        character: CharacterContext {
            avatar_stem: Some("Seraphina".into()),
            tags: None,
        },
        max_prompt_tokens: max_prompt_tokens(&settings_json),
        ..ScanInput::default()
    };
    let mut chance = FixedChance::default();
    let mut engines = ScanEngines {
        regex: &FakeRegex,
        tokens: &WordCounter,
        chance: &mut chance,
        macros: &expand_macros,
    };
    let result = activate(&entries, &settings, &input, &mut engines);
    insta::assert_json_snapshot!("pipeline_activation", result);
    insta::assert_json_snapshot!(
        "pipeline_read_activated",
        result.to_read_activated_json(1_767_225_600_000, GenerationTrigger::Normal)
    );
}
