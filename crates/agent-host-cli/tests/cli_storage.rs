#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Storage limits and hazards as the binary shows them: long file names, and many runs of one
//! chat finishing at once.

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

/// Names in `dir`, sorted; none when it does not exist.
fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|entry| entry.unwrap().file_name().into_string().unwrap())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn runs_of_one_chat_finishing_at_once_all_complete_and_leave_nothing_behind() {
    const RUNS: usize = 8;
    let fx = Fixture::new();
    let scripts: Vec<_> = (0..RUNS)
        .map(|i| {
            let script = json!({"turns": [
                {"tool_calls": [
                    {"name": "workspace_write_file",
                     "arguments": {"path": "persist/notes.md", "content": format!("run {i}")}},
                    {"name": "workspace_write_file",
                     "arguments": {"path": "output/main.md", "content": REPLY}}]},
                {"tool_calls": [{"name": "workspace_commit", "arguments": {}}]},
                {"tool_calls": [{"name": "workspace_finish", "arguments": {"reason": "done"}}]}
            ]});
            fx.write_json(&format!("script-{i}.json"), &script)
        })
        .collect();
    let children: Vec<_> = scripts
        .iter()
        .map(|script| {
            std::process::Command::new(bin())
                .env_remove("TAVERN_AGENT_DATA_DIR")
                .env("NO_COLOR", "1")
                .arg("--data-dir")
                .arg(fx.path())
                // In the background, so the runs' single commits are new replies: a
                // foreground run's auto-published draft would be revised by its commit,
                // which fails once another run has replied after it.
                .args(["run", "--background", "--chat", CHAT, "--script"])
                .arg(script)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        assert!(
            !stderr.contains("persist/ copy was not refreshed"),
            "{stderr}"
        );
    }
    let chats = fx.path().join("_tauritavern/agent-workspaces/chats");
    let workspaces = names_in(&chats);
    assert_eq!(workspaces.len(), 1);
    let workspace = chats.join(&workspaces[0]);
    let left = names_in(&workspace);
    assert_eq!(
        left,
        [
            ".persist.lock",
            ".persist.state.json",
            "persist",
            "persistent-states",
            "runs"
        ]
    );
    assert_eq!(names_in(&workspace.join("persistent-states")).len(), RUNS);
    let notes = fs::read_to_string(workspace.join("persist/notes.md")).unwrap();
    assert!(notes.starts_with("run "), "{notes}");
    assert_eq!(fx.chat_text().matches("Room three").count(), RUNS * 2);
    assert_eq!(names_in(&fx.path().join("chats/Alice")), ["chat.jsonl"]);
    assert_eq!(
        names_in(&fx.path().join("_tauritavern/agent-workspaces/.staging")),
        Vec::<String>::new(),
        "every writer removed its staging folder when it ended"
    );
}
