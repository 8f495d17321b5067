//! Min activations: scanning one message deeper per pass until enough entries are active.

use serde_json::json;

use super::support::Scenario;

fn entries() -> serde_json::Value {
    json!([
        {"uid": 0, "key": ["gate"], "content": "in the newest message"},
        {"uid": 1, "key": ["forest"], "content": "three messages back"},
        {"uid": 2, "key": ["tower"], "content": "in the oldest message"},
        {"uid": 3, "key": ["tower"], "scanDepth": 1, "content": "own depth: never skewed"},
    ])
}

fn chat() -> [(&'static str, &'static str); 5] {
    [
        ("Alex", "the tower"),
        ("Alex", "the river"),
        ("Alex", "the forest"),
        ("Alex", "the bridge"),
        ("Alex", "the gate"),
    ]
}

#[test]
fn the_scan_deepens_until_enough_entries_are_active() {
    let scenario = Scenario::new(entries()).chat(&chat()).settings(|s| {
        s.depth = 1;
        s.min_activations = 2;
    });
    insta::assert_yaml_snapshot!(scenario.summary());
}

#[test]
fn the_depth_max_and_the_chat_length_stop_the_search() {
    // The depth is checked before it grows: with a maximum of 1 the second pass scans 2
    // messages, then the search stops.
    let capped = Scenario::new(entries()).chat(&chat()).settings(|s| {
        s.depth = 1;
        s.min_activations = 2;
        s.min_activations_depth_max = 1;
    });
    let result = capped.run();
    assert_eq!(super::support::fired(&result), ["Lore.0"]);
    assert_eq!(result.passes, 2);
    // Unreachable minimum: depths 1 to 6 are scanned, the last one past the 5 messages.
    let unreachable = Scenario::new(entries()).chat(&chat()).settings(|s| {
        s.depth = 1;
        s.min_activations = 5;
    });
    let result = unreachable.run();
    assert_eq!(
        super::support::fired(&result),
        ["Lore.0", "Lore.1", "Lore.2"]
    );
    assert_eq!(result.passes, 6);
}

#[test]
fn min_activation_passes_skip_recursion_text_and_are_followed_by_recursion() {
    let scenario = Scenario::new(json!([
        {"uid": 0, "key": ["dragon"], "content": "It sleeps."},
        {"uid": 1, "key": ["crystal"], "preventRecursion": true, "content": "Shiny."},
    ]))
    .chat(&[("Alex", "the crystal cave"), ("Alex", "a dragon")])
    .settings(|s| {
        s.depth = 1;
        s.min_activations = 3;
        s.recursive = true;
    });
    // Initial (0) → recursion (nothing) → min activations at depth 2 (1, which prevents
    // recursion) → recursion again, because recursion text exists → min activations at depth
    // 3 → recursion → stop: depth 3 exceeds the 2 messages.
    insta::assert_yaml_snapshot!(scenario.summary());
}
