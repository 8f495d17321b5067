#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent run`: every exit status, the timeline and the `--json` stream.

mod cli_support;

use std::process::{Command, Stdio};
use std::time::Duration;

use cli_support::*;
use predicates::str::contains;
use serde_json::{Value, json};

#[test]
fn a_completed_run_prints_its_message_and_exits_0() {
    let fx = Fixture::new();
    let assert = fx.run_script(&completing_script(), &[]).code(0);
    let stdout = stdout_of(&assert);
    let stderr = stderr_of(&assert);
    assert_eq!(stdout.trim_end(), REPLY);
    let run_id = run_id_of(assert.get_output().stderr.as_slice());
    assert!(stderr.starts_with(&format!("run: {run_id}\n")), "{stderr}");
    // The timeline: rounds, tool calls with their arguments, the commit, the final line.
    assert!(stderr.contains("round 1"), "{stderr}");
    assert!(stderr.contains("✓ workspace.write_file"), "{stderr}");
    assert!(stderr.contains(r#"path="output/main.md""#), "{stderr}");
    assert!(stderr.contains("✓ workspace.commit"), "{stderr}");
    assert!(
        stderr.contains("committed output/main.md to the chat"),
        "{stderr}"
    );
    assert!(
        stderr.contains("completed · 3 rounds · 3 tool calls"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("\x1b["),
        "no colours off a terminal: {stderr}"
    );
    // The message is in the chat.
    assert!(fx.chat_text().contains("Room three"));
    assert_eq!(fx.run_ids(), vec![run_id]);
}

#[test]
fn json_mode_prints_the_journal_byte_for_byte() {
    let fx = Fixture::new();
    let assert = fx.run_script(&completing_script(), &["--json"]).code(0);
    let run_id = run_id_of(assert.get_output().stderr.as_slice());
    let stdout = stdout_of(&assert);
    let journal = fx.events_jsonl(&run_id);
    assert_eq!(stdout, journal);
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "run_completed");
    assert_eq!(last["runId"], run_id.as_str());
    let first: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["seq"], 1);
}

#[test]
fn quiet_mode_prints_only_the_committed_message() {
    let fx = Fixture::new();
    let assert = fx.run_script(&completing_script(), &["--quiet"]).code(0);
    assert_eq!(stdout_of(&assert).trim_end(), REPLY);
    assert_eq!(
        stderr_of(&assert),
        "",
        "no run line, timeline or status line"
    );
    assert_eq!(fx.run_ids().len(), 1);
    fx.run_script(&completing_script(), &["--quiet", "--json"])
        .code(2);
}

#[test]
fn a_failure_after_a_commit_is_a_partial_success_exit_3() {
    let fx = Fixture::new();
    let assert = fx.run_script(&partial_script(), &[]).code(3);
    let stderr = stderr_of(&assert);
    assert!(stderr.contains("model.provider_error"), "{stderr}");
    assert!(stderr.contains("partial_success"), "{stderr}");
    // The committed message stays in the chat and is printed.
    assert_eq!(stdout_of(&assert).trim_end(), REPLY);
    assert!(fx.chat_text().contains("Room three"));
}

#[test]
fn a_failure_before_any_commit_exits_4() {
    let fx = Fixture::new();
    let assert = fx.run_script(&failing_script(), &[]).code(4);
    let stderr = stderr_of(&assert);
    assert!(
        stderr.contains("run failed: model.provider_error"),
        "{stderr}"
    );
    assert!(stderr.contains("failed · 1 round"), "{stderr}");
    assert_eq!(stdout_of(&assert), "");
    assert_eq!(fx.run_ids().len(), 1);
}

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP all cancel the run cleanly: it ends
/// `run_cancelled` with a whole journal, and the command exits 130.
#[cfg(unix)]
#[test]
fn ctrl_c_sigterm_and_sighup_cancel_the_run_and_exit_130() {
    for signal in ["INT", "TERM", "HUP"] {
        let fx = Fixture::new();
        let (mut child, mut stderr, run_id) = spawn_slow_run(&fx, Stdio::piped());
        // Let the run reach its (slow) model call.
        std::thread::sleep(Duration::from_millis(500));
        let kill = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let status = child.wait().unwrap();
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
        assert_eq!(
            status.code(),
            Some(130),
            "SIG{signal}: run {run_id}, stderr: {rest}"
        );
        assert!(rest.contains("cancelled"), "SIG{signal}: {rest}");
        let journal = fx.events_jsonl(&run_id);
        let events: Vec<Value> = journal
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
        let expected: Vec<u64> = (1..=seqs.len() as u64).collect();
        assert_eq!(seqs, expected, "SIG{signal}: seqs without gaps");
        assert!(journal.ends_with('\n'), "SIG{signal}: no torn last line");
        let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert!(
            types.contains(&"run_cancel_requested"),
            "SIG{signal}: {types:?}"
        );
        assert_eq!(types.last(), Some(&"run_cancelled"), "SIG{signal}");
        let shown = fx
            .cmd()
            .args(["runs", "show", &run_id, "--json"])
            .assert()
            .code(0);
        let summary: Value = serde_json::from_str(&stdout_of(&shown)).unwrap();
        assert_eq!(summary["status"], "cancelled", "SIG{signal}");
    }
}

#[test]
fn bad_arguments_exit_2_and_create_no_run() {
    let fx = Fixture::new();
    let script = fx.write_json("script.json", &completing_script());
    let script = script.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        // clap: unknown flag, conflicting flags, bad generation type.
        (vec!["run", "--chat", CHAT, "--frobnicate"], "--frobnicate"),
        (
            vec![
                "run",
                "--chat",
                CHAT,
                "--script",
                script,
                "--connection",
                "x",
            ],
            "cannot be used with",
        ),
        (
            vec![
                "run",
                "--chat",
                CHAT,
                "--script",
                script,
                "--generation-type",
                "sideways",
            ],
            "sideways",
        ),
        // Unknown profile.
        (
            vec![
                "run",
                "--chat",
                CHAT,
                "--script",
                script,
                "--profile",
                "nobody",
            ],
            "nobody",
        ),
        // No model: the default profile takes its model from the command line.
        (vec!["run", "--chat", CHAT], "--script FILE"),
        // Missing chat, and a path outside the chats folder.
        (
            vec!["run", "--chat", "Alice/missing.jsonl", "--script", script],
            "chat",
        ),
        (
            vec!["run", "--chat", "../x.jsonl", "--script", script],
            "..",
        ),
        // Missing script.
        (
            vec![
                "run",
                "--chat",
                CHAT,
                "--script",
                "/nonexistent/script.json",
            ],
            "script",
        ),
        // Unknown connection.
        (
            vec!["run", "--chat", CHAT, "--connection", "nope"],
            "connection.not_found: no connection `nope`",
        ),
        // Missing prompt snapshot.
        (
            vec![
                "run",
                "--chat",
                CHAT,
                "--script",
                script,
                "--prompt-snapshot",
                "/nonexistent.json",
            ],
            "nonexistent",
        ),
    ];
    for (args, needle) in cases {
        let assert = fx.cmd().args(&args).assert().code(2);
        let stderr = stderr_of(&assert);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(
            !stderr.lines().any(|line| line.starts_with("run: ")),
            "{args:?} started a run: {stderr}"
        );
    }
    assert!(fx.run_ids().is_empty(), "{:?}", fx.run_ids());
}

#[test]
fn an_invalid_script_exits_2_with_its_location() {
    let fx = Fixture::new();
    let bad = json!({"turns": [{"tool_calls": [{"nme": "workspace_finish"}]}]});
    fx.run_script(&bad, &[])
        .code(2)
        .stderr(contains("turns[0].tool_calls[0]"));
    let empty_turn = json!({"turns": [{"delay_ms": 5}]});
    fx.run_script(&empty_turn, &[]).code(2);
    assert!(fx.run_ids().is_empty());
}

#[test]
fn a_broken_connection_file_is_refused_with_exit_2() {
    let fx = Fixture::new();
    let dir = fx.path().join("_tauritavern/llm-connections");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("openai.json"), "{}").unwrap();
    fx.cmd()
        .args(["run", "--chat", CHAT, "--connection", "openai"])
        .assert()
        .code(2)
        .stderr(contains("connection `openai`"));
    assert!(fx.run_ids().is_empty());
}

#[test]
fn a_prompt_snapshot_that_streams_is_refused_with_exit_2() {
    let fx = Fixture::new();
    let snapshot = fx.write_json(
        "snapshot.json",
        &json!({"chatCompletionPayload": {"messages": [{"role": "user", "content": "hi"}], "stream": true}}),
    );
    let script = fx.write_json("script.json", &completing_script());
    fx.cmd()
        .args(["run", "--chat", CHAT, "--script"])
        .arg(&script)
        .arg("--prompt-snapshot")
        .arg(&snapshot)
        .assert()
        .code(2)
        .stderr(contains("agent.phase2b_stream_unsupported"));
    assert!(fx.run_ids().is_empty());
}

#[test]
fn the_data_dir_comes_from_the_environment() {
    let fx = Fixture::new();
    let script = fx.write_json("script.json", &completing_script());
    assert_cmd::Command::new(bin())
        .env("TAVERN_AGENT_DATA_DIR", fx.path())
        .args(["run", "--chat", CHAT, "--script"])
        .arg(&script)
        .assert()
        .code(0);
    assert_eq!(fx.run_ids().len(), 1);
}

#[test]
fn durability_comes_from_the_flag_or_the_environment() {
    let fx = Fixture::new();
    fx.run_script(&completing_script(), &["--durability", "strict"])
        .code(0);
    let script = fx.write_json("script.json", &completing_script());
    fx.cmd()
        .env("TAVERN_AGENT_DURABILITY", "normal")
        .args(["run", "--chat", CHAT, "--script"])
        .arg(&script)
        .assert()
        .code(0);
    assert_eq!(fx.run_ids().len(), 2);

    let bad_flag = fx
        .cmd()
        .args(["--durability", "full", "runs", "list"])
        .assert()
        .code(2);
    assert!(stderr_of(&bad_flag).contains("storage.durability_invalid"));
    let bad_env = fx
        .cmd()
        .env("TAVERN_AGENT_DURABILITY", "full")
        .args(["runs", "list"])
        .assert()
        .code(2);
    assert!(stderr_of(&bad_env).contains("storage.durability_invalid"));
    assert_eq!(fx.run_ids().len(), 2);
}
