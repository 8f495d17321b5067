use serde_json::json;
use tempfile::TempDir;

use super::*;

const HEADER: &str = r#"{"chat_metadata":{"integrity":"chat-1"}}"#;
const ORIGINAL: &str = r#"{"name":"Wren","is_user":true,"mes":"hello","extra":{}}"#;
const RUN: &str = "run_a";

/// A data directory with a chat of one message and an empty workspace.
fn fixture() -> (TempDir, Baseline) {
    let dir = tempfile::tempdir().unwrap();
    let chat = dir.path().join("chats/Seraphina/chat.jsonl");
    fs::create_dir_all(chat.parent().unwrap()).unwrap();
    fs::write(&chat, format!("{HEADER}\n{ORIGINAL}\n")).unwrap();
    let baseline = Baseline {
        chat,
        integrity: "chat-1".to_owned(),
        messages: vec![ORIGINAL.to_owned()],
    };
    (dir, baseline)
}

fn workspace(data: &Path) -> PathBuf {
    data.join("_tauritavern/agent-workspaces/chats/chat_x")
}

fn event(seq: u64, kind: &str, payload: Value) -> String {
    json!({"seq": seq, "id": format!("evt_{seq}"), "runId": RUN, "type": kind, "payload": payload})
        .to_string()
}

/// Writes `run_a`'s journal (lines joined by newlines, plus `tail`) and a run record
/// with `status`.
fn journal(data: &Path, lines: &[String], tail: &str, status: &str) {
    let dir = workspace(data).join("runs").join(RUN);
    fs::create_dir_all(&dir).unwrap();
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str(tail);
    fs::write(dir.join("events.jsonl"), text).unwrap();
    fs::write(dir.join("run.json"), json!({"status": status}).to_string()).unwrap();
}

/// A whole run that committed `text` once as message 1.
fn committed_run(text: &str) -> Vec<String> {
    let sha = sha256_hex(text.as_bytes());
    vec![
        event(1, "status_changed", json!({})),
        event(
            2,
            "chat_commit_requested",
            json!({"commitId": "c1", "sha256": sha}),
        ),
        event(
            3,
            "chat_commit_completed",
            json!({"commitId": "c1", "messageIndex": 1}),
        ),
        event(4, "run_completed", Value::Null),
    ]
}

fn message(text: &str, commit: &str) -> String {
    json!({"mes": text, "extra": {"tauritavern": {"agent": {
        "runId": RUN, "commitId": commit, "commits": [{"commitId": commit}]
    }}}})
    .to_string()
}

fn append_to_chat(baseline: &Baseline, line: &str) {
    let mut text = fs::read_to_string(&baseline.chat).unwrap();
    text.push_str(line);
    text.push('\n');
    fs::write(&baseline.chat, text).unwrap();
}

fn recovered() -> Moment {
    Moment::AfterRecovery {
        newest_state: "none".to_owned(),
    }
}

fn violations(data: &Path, baseline: &Baseline, moment: &Moment) -> Vec<String> {
    let baseline = Baseline {
        chat: baseline.chat.clone(),
        integrity: baseline.integrity.clone(),
        messages: baseline.messages.clone(),
    };
    Checker::new(data.to_path_buf(), baseline)
        .check(moment)
        .violations
}

#[test]
fn a_whole_run_and_its_message_pass() {
    let (dir, baseline) = fixture();
    journal(dir.path(), &committed_run("Hi"), "", "completed");
    append_to_chat(&baseline, &message("Hi", "c1"));
    assert_eq!(
        violations(dir.path(), &baseline, &recovered()),
        Vec::<String>::new()
    );
}

#[test]
fn a_torn_last_line_is_allowed_only_right_after_the_kill() {
    let (dir, baseline) = fixture();
    let lines = vec![event(1, "status_changed", json!({}))];
    journal(dir.path(), &lines, r#"{"seq":2,"id":"#, "calling_model");
    assert_eq!(
        violations(dir.path(), &baseline, &Moment::AfterKill),
        Vec::<String>::new()
    );
    let found = violations(dir.path(), &baseline, &recovered());
    assert!(
        found.iter().any(|v| v.contains("torn line of 14 bytes")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|v| v.contains("still unfinished")),
        "{found:?}"
    );
}

#[test]
fn gaps_garbage_and_events_after_the_end_are_found() {
    let (dir, baseline) = fixture();
    let lines = vec![
        event(1, "status_changed", json!({})),
        event(3, "run_completed", Value::Null),
        event(4, "status_changed", json!({})),
    ];
    journal(dir.path(), &lines, "", "completed");
    let found = violations(dir.path(), &baseline, &Moment::AfterKill);
    assert!(
        found.iter().any(|v| v.contains("line 2 has seq 3")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|v| v.contains("after the terminal event")),
        "{found:?}"
    );

    let lines = vec![event(1, "status_changed", json!({})), "garbage".to_owned()];
    journal(dir.path(), &lines, "", "completed");
    let found = violations(dir.path(), &baseline, &Moment::AfterKill);
    assert!(
        found
            .iter()
            .any(|v| v.contains("line 2 is not a JSON object")),
        "{found:?}"
    );
}

#[test]
fn a_duplicated_a_lost_and_an_unknown_commit_are_found() {
    let (dir, baseline) = fixture();
    journal(dir.path(), &committed_run("Hi"), "", "completed");
    append_to_chat(&baseline, &message("Hi", "c1"));
    append_to_chat(&baseline, &message("Hi", "c1"));
    let found = violations(dir.path(), &baseline, &Moment::AfterKill);
    assert!(found.iter().any(|v| v.contains("2 times")), "{found:?}");

    let (dir, baseline) = fixture();
    journal(dir.path(), &committed_run("Hi"), "", "completed");
    let found = violations(dir.path(), &baseline, &Moment::AfterKill);
    assert!(
        found.iter().any(|v| v.contains("a lost commit")),
        "{found:?}"
    );

    let (dir, baseline) = fixture();
    journal(dir.path(), &committed_run("Hi"), "", "completed");
    append_to_chat(&baseline, &message("Hi", "c9"));
    let found = violations(dir.path(), &baseline, &Moment::AfterKill);
    assert!(
        found.iter().any(|v| v.contains("never requested")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|v| v.contains("missing from its message")),
        "{found:?}"
    );

    let (dir, baseline) = fixture();
    journal(dir.path(), &committed_run("Hi"), "", "completed");
    append_to_chat(&baseline, &message("Hi there", "c1"));
    let found = violations(dir.path(), &baseline, &Moment::AfterKill);
    assert!(
        found.iter().any(|v| v.contains("sha256 differs")),
        "{found:?}"
    );
}

#[test]
fn a_changed_original_line_and_a_torn_message_are_found() {
    let (dir, baseline) = fixture();
    fs::write(
        &baseline.chat,
        format!("{HEADER}\n{{\"mes\":\"edited\"}}\n"),
    )
    .unwrap();
    let found = violations(dir.path(), &baseline, &Moment::AfterKill);
    assert!(
        found.iter().any(|v| v.contains("message 0 is no longer")),
        "{found:?}"
    );

    let (dir, baseline) = fixture();
    append_to_chat(&baseline, r#"{"mes":"cut"#);
    let found = violations(dir.path(), &baseline, &Moment::AfterKill);
    assert!(
        found.iter().any(|v| v.contains("message 1 is not JSON")),
        "{found:?}"
    );
}

#[test]
fn leftovers_count_only_after_the_next_run_and_name_the_chat_folder() {
    let (dir, baseline) = fixture();
    let chat_temp = dir.path().join("chats/Seraphina/.chat.jsonl.tmp-0123");
    fs::write(&chat_temp, "copy").unwrap();
    let run_temp = workspace(dir.path()).join("runs/run_b/checkpoints/.cp_000001.tmp-9");
    fs::create_dir_all(&run_temp).unwrap();
    fs::write(run_temp.join("checkpoint.json"), "{\"cut").unwrap();
    assert_eq!(
        violations(dir.path(), &baseline, &Moment::AfterKill),
        Vec::<String>::new()
    );
    let found = violations(dir.path(), &baseline, &recovered());
    assert!(
        found.iter().any(|v| v.starts_with(
            "leftover file in SillyTavern's chat folder after the next run: \
             chats/Seraphina/.chat.jsonl.tmp-0123 (4 bytes)"
        )),
        "{found:?}"
    );
    assert!(
        found.iter().any(
            |v| v.starts_with("leftover temp folder after the next run: ")
                && v.contains(".cp_000001.tmp-9 (5 bytes)")
        ),
        "{found:?}"
    );
}

#[test]
fn invalid_json_and_a_torn_persistent_state_are_found() {
    let (dir, baseline) = fixture();
    let index = dir.path().join("_tauritavern/agent-workspaces/index/runs");
    fs::create_dir_all(&index).unwrap();
    fs::write(index.join("run_a.json"), "{\"id\":").unwrap();
    let state = workspace(dir.path()).join("persistent-states/run_a");
    fs::create_dir_all(state.join("persist")).unwrap();
    let manifest = json!({"files": [{"path": "persist/notes.md", "sha256": sha256_hex(b"notes")}]});
    fs::write(state.join("manifest.json"), manifest.to_string()).unwrap();
    fs::write(state.join("persist/notes.md"), "not").unwrap();
    let found = violations(dir.path(), &baseline, &Moment::AfterKill);
    assert!(
        found
            .iter()
            .any(|v| v.contains("run_a.json: torn or invalid JSON")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|v| v.contains("do not match its manifest")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|v| v.contains("no whole persistent state")),
        "{found:?}"
    );

    fs::write(state.join("persist/notes.md"), "notes").unwrap();
    let browsable = workspace(dir.path()).join("persist");
    fs::create_dir_all(&browsable).unwrap();
    fs::write(browsable.join("notes.md"), "notes").unwrap();
    let found = violations(dir.path(), &baseline, &Moment::AfterKill);
    assert!(!found.iter().any(|v| v.contains("persist")), "{found:?}");
}
