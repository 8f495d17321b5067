//! Entry hashes of a lorebook file as SillyTavern writes it, pinned against the browser's
//! values (computed with node v20 from the same file: `JSON.parse`, the entry object built as
//! `{uid, world, ...rest, decorators, content}`, `JSON.stringify`, cyrb53).

use crate::worldinfo::{ScanEntry, WorldBook};

/// A file with a full editor-made entry (decorator, quotes, tab, emoji), a sparse one (float,
/// exponent, a nested object with array-index keys, a control character, no content) and an
/// odd one (string uid, escaped decorator after an unknown one, a stray `world` field).
const BOOK: &str = r#"{
    "entries": {
        "0": {
            "uid": 0,
            "key": [
                "Eldoria",
                "capital"
            ],
            "keysecondary": [],
            "comment": "The capital — «Alden»",
            "content": "@@activate\nAlden is the \"white\" city.\n\tIt has 3 gates. 🏰",
            "constant": false,
            "vectorized": false,
            "selective": true,
            "selectiveLogic": 0,
            "addMemo": true,
            "order": 100,
            "position": 0,
            "disable": false,
            "ignoreBudget": false,
            "excludeRecursion": false,
            "preventRecursion": false,
            "matchPersonaDescription": false,
            "matchCharacterDescription": false,
            "matchCharacterPersonality": false,
            "matchCharacterDepthPrompt": false,
            "matchScenario": false,
            "matchCreatorNotes": false,
            "delayUntilRecursion": false,
            "probability": 100,
            "useProbability": true,
            "depth": 4,
            "outletName": "",
            "group": "",
            "groupOverride": false,
            "groupWeight": 100,
            "scanDepth": null,
            "caseSensitive": null,
            "matchWholeWords": null,
            "useGroupScoring": null,
            "automationId": "",
            "role": null,
            "sticky": 2,
            "cooldown": null,
            "delay": null,
            "triggers": [],
            "displayIndex": 0,
            "characterFilter": {
                "isExclude": false,
                "names": [],
                "tags": []
            }
        },
        "1": {
            "key": ["river"],
            "uid": 1,
            "probability": 12.5,
            "order": 1e2,
            "extensions": {"b": 1, "2": "x", "1": "y", "weight": 0.1},
            "comment": "ctrl \u0001 and \\ slash"
        },
        "2": {
            "uid": "2",
            "content": "@@unknown\n@@@dont_activate\nbody",
            "world": "ignored"
        }
    }
}"#;

#[test]
fn hashes_match_the_browser() {
    let book = WorldBook::parse("Eldoria", BOOK).unwrap();
    let hashes: Vec<(String, u64)> = book
        .entries
        .iter()
        .map(|e| {
            let entry = ScanEntry::new(&book.name, e);
            (entry.key(), entry.hash)
        })
        .collect();
    assert_eq!(
        hashes,
        [
            ("Eldoria.0".to_owned(), 4_506_141_344_278_395),
            ("Eldoria.1".to_owned(), 7_032_365_584_906_583),
            ("Eldoria.2".to_owned(), 4_211_921_038_797_740),
        ]
    );
}

#[test]
fn decorators_are_split_off_the_scanned_content() {
    let book = WorldBook::parse("Eldoria", BOOK).unwrap();
    let first = ScanEntry::new(&book.name, &book.entries[0]);
    assert_eq!(first.decorators, ["@@activate"]);
    assert_eq!(
        first.content,
        "Alden is the \"white\" city.\n\tIt has 3 gates. 🏰"
    );
    let third = ScanEntry::new(&book.name, &book.entries[2]);
    assert_eq!(third.decorators, ["@@dont_activate"]);
    assert_eq!(third.content, "body");
}
