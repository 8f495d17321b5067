//! Key matching: constant, primary keys, secondary logic, case, whole words, regex keys and
//! macros in keys.

use serde_json::json;

use super::support::Scenario;

/// Whether one entry with `keys` (and `extra` fields) fires on a one-message chat `text`.
fn fires(text: &str, keys: &[&str], extra: serde_json::Value, whole_words: bool) -> bool {
    let mut entry = json!({"uid": 0, "key": keys, "content": "x"});
    if let (Some(entry), Some(extra)) = (entry.as_object_mut(), extra.as_object()) {
        entry.extend(extra.clone());
    }
    !Scenario::new(json!([entry]))
        .chat(&[("Alex", text)])
        .settings(|s| s.match_whole_words = whole_words)
        .fired()
        .is_empty()
}

#[test]
fn constant_entries_fire_and_any_primary_key_is_enough() {
    let scenario = Scenario::new(json!([
        {"uid": 0, "constant": true, "content": "Always."},
        {"uid": 1, "key": ["dragon", "wyrm"], "content": "Dragons."},
        {"uid": 2, "key": ["castle"], "content": "Castle."},
        {"uid": 3, "content": "No keys."},
    ]))
    .chat(&[("Alex", "I saw a wyrm."), ("Seraphina", "Be careful.")]);
    insta::assert_yaml_snapshot!(scenario.summary());
}

#[test]
fn each_selective_logic() {
    let entries = json!([
        {"uid": 0, "comment": "AND ANY", "key": ["dragon"], "keysecondary": ["red", "fire"],
         "selectiveLogic": 0, "content": "0"},
        {"uid": 1, "comment": "NOT ALL", "key": ["dragon"], "keysecondary": ["red", "fire"],
         "selectiveLogic": 1, "content": "1"},
        {"uid": 2, "comment": "NOT ANY", "key": ["dragon"], "keysecondary": ["red", "fire"],
         "selectiveLogic": 2, "content": "2"},
        {"uid": 3, "comment": "AND ALL", "key": ["dragon"], "keysecondary": ["red", "fire"],
         "selectiveLogic": 3, "content": "3"},
        {"uid": 4, "comment": "not selective", "key": ["dragon"], "keysecondary": ["red", "fire"],
         "selectiveLogic": 3, "selective": false, "content": "4"},
        {"uid": 5, "comment": "unknown logic", "key": ["dragon"], "keysecondary": ["red"],
         "selectiveLogic": 9, "content": "5"},
    ]);
    let one_secondary = Scenario::new(entries.clone()).chat(&[("Alex", "A red dragon sleeps.")]);
    let no_secondary = Scenario::new(entries.clone()).chat(&[("Alex", "A dragon sleeps.")]);
    let all_secondary = Scenario::new(entries).chat(&[("Alex", "A red dragon breathes fire.")]);
    assert_eq!(one_secondary.fired(), ["Lore.0", "Lore.1", "Lore.4"]);
    assert_eq!(no_secondary.fired(), ["Lore.1", "Lore.2", "Lore.4"]);
    // An unknown logic is never satisfied.
    assert_eq!(all_secondary.fired(), ["Lore.0", "Lore.3", "Lore.4"]);
    insta::assert_yaml_snapshot!("logic_one_secondary_matches", one_secondary.summary());
    insta::assert_yaml_snapshot!("logic_no_secondary_matches", no_secondary.summary());
}

#[test]
fn case_sensitivity_is_per_entry_else_global() {
    let entries = json!([
        {"uid": 0, "key": ["Dragon"], "caseSensitive": true, "content": "0"},
        {"uid": 1, "key": ["Dragon"], "content": "1"},
        {"uid": 2, "key": ["dragon"], "caseSensitive": true, "content": "2"},
        {"uid": 3, "key": ["DRAGON"], "caseSensitive": false, "content": "3"},
    ]);
    let chat = [("Alex", "a dragon")];
    assert_eq!(
        Scenario::new(entries.clone()).chat(&chat).fired(),
        ["Lore.1", "Lore.2", "Lore.3"]
    );
    assert_eq!(
        Scenario::new(entries)
            .chat(&chat)
            .settings(|s| s.case_sensitive = true)
            .fired(),
        ["Lore.2", "Lore.3"]
    );
}

#[test]
fn whole_words_use_javascripts_ascii_boundaries() {
    let none = json!({});
    let cases: &[(&str, &str, bool, bool)] = &[
        // (message, key, whole words, fires)
        ("Welcome to Eldoria's gate", "Eldoria", true, true),
        ("éEldoria", "Eldoria", true, true),
        ("Eldoriaé", "Eldoria", true, true),
        ("Eldorian wine", "Eldoria", true, false),
        ("Eldorian wine", "Eldoria", false, true),
        ("the_Eldoria", "Eldoria", true, false),
        ("Eldoria2", "Eldoria", true, false),
        ("(Eldoria)", "eldoria", true, true),
        ("the old king's crown", "old king", true, true),
        ("bold kingdom", "old king", true, true),
        ("the old  king", "old king", true, false),
        ("ÉLAN VITAL", "élan", true, true),
        ("ΣΟΦΊΑ", "σοφία", false, true),
    ];
    for (text, key, whole_words, expected) in cases {
        assert_eq!(
            fires(text, &[key], none.clone(), *whole_words),
            *expected,
            "{key:?} in {text:?}, whole words {whole_words}"
        );
    }
    // The entry's own setting wins over the global one.
    let partial = json!({"matchWholeWords": false});
    assert!(fires("Eldorian wine", &["Eldoria"], partial, true));
    let whole = json!({"matchWholeWords": true});
    assert!(!fires("Eldorian wine", &["Eldoria"], whole, false));
}

#[test]
fn regex_keys_use_their_own_flags_and_fall_back_to_plain_text() {
    let none = json!({});
    let cases: &[(&str, &str, bool)] = &[
        // (message, key, fires)
        ("a red dragon", "/(?<=red )dragon/", true),
        ("a blue dragon", "/(?<=red )dragon/", false),
        ("a dragon", "/DRAGON/i", true),
        ("a dragon", "/DRAGON/", false),
        ("a DRAGON", "/DRAGON/gm", true),
        ("x/y", "/x\\/y/", true),
        // `y` anchors at the haystack start, which is the \x01 part marker.
        ("Alex says hi", "/Alex/y", false),
        // Not regex keys: an unknown flag, an unescaped slash. Matched as text.
        ("a dragon", "/dragon/x", false),
        ("see /dragon/x here", "/dragon/x", true),
        ("a/b", "/a/b/", false),
        ("path /a/b/ here", "/a/b/", true),
        // Compile failures: a syntax error, a repeated flag. Matched as text.
        ("an (unclosed group", "/(unclosed/", false),
        ("an /(unclosed/ group", "/(unclosed/", true),
        ("a dragon", "/dragon/ii", false),
        ("a /dragon/ii", "/dragon/ii", true),
    ];
    for (text, key, expected) in cases {
        assert_eq!(
            fires(text, &[key], none.clone(), true),
            *expected,
            "{key:?} in {text:?}"
        );
    }
}

#[test]
fn keys_are_macro_expanded_then_trimmed() {
    let scenario = Scenario::new(json!([
        {"uid": 0, "key": ["{{char}}"], "content": "char key"},
        {"uid": 1, "key": ["{{empty}}", "waves"], "content": "empty key skipped"},
        {"uid": 2, "key": ["{{empty}}"], "content": "only an empty key"},
        {"uid": 3, "key": [" waves "], "content": "trimmed key"},
        {"uid": 4, "key": ["waves"], "keysecondary": ["{{user}}"], "content": "user secondary"},
        {"uid": 5, "key": ["waves"], "keysecondary": ["{{empty}}"], "selectiveLogic": 3,
         "content": "empty secondary never matches"},
        {"uid": 6, "key": ["/{{char}}/"], "content": "macro inside a regex key"},
    ]))
    .chat(&[("Alex", "Seraphina waves.")]);
    insta::assert_yaml_snapshot!(scenario.summary());
}

#[test]
fn a_blank_key_matches_everything() {
    // It expands to non-empty blanks, so it is not skipped; trimmed, it is the empty string,
    // which every text contains. SillyTavern behaves the same.
    assert!(fires("anything", &["   "], json!({}), false));
}
