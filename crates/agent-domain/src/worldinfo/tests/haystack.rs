//! What text an entry's keys are matched against: scan depth, names, `match*` texts,
//! injections and recursion text.

use std::rc::Rc;

use serde_json::json;

use super::support::{Scenario, book};
use crate::worldinfo::buffer::ScanBuffer;
use crate::worldinfo::{GlobalScanData, ScanInput, ScanMessage, ScanPhase};

fn five_messages() -> [(&'static str, &'static str); 5] {
    [
        ("Alex", "m0 oldest: the tower"),
        ("Seraphina", "m1: the river"),
        ("Alex", "m2: the forest"),
        ("Seraphina", "m3: the bridge"),
        ("Alex", "  m4 newest: the gate  "),
    ]
}

#[test]
fn the_global_depth_counts_the_newest_messages_and_entries_may_override_it() {
    let scenario = Scenario::new(json!([
        {"uid": 0, "key": ["gate"], "content": "newest"},
        {"uid": 1, "key": ["bridge"], "content": "second newest"},
        {"uid": 2, "key": ["forest"], "content": "third newest: out of depth 2"},
        {"uid": 3, "key": ["forest"], "scanDepth": 3, "content": "own depth 3"},
        {"uid": 4, "key": ["gate"], "scanDepth": 0, "content": "depth 0 scans nothing"},
        {"uid": 5, "key": ["tower"], "scanDepth": 5000, "content": "clamped to 1000"},
        {"uid": 6, "key": ["tower"], "scanDepth": -1, "content": "negative scans nothing"},
    ]))
    .chat(&five_messages());
    assert_eq!(scenario.fired(), ["Lore.0", "Lore.1", "Lore.3", "Lore.5"]);
    let shallow = scenario.settings(|s| s.depth = 1);
    assert_eq!(shallow.fired(), ["Lore.0", "Lore.3", "Lore.5"]);
    let none = shallow.settings(|s| s.depth = 0);
    assert_eq!(none.fired(), ["Lore.3", "Lore.5"]);
}

#[test]
fn names_are_scanned_only_when_included() {
    let entries = json!([{"uid": 0, "key": ["Seraphina:"], "content": "named"}]);
    let chat = [("Seraphina", "Hello.")];
    assert_eq!(
        Scenario::new(entries.clone()).chat(&chat).fired(),
        ["Lore.0"]
    );
    assert!(
        Scenario::new(entries)
            .chat(&chat)
            .settings(|s| s.include_names = false)
            .fired()
            .is_empty()
    );
}

#[test]
fn match_flags_and_injections_extend_the_haystack() {
    let scenario = Scenario::new(json!([
        {"uid": 0, "key": ["silver"], "matchPersonaDescription": true, "content": "persona"},
        {"uid": 1, "key": ["silver"], "content": "no flag"},
        {"uid": 2, "key": ["glade"], "matchScenario": true, "content": "scenario"},
        {"uid": 3, "key": ["lantern"], "content": "from the Author's Note injection"},
        {"uid": 4, "key": ["lantern"], "scanDepth": 0, "content": "empty haystack"},
        {"uid": 5, "key": ["healer"], "matchCreatorNotes": true, "content": "creator notes"},
    ]))
    .chat(&[("Alex", "hi")])
    .input(|i| {
        i.scan_data = GlobalScanData {
            persona_description: "Alex wears a silver ring.".into(),
            scenario: "A quiet glade.".into(),
            creator_notes: String::new(),
            character_description: "A healer.".into(),
            ..GlobalScanData::default()
        };
        i.injections = vec!["[Note: a lantern flickers]".into(), String::new()];
    });
    assert_eq!(scenario.fired(), ["Lore.0", "Lore.2", "Lore.3"]);
}

/// Each message is `Name: text`, trimmed as a whole (so blanks after the colon stay).
#[test]
fn the_haystack_is_laid_out_in_a_fixed_order() {
    let input = ScanInput {
        messages: five_messages()
            .iter()
            .map(|(n, t)| ScanMessage::new(*n, *t))
            .collect(),
        scan_data: GlobalScanData {
            persona_description: "persona".into(),
            character_description: "description".into(),
            character_personality: "personality".into(),
            character_depth_prompt: "depth prompt".into(),
            scenario: String::new(),
            creator_notes: "creator notes".into(),
        },
        injections: vec!["note".into(), "depth note".into()],
        ..ScanInput::default()
    };
    let every_flag = json!([{"uid": 0, "matchPersonaDescription": true,
        "matchCharacterDescription": true, "matchCharacterPersonality": true,
        "matchCharacterDepthPrompt": true, "matchScenario": true, "matchCreatorNotes": true}]);
    let entry = book("Lore", every_flag).entries.remove(0);
    let mut buffer = ScanBuffer::new(&input, 2, true);
    buffer.add_recursion("recursed one".into());
    buffer.add_recursion("recursed two".into());
    assert_eq!(
        buffer.haystack(&entry, ScanPhase::Recursion).text(),
        "\x01Alex:   m4 newest: the gate\n\x01Seraphina: m3: the bridge\n\x01persona\
         \n\x01description\n\x01personality\n\x01depth prompt\n\x01creator notes\
         \n\x01note\n\x01depth note\n\x01recursed one\n\x01recursed two"
    );
    let plain = book("Lore", json!([{"uid": 0}])).entries.remove(0);
    buffer.advance();
    assert_eq!(
        buffer.haystack(&plain, ScanPhase::MinActivations).text(),
        "\x01Alex:   m4 newest: the gate\n\x01Seraphina: m3: the bridge\n\x01Alex: m2: the forest\
         \n\x01note\n\x01depth note",
        "one message deeper, and no recursion text in a min-activations pass"
    );
}

#[test]
fn a_haystack_is_built_once_until_the_depth_or_the_recursion_text_changes() {
    let input = ScanInput {
        messages: five_messages()
            .iter()
            .map(|(n, t)| ScanMessage::new(*n, *t))
            .collect(),
        ..ScanInput::default()
    };
    let entries = book(
        "Lore",
        json!([{"uid": 0}, {"uid": 1}, {"uid": 2, "scanDepth": 4}]),
    );
    let [first, second, own_depth] = [0, 1, 2].map(|i| entries.entries[i].clone());
    let mut buffer = ScanBuffer::new(&input, 2, true);
    let shared = buffer.haystack(&first, ScanPhase::Initial);
    assert!(Rc::ptr_eq(
        &shared,
        &buffer.haystack(&second, ScanPhase::Initial)
    ));
    assert!(!Rc::ptr_eq(
        &shared,
        &buffer.haystack(&own_depth, ScanPhase::Initial)
    ));
    buffer.add_recursion("the tower".into());
    let recursed = buffer.haystack(&first, ScanPhase::Recursion);
    assert!(recursed.text().ends_with("\n\x01the tower"));
    buffer.advance();
    let deeper = buffer.haystack(&first, ScanPhase::MinActivations);
    assert!(deeper.text().contains("m2: the forest"));
    assert!(!deeper.text().contains("the tower"));
}
