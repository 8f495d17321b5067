#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Every error the binary prints starts with its `namespace.code` (`docs/cli.md`, "Errors"):
//! bad input of every kind, each run twice, plain (`error: <code>: <message>` on stderr) and
//! with `--json` (one object `{"code", "message"}` on stderr), with its exit status and
//! nothing on stdout.

mod cli_support;

use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use cli_support::*;
use serde_json::{Value, json};

/// One bad input: how to set it up, the arguments, and what the binary must answer.
struct Case {
    name: &'static str,
    /// Prepares the data directory and returns the arguments after `--data-dir DIR`.
    setup: fn(&Fixture) -> Vec<String>,
    exit: i32,
    code: &'static str,
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|arg| (*arg).to_owned()).collect()
}

/// `run --chat Alice/chat.jsonl --script <script> [extra…]` with a script written from JSON
/// text (which need not be valid).
fn run_with_script_text(fx: &Fixture, text: &str, extra: &[&str]) -> Vec<String> {
    let path = fx.path().join("script.json");
    fs::write(&path, text).unwrap();
    run_with_script_path(path, extra)
}

fn run_with_script_path(path: PathBuf, extra: &[&str]) -> Vec<String> {
    let mut args = strings(&["run", "--chat", CHAT, "--script"]);
    args.push(path.to_string_lossy().into_owned());
    args.extend(strings(extra));
    args
}

fn good_script(fx: &Fixture) -> String {
    fx.write_json("good.json", &completing_script())
        .to_string_lossy()
        .into_owned()
}

/// A data directory with one completed run; returns its id.
fn with_a_run(fx: &Fixture) -> String {
    let assert = fx.run_script(&completing_script(), &[]).code(0);
    run_id_of(&assert.get_output().stderr)
}

const CASES: &[Case] = &[
    Case {
        name: "unknown flag",
        setup: |_| strings(&["run", "--chat", CHAT, "--frobnicate"]),
        exit: 2,
        code: "cli.usage",
    },
    Case {
        name: "missing required flag",
        setup: |_| strings(&["run"]),
        exit: 2,
        code: "cli.usage",
    },
    Case {
        name: "bad enum value",
        setup: |fx| {
            let script = good_script(fx);
            strings(&[
                "run",
                "--chat",
                CHAT,
                "--script",
                &script,
                "--generation-type",
                "sideways",
            ])
        },
        exit: 2,
        code: "cli.usage",
    },
    Case {
        name: "unknown subcommand",
        setup: |_| strings(&["frobnicate"]),
        exit: 2,
        code: "cli.usage",
    },
    Case {
        name: "script that is not JSON",
        setup: |fx| run_with_script_text(fx, "{\"turns\": [", &[]),
        exit: 2,
        code: "script.invalid",
    },
    Case {
        name: "script with an unknown field",
        setup: |fx| run_with_script_text(fx, r#"{"turns": [{"txt": "a"}]}"#, &[]),
        exit: 2,
        code: "script.invalid",
    },
    Case {
        name: "script delay over ten minutes",
        setup: |fx| {
            run_with_script_text(fx, r#"{"turns": [{"text": "a", "delay_ms": 600001}]}"#, &[])
        },
        exit: 2,
        code: "script.invalid",
    },
    Case {
        name: "missing script",
        setup: |fx| run_with_script_path(fx.path().join("nowhere.json"), &[]),
        exit: 2,
        code: "script.unreadable",
    },
    Case {
        name: "script that is a directory",
        setup: |fx| run_with_script_path(fx.path().join("chats"), &[]),
        exit: 2,
        code: "script.unreadable",
    },
    Case {
        name: "script over 16 MiB",
        setup: |fx| {
            let path = fx.path().join("huge.json");
            // Sparse: nothing is written to disk.
            fs::File::create(&path)
                .unwrap()
                .set_len(16 * 1024 * 1024 + 1)
                .unwrap();
            run_with_script_path(path, &[])
        },
        exit: 2,
        code: "script.too_large",
    },
    #[cfg(unix)]
    Case {
        name: "script that is a device",
        setup: |_| run_with_script_path(PathBuf::from("/dev/zero"), &[]),
        exit: 2,
        code: "script.unreadable",
    },
    #[cfg(unix)]
    Case {
        name: "script that is a FIFO",
        setup: |fx| {
            let path = fx.path().join("fifo.json");
            let made = std::process::Command::new("mkfifo")
                .arg(&path)
                .status()
                .unwrap();
            assert!(made.success());
            run_with_script_path(path, &[])
        },
        exit: 2,
        code: "script.unreadable",
    },
    Case {
        name: "missing chat",
        setup: |fx| {
            let script = good_script(fx);
            strings(&["run", "--chat", "Alice/missing.jsonl", "--script", &script])
        },
        exit: 2,
        code: "chat.not_found",
    },
    Case {
        name: "chat path climbing out",
        setup: |fx| {
            let script = good_script(fx);
            strings(&["run", "--chat", "../x.jsonl", "--script", &script])
        },
        exit: 2,
        code: "agent.invalid_chat_path",
    },
    Case {
        name: "no model",
        setup: |_| strings(&["run", "--chat", CHAT]),
        exit: 2,
        code: "cli.model_required",
    },
    Case {
        name: "unknown profile",
        setup: |fx| {
            let script = good_script(fx);
            strings(&[
                "run",
                "--chat",
                CHAT,
                "--script",
                &script,
                "--profile",
                "nobody",
            ])
        },
        exit: 2,
        code: "agent.profile_not_found",
    },
    Case {
        name: "unknown connection",
        setup: |_| strings(&["run", "--chat", CHAT, "--connection", "nope"]),
        exit: 2,
        code: "connection.not_found",
    },
    Case {
        name: "missing prompt snapshot",
        setup: |fx| {
            let script = good_script(fx);
            strings(&[
                "run",
                "--chat",
                CHAT,
                "--script",
                &script,
                "--prompt-snapshot",
                "/nonexistent/snapshot.json",
            ])
        },
        exit: 2,
        code: "cli.file_unreadable",
    },
    Case {
        name: "prompt snapshot that is not JSON",
        setup: |fx| {
            let script = good_script(fx);
            let snapshot = fx.path().join("snapshot.json");
            fs::write(&snapshot, "not json").unwrap();
            let snapshot = snapshot.to_string_lossy().into_owned();
            strings(&[
                "run",
                "--chat",
                CHAT,
                "--script",
                &script,
                "--prompt-snapshot",
                &snapshot,
            ])
        },
        exit: 2,
        code: "agent.invalid_prompt_snapshot",
    },
    Case {
        name: "unknown run",
        setup: |_| strings(&["runs", "show", "run_00000000000000000000000000000000"]),
        exit: 2,
        code: "agent.not_found",
    },
    Case {
        name: "run file outside the readable roots",
        setup: |fx| {
            let run = with_a_run(fx);
            strings(&["runs", "file", &run, "input/prompt_snapshot.json"])
        },
        exit: 2,
        code: "workspace.path_not_visible",
    },
    Case {
        name: "runs list limit out of range",
        setup: |_| strings(&["runs", "list", "--limit", "0"]),
        exit: 2,
        code: "agent.run_history_limit_invalid",
    },
    Case {
        name: "corrupt journal",
        setup: |fx| {
            let run = with_a_run(fx);
            corrupt_journal(fx, &run);
            strings(&["runs", "events", &run])
        },
        exit: 1,
        code: "agent.journal_corrupt",
    },
    Case {
        name: "corrupt journal, followed",
        setup: |fx| {
            let run = with_a_run(fx);
            corrupt_journal(fx, &run);
            strings(&["runs", "events", &run, "--follow"])
        },
        exit: 1,
        code: "agent.journal_corrupt",
    },
    Case {
        name: "profile document that is not JSON",
        setup: |fx| {
            let file = fx.path().join("profile.json");
            fs::write(&file, "{oops").unwrap();
            strings(&["profiles", "save", &file.to_string_lossy()])
        },
        exit: 2,
        code: "agent.profile_contract_invalid",
    },
    Case {
        name: "missing profile document",
        setup: |fx| {
            let file = fx.path().join("nowhere.json");
            strings(&["profiles", "save", &file.to_string_lossy()])
        },
        exit: 2,
        code: "cli.file_unreadable",
    },
    Case {
        name: "broken stored profile",
        setup: |fx| {
            let dir = fx.path().join("_tauritavern/agent-profiles/profiles");
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join("broken.json"), "{oops").unwrap();
            strings(&["profiles", "show", "broken"])
        },
        exit: 1,
        code: "agent.profile_contract_invalid",
    },
    Case {
        name: "deleting the built-in profile",
        setup: |_| strings(&["profiles", "delete", "default-writer"]),
        exit: 2,
        code: "agent.profile_builtin_readonly",
    },
    Case {
        name: "deleting an unsaved profile",
        setup: |_| strings(&["profiles", "delete", "nobody"]),
        exit: 2,
        code: "agent.profile_not_found",
    },
    Case {
        name: "unknown connection shown",
        setup: |_| strings(&["connections", "show", "nope"]),
        exit: 2,
        code: "connection.not_found",
    },
    Case {
        name: "prompt build on a missing chat",
        setup: |_| strings(&["prompt", "build", "--chat", "Alice/missing.jsonl"]),
        exit: 2,
        code: "chat.not_found",
    },
];

/// Replaces the journal's first line with something that is not an event.
fn corrupt_journal(fx: &Fixture, run: &str) {
    let path = fx.run_dir(run).join("events.jsonl");
    let text = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[0] = "this is not an event";
    fs::write(&path, lines.join("\n") + "\n").unwrap();
}

/// Runs the arguments over the fixture, with `--json` or without: the exit status,
/// stdout, stderr, and the runs it created.
fn answer(fx: &Fixture, args: &[String], json: bool) -> (i32, String, String, Vec<String>) {
    let runs_before = fx.run_ids();
    let mut cmd = fx.cmd();
    cmd.args(args);
    if json {
        cmd.arg("--json");
    }
    let output = cmd.timeout(Duration::from_secs(60)).output().unwrap();
    let created: Vec<String> = fx
        .run_ids()
        .into_iter()
        .filter(|id| !runs_before.contains(id))
        .collect();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
        created,
    )
}

#[test]
fn every_bad_input_prints_its_code_and_exits_with_its_status() {
    assert!(CASES.len() >= 16);
    for case in CASES {
        let name = case.name;
        let fx = Fixture::new();
        let args = (case.setup)(&fx);

        let (exit, stdout, stderr, created) = answer(&fx, &args, false);
        assert_eq!(exit, case.exit, "{name}: {stderr}");
        assert_eq!(stdout, "", "{name}: nothing on stdout");
        assert!(created.is_empty(), "{name}: a run was created: {created:?}");
        let first = stderr.lines().next().unwrap_or_default();
        let prefix = format!("error: {}: ", case.code);
        assert!(first.starts_with(&prefix), "{name}: {stderr}");
        let plain_message = &first[prefix.len()..];
        assert!(!plain_message.is_empty(), "{name}: {stderr}");
        assert!(
            !plain_message.starts_with(case.code),
            "{name}: the code is repeated: {first}"
        );

        let (exit, stdout, stderr, created) = answer(&fx, &args, true);
        assert_eq!(exit, case.exit, "{name} --json: {stderr}");
        assert_eq!(stdout, "", "{name} --json: nothing on stdout");
        assert!(created.is_empty(), "{name} --json: {created:?}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{name} --json: one line: {stderr}");
        let error: Value = serde_json::from_str(lines[0]).unwrap();
        let message = error["message"].as_str().unwrap_or_default();
        assert_eq!(
            error,
            json!({"code": case.code, "message": message}),
            "{name} --json"
        );
        assert!(
            message.starts_with(plain_message),
            "{name}: the same message in both modes: {message:?} vs {plain_message:?}"
        );
    }
}
