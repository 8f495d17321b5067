#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent chats list | delete | orphans` on a copy of the real-shaped SillyTavern
//! corpus (a TauriTavern install), with real runs, a live run in another process, and a
//! person answering on a terminal.

mod sillytavern_support;

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use serde_json::{Value, json};
use sillytavern_support::*;

fn reply_script() -> Value {
    json!({"turns": [
        {"tool_calls": [{"name": "workspace_write_file",
                         "arguments": {"path": "output/main.md", "content": "*She nods.*"}}]},
        {"tool_calls": [{"name": "workspace_commit", "arguments": {}}]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
    ]})
}

/// The first model call takes a minute: the run stays live while the test works.
fn slow_script() -> Value {
    json!({"turns": [
        {"delay_ms": 60000, "tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
    ]})
}

fn run_id(assert: &assert_cmd::assert::Assert) -> String {
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr);
    stderr
        .lines()
        .find_map(|line| line.strip_prefix("run: "))
        .unwrap_or_else(|| panic!("no run line in {stderr}"))
        .trim()
        .to_owned()
}

fn json_of(assert: &assert_cmd::assert::Assert) -> Value {
    serde_json::from_slice(&assert.get_output().stdout).unwrap()
}

/// What a `--json` command that succeeds prints.
fn json_ok(corpus: &Corpus, args: &[&str]) -> Value {
    json_of(&corpus.cmd().args(args).assert().code(0))
}

fn workspaces(corpus: &Corpus) -> PathBuf {
    corpus.ours().join("agent-workspaces")
}

/// The workspace a run lives in, as its record says.
fn workspace_of(corpus: &Corpus, run: &str) -> String {
    let record = fs::read_to_string(workspaces(corpus).join(format!("index/runs/{run}.json")));
    let record: Value = serde_json::from_str(&record.unwrap()).unwrap();
    record["workspaceId"].as_str().unwrap().to_owned()
}

fn index_file(corpus: &Corpus, folder: &str, run: &str) -> PathBuf {
    workspaces(corpus).join(format!("index/{folder}/{run}.json"))
}

/// A run's index record and summary both exist (`true`) or neither does (`false`).
fn indexed(corpus: &Corpus, run: &str) -> bool {
    let record = index_file(corpus, "runs", run).is_file();
    let summary = index_file(corpus, "run-summaries", run).is_file();
    assert_eq!(record, summary, "{run}: record and summary go together");
    record
}

fn workspace_dir(corpus: &Corpus, workspace: &str) -> PathBuf {
    workspaces(corpus).join("chats").join(workspace)
}

/// Runs that end, one per chat given, returning their ids.
fn finished_runs(corpus: &Corpus, chats: &[&str]) -> Vec<String> {
    chats
        .iter()
        .map(|chat| run_id(&corpus.run(chat, &reply_script(), &[]).success()))
        .collect()
}

/// `run --chat CURRENT_CHAT` with a model call of a minute, in a child process; returns
/// once the run exists (its `run:` line is printed after its first events).
fn live_run(corpus: &Corpus) -> (Child, String) {
    let script = corpus.write_script(&slow_script());
    let mut child = Command::new(env!("CARGO_BIN_EXE_tavern-agent"))
        .env_remove("TAVERN_AGENT_DATA_DIR")
        .arg("--data-dir")
        .arg(corpus.user())
        .args(["run", "--chat", CURRENT_CHAT, "--script"])
        .arg(script)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let run = first.strip_prefix("run: ").expect(&first).trim().to_owned();
    (child, run)
}

#[test]
fn deleting_a_chat_removes_it_its_workspace_and_its_runs_and_nothing_else() {
    let corpus = Corpus::new();
    let runs = finished_runs(&corpus, &[CURRENT_CHAT, CURRENT_CHAT, OLD_CHAT, GROUP_CHAT]);
    let gone = workspace_of(&corpus, &runs[0]);
    assert_eq!(gone, workspace_of(&corpus, &runs[1]));
    let others: Vec<String> = runs[2..].iter().map(|r| workspace_of(&corpus, r)).collect();
    assert!(
        workspace_dir(&corpus, &gone)
            .join("persistent-states")
            .is_dir()
    );

    let assert = corpus
        .cmd()
        .args(["chats", "delete", CURRENT_CHAT, "--yes", "--json"])
        .assert()
        .code(0);
    let report = json_of(&assert);
    assert_eq!(
        report["stableChatId"],
        "6f6b1c7a-2d4e-4f8a-9b1c-3e5d7f9a1b2c"
    );
    assert_eq!(report["workspace"]["workspaceId"], gone.as_str());
    let mut listed: Vec<&str> = report["workspace"]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    listed.sort();
    let mut expected = vec![runs[0].as_str(), runs[1].as_str()];
    expected.sort();
    assert_eq!(listed, expected);
    assert_eq!(report["workspace"]["persistentStates"], 2);

    assert!(!corpus.chat_path(CURRENT_CHAT).exists());
    assert!(!workspace_dir(&corpus, &gone).exists());
    assert!(!indexed(&corpus, &runs[0]) && !indexed(&corpus, &runs[1]));
    // Nothing of the other chats.
    assert!(corpus.chat_path(OLD_CHAT).is_file());
    assert!(corpus.chat_path(GROUP_CHAT).is_file());
    for (run, workspace) in runs[2..].iter().zip(&others) {
        assert!(indexed(&corpus, run));
        assert!(corpus.run_dir(run).join("events.jsonl").is_file());
        assert!(
            workspace_dir(&corpus, workspace)
                .join("persistent-states")
                .is_dir()
        );
        corpus.cmd().args(["runs", "show", run]).assert().code(0);
    }
    let remaining = json_ok(&corpus, &["runs", "list", "--json"]);
    assert_eq!(remaining["runs"].as_array().unwrap().len(), 2);
    // No leftovers: the workspace was renamed aside and then removed.
    let trash = workspaces(&corpus).join(".trash");
    assert_eq!(fs::read_dir(trash).unwrap().count(), 0);
    corpus
        .cmd()
        .args(["chats", "list"])
        .assert()
        .code(0)
        .stdout(contains(OLD_CHAT))
        .stdout(contains(CURRENT_CHAT).not());
}

#[test]
fn without_yes_and_without_a_terminal_nothing_is_deleted() {
    let corpus = Corpus::new();
    let run = finished_runs(&corpus, &[CURRENT_CHAT]).remove(0);
    let workspace = workspace_of(&corpus, &run);
    corpus
        .cmd()
        .args(["chats", "delete", CURRENT_CHAT])
        .write_stdin("")
        .assert()
        .code(2)
        .stdout(contains(workspace.as_str()))
        .stdout(contains(run.as_str()))
        .stderr(contains("error: cli.confirmation_required"));
    let refused = corpus
        .cmd()
        .args(["chats", "delete", CURRENT_CHAT, "--json"])
        .write_stdin("")
        .assert()
        .code(2);
    let error: Value = serde_json::from_slice(&refused.get_output().stderr).unwrap();
    assert_eq!(error["code"], "cli.confirmation_required");
    assert!(refused.get_output().stdout.is_empty());
    assert!(corpus.chat_path(CURRENT_CHAT).is_file());
    assert!(workspace_dir(&corpus, &workspace).is_dir());
    assert!(indexed(&corpus, &run));
}

/// Runs `chats <args…>` on a pseudo-terminal, typing `answer` and Enter; returns the exit
/// code and what the terminal showed.
fn answer_in_terminal(corpus: &Corpus, args: &[&str], answer: &str) -> (u32, String) {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 50,
            cols: 200,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tavern-agent"));
    cmd.env_remove("TAVERN_AGENT_DATA_DIR");
    cmd.env("NO_COLOR", "1");
    cmd.arg("--data-dir");
    cmd.arg(corpus.user());
    cmd.arg("chats");
    cmd.args(args);
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut writer = pair.master.take_writer().unwrap();
    writer.write_all(format!("{answer}\r").as_bytes()).unwrap();
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut screen = Vec::new();
    let mut buffer = [0_u8; 4096];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => screen.extend_from_slice(&buffer[..n]),
        }
    }
    let status = child.wait().unwrap();
    (
        status.exit_code(),
        String::from_utf8_lossy(&screen).into_owned(),
    )
}

#[test]
fn on_a_terminal_a_person_is_asked_first() {
    let corpus = Corpus::new();
    let run = finished_runs(&corpus, &[OLD_CHAT]).remove(0);
    let workspace = workspace_of(&corpus, &run);

    let (code, screen) = answer_in_terminal(&corpus, &["delete", OLD_CHAT], "n");
    assert_eq!(code, 1, "{screen}");
    assert!(screen.contains(&workspace), "{screen}");
    assert!(screen.contains("[y/N]"), "{screen}");
    assert!(screen.contains("cli.not_confirmed"), "{screen}");
    assert!(corpus.chat_path(OLD_CHAT).is_file());
    assert!(indexed(&corpus, &run));

    let (code, screen) = answer_in_terminal(&corpus, &["delete", OLD_CHAT], "y");
    assert_eq!(code, 0, "{screen}");
    assert!(!corpus.chat_path(OLD_CHAT).exists());
    assert!(!workspace_dir(&corpus, &workspace).exists());
    assert!(!indexed(&corpus, &run));
}

#[test]
fn a_chat_whose_run_is_live_in_another_process_is_not_deleted() {
    let corpus = Corpus::new();
    let (mut child, live) = live_run(&corpus);
    let workspace = workspace_of(&corpus, &live);
    let refused = corpus
        .cmd()
        .args(["chats", "delete", CURRENT_CHAT, "--yes", "--json"])
        .assert()
        .code(1);
    let error: Value = serde_json::from_slice(&refused.get_output().stderr).unwrap();
    assert_eq!(error["code"], "agent.workspace_in_use");
    assert!(error["message"].as_str().unwrap().contains(&live));
    assert!(corpus.chat_path(CURRENT_CHAT).is_file());
    assert!(workspace_dir(&corpus, &workspace).is_dir());
    assert!(indexed_record(&corpus, &live));

    // SillyTavern deletes the chat meanwhile: its workspace is an orphan still in use, and
    // removing orphans leaves it while removing another one.
    let ended = finished_runs(&corpus, &[GROUP_CHAT]).remove(0);
    let ended_workspace = workspace_of(&corpus, &ended);
    fs::remove_file(corpus.chat_path(CURRENT_CHAT)).unwrap();
    fs::remove_file(corpus.chat_path(GROUP_CHAT)).unwrap();
    let swept = corpus
        .cmd()
        .args(["chats", "orphans", "--delete", "--yes", "--json"])
        .assert()
        .code(1);
    let outcomes = json_of(&swept)["outcomes"].as_array().unwrap().clone();
    let outcome_of = |ws: &str| {
        outcomes
            .iter()
            .find(|o| o["workspaceId"] == ws)
            .unwrap_or_else(|| panic!("{ws} not in {outcomes:?}"))
            .clone()
    };
    assert_eq!(outcome_of(&workspace)["outcome"], "in_use");
    assert_eq!(
        outcome_of(&workspace)["error"]["code"],
        "agent.workspace_in_use"
    );
    assert_eq!(outcome_of(&ended_workspace)["outcome"], "deleted");
    assert!(workspace_dir(&corpus, &workspace).is_dir());
    assert!(indexed_record(&corpus, &live));
    assert!(!workspace_dir(&corpus, &ended_workspace).exists());
    assert!(!indexed(&corpus, &ended));

    child.kill().unwrap();
    child.wait().unwrap();
    // Its process is gone: nobody holds the run, so the orphan goes now.
    let swept = corpus
        .cmd()
        .args(["chats", "orphans", "--delete", "--yes", "--json"])
        .assert()
        .code(0);
    assert_eq!(json_of(&swept)["outcomes"][0]["outcome"], "deleted");
    assert!(!workspace_dir(&corpus, &workspace).exists());
    assert!(!index_file(&corpus, "runs", &live).exists());
}

/// The live run has an index record (no summary: it has not ended).
fn indexed_record(corpus: &Corpus, run: &str) -> bool {
    index_file(corpus, "runs", run).is_file()
}

/// Rewrites the chat's header with `integrity` as its stable id.
fn set_integrity(path: &Path, integrity: Value) {
    let text = fs::read_to_string(path).unwrap();
    let (header, rest) = text.split_once('\n').unwrap();
    let mut header: Value = serde_json::from_str(header).unwrap();
    header["chat_metadata"]["integrity"] = integrity;
    fs::write(path, format!("{header}\n{rest}")).unwrap();
}

#[test]
fn a_chat_with_an_unusable_stable_id_is_refused_and_stops_the_orphan_sweep() {
    let corpus = Corpus::new();
    let run = finished_runs(&corpus, &[GROUP_CHAT]).remove(0);
    let orphan = workspace_of(&corpus, &run);
    fs::remove_file(corpus.chat_path(GROUP_CHAT)).unwrap();
    set_integrity(&corpus.chat_path(OLD_CHAT), json!(42));
    let before = fs::read(corpus.chat_path(OLD_CHAT)).unwrap();

    corpus
        .cmd()
        .args(["chats", "delete", OLD_CHAT, "--yes"])
        .assert()
        .code(2)
        .stderr(contains("error: agent.invalid_chat_integrity"));
    assert_eq!(fs::read(corpus.chat_path(OLD_CHAT)).unwrap(), before);

    let listed = json_ok(&corpus, &["chats", "list", "--json"]);
    let old = listed["chats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|chat| chat["path"] == OLD_CHAT)
        .unwrap()
        .clone();
    assert_eq!(old["error"]["code"], "agent.invalid_chat_integrity");
    assert_eq!(old["workspaceId"], Value::Null);

    // Its workspace cannot be known, so no orphan is removed while it does not read.
    let found = json_ok(&corpus, &["chats", "orphans", "--json"]);
    assert_eq!(found["orphans"][0]["workspaceId"], orphan.as_str());
    assert_eq!(found["unreadableChats"][0]["path"], OLD_CHAT);
    corpus
        .cmd()
        .args(["chats", "orphans", "--delete", "--yes"])
        .assert()
        .code(1)
        .stderr(contains("error: agent.invalid_chat_integrity"));
    assert!(workspace_dir(&corpus, &orphan).is_dir());
}

#[test]
fn the_list_shows_each_chats_workspace_runs_and_disk_use() {
    let corpus = Corpus::new();
    let runs = finished_runs(&corpus, &[CURRENT_CHAT, CURRENT_CHAT, GROUP_CHAT]);
    // A chat no run ever opened has no stable id yet, so no workspace.
    let fresh = corpus.user().join("chats/Seraphina/fresh.jsonl");
    fs::write(
        &fresh,
        r#"{"chat_metadata":{},"user_name":"unused","character_name":"unused"}"#,
    )
    .unwrap();

    let listed = json_ok(&corpus, &["chats", "list", "--json"]);
    let chats = listed["chats"].as_array().unwrap();
    let paths: Vec<&str> = chats.iter().map(|c| c["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        [OLD_CHAT, CURRENT_CHAT, "Seraphina/fresh.jsonl", GROUP_CHAT]
    );
    let current = &chats[1];
    assert_eq!(current["chat"]["kind"], "character");
    assert_eq!(
        current["stableChatId"],
        "6f6b1c7a-2d4e-4f8a-9b1c-3e5d7f9a1b2c"
    );
    assert_eq!(current["workspaceId"], workspace_of(&corpus, &runs[0]));
    assert_eq!(current["runs"], 2);
    assert!(current["disk"]["files"].as_u64().unwrap() > 10);
    assert!(current["disk"]["bytes"].as_u64().unwrap() > 1000);
    let group = &chats[3];
    assert_eq!(group["chat"]["kind"], "group");
    assert_eq!(group["workspaceId"], workspace_of(&corpus, &runs[2]));
    assert_eq!(group["runs"], 1);
    let old = &chats[0];
    assert_eq!(old["runs"], 0);
    assert_eq!(old["disk"]["files"], 0);
    assert_eq!(chats[2]["workspaceId"], Value::Null);
    assert_eq!(chats[2]["stableChatId"], Value::Null);
    assert_eq!(
        fs::read_to_string(&fresh).unwrap(),
        r#"{"chat_metadata":{},"user_name":"unused","character_name":"unused"}"#,
        "listing gives no chat a stable id"
    );

    corpus
        .cmd()
        .args(["chats", "list"])
        .assert()
        .code(0)
        .stdout(contains("CHAT"))
        .stdout(contains(workspace_of(&corpus, &runs[2])));
}

#[test]
fn a_renamed_chat_keeps_its_workspace_and_a_deleted_ones_is_an_orphan() {
    let corpus = Corpus::new();
    let runs = finished_runs(&corpus, &[CURRENT_CHAT, OLD_CHAT]);
    let renamed = workspace_of(&corpus, &runs[0]);
    let deleted = workspace_of(&corpus, &runs[1]);
    fs::rename(
        corpus.chat_path(CURRENT_CHAT),
        corpus.user().join("chats/Seraphina/Renamed by hand.jsonl"),
    )
    .unwrap();
    fs::remove_file(corpus.chat_path(OLD_CHAT)).unwrap();

    let found = json_ok(&corpus, &["chats", "orphans", "--json"]);
    let orphans = found["orphans"].as_array().unwrap();
    assert_eq!(orphans.len(), 1, "{found}");
    assert_eq!(orphans[0]["workspaceId"], deleted.as_str());
    assert_eq!(orphans[0]["runs"], json!([runs[1]]));
    assert!(
        workspace_dir(&corpus, &deleted).is_dir(),
        "listing removes nothing"
    );

    corpus
        .cmd()
        .args(["chats", "orphans", "--delete"])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(contains("cli.confirmation_required"));
    corpus
        .cmd()
        .args(["chats", "orphans", "--delete", "--yes"])
        .assert()
        .code(0)
        .stdout(contains(format!("{deleted}: deleted")));
    assert!(!workspace_dir(&corpus, &deleted).exists());
    assert!(!indexed(&corpus, &runs[1]));
    assert!(workspace_dir(&corpus, &renamed).is_dir());
    assert!(indexed(&corpus, &runs[0]));
    corpus
        .cmd()
        .args(["chats", "orphans"])
        .assert()
        .code(0)
        .stdout(contains("no orphaned workspaces"));
    // The renamed chat is the same chat: its next run uses the same workspace.
    let next = run_id(
        &corpus
            .run("Seraphina/Renamed by hand.jsonl", &reply_script(), &[])
            .success(),
    );
    assert_eq!(workspace_of(&corpus, &next), renamed);
}

#[test]
fn a_deletion_waits_while_maintenance_holds_the_data_directory() {
    let corpus = Corpus::new();
    let run = finished_runs(&corpus, &[OLD_CHAT]).remove(0);
    // The lock a prune (or another deletion) holds, and run starts take shared.
    let held = fs::File::create(workspaces(&corpus).join("maintenance.lock")).unwrap();
    held.lock().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tavern-agent"))
        .env_remove("TAVERN_AGENT_DATA_DIR")
        .arg("--data-dir")
        .arg(corpus.user())
        .args(["chats", "delete", OLD_CHAT, "--yes"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "the deletion waits");
    assert!(corpus.chat_path(OLD_CHAT).is_file());
    assert!(indexed(&corpus, &run));
    drop(held);
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert!(!corpus.chat_path(OLD_CHAT).exists());
    assert!(!indexed(&corpus, &run));
}
