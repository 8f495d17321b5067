#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent demo`: offline, on bundled data, in a temporary data directory it keeps.

mod cli_support;

use std::path::PathBuf;

use cli_support::*;

#[test]
fn the_demo_runs_the_whole_loop_and_keeps_its_data() {
    let tmp = tempfile::tempdir().unwrap();
    let assert = assert_cmd::Command::new(bin())
        .env("TMPDIR", tmp.path())
        .env("NO_COLOR", "1")
        .env_remove("TAVERN_AGENT_DATA_DIR")
        .arg("demo")
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(0);
    let stdout = stdout_of(&assert);
    let stderr = stderr_of(&assert);
    // The committed message on stdout.
    assert!(stdout.contains("Seraphina"), "{stdout}");
    // The timeline, the outcome and where the data is.
    assert!(stderr.contains("✓ workspace.commit"), "{stderr}");
    assert!(stderr.contains("completed · "), "{stderr}");
    let dir = stderr
        .lines()
        .find_map(|line| line.strip_prefix("demo data directory: "))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no data directory in:\n{stderr}"));
    assert!(dir.starts_with(tmp.path()), "{}", dir.display());
    let chat = std::fs::read_to_string(dir.join("chats/Seraphina/Forest Meeting.jsonl")).unwrap();
    let last = chat.lines().last().unwrap();
    assert!(last.contains("tarnished coins"), "{last}");

    // The kept data directory answers the other commands.
    let run_id = run_id_of(assert.get_output().stderr.as_slice());
    let file = assert_cmd::Command::new(bin())
        .arg("--data-dir")
        .arg(&dir)
        .args(["runs", "file", &run_id, "output/main.md"])
        .assert()
        .code(0);
    assert_eq!(stdout_of(&file).trim_end(), stdout.trim_end());

    // The example MCP registration is there, never started: no catalog was listed.
    let shown = assert_cmd::Command::new(bin())
        .arg("--data-dir")
        .arg(&dir)
        .args(["mcp", "show", "notes", "--json"])
        .assert()
        .code(0);
    let shown: serde_json::Value = serde_json::from_str(&stdout_of(&shown)).unwrap();
    assert_eq!(shown["server"]["displayName"], "notes", "{shown}");
    assert!(shown["catalog"].is_null(), "{shown}");
    assert!(
        !dir.join("_tauritavern/mcp/catalogs").exists(),
        "the demo must not start its MCP server"
    );
}

#[test]
fn the_multi_agent_demo_delegates_awaits_and_hands_off() {
    let tmp = tempfile::tempdir().unwrap();
    let assert = assert_cmd::Command::new(bin())
        .env("TMPDIR", tmp.path())
        .env("NO_COLOR", "1")
        .env_remove("TAVERN_AGENT_DATA_DIR")
        .args(["demo", "--multi-agent"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(0);
    let stderr = stderr_of(&assert);
    assert!(stderr.contains("profile lead-writer (saved)"), "{stderr}");
    assert_eq!(
        stderr.matches("→ researcher delegated task").count(),
        2,
        "{stderr}"
    );
    assert!(stderr.contains("awaited 2 task(s)"), "{stderr}");
    assert!(stderr.contains("→ editor takes over the run"), "{stderr}");
    assert!(stderr.contains("[editor]   ✓ workspace.finish"), "{stderr}");
    let dir = stderr
        .lines()
        .find_map(|line| line.strip_prefix("demo data directory: "))
        .map(PathBuf::from)
        .unwrap();
    let chat = std::fs::read_to_string(dir.join("chats/Seraphina/Forest Meeting.jsonl")).unwrap();
    assert!(chat.lines().last().unwrap().contains("tarnished coins"));
    let run_id = run_id_of(assert.get_output().stderr.as_slice());
    let shown = assert_cmd::Command::new(bin())
        .arg("--data-dir")
        .arg(&dir)
        .args(["runs", "show", &run_id, "--json"])
        .assert()
        .code(0);
    let shown: serde_json::Value = serde_json::from_str(&stdout_of(&shown)).unwrap();
    assert_eq!(shown["status"], "completed");
    let tasks = shown["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 3);
    assert!(
        tasks.iter().all(|t| t["status"] == "completed"),
        "{tasks:?}"
    );
    let kinds: Vec<&str> = shown["invocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.iter().filter(|k| **k == "subagent").count(), 2);
    assert_eq!(kinds.iter().filter(|k| **k == "handoff").count(), 1);
}
