//! Rules that keep an entry out before keys are looked at: disable, triggers, character
//! filters, decorators.

use serde_json::json;

use super::support::Scenario;
use crate::worldinfo::{CharacterContext, GenerationTrigger};

#[test]
fn disabled_entries_never_fire() {
    let scenario = Scenario::new(json!([
        {"uid": 0, "constant": true, "disable": true, "content": "off"},
        {"uid": 1, "constant": true, "content": "on"},
    ]));
    assert_eq!(scenario.fired(), ["Lore.1"]);
}

#[test]
fn triggers_limit_entries_to_generation_types() {
    let entries = json!([
        {"uid": 0, "constant": true, "triggers": ["continue", "swipe"], "content": "0"},
        {"uid": 1, "constant": true, "triggers": [], "content": "1"},
        {"uid": 2, "constant": true, "triggers": ["normal"], "content": "2"},
    ]);
    let fired = |trigger| {
        Scenario::new(entries.clone())
            .input(|i| i.trigger = trigger)
            .fired()
    };
    assert_eq!(fired(GenerationTrigger::Normal), ["Lore.1", "Lore.2"]);
    assert_eq!(fired(GenerationTrigger::Swipe), ["Lore.0", "Lore.1"]);
    assert_eq!(fired(GenerationTrigger::Quiet), ["Lore.1"]);
    assert_eq!(
        GenerationTrigger::from_generation_type("impersonate"),
        GenerationTrigger::Impersonate
    );
    assert_eq!(
        GenerationTrigger::from_generation_type("first_message"),
        GenerationTrigger::Normal
    );
}

#[test]
fn character_filters_by_name_and_tag() {
    let entries = json!([
        {"uid": 0, "constant": true, "content": "only Seraphina",
         "characterFilter": {"isExclude": false, "names": ["Seraphina"], "tags": []}},
        {"uid": 1, "constant": true, "content": "not Seraphina",
         "characterFilter": {"isExclude": true, "names": ["Seraphina"], "tags": []}},
        {"uid": 2, "constant": true, "content": "only fantasy",
         "characterFilter": {"isExclude": false, "names": [], "tags": ["fantasy"]}},
        {"uid": 3, "constant": true, "content": "not fantasy",
         "characterFilter": {"isExclude": true, "names": [], "tags": ["fantasy"]}},
        {"uid": 4, "constant": true, "content": "empty filter",
         "characterFilter": {"isExclude": false, "names": [], "tags": []}},
    ]);
    let fired = |avatar: Option<&str>, tags: Option<&[&str]>| {
        let character = CharacterContext {
            avatar_stem: avatar.map(str::to_owned),
            tags: tags.map(|t| t.iter().map(|s| (*s).to_owned()).collect()),
        };
        Scenario::new(entries.clone())
            .input(|i| i.character = character)
            .fired()
    };
    assert_eq!(
        fired(Some("Seraphina"), Some(&["fantasy"])),
        ["Lore.0", "Lore.2", "Lore.4"]
    );
    assert_eq!(
        fired(Some("Garrick"), Some(&["scifi"])),
        ["Lore.1", "Lore.3", "Lore.4"]
    );
    // Without a tag-map record, tag filters do not apply at all.
    assert_eq!(
        fired(Some("Garrick"), None),
        ["Lore.1", "Lore.2", "Lore.3", "Lore.4"]
    );
    // No character: an include list cannot be met, an exclude list always is.
    assert_eq!(fired(None, None), ["Lore.1", "Lore.2", "Lore.3", "Lore.4"]);
    let explained = Scenario::new(entries)
        .input(|i| {
            i.character = CharacterContext {
                avatar_stem: Some("Garrick".into()),
                tags: Some(vec!["scifi".into()]),
            }
        })
        .summary();
    insta::assert_yaml_snapshot!(explained.skipped);
}

#[test]
fn decorators_force_or_forbid_and_leave_the_content() {
    let scenario = Scenario::new(json!([
        {"uid": 0, "content": "@@activate\nNo keys needed."},
        {"uid": 1, "constant": true, "content": "@@dont_activate\nNever, even constant."},
        {"uid": 2, "key": ["dragon"], "content": "@@dont_activate\nNever, even on a key."},
        {"uid": 3, "content": "@@future\n@@@activate\nEscaped after an unknown decorator."},
        {"uid": 4, "content": "@@@activate\nA lone escaped line is dropped."},
        {"uid": 5, "content": "@@activate now\nNot exactly the decorator."},
        {"uid": 6, "key": ["dragon"], "disable": true, "content": "@@activate\nDisabled wins."},
    ]))
    .chat(&[("Alex", "a dragon")]);
    insta::assert_yaml_snapshot!(scenario.summary());
}
