#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent retention …` and the automatic prune after a run, over real runs, with
//! other processes holding runs and the data directory.

mod cli_support;

use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use cli_support::*;
use predicates::str::contains;
use serde_json::{Value, json};

fn json_of(assert: &assert_cmd::assert::Assert) -> Value {
    serde_json::from_str(&stdout_of(assert)).unwrap()
}

fn workspaces(fx: &Fixture) -> PathBuf {
    fx.path().join("_tauritavern/agent-workspaces")
}

/// Runs `count` completing runs one after the other; their ids, oldest first.
fn finished_runs(fx: &Fixture, count: usize) -> Vec<String> {
    (0..count)
        .map(|_| {
            let assert = fx.run_script(&completing_script(), &[]).code(0);
            run_id_of(assert.get_output().stderr.as_slice())
        })
        .collect()
}

fn set(fx: &Fixture, key: &str, value: &str) {
    fx.cmd()
        .args(["retention", "set", key, value])
        .assert()
        .code(0);
}

/// Every file under the run's folder, relative, sorted.
fn files_of(dir: &std::path::Path) -> Vec<String> {
    fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.push(
                    path.strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn settings_are_shown_set_and_validated_beside_the_other_settings() {
    let fx = Fixture::new();
    let shown = json_of(
        &fx.cmd()
            .args(["retention", "show", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(
        shown,
        json!({"auto_prune_enabled": false, "keep_recent_terminal_runs": 100, "keep_full_recent_runs": 20})
    );
    let settings_file = fx.path().join("_tauritavern/settings.json");
    fs::create_dir_all(settings_file.parent().unwrap()).unwrap();
    fs::write(&settings_file, r#"{"theme": "dark"}"#).unwrap();
    set(&fx, "keep_full_recent_runs", "2");
    set(&fx, "keep_recent_terminal_runs", "5");
    let saved: Value = serde_json::from_str(&fs::read_to_string(&settings_file).unwrap()).unwrap();
    assert_eq!(saved["theme"], "dark", "other settings are kept");
    assert_eq!(saved["agent"]["retention"]["keep_recent_terminal_runs"], 5);
    assert_eq!(saved["agent"]["retention"]["keep_full_recent_runs"], 2);
    fx.cmd()
        .args(["retention", "show"])
        .assert()
        .code(0)
        .stdout(contains("keep_recent_terminal_runs"))
        .stdout(contains("5"));

    let refused = |key: &str, value: &str, code: &str| {
        fx.cmd()
            .args(["retention", "set", key, value])
            .assert()
            .code(2)
            .stderr(contains(code));
    };
    refused(
        "keep_full_recent_runs",
        "6",
        "agent.retention_keep_full_recent_runs_invalid",
    );
    refused(
        "keep_recent_terminal_runs",
        "1",
        "agent.retention_keep_full_recent_runs_invalid",
    );
    refused(
        "keep_recent_terminal_runs",
        "10001",
        "agent.retention_keep_recent_terminal_runs_invalid",
    );
    refused(
        "keep_recent_terminal_runs",
        "-1",
        "agent.retention_keep_recent_terminal_runs_invalid",
    );
    refused(
        "auto_prune_enabled",
        "yes",
        "agent.retention_auto_prune_enabled_invalid",
    );
    refused("keep_everything", "1", "agent.retention_setting_unknown");
    let unchanged: Value =
        serde_json::from_str(&fs::read_to_string(&settings_file).unwrap()).unwrap();
    assert_eq!(unchanged, saved, "a refused value changes nothing");

    fs::write(
        &settings_file,
        r#"{"agent": {"retention": {"keep_full_recent_runs": "x"}}}"#,
    )
    .unwrap();
    fx.cmd()
        .args(["retention", "plan", "--json"])
        .assert()
        .code(2)
        .stderr(contains("agent.retention_keep_full_recent_runs_invalid"));
}

#[test]
fn apply_slims_and_deletes_finished_runs_and_a_slimmed_run_still_reads() {
    let fx = Fixture::new();
    let runs = finished_runs(&fx, 3);
    let (oldest, middle, newest) = (&runs[0], &runs[1], &runs[2]);
    set(&fx, "keep_full_recent_runs", "1");
    set(&fx, "keep_recent_terminal_runs", "2");
    let states = |fx: &Fixture| -> usize {
        let chats = workspaces(fx).join("chats");
        fs::read_dir(chats)
            .unwrap()
            .map(|ws| {
                let dir = ws.unwrap().path().join("persistent-states");
                fs::read_dir(dir).map_or(0, |entries| entries.count())
            })
            .sum()
    };
    let states_before = states(&fx);
    assert!(states_before >= 3, "every completed run promoted a state");

    let plan = json_of(
        &fx.cmd()
            .args(["retention", "plan", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(plan["totals"]["scannedRuns"], 3);
    assert_eq!(plan["totals"]["keptRuns"], 1);
    assert_eq!(plan["totals"]["slimRuns"], 1);
    assert_eq!(plan["totals"]["deleteRuns"], 1);
    assert_eq!(plan["candidates"][0]["runId"], middle.as_str());
    assert_eq!(plan["candidates"][0]["action"], "slim_heavy_artifacts");
    assert_eq!(plan["candidates"][1]["runId"], oldest.as_str());
    assert_eq!(plan["candidates"][1]["action"], "delete_run");
    assert!(fx.run_dir(oldest).is_dir(), "a plan changes nothing");

    let applied = json_of(
        &fx.cmd()
            .args(["retention", "apply", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(applied["slimmedRuns"], 1);
    assert_eq!(applied["deletedRuns"], 1);
    assert_eq!(applied["failedRuns"], json!([]));
    assert_eq!(
        applied["removedBytes"],
        json!(
            plan["totals"]["slimBytes"].as_u64().unwrap()
                + plan["totals"]["deleteBytes"].as_u64().unwrap()
        )
    );

    assert_eq!(fx.run_ids(), {
        let mut left = vec![middle.clone(), newest.clone()];
        left.sort();
        left
    });
    assert!(
        !workspaces(&fx)
            .join(format!("index/run-summaries/{oldest}.json"))
            .exists()
    );
    assert_eq!(files_of(&fx.run_dir(middle)), ["events.jsonl", "run.json"]);
    assert!(
        files_of(&fx.run_dir(newest)).len() > 2,
        "the full window keeps everything"
    );
    assert_eq!(
        states(&fx),
        states_before,
        "persistent states are never pruned"
    );

    let shown = json_of(
        &fx.cmd()
            .args(["runs", "show", middle, "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(shown["status"], "completed");
    assert!(shown["slimmed"]["removedFiles"].as_u64().unwrap() > 0);
    fx.cmd()
        .args(["runs", "show", middle])
        .assert()
        .code(0)
        .stdout(contains("slimmed"));
    fx.cmd()
        .args(["runs", "events", middle])
        .assert()
        .code(0)
        .stdout(contains("run_completed"))
        .stderr(contains("was slimmed"));
    fx.cmd()
        .args(["runs", "file", middle, "output/main.md", "--at-seq", "100"])
        .assert()
        .code(2)
        .stderr(predicates::str::starts_with(
            "error: workspace.checkpoints_pruned",
        ));
    fx.cmd().args(["runs", "show", oldest]).assert().code(2);

    let again = json_of(
        &fx.cmd()
            .args(["retention", "plan", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(
        again["totals"]["keptRuns"], 2,
        "a slimmed run is not slimmed again"
    );
    assert_eq!(again["candidates"], json!([]));
}

#[test]
fn plans_cap_their_details_but_not_their_totals() {
    let fx = Fixture::new();
    finished_runs(&fx, 2);
    set(&fx, "keep_full_recent_runs", "0");
    set(&fx, "keep_recent_terminal_runs", "0");
    let plan = json_of(
        &fx.cmd()
            .args(["retention", "plan", "--detail-limit", "1", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(plan["totals"]["deleteRuns"], 2);
    assert_eq!(plan["candidates"].as_array().unwrap().len(), 1);
    assert_eq!(plan["omittedCandidates"], 1);
    fx.cmd()
        .args(["retention", "plan", "--detail-limit", "1001"])
        .assert()
        .code(2)
        .stderr(contains("agent.run_prune_detail_limit_invalid"));
    fx.cmd()
        .args(["retention", "plan"])
        .assert()
        .code(0)
        .stdout(contains("delete: 2 runs"));
}

#[test]
fn a_run_another_process_drives_is_blocked_and_never_pruned() {
    let fx = Fixture::new();
    let old = finished_runs(&fx, 1).remove(0);
    set(&fx, "keep_full_recent_runs", "0");
    set(&fx, "keep_recent_terminal_runs", "0");
    let (mut child, _stderr, live) = spawn_slow_run(&fx, std::process::Stdio::null());
    let applied = json_of(
        &fx.cmd()
            .args(["retention", "apply", "--json"])
            .assert()
            .code(0),
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(applied["deletedRuns"], 1);
    let blocked = applied["plan"]["blocked"].as_array().unwrap();
    assert_eq!(blocked.len(), 1);
    assert_eq!(blocked[0]["runId"], live.as_str());
    assert_eq!(blocked[0]["reason"], "active_run");
    assert!(fx.run_dir(&live).join("events.jsonl").is_file());
    assert_eq!(fx.run_ids(), [live.as_str()]);
    assert!(!fx.run_ids().contains(&old));
}

#[test]
fn a_run_start_waits_while_maintenance_holds_the_data_directory() {
    let fx = Fixture::new();
    let lock_path = workspaces(&fx).join("maintenance.lock");
    fs::create_dir_all(lock_path.parent().unwrap()).unwrap();
    let held = fs::File::create(&lock_path).unwrap();
    held.lock().unwrap();
    let script = fx.write_json("script.json", &completing_script());
    let mut child = std::process::Command::new(bin())
        .env_remove("TAVERN_AGENT_DATA_DIR")
        .arg("--data-dir")
        .arg(fx.path())
        .args(["run", "--chat", CHAT, "--script"])
        .arg(&script)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run waits for the lock"
    );
    assert!(
        fx.run_ids().is_empty(),
        "no run is created while maintenance holds the lock"
    );
    drop(held);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(fx.run_ids().len(), 1);
}

#[test]
fn when_enabled_the_cli_prunes_after_each_run_without_changing_its_outcome() {
    let fx = Fixture::new();
    set(&fx, "keep_full_recent_runs", "1");
    set(&fx, "keep_recent_terminal_runs", "1");
    let first = finished_runs(&fx, 1).remove(0);
    let second = finished_runs(&fx, 1).remove(0);
    assert_eq!(fx.run_ids().len(), 2, "automatic pruning is off by default");
    set(&fx, "auto_prune_enabled", "true");
    let assert = fx.run_script(&completing_script(), &[]).code(0);
    let third = run_id_of(assert.get_output().stderr.as_slice());
    assert_eq!(
        fx.run_ids(),
        [third.as_str()],
        "{first} and {second} were pruned"
    );
    assert!(
        files_of(&fx.run_dir(&third)).len() > 2,
        "the run just ended is kept whole"
    );
}
