#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent doctor` on a deliberately broken data directory: every finding and its
//! code, a live run in another process left alone, then `doctor --fix` ending the run whose
//! process was killed (and `runs show` agreeing).

mod cli_support;

use std::fs;
use std::process::Stdio;

use cli_support::*;
use serde_json::Value;

const UNSET_KEY_ENV: &str = "TAVERN_DOCTOR_TEST_UNSET_KEY";
const STALE_TEMP: &str = ".tmp-0123456789abcdef-0123456789abcdef0123456789abcdef";

/// `(area, subject, code)` of every finding of a `doctor --json` report.
fn findings(report: &Value) -> Vec<(String, String, String)> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|check| {
            check["findings"].as_array().unwrap().iter().map(|f| {
                (
                    check["area"].as_str().unwrap().to_owned(),
                    f["subject"].as_str().unwrap().to_owned(),
                    f["code"].as_str().unwrap().to_owned(),
                )
            })
        })
        .collect()
}

fn doctor(fx: &Fixture, args: &[&str]) -> (i32, String) {
    let output = fx
        .cmd()
        .env_remove(UNSET_KEY_ENV)
        .arg("doctor")
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
    )
}

/// Waits until the run's journal has an event of type `kind`.
fn wait_for_event(fx: &Fixture, run: &str, kind: &str) {
    let needle = format!("\"type\":\"{kind}\"");
    for _ in 0..3000 {
        let events = fs::read_to_string(fx.run_dir(run).join("events.jsonl")).unwrap_or_default();
        if events.contains(&needle) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("run {run} never journaled {kind}");
}

/// Waits until the run is in its first model call (its root invocation is open).
fn wait_for_model_call(fx: &Fixture, run: &str) {
    wait_for_event(fx, run, "model_call_attempt_started");
}

#[test]
fn an_abandoned_run_that_committed_ends_as_a_partial_success() {
    let fx = Fixture::new();
    let script = serde_json::json!({"turns": [
        {"tool_calls": [{"name": "workspace_write_file",
                         "arguments": {"path": "output/main.md", "content": REPLY}}]},
        {"tool_calls": [{"name": "workspace_commit", "arguments": {}}]},
        {"delay_ms": 60000, "tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
    ]});
    let (mut killed, _, run) = spawn_scripted_run(&fx, &script, Stdio::null());
    wait_for_event(&fx, &run, "chat_commit_completed");
    wait_for_model_call_round(&fx, &run, 3);
    killed.kill().unwrap();
    killed.wait().unwrap();

    let (code, stdout) = doctor(&fx, &["--fix", "--json"]);
    assert_eq!(code, 0, "{stdout}");
    let fixed: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        fixed["fixed"]["runs"],
        serde_json::json!([{"runId": run, "status": "partial_success"}])
    );
    let events = fx.events_jsonl(&run);
    let last: Value = serde_json::from_str(events.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "run_partial_success");
    assert_eq!(last["payload"]["code"], "agent.run_abandoned");
    // Every commit the host confirmed is kept, with the round that made it.
    let confirmed: Vec<Value> = events
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event["type"] == "chat_commit_completed")
        .collect();
    assert!(!confirmed.is_empty());
    assert_eq!(last["payload"]["preservedCommitCount"], confirmed.len());
    let kept = last["payload"]["preservedCommits"].as_array().unwrap();
    for (kept, confirmed) in kept.iter().zip(&confirmed) {
        assert_eq!(kept["messageId"], confirmed["payload"]["messageId"]);
        assert!(kept["round"].as_u64().unwrap() >= 1, "{kept}");
    }
    assert_eq!(kept.last().unwrap()["round"], 2, "the explicit commit");
    assert!(fx.chat_text().contains("Room three"), "the message stays");
}

/// Waits until the run's model call of `round` has started.
fn wait_for_model_call_round(fx: &Fixture, run: &str, round: u32) {
    let needle = format!("\"round\":{round}");
    for _ in 0..3000 {
        let events = fs::read_to_string(fx.run_dir(run).join("events.jsonl")).unwrap_or_default();
        if events
            .lines()
            .any(|line| line.contains("model_call_attempt_started") && line.contains(&needle))
        {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("run {run} never started round {round}");
}

#[test]
fn doctor_finds_everything_wrong_and_fixes_the_abandoned_run() {
    let fx = Fixture::new();
    let ours = fx.path().join("_tauritavern");
    // A run whose process is killed mid-call: left non-terminal, its journal unlocked.
    let (mut killed, _, abandoned) = spawn_slow_run(&fx, Stdio::null());
    wait_for_model_call(&fx, &abandoned);
    killed.kill().unwrap();
    killed.wait().unwrap();
    // A run live in another process: never flagged, never touched.
    let (mut live, _live_stderr, live_id) = spawn_slow_run(&fx, Stdio::null());

    let profiles = ours.join("agent-profiles/profiles");
    fs::create_dir_all(&profiles).unwrap();
    fs::write(profiles.join("broken.json"), "{\"schemaVersion\": 3,").unwrap();
    fx.cmd()
        .args(["connections", "add", "keyless", "--format", "openai-chat"])
        .args(["--model", "m", "--base-url", "http://127.0.0.1:9/v1"])
        .args(["--api-key-env", UNSET_KEY_ENV])
        .assert()
        .code(0);
    let skill = ours.join("skills/installed/global/half-written");
    fs::create_dir_all(&skill).unwrap();
    fs::write(
        skill.join("SKILL.md"),
        "---\nname: half-written\ndescription: [unclosed\n---\n",
    )
    .unwrap();
    let header = r#"{"user_name":"Bob","character_name":"Alice","chat_metadata":{"integrity":"doctor-chat-0001"}}"#;
    let message = r#"{"name":"Bob","is_user":true,"mes":"Hi."}"#;
    fs::write(
        fx.path().join("chats/Alice/torn.jsonl"),
        format!("{header}\n{message}\n{{\"name\": \"Alice\", \"mes\n"),
    )
    .unwrap();
    fs::create_dir_all(fx.path().join("chats/Bob")).unwrap();
    fs::write(
        fx.path().join("chats/Bob/numbered.jsonl"),
        format!("{{\"chat_metadata\":{{\"integrity\":42}}}}\n{message}\n"),
    )
    .unwrap();
    let temp = ours.join("llm-connections").join(STALE_TEMP);
    fs::write(&temp, "half a connection").unwrap();

    let (code, stdout) = doctor(&fx, &["--json"]);
    assert_eq!(code, 1, "{stdout}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["healthy"], false);
    let found = findings(&report);
    let expected: Vec<(String, String, String)> = [
        (
            "layout",
            format!("_tauritavern/llm-connections/{STALE_TEMP}"),
            "doctor.stale_temp",
        ),
        (
            "profiles",
            "profile broken".to_owned(),
            "agent.profile_contract_invalid",
        ),
        (
            "connections",
            "connection keyless".to_owned(),
            "connection.api_key_missing",
        ),
        (
            "skills",
            "global/half-written".to_owned(),
            "skill.front_matter_invalid",
        ),
        (
            "chats",
            "chats/Alice/torn.jsonl".to_owned(),
            "agent.chat_message_invalid_json",
        ),
        (
            "chats",
            "chats/Bob/numbered.jsonl".to_owned(),
            "agent.invalid_chat_integrity",
        ),
        ("runs", format!("run {abandoned}"), "agent.run_abandoned"),
    ]
    .into_iter()
    .map(|(area, subject, code)| (area.to_owned(), subject, code.to_owned()))
    .collect();
    assert_eq!(found, expected, "{stdout}");
    let all: Vec<&Value> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|check| check["findings"].as_array().unwrap())
        .collect();
    // Every finding says what to do; the torn chat names its line, the key its variable.
    assert!(all.iter().all(|f| !f["fix"].as_str().unwrap().is_empty()));
    let torn = all
        .iter()
        .find(|f| f["subject"] == "chats/Alice/torn.jsonl")
        .unwrap();
    assert!(
        torn["message"].as_str().unwrap().contains("line 3"),
        "{torn}"
    );
    let keyless = all
        .iter()
        .find(|f| f["code"] == "connection.api_key_missing")
        .unwrap();
    assert!(keyless["message"].as_str().unwrap().contains(UNSET_KEY_ENV));
    assert!(keyless["fix"].as_str().unwrap().contains(UNSET_KEY_ENV));
    assert!(!stdout.contains(&live_id), "a live run is never flagged");

    // The human report: each finding with its fix.
    let (code, text) = doctor(&fx, &[]);
    assert_eq!(code, 1);
    assert!(
        text.contains(&format!("  agent.run_abandoned: run {abandoned}:")),
        "{text}"
    );
    assert!(text.contains("    fix: `tavern-agent doctor --fix` marks it failed"));

    // Checking changed nothing.
    assert!(temp.exists());
    let shown = |run: &str| -> Value {
        let out = fx
            .cmd()
            .args(["runs", "show", run, "--json"])
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    assert_ne!(shown(&abandoned)["status"], "failed");

    let (code, stdout) = doctor(&fx, &["--fix", "--json"]);
    let fixed: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(code, 1, "the profile, skill and chats still need a person");
    assert_eq!(
        fixed["fixed"]["runs"],
        serde_json::json!([{"runId": abandoned, "status": "failed"}])
    );
    assert_eq!(fixed["fixed"]["tempsRemoved"], 1);
    assert!(!temp.exists());
    let after: Vec<String> = findings(&fixed["after"])
        .into_iter()
        .map(|(area, _, code)| format!("{area} {code}"))
        .collect();
    assert!(!after.iter().any(|f| f.starts_with("runs")), "{after:?}");
    assert!(!after.iter().any(|f| f.starts_with("layout")), "{after:?}");

    let summary = shown(&abandoned);
    assert_eq!(summary["status"], "failed", "{summary}");
    assert_eq!(summary["error"]["code"], "agent.run_abandoned", "{summary}");
    let events = fx.events_jsonl(&abandoned);
    let last: Value = serde_json::from_str(events.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "run_failed");
    assert_eq!(last["payload"]["code"], "agent.run_abandoned");
    assert!(
        events.contains("agent_invocation_failed"),
        "the open root invocation ends too"
    );

    // The live run was left alone: still running, its journal not ended by the doctor.
    assert!(live.try_wait().unwrap().is_none());
    assert!(
        !shown(&live_id)["status"]
            .as_str()
            .unwrap()
            .contains("failed")
    );
    live.kill().unwrap();
    live.wait().unwrap();
}
