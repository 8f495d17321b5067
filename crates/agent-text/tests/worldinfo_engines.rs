//! The world-info engine of `agent-domain` run with the real engines: `regress` for regex keys
//! and tiktoken for the budget.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_domain::worldinfo::{
    BookSelection, CharacterStrategy, FixedChance, ScanEngines, ScanEntry, ScanInput, ScanMessage,
    TokenCounter, WorldBook, WorldInfoActivation, WorldInfoSettings, activate, collect_entries,
};
use agent_text::{Encoding, JsRegexEngine, TiktokenCounter};
use serde_json::{Value, json};

fn scan_list(entries: Value) -> Vec<ScanEntry> {
    let members: serde_json::Map<String, Value> = entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["uid"].to_string(), e.clone()))
        .collect();
    let book = WorldBook::parse("Lore", &json!({ "entries": members }).to_string()).unwrap();
    let selection = BookSelection {
        global: vec!["Lore".into()],
        ..BookSelection::default()
    };
    collect_entries(&selection, &[book], CharacterStrategy::CharacterFirst)
}

fn scan(
    entries: &[ScanEntry],
    settings: &WorldInfoSettings,
    input: &ScanInput,
    tokens: &dyn TokenCounter,
) -> WorldInfoActivation {
    let mut chance = FixedChance::default();
    let macros = |text: &str| text.replace("{{char}}", "Seraphina");
    let mut engines = ScanEngines {
        regex: &JsRegexEngine,
        tokens,
        chance: &mut chance,
        macros: &macros,
    };
    activate(entries, settings, input, &mut engines)
}

fn fired(result: &WorldInfoActivation) -> Vec<String> {
    result
        .activated
        .iter()
        .map(|e| format!("{}.{}", e.world, e.uid))
        .collect()
}

#[test]
fn regex_keys_run_on_regress() {
    let cl100k = TiktokenCounter::new(Encoding::Cl100kBase).unwrap();
    let settings = WorldInfoSettings {
        match_whole_words: true,
        ..WorldInfoSettings::default()
    };
    let cases: &[(&str, &str, bool)] = &[
        // (message, key, fires)
        ("a red dragon", "/(?<=red )dragon/", true),
        ("a blue dragon", "/(?<=red )dragon/", false),
        ("a blue dragon", "/(?<!red )dragon/", true),
        ("the moon", "/(?<o>o)\\k<o>/", true),
        ("a DRAGON", "/dragon/i", true),
        ("a DRAGON", "/dragon/", false),
        ("first\nsecond", "/^second/m", true),
        ("first\nsecond", "/^second/", false),
        ("dra\ngon", "/dra.gon/s", true),
        ("I 😀 dragons", "/^.*😀/u", true),
        ("Seraphina waves", "/{{char}}\\s+waves/", true),
        // `y`: the haystack starts with the \x01 part marker, then `Name: `.
        ("hi", "/\\x01Alex/y", true),
        ("hi", "/Alex/y", false),
        // Compile failures and non-regex keys are matched as plain text.
        ("an (unclosed group", "/(unclosed/", false),
        ("an /(unclosed/ group", "/(unclosed/", true),
        ("see /dragon/x here", "/dragon/x", true),
        ("a dragon", "/dragon/ii", false),
    ];
    for (message, key, expected) in cases {
        let entries = scan_list(json!([{"uid": 0, "key": [key], "content": "x"}]));
        let input = ScanInput {
            messages: vec![ScanMessage::new("Alex", *message)],
            max_prompt_tokens: 8000,
            ..ScanInput::default()
        };
        let result = scan(&entries, &settings, &input, &cl100k);
        assert_eq!(
            !result.activated.is_empty(),
            *expected,
            "{key:?} on {message:?}"
        );
    }
}

/// Three constant entries, taken in this order; the budget is exactly what the first two
/// need (tokens of `A\nB\n`, the pass text), or one more.
#[test]
fn the_budget_boundary_with_real_token_counts() {
    let cl100k = TiktokenCounter::new(Encoding::Cl100kBase).unwrap();
    let first = "Alden is the capital of Eldoria.";
    let second = "Its three gates face the river.";
    let entries = scan_list(json!([
        {"uid": 0, "constant": true, "content": first},
        {"uid": 1, "constant": true, "content": second},
        {"uid": 2, "constant": true, "ignoreBudget": true, "content": "Ignores the budget."},
    ]));
    // Pinned: a change here means the encoding changed, not the engine.
    assert_eq!(cl100k.count_tokens(&format!("{first}\n")), 10);
    let both = cl100k.count_tokens(&format!("{first}\n{second}\n"));
    assert_eq!(both, 17);
    let settings = WorldInfoSettings {
        budget_percent: 100.0,
        ..WorldInfoSettings::default()
    };
    let with_budget = |budget: u32| {
        let input = ScanInput {
            max_prompt_tokens: budget,
            ..ScanInput::default()
        };
        scan(&entries, &settings, &input, &cl100k)
    };
    let exact = with_budget(17);
    assert_eq!(exact.budget, 17);
    assert_eq!(
        fired(&exact),
        ["Lore.0", "Lore.2"],
        "17 >= 17: the second overflows"
    );
    assert!(exact.budget_overflowed);
    let roomy = with_budget(18);
    assert_eq!(fired(&roomy), ["Lore.0", "Lore.1", "Lore.2"]);
    assert!(!roomy.budget_overflowed);
    insta::assert_yaml_snapshot!(exact.skipped);
}

#[test]
fn the_encoding_changes_the_count_and_so_the_outcome() {
    let content = "日本語のテキスト";
    let o200k = TiktokenCounter::for_model("gpt-4o").unwrap();
    let cl100k = TiktokenCounter::for_model("gpt-4").unwrap();
    assert_eq!(o200k.count_tokens(&format!("{content}\n")), 7);
    assert_eq!(cl100k.count_tokens(&format!("{content}\n")), 9);
    let entries = scan_list(json!([{"uid": 0, "constant": true, "content": content}]));
    let settings = WorldInfoSettings {
        budget_percent: 100.0,
        ..WorldInfoSettings::default()
    };
    let input = ScanInput {
        max_prompt_tokens: 8,
        ..ScanInput::default()
    };
    assert_eq!(
        fired(&scan(&entries, &settings, &input, &o200k)),
        ["Lore.0"]
    );
    assert!(
        scan(&entries, &settings, &input, &cl100k)
            .activated
            .is_empty()
    );
}
