#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The bundled demo data and script (`demo/`) fit together: the script parses, calls only
//! tools of the default writer, and reads things that really are in the demo chat.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use agent_domain::profile::default_writer;
use agent_domain::tool::BuiltinTool;
use agent_gateway::scripted::ScriptedModel;
use serde_json::Value;

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("demo")
}

fn script() -> Value {
    serde_json::from_str(&fs::read_to_string(demo().join("script.json")).unwrap()).unwrap()
}

/// `(alias, arguments)` of every call of the root turns, in order.
fn calls() -> Vec<(String, Value)> {
    script()["turns"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|turn| turn["tool_calls"].as_array().cloned().unwrap_or_default())
        .map(|call| {
            (
                call["name"].as_str().unwrap().to_owned(),
                call["arguments"].clone(),
            )
        })
        .collect()
}

fn call(alias: &str) -> Value {
    calls()
        .into_iter()
        .find(|(name, _)| name == alias)
        .unwrap_or_else(|| panic!("the script never calls {alias}"))
        .1
}

fn chat_lines() -> Vec<Value> {
    let path = demo().join("data/chats/Seraphina/Forest Meeting.jsonl");
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn the_script_parses_and_uses_only_default_writer_tools() {
    let text = fs::read_to_string(demo().join("script.json")).unwrap();
    ScriptedModel::from_json(&text).unwrap();

    let allowed: BTreeSet<String> = default_writer()
        .tools
        .allow
        .iter()
        .filter_map(|name| {
            BuiltinTool::ALL
                .into_iter()
                .find(|tool| tool.id().to_string() == name.to_string())
        })
        .map(BuiltinTool::model_alias)
        .collect();
    let used: Vec<String> = calls().into_iter().map(|(name, _)| name).collect();
    for alias in &used {
        assert!(
            allowed.contains(alias),
            "{alias} is not a default-writer tool"
        );
    }
    assert_eq!(
        used,
        [
            "chat_search",
            "chat_read_messages",
            "skill_read",
            "workspace_write_file",
            "workspace_read_file",
            "workspace_apply_patch",
            "workspace_commit",
            "workspace_finish",
        ]
    );
}

#[test]
fn the_chat_is_a_sillytavern_chat_the_script_can_search_and_read() {
    let lines = chat_lines();
    let (header, messages) = lines.split_first().unwrap();
    assert!(header["chat_metadata"]["integrity"].as_str().is_some());
    assert_eq!(header["character_name"], "Seraphina");
    assert_eq!(messages.len(), 12);
    assert_eq!(
        messages.last().unwrap()["is_user"],
        true,
        "a normal run answers the user"
    );
    assert!(
        messages
            .iter()
            .any(|m| !m["mes"].as_str().unwrap().is_ascii())
    );

    let query = call("chat_search")["query"]
        .as_str()
        .unwrap()
        .to_lowercase();
    let hits = messages
        .iter()
        .filter(|m| m["mes"].as_str().unwrap().to_lowercase().contains(&query))
        .count();
    assert!(hits > 0, "`{query}` is not in the demo chat");

    for wanted in call("chat_read_messages")["messages"].as_array().unwrap() {
        assert!(wanted["index"].as_u64().unwrap() < messages.len() as u64);
    }
}

#[test]
fn the_patch_edits_text_the_script_wrote() {
    let written = call("workspace_write_file");
    assert_eq!(written["path"], "output/main.md");
    let content = written["content"].as_str().unwrap();
    let patch = call("workspace_apply_patch");
    assert_eq!(patch["path"], "output/main.md");
    let old = patch["old_string"].as_str().unwrap();
    assert_eq!(
        content.matches(old).count(),
        1,
        "old_string must match once"
    );
    assert_ne!(old, patch["new_string"].as_str().unwrap());
}

#[test]
fn the_card_and_the_skill_are_where_the_tools_look() {
    let card: Value = serde_json::from_str(
        &fs::read_to_string(demo().join("data/characters/Seraphina.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(card["spec"], "chara_card_v2");
    assert_eq!(card["data"]["name"], "Seraphina");

    let skill = call("skill_read")["name"].as_str().unwrap().to_owned();
    let path = demo().join(format!(
        "data/_tauritavern/skills/installed/global/{skill}/SKILL.md"
    ));
    let text = fs::read_to_string(path).unwrap();
    assert!(
        text.starts_with(&format!("---\nname: {skill}\ndescription: ")),
        "{text}"
    );
}
