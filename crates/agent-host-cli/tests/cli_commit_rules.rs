#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The commit and read-budget rules through the binary: an auto-published draft is never
//! built on, `chat_read_messages` returns at most its per-call cap by its own count,
//! `notRead` lists message indexes as numbers, an invalid commit mode has TauriTavern's code,
//! and arguments that are JSON but not an object say what they are.

mod cli_support;

use std::fs;

use cli_support::{Fixture, run_id_of};
use serde_json::{Value, json};

fn write(path: &str, content: &str) -> Value {
    json!({"tool_calls": [{"name": "workspace_write_file",
                           "arguments": {"path": path, "content": content}}]})
}

fn commit(path: &str, mode: &str) -> Value {
    json!({"tool_calls": [{"name": "workspace_commit", "arguments": {"path": path, "mode": mode}}]})
}

fn finish() -> Value {
    json!({"tool_calls": [{"name": "workspace_finish", "arguments": {}}]})
}

fn events(fx: &Fixture, run_id: &str) -> Vec<Value> {
    fx.events_jsonl(run_id)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn last_message(fx: &Fixture) -> Value {
    serde_json::from_str(fx.chat_text().trim_end().lines().last().unwrap()).unwrap()
}

/// The `content` and `structured` of every tool result of a run, in call order.
fn tool_results(fx: &Fixture, run_id: &str) -> Vec<Value> {
    let dir = fx.run_dir(run_id).join("tool-results");
    let mut results: Vec<Value> = fs::read_dir(dir)
        .unwrap()
        .map(|e| serde_json::from_str(&fs::read_to_string(e.unwrap().path()).unwrap()).unwrap())
        .collect();
    results.sort_by_key(|r: &Value| {
        r["callId"].as_str().unwrap()["call_".len()..]
            .parse::<u32>()
            .unwrap()
    });
    results
}

#[test]
fn every_commit_mode_sequence_builds_only_on_explicit_commits() {
    let mut cases = Vec::new();
    for background in [false, true] {
        for first in ["replace", "append"] {
            for second in ["replace", "append"] {
                let fx = Fixture::new();
                let script = json!({"turns": [
                    write("output/main.md", "Part one.\n"),
                    commit("output/main.md", first),
                    write("output/more.md", "Part two.\n"),
                    commit("output/more.md", second),
                    finish(),
                ]});
                let extra: &[&str] = if background { &["--background"] } else { &[] };
                let assert = fx.run_script(&script, extra).success();
                let run_id = run_id_of(&assert.get_output().stderr);
                let commits: Vec<String> = events(&fx, &run_id)
                    .iter()
                    .filter(|e| e["type"] == "chat_commit_completed")
                    .map(|e| {
                        let p = &e["payload"];
                        let kind = if p["isExplicit"] == true {
                            "explicit"
                        } else {
                            "auto"
                        };
                        format!(
                            "{kind} {} {}",
                            p["mode"].as_str().unwrap(),
                            p["path"].as_str().unwrap()
                        )
                    })
                    .collect();
                let message = last_message(&fx);
                let expected = if second == "append" {
                    "Part one.\n\nPart two."
                } else {
                    "Part two."
                };
                assert_eq!(
                    message["mes"], expected,
                    "background {background}, {first} then {second}"
                );
                assert_eq!(message["swipes"], json!([expected]));
                let record = &message["extra"]["tauritavern"]["agent"];
                cases.push(json!({
                    "presentation": if background { "background" } else { "foreground" },
                    "modes": [first, second],
                    "commits": commits,
                    "message": message["mes"],
                    "recordedModes": record["commits"].as_array().unwrap().iter()
                        .map(|c| c["mode"].clone()).collect::<Vec<_>>(),
                }));
            }
        }
    }
    insta::assert_json_snapshot!("commit_mode_sequences", cases);
}

/// A chat of one-line messages of `sizes` characters each, alternating user and assistant.
fn long_chat(fx: &Fixture, sizes: &[usize]) {
    let mut lines = vec![
        r#"{"chat_metadata":{"integrity":"cli-test-long-0001"},"user_name":"unused","character_name":"unused"}"#
            .to_owned(),
    ];
    for (i, size) in sizes.iter().enumerate() {
        let user = i % 2 == 0;
        lines.push(
            json!({"name": if user { "Bob" } else { "Alice" }, "is_user": user, "is_system": false,
                   "send_date": "2026-06-01T21:00:00.000Z", "mes": "m".repeat(*size), "extra": {}})
            .to_string(),
        );
    }
    fs::write(fx.path().join("chats/Alice/chat.jsonl"), lines.join("\n")).unwrap();
}

fn read_all(count: usize) -> Value {
    let messages: Vec<Value> = (0..count).map(|i| json!({"index": i})).collect();
    json!({"turns": [
        {"tool_calls": [{"name": "chat_read_messages", "arguments": {"messages": messages}}]},
        finish(),
    ]})
}

/// What a read returned by its own count, and what it left.
fn read_summary(result: &Value) -> Value {
    let structured = &result["structured"];
    let chars: u64 = structured["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["chars"].as_u64().unwrap())
        .sum();
    json!({
        "chars": chars,
        "read": structured["messages"].as_array().unwrap().iter()
            .map(|m| json!([m["index"], m["chars"], m["complete"]])).collect::<Vec<_>>(),
        "notRead": structured.get("notRead"),
    })
}

#[test]
fn a_read_fills_its_cap_exactly_and_never_more() {
    let mut cases = Vec::new();
    for sizes in [[8_000, 8_000, 4_000], [8_000, 8_000, 4_001]] {
        let fx = Fixture::new();
        long_chat(&fx, &sizes);
        let assert = fx.run_script(&read_all(3), &["--background"]).success();
        let results = tool_results(&fx, &run_id_of(&assert.get_output().stderr));
        cases.push(read_summary(&results[0]));
    }
    assert_eq!(cases[0]["chars"], 20_000);
    assert_eq!(cases[0]["notRead"], Value::Null);
    assert_eq!(cases[1]["notRead"], json!([2]), "indexes are numbers");
    insta::assert_json_snapshot!("read_cap_edges", cases);

    // Four messages of 100 lines of 99 characters: numbered previews, prefixes counted.
    let fx = Fixture::new();
    let text: String = (0..100)
        .map(|_| "y".repeat(99))
        .collect::<Vec<_>>()
        .join("\n");
    let mut lines = vec![r#"{"chat_metadata":{"integrity":"cli-test-long-0002"}}"#.to_owned()];
    for _ in 0..4 {
        lines
            .push(json!({"name": "Alice", "is_user": false, "mes": text, "extra": {}}).to_string());
    }
    fs::write(fx.path().join("chats/Alice/chat.jsonl"), lines.join("\n")).unwrap();
    let assert = fx.run_script(&read_all(4), &["--background"]).success();
    let results = tool_results(&fx, &run_id_of(&assert.get_output().stderr));
    let summary = read_summary(&results[0]);
    assert!(summary["chars"].as_u64().unwrap() <= 20_000, "{summary}");
    assert_eq!(summary["notRead"], json!([3]));
}

#[test]
fn an_invalid_commit_mode_has_its_own_code() {
    let fx = Fixture::new();
    let script = json!({"turns": [
        write("output/main.md", "Hello."),
        commit("output/main.md", "merge"),
        finish(),
    ]});
    let assert = fx.run_script(&script, &["--background"]).success();
    let results = tool_results(&fx, &run_id_of(&assert.get_output().stderr));
    let refused = &results[1];
    assert_eq!(refused["isError"], true);
    assert_eq!(refused["errorCode"], "workspace.commit_mode_invalid");
    insta::assert_snapshot!("commit_mode_invalid", refused["content"].as_str().unwrap());
}

#[test]
fn arguments_that_are_json_but_not_an_object_say_what_they_are() {
    let fx = Fixture::new();
    let raw = |arguments: &str| json!({"tool_calls": [{"name": "workspace_list_files", "arguments": arguments}]});
    let script =
        json!({"turns": [raw("[1,2]"), raw("\"x\""), raw("3"), raw("{\"path\":"), finish()]});
    let assert = fx.run_script(&script, &["--background"]).success();
    let results = tool_results(&fx, &run_id_of(&assert.get_output().stderr));
    let errors: Vec<(String, String)> = results[..4]
        .iter()
        .map(|r| {
            (
                r["errorCode"].as_str().unwrap().to_owned(),
                r["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    insta::assert_debug_snapshot!("non_object_arguments", errors);
}
