//! World-info activation with the real engines (`regress` for regex keys, tiktoken for the
//! budget): a 300-entry book over a 400-message chat, scanned shallow (SillyTavern's default
//! depth of 2), deep (100 messages) and recursively, and the min-activations search back
//! through the whole chat. Run with `cargo xtask bench worldinfo`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use agent_domain::worldinfo::{
    BookSelection, CharacterStrategy, FixedChance, ScanEngines, ScanEntry, ScanInput, ScanMessage,
    WorldBook, WorldInfoSettings, activate, collect_entries,
};
use agent_text::{Encoding, JsRegexEngine, TiktokenCounter};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

const ENTRIES: usize = 300;
const MESSAGES: usize = 400;

/// Entries keyed on `place{i}` (every fifth a regex key, every seventh with a secondary key),
/// each mentioning the next entry's key so recursion has somewhere to go.
fn book() -> Vec<ScanEntry> {
    let entries: serde_json::Map<String, Value> = (0..ENTRIES)
        .map(|i| {
            let key = if i % 5 == 0 {
                format!("/\\bplace{i}s?\\b/i")
            } else {
                format!("place{i}")
            };
            let secondary: Vec<String> = if i % 7 == 0 {
                vec!["lantern".into()]
            } else {
                Vec::new()
            };
            let entry = json!({
                "uid": i, "key": [key], "keysecondary": secondary, "selective": !secondary.is_empty(),
                "selectiveLogic": 0, "content": format!(
                    "Place {i} lies by the river; travellers say it borders place{}. {}",
                    i + 1, "The roads there are old and the inns are warm. ".repeat(4)),
                "order": i % 100, "position": i % 5, "probability": 100, "useProbability": true,
                "depth": 4,
            });
            (i.to_string(), entry)
        })
        .collect();
    let book = WorldBook::parse("Atlas", &json!({ "entries": entries }).to_string()).unwrap();
    let selection = BookSelection {
        global: vec!["Atlas".into()],
        ..BookSelection::default()
    };
    collect_entries(&selection, &[book], CharacterStrategy::CharacterFirst)
}

/// A chat where every tenth message (the last one too) names a place, and the lantern comes
/// up now and then.
fn chat() -> Vec<ScanMessage> {
    (0..MESSAGES)
        .map(|i| {
            let mention = if i % 10 == 9 {
                format!(" We should head to Place{}.", (i * 7) % ENTRIES)
            } else {
                String::new()
            };
            let lantern = if i % 13 == 0 {
                " Mind the lantern."
            } else {
                ""
            };
            let name = if i % 2 == 0 { "Ann" } else { "Seraphina" };
            ScanMessage::new(
                name,
                format!(
                    "{}{mention}{lantern}",
                    "The path winds on through the trees and the evening grows cold. ".repeat(3)
                ),
            )
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let entries = book();
    let tokens = TiktokenCounter::new(Encoding::Cl100kBase).unwrap();
    let input = ScanInput {
        messages: chat(),
        max_prompt_tokens: 8_000,
        ..ScanInput::default()
    };
    let run = |settings: &WorldInfoSettings| {
        let mut chance = FixedChance::default();
        let macros = |text: &str| text.to_owned();
        let mut engines = ScanEngines {
            regex: &JsRegexEngine,
            tokens: &tokens,
            chance: &mut chance,
            macros: &macros,
        };
        activate(&entries, settings, &input, &mut engines)
    };
    let cases = [
        ("worldinfo/activate/depth_2", WorldInfoSettings::default()),
        (
            "worldinfo/activate/depth_100",
            WorldInfoSettings {
                depth: 100,
                ..WorldInfoSettings::default()
            },
        ),
        (
            "worldinfo/activate/depth_100_recursive",
            WorldInfoSettings {
                depth: 100,
                recursive: true,
                ..WorldInfoSettings::default()
            },
        ),
        (
            "worldinfo/activate/min_activations_whole_chat",
            WorldInfoSettings {
                min_activations: 50,
                ..WorldInfoSettings::default()
            },
        ),
    ];
    for (name, settings) in cases {
        let fired = run(&settings).activated.len();
        assert!(fired > 0, "{name}: nothing fired");
        c.bench_function(name, |b| b.iter(|| black_box(run(black_box(&settings)))));
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
