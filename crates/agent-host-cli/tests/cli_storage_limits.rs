#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Storage limits and hazards as the binary shows them: long file names, and what a run
//! leaves in SillyTavern's chat folder.

mod cli_support;

use std::fs;

use cli_support::*;
use serde_json::{Value, json};

/// `output/<name>` with a name of exactly `bytes` bytes.
fn long_path(bytes: usize) -> String {
    format!("output/{}.md", "n".repeat(bytes - 3))
}

fn write_call(path: &str) -> Value {
    json!({"name": "workspace_write_file", "arguments": {"path": path, "content": "long"}})
}

#[test]
fn a_name_too_long_for_the_store_is_a_recoverable_tool_error() {
    let fx = Fixture::new();
    let script = json!({"turns": [
        {"tool_calls": [write_call(&long_path(218)), write_call(&long_path(250)),
                        write_call(&long_path(255)), write_call(&long_path(256))]},
        {"tool_calls": [{"name": "workspace_write_file",
                         "arguments": {"path": "output/main.md", "content": REPLY}}]},
        {"tool_calls": [{"name": "workspace_commit", "arguments": {}}]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {"reason": "done"}}]}
    ]});
    let assert = fx.run_script(&script, &[]).code(0);
    let run_id = run_id_of(assert.get_output().stderr.as_slice());
    let output = fx.run_dir(&run_id).join("output");
    for bytes in [218, 250, 255] {
        let name = &long_path(bytes)["output/".len()..];
        assert_eq!(fs::read_to_string(output.join(name)).unwrap(), "long");
    }
    let failed: Vec<Value> = fx
        .events_jsonl(&run_id)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event["type"] == "tool_call_failed")
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    let failure = failed[0]["payload"].to_string();
    assert!(failure.contains("workspace.invalid_path"), "{failure}");
    assert!(failure.contains("at most 255 bytes"), "{failure}");
    assert!(fx.chat_text().contains("Room three"));
}
