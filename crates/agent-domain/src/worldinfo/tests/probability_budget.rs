//! Probability rolls and the token budget (with a word-counting tokenizer: one word, one
//! token).

use serde_json::json;

use super::support::{Scenario, fired};

#[test]
fn probability_rolls_against_the_percentage() {
    let entries = json!([
        {"uid": 0, "constant": true, "probability": 50, "content": "fifty"},
        {"uid": 1, "constant": true, "probability": 100, "content": "hundred: no roll"},
        {"uid": 2, "constant": true, "probability": 0, "content": "zero"},
        {"uid": 3, "constant": true, "probability": 10, "useProbability": false,
         "content": "probability off: no roll"},
    ]);
    // Rolls are taken in candidate order by 0 and 2 only: 60 fails 50; 0 passes 0 (a zero
    // probability passes only on an exact zero roll).
    let low_luck = Scenario::new(entries.clone()).chance(&[0.6, 0.0]);
    insta::assert_yaml_snapshot!("probability_60_then_0", low_luck.summary());
    // 50 passes 50 (the boundary passes); 10 fails 0.
    let high_luck = Scenario::new(entries).chance(&[0.5, 0.1]);
    assert_eq!(high_luck.fired(), ["Lore.0", "Lore.1", "Lore.3"]);
}

#[test]
fn a_failed_roll_is_final_for_the_scan_and_sticky_entries_never_roll() {
    let scenario = Scenario::new(json!([
        {"uid": 0, "constant": true, "content": "A wolf howls."},
        {"uid": 1, "key": ["wolf"], "probability": 50, "content": "Wolves."},
        {"uid": 2, "constant": true, "probability": 0, "sticky": 2, "content": "Sticky."},
    ]))
    .chat(&[("Alex", "hi"), ("Alex", "a wolf")])
    .settings(|s| s.recursive = true);
    let hash = scenario.entries[2].hash;
    let scenario = scenario
        .input(|i| {
            i.timed_state = Some(json!({"sticky": {"Lore.2": {"hash": hash, "start": 1,
                "end": 3}}}));
        })
        // Pass 1: entry 1 rolls 90 and fails. Were it rolled again in pass 2 (the recursion
        // text mentions a wolf), 0 would pass.
        .chance(&[0.9, 0.0]);
    insta::assert_yaml_snapshot!(scenario.summary());
}

/// Constant entries with the given contents, in this order; the budget is 10 tokens.
fn budgeted(entries: serde_json::Value) -> Scenario {
    Scenario::new(entries).input(|i| i.max_prompt_tokens = 40)
}

#[test]
fn the_budget_boundary_is_reached_at_equality() {
    let equal = budgeted(json!([
        {"uid": 0, "constant": true, "content": "one two three four five"},
        {"uid": 1, "constant": true, "content": "six seven eight nine ten"},
    ]));
    let result = equal.run();
    assert_eq!(result.budget, 10);
    assert_eq!(fired(&result), ["Lore.0"]);
    assert!(result.budget_overflowed);
    let below = budgeted(json!([
        {"uid": 0, "constant": true, "content": "one two three four five"},
        {"uid": 1, "constant": true, "content": "six seven eight nine"},
    ]));
    let result = below.run();
    assert_eq!(fired(&result), ["Lore.0", "Lore.1"]);
    assert!(!result.budget_overflowed);
}

#[test]
fn after_an_overflow_only_ignore_budget_entries_go_on() {
    let scenario = budgeted(json!([
        {"uid": 0, "constant": true, "content": "one two three four"},
        {"uid": 1, "constant": true, "content": "a b c d e f g h"},
        {"uid": 2, "constant": true, "content": "skipped while an ignoreBudget entry follows"},
        {"uid": 3, "constant": true, "ignoreBudget": true, "content": "i j k"},
        {"uid": 4, "constant": true, "content": "e"},
    ]));
    insta::assert_yaml_snapshot!(scenario.summary());
}

#[test]
fn the_cap_limits_the_budget() {
    let capped = Scenario::new(json!([
        {"uid": 0, "constant": true, "content": "a b"},
        {"uid": 1, "constant": true, "content": "c"},
    ]))
    .settings(|s| s.budget_cap = 3);
    let result = capped.run();
    assert_eq!(result.budget, 3);
    assert_eq!(fired(&result), ["Lore.0"]);
}

#[test]
fn recursion_text_of_earlier_passes_counts_against_the_budget() {
    let with = |second: &str| {
        budgeted(json!([
            {"uid": 0, "key": ["dragon"], "content": "The dragon hunts a wolf tonight"},
            {"uid": 1, "key": ["wolf"], "content": second},
        ]))
        .chat(&[("Alex", "a dragon")])
        .settings(|s| s.recursive = true)
        .fired()
    };
    // 6 tokens of recursion text + 4 = 10: over. + 3 = 9: fits.
    assert_eq!(with("Wolves run in packs"), ["Lore.0"]);
    assert_eq!(with("Wolves run far"), ["Lore.0", "Lore.1"]);
}
