#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent runs …` against the data directory of a finished run.

mod cli_support;

use cli_support::*;
use predicates::str::contains;
use serde_json::Value;

fn finished_run() -> (Fixture, String) {
    let fx = Fixture::new();
    let assert = fx.run_script(&completing_script(), &[]).code(0);
    let run_id = run_id_of(assert.get_output().stderr.as_slice());
    (fx, run_id)
}

fn json_of(assert: &assert_cmd::assert::Assert) -> Value {
    serde_json::from_str(&stdout_of(assert)).unwrap()
}

fn seqs(stdout: &str) -> Vec<u64> {
    stdout
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap()["seq"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

#[test]
fn runs_list_shows_the_run_and_filters() {
    let (fx, run_id) = finished_run();
    let list = json_of(&fx.cmd().args(["runs", "list", "--json"]).assert().code(0));
    assert_eq!(list["next"], Value::Null);
    let runs = list["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["id"], run_id.as_str());
    assert_eq!(runs[0]["status"], "completed");
    assert_eq!(runs[0]["chatRef"]["characterId"], "Alice");

    fx.cmd()
        .args(["runs", "list"])
        .assert()
        .code(0)
        .stdout(contains(run_id.as_str()))
        .stdout(contains("completed"))
        .stdout(contains("Alice/chat.jsonl"));

    let none = json_of(
        &fx.cmd()
            .args([
                "runs",
                "list",
                "--status",
                "failed",
                "--status",
                "cancelled",
                "--json",
            ])
            .assert()
            .code(0),
    );
    assert_eq!(none["runs"], serde_json::json!([]));
    let by_chat = json_of(
        &fx.cmd()
            .args(["runs", "list", "--chat", CHAT, "--limit", "5", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(by_chat["runs"].as_array().unwrap().len(), 1);
    let other_chat = json_of(
        &fx.cmd()
            .args(["runs", "list", "--chat", "Bob/other.jsonl", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(other_chat["runs"], serde_json::json!([]));
    fx.cmd()
        .args(["runs", "list", "--status", "sideways"])
        .assert()
        .code(2);
}

#[test]
fn runs_list_pages_with_a_cursor() {
    let (fx, first) = finished_run();
    let assert = fx.run_script(&completing_script(), &[]).code(0);
    let second = run_id_of(assert.get_output().stderr.as_slice());
    let page = |extra: &[&str]| {
        let mut args = vec!["runs", "list", "--limit", "1", "--json"];
        args.extend_from_slice(extra);
        json_of(&fx.cmd().args(&args).assert().code(0))
    };
    let newest = page(&[]);
    assert_eq!(newest["runs"][0]["id"], second.as_str());
    assert_eq!(newest["next"], second.as_str());
    let older = page(&["--before", &second]);
    assert_eq!(older["runs"][0]["id"], first.as_str());
    assert_eq!(older["next"], Value::Null);
    fx.cmd()
        .args(["runs", "list", "--limit", "1"])
        .assert()
        .code(0)
        .stdout(contains(format!("more: runs list --before {second}")));
    // Filters hold across pages: no completed run is older than the first.
    let done = page(&["--before", &first, "--status", "completed"]);
    assert_eq!(done["runs"], serde_json::json!([]));
    for bad in ["nonsense", "run_00000000000000000000000000"] {
        fx.cmd()
            .args(["runs", "list", "--before", bad, "--json"])
            .assert()
            .code(2)
            .stderr(contains("agent.run_history_cursor_invalid"));
    }
}

#[test]
fn runs_events_pages_and_follows() {
    let (fx, run_id) = finished_run();
    let journal = fx.events_jsonl(&run_id);
    let all = fx
        .cmd()
        .args(["runs", "events", &run_id, "--limit", "500", "--json"])
        .assert()
        .code(0);
    assert_eq!(stdout_of(&all), journal);

    let after = fx
        .cmd()
        .args([
            "runs",
            "events",
            &run_id,
            "--after-seq",
            "3",
            "--limit",
            "2",
            "--json",
        ])
        .assert()
        .code(0);
    assert_eq!(seqs(&stdout_of(&after)), vec![4, 5]);
    let before = fx
        .cmd()
        .args([
            "runs",
            "events",
            &run_id,
            "--before-seq",
            "5",
            "--limit",
            "2",
            "--json",
        ])
        .assert()
        .code(0);
    assert_eq!(seqs(&stdout_of(&before)), vec![3, 4]);

    // Following a finished run prints everything and stops at its terminal event.
    let follow = fx
        .cmd()
        .args(["runs", "events", &run_id, "--follow", "--json"])
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(0);
    assert_eq!(stdout_of(&follow), journal);

    // Human lines: seq, time, level, type.
    fx.cmd()
        .args(["runs", "events", &run_id, "--limit", "3"])
        .assert()
        .code(0)
        .stdout(contains("run_created"));

    fx.cmd()
        .args([
            "runs",
            "events",
            &run_id,
            "--before-seq",
            "5",
            "--after-seq",
            "1",
        ])
        .assert()
        .code(2);
}

#[test]
fn runs_show_summarises_the_run() {
    let (fx, run_id) = finished_run();
    let summary = json_of(
        &fx.cmd()
            .args(["runs", "show", &run_id, "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(summary["runId"], run_id.as_str());
    assert_eq!(summary["status"], "completed");
    assert_eq!(summary["modelRounds"], 3);
    assert_eq!(summary["toolCalls"], 3);
    fx.cmd()
        .args(["runs", "show", &run_id])
        .assert()
        .code(0)
        .stdout(contains("completed"))
        .stdout(contains("Alice/chat.jsonl"));
}

#[test]
fn runs_file_prints_a_workspace_file() {
    let (fx, run_id) = finished_run();
    let file = fx
        .cmd()
        .args(["runs", "file", &run_id, "output/main.md"])
        .assert()
        .code(0);
    assert_eq!(stdout_of(&file), REPLY);
    let record = json_of(
        &fx.cmd()
            .args(["runs", "file", &run_id, "output/main.md", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(record["text"], REPLY);
    assert_eq!(record["path"], "output/main.md");
    fx.cmd()
        .args(["runs", "file", &run_id, "../run.json"])
        .assert()
        .code(2);
    fx.cmd()
        .args(["runs", "file", &run_id, "output/nothing.md"])
        .assert()
        .code(2);
}

/// The seq of the first journal event of `kind` (about `call` when given) after `after`.
fn seq_of(events: &[Value], kind: &str, call: Option<&str>, after: u64) -> u64 {
    events
        .iter()
        .find(|event| {
            event["type"] == kind
                && event["seq"].as_u64().unwrap() > after
                && call.is_none_or(|call| event["payload"]["callId"] == call)
        })
        .unwrap_or_else(|| panic!("no {kind} event"))["seq"]
        .as_u64()
        .unwrap()
}

#[test]
fn runs_file_at_seq_prints_the_file_as_it_stood_at_that_event() {
    const DRAFT: &str = "A first draft of the keeper.";
    let fx = Fixture::new();
    let write = |id: &str, text: &str| {
        serde_json::json!({"tool_calls": [{"id": id, "name": "workspace_write_file",
            "arguments": {"path": "output/main.md", "content": text}}]})
    };
    let script = serde_json::json!({"turns": [
        write("call_draft", DRAFT),
        write("call_final", REPLY),
        {"tool_calls": [{"name": "workspace_commit", "arguments": {}}]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {"reason": "done"}}]}
    ]});
    let ran = fx.run_script(&script, &[]).code(0);
    let run_id = run_id_of(ran.get_output().stderr.as_slice());
    let events = fx
        .cmd()
        .args(["runs", "events", &run_id, "--limit", "500", "--json"])
        .assert()
        .code(0);
    let events: Vec<Value> = stdout_of(&events)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let draft_started = seq_of(&events, "tool_call_started", Some("call_draft"), 0);
    let draft_done = seq_of(&events, "tool_call_completed", Some("call_draft"), 0);
    let first_write = seq_of(&events, "workspace_file_written", None, 0);
    let second_write = seq_of(&events, "workspace_file_written", None, first_write);
    let file_at = |seq: u64| {
        let assert = fx
            .cmd()
            .args(["runs", "file", &run_id, "output/main.md", "--at-seq"])
            .arg(seq.to_string())
            .assert()
            .code(0);
        stdout_of(&assert)
    };
    assert_eq!(
        file_at(draft_done),
        DRAFT,
        "a write tool's result shows its write"
    );
    assert_eq!(file_at(first_write), DRAFT);
    assert_eq!(file_at(second_write - 1), REPLY, "the second call's result");
    assert_eq!(file_at(second_write), REPLY);

    let record = json_of(
        &fx.cmd()
            .args([
                "runs",
                "file",
                &run_id,
                "output/main.md",
                "--json",
                "--at-seq",
            ])
            .arg(first_write.to_string())
            .assert()
            .code(0),
    );
    assert_eq!(record["text"], DRAFT);
    assert_eq!(record["atSeq"], first_write);
    assert_eq!(record["checkpointId"], "cp_000001");
    assert_eq!(record["checkpointEventSeq"], first_write);
    assert_eq!(record["bytes"], DRAFT.len());

    fx.cmd()
        .args(["runs", "file", &run_id, "output/main.md", "--at-seq"])
        .arg(draft_started.to_string())
        .assert()
        .code(2)
        .stderr(predicates::str::starts_with(
            "error: workspace.file_not_found",
        ));
    let refused = fx
        .cmd()
        .args([
            "runs",
            "file",
            &run_id,
            "output/main.md",
            "--json",
            "--at-seq",
            "1",
        ])
        .assert()
        .code(2);
    let refused: Value = serde_json::from_slice(&refused.get_output().stderr).unwrap();
    assert_eq!(refused["code"], "workspace.file_not_found");
    fx.cmd()
        .args(["runs", "file", &run_id, "input/x.json", "--at-seq", "1"])
        .assert()
        .code(2)
        .stderr(predicates::str::starts_with(
            "error: workspace.path_not_visible",
        ));
    fx.cmd()
        .args(["runs", "file", &run_id, "output/main.md", "--at-seq", "x"])
        .assert()
        .code(2);
}

#[test]
fn runs_turn_shows_a_model_round() {
    let (fx, run_id) = finished_run();
    let turn = json_of(
        &fx.cmd()
            .args(["runs", "turn", &run_id, "1", "--json"])
            .assert()
            .code(0),
    );
    assert!(turn.is_object(), "{turn}");
    fx.cmd()
        .args(["runs", "turn", &run_id, "1"])
        .assert()
        .code(0)
        .stdout(contains("workspace"));
}

#[test]
fn unknown_runs_exit_2() {
    let (fx, _) = finished_run();
    let unknown = "run_00000000000000000000000000000000";
    for args in [
        vec!["runs", "show", unknown],
        vec!["runs", "events", unknown],
        vec!["runs", "events", unknown, "--follow"],
        vec!["runs", "file", unknown, "output/main.md"],
        vec!["runs", "turn", unknown, "1"],
        vec!["runs", "cancel", unknown],
        vec!["runs", "show", "not a run id"],
    ] {
        fx.cmd().args(&args).assert().code(2);
    }
}

#[test]
fn a_run_driven_elsewhere_is_followed_and_cancelled() {
    use std::process::{Command, Stdio};

    let fx = Fixture::new();
    // Keep the child's stderr open (dropping the reader would close its pipe).
    let (mut child, _stderr, run_id) = spawn_slow_run(&fx, Stdio::null());

    let follower = Command::new(bin())
        .arg("--data-dir")
        .arg(fx.path())
        .args(["runs", "events", &run_id, "--follow", "--json"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let cancel = fx
        .cmd()
        .args(["runs", "cancel", &run_id, "--json"])
        .assert()
        .code(0);
    assert_eq!(json_of(&cancel)["status"], "cancelling");

    assert_eq!(child.wait().unwrap().code(), Some(130));
    let followed = follower.wait_with_output().unwrap();
    assert_eq!(followed.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(followed.stdout).unwrap(),
        fx.events_jsonl(&run_id)
    );
    // Cancelling a run that ended reports its status.
    fx.cmd()
        .args(["runs", "cancel", &run_id])
        .assert()
        .code(0)
        .stdout(contains("cancelled"));
}
