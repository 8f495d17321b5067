//! Sticky, cooldown and delay across generations, with the state carried from one scan to the
//! next as `chat_metadata.timedWorldInfo`.

use serde_json::{Value, json};

use super::support::{Scenario, fired};

/// One generation over a chat of `length` messages, the newest one mentioning a dragon when
/// `dragon` is set. Returns the fired entries and the state to save.
fn generation(entries: &Value, length: usize, dragon: bool, state: &Value) -> (Vec<String>, Value) {
    let mut chat = vec![("Alex", "small talk"); length];
    if dragon && length > 0 {
        chat[length - 1] = ("Alex", "a dragon!");
    }
    let state = state.clone();
    let result = Scenario::new(entries.clone())
        .chat(&chat)
        .input(|i| i.timed_state = Some(state))
        .run();
    (fired(&result), result.timed_state)
}

fn hash_of(entries: &Value) -> u64 {
    Scenario::new(entries.clone()).entries[0].hash
}

#[test]
fn sticky_keeps_an_entry_active_and_a_regenerate_drops_the_record() {
    let entries = json!([{"uid": 0, "key": ["dragon"], "sticky": 3, "content": "S"}]);
    let hash = hash_of(&entries);
    let (fired1, state1) = generation(&entries, 2, true, &json!({}));
    assert_eq!(fired1, ["Lore.0"]);
    assert_eq!(
        state1,
        json!({"sticky": {"Lore.0": {"hash": hash, "start": 2, "end": 5, "protected": false}},
               "cooldown": {}})
    );
    // Two messages later, no key in sight: still active, record unchanged.
    let (fired2, state2) = generation(&entries, 3, false, &state1);
    assert_eq!(fired2, ["Lore.0"]);
    assert_eq!(state2, state1);
    // At the end message the effect is over.
    let (fired3, state3) = generation(&entries, 5, false, &state2);
    assert!(fired3.is_empty());
    assert_eq!(state3, json!({"sticky": {}, "cooldown": {}}));
    // A regenerate (the chat is back at the length the record started at) drops the record.
    let (fired_again, state_again) = generation(&entries, 2, false, &state1);
    assert!(fired_again.is_empty());
    assert_eq!(state_again, json!({"sticky": {}, "cooldown": {}}));
    let explained = Scenario::new(entries)
        .chat(&[("Alex", "small talk"); 3])
        .input(|i| i.timed_state = Some(state1))
        .summary();
    insta::assert_yaml_snapshot!(explained.fired);
}

#[test]
fn cooldown_blocks_until_it_ends() {
    let entries = json!([{"uid": 0, "key": ["dragon"], "cooldown": 2, "content": "C"}]);
    let hash = hash_of(&entries);
    let (fired1, state1) = generation(&entries, 2, true, &json!({}));
    assert_eq!(fired1, ["Lore.0"]);
    let (fired2, state2) = generation(&entries, 3, true, &state1);
    assert!(fired2.is_empty());
    assert_eq!(state2, state1);
    let (fired3, state3) = generation(&entries, 4, true, &state2);
    assert_eq!(fired3, ["Lore.0"]);
    assert_eq!(
        state3,
        json!({"sticky": {}, "cooldown": {"Lore.0": {"hash": hash, "start": 4, "end": 6,
            "protected": false}}})
    );
}

#[test]
fn a_protected_cooldown_follows_sticky_and_survives_a_regenerate() {
    let entries =
        json!([{"uid": 0, "key": ["dragon"], "sticky": 2, "cooldown": 3, "content": "B"}]);
    let hash = hash_of(&entries);
    let (fired1, state1) = generation(&entries, 2, true, &json!({}));
    assert_eq!(fired1, ["Lore.0"]);
    assert_eq!(
        state1,
        json!({"sticky": {"Lore.0": {"hash": hash, "start": 2, "end": 4, "protected": false}},
               "cooldown": {"Lore.0": {"hash": hash, "start": 2, "end": 5, "protected": false}}})
    );
    // Sticky wins over the running cooldown.
    let (fired2, _) = generation(&entries, 3, false, &state1);
    assert_eq!(fired2, ["Lore.0"]);
    // Sticky ends: a protected cooldown starts now and applies at once.
    let (fired3, state3) = generation(&entries, 4, true, &state1);
    assert!(fired3.is_empty());
    let protected = json!({"sticky": {}, "cooldown": {"Lore.0": {"hash": hash, "start": 4,
        "end": 7, "protected": true}}});
    assert_eq!(state3, protected);
    // A regenerate at the same length keeps the protected record.
    let (fired4, state4) = generation(&entries, 4, true, &state3);
    assert!(fired4.is_empty());
    assert_eq!(state4, protected);
    // Once it ends the entry fires again and both effects restart.
    let (fired5, state5) = generation(&entries, 7, true, &state4);
    assert_eq!(fired5, ["Lore.0"]);
    assert_eq!(state5["sticky"]["Lore.0"]["start"], 7);
    assert_eq!(state5["cooldown"]["Lore.0"]["end"], 10);
}

#[test]
fn delay_holds_an_entry_until_the_chat_is_long_enough() {
    let entries = json!([{"uid": 0, "key": ["dragon"], "delay": 3, "content": "D"}]);
    let (fired2, state) = generation(&entries, 2, true, &json!({}));
    assert!(fired2.is_empty());
    assert_eq!(state, json!({"sticky": {}, "cooldown": {}}));
    let (fired3, _) = generation(&entries, 3, true, &json!({}));
    assert_eq!(fired3, ["Lore.0"]);
}

#[test]
fn a_dry_run_neither_reads_nor_writes_records() {
    let entries = json!([{"uid": 0, "key": ["dragon"], "sticky": 3, "content": "S"}]);
    let (_, state1) = generation(&entries, 2, true, &json!({}));
    let dry = |dragon: bool| {
        let text = if dragon { "a dragon!" } else { "small talk" };
        Scenario::new(entries.clone())
            .chat(&[
                ("Alex", "small talk"),
                ("Alex", "small talk"),
                ("Alex", text),
            ])
            .input(|i| {
                i.timed_state = Some(state1.clone());
                i.dry_run = true;
            })
            .run()
    };
    let quiet = dry(false);
    assert!(quiet.activated.is_empty(), "sticky is not applied");
    assert_eq!(quiet.timed_state, state1);
    let keyed = dry(true);
    assert_eq!(fired(&keyed), ["Lore.0"]);
    assert_eq!(keyed.timed_state, state1, "no record is written");
}

#[test]
fn records_of_unknown_entries_wait_for_their_end_and_broken_state_is_repaired() {
    let entries = json!([{"uid": 0, "key": ["dragon"], "content": "plain"}]);
    let state = json!({
        "sticky": 5,
        "cooldown": {
            "Other.1": {"hash": 12345, "start": 0, "end": 3, "protected": false},
            "Lore.9": 1
        },
        "note": "kept"
    });
    let (_, kept) = generation(&entries, 2, false, &state);
    assert_eq!(
        kept,
        json!({"sticky": {}, "cooldown": {"Other.1": {"hash": 12345, "start": 0, "end": 3,
            "protected": false}}, "note": "kept"})
    );
    let (_, ended) = generation(&entries, 3, false, &state);
    assert_eq!(ended, json!({"sticky": {}, "cooldown": {}, "note": "kept"}));
}

#[test]
fn a_hash_stored_as_a_string_still_names_its_entry() {
    let entries = json!([{"uid": 0, "key": ["dragon"], "sticky": 3, "content": "S"}]);
    let hash = hash_of(&entries).to_string();
    let state = json!({"sticky": {"Lore.0": {"hash": hash, "start": 1, "end": 5}}});
    let (fired, _) = generation(&entries, 2, false, &state);
    assert_eq!(fired, ["Lore.0"]);
}
