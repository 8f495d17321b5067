//! A data directory with one small SillyTavern chat, scripts, and helpers to run the
//! `tavern-agent` binary against it.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

/// The chat, as `--chat` names it.
pub const CHAT: &str = "Alice/chat.jsonl";

const CHAT_LINES: [&str; 4] = [
    r#"{"user_name":"Bob","character_name":"Alice","create_date":"2026-06-01@21h00m00s","chat_metadata":{"integrity":"cli-test-chat-0001","note_prompt":""}}"#,
    r#"{"name":"Alice","is_user":false,"is_system":false,"send_date":"June 1, 2026 9:00pm","mes":"Hello, traveller. The inn is warm tonight.","extra":{}}"#,
    r#"{"name":"Bob","is_user":true,"is_system":false,"send_date":"June 1, 2026 9:01pm","mes":"I'd like a room, please.","extra":{}}"#,
    r#"{"name":"Bob","is_user":true,"is_system":false,"send_date":"June 1, 2026 9:02pm","mes":"And a bowl of stew.","extra":{}}"#,
];

/// The text the scripts commit.
pub const REPLY: &str =
    "Alice smiles and hands over a key. \"Room three, and the stew is on its way.\"";

/// A script that writes the reply, commits it and finishes: `run_completed`.
pub fn completing_script() -> Value {
    serde_json::json!({"turns": [
        {"tool_calls": [{"name": "workspace_write_file",
                         "arguments": {"path": "output/main.md", "content": REPLY}}]},
        {"text": "Committing.", "tool_calls": [{"name": "workspace_commit", "arguments": {}}]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {"reason": "done"}}]}
    ]})
}

/// Commits, then the provider fails for good: `run_partial_success`.
pub fn partial_script() -> Value {
    serde_json::json!({"turns": [
        {"tool_calls": [{"name": "workspace_write_file",
                         "arguments": {"path": "output/main.md", "content": REPLY}}]},
        {"tool_calls": [{"name": "workspace_commit", "arguments": {}}]},
        {"error": {"kind": "fatal", "message": "the provider fell over"}}
    ]})
}

/// The provider fails before anything is committed: `run_failed`.
pub fn failing_script() -> Value {
    serde_json::json!({"turns": [
        {"error": {"kind": "fatal", "message": "the provider fell over"}}
    ]})
}

/// The first model call takes a minute: time enough to press Ctrl-C.
pub fn slow_script() -> Value {
    serde_json::json!({"turns": [
        {"delay_ms": 60000, "tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
    ]})
}

/// A temporary data directory holding `chats/Alice/chat.jsonl`.
pub struct Fixture {
    pub dir: TempDir,
}

impl Fixture {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let chats = dir.path().join("chats").join("Alice");
        fs::create_dir_all(&chats).unwrap();
        fs::write(chats.join("chat.jsonl"), CHAT_LINES.join("\n") + "\n").unwrap();
        Self { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `value` as `<name>` beside the data directory's contents and returns its path.
    pub fn write_json(&self, name: &str, value: &Value) -> PathBuf {
        let path = self.path().join(name);
        fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
        path
    }

    /// `tavern-agent --data-dir <dir> <args…>`, with no data directory in the environment.
    pub fn cmd(&self) -> Command {
        let mut cmd = Command::new(bin());
        cmd.env_remove("TAVERN_AGENT_DATA_DIR")
            .env("NO_COLOR", "1")
            .arg("--data-dir")
            .arg(self.path());
        cmd
    }

    /// Runs `run --chat Alice/chat.jsonl --script <script> [extra…]`.
    pub fn run_script(&self, script: &Value, extra: &[&str]) -> assert_cmd::assert::Assert {
        let path = self.write_json("script.json", script);
        self.cmd()
            .args(["run", "--chat", CHAT, "--script"])
            .arg(path)
            .args(extra)
            .assert()
    }

    /// The run ids in the run index.
    pub fn run_ids(&self) -> Vec<String> {
        let index = self.path().join("_tauritavern/agent-workspaces/index/runs");
        let Ok(entries) = fs::read_dir(index) else {
            return Vec::new();
        };
        let mut ids: Vec<String> = entries
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        ids.sort();
        ids
    }

    /// The run's directory, wherever its chat workspace is.
    pub fn run_dir(&self, run_id: &str) -> PathBuf {
        let chats = self.path().join("_tauritavern/agent-workspaces/chats");
        for workspace in fs::read_dir(&chats).unwrap() {
            let dir = workspace.unwrap().path().join("runs").join(run_id);
            if dir.is_dir() {
                return dir;
            }
        }
        panic!("no directory for run {run_id} under {}", chats.display());
    }

    pub fn events_jsonl(&self, run_id: &str) -> String {
        fs::read_to_string(self.run_dir(run_id).join("events.jsonl")).unwrap()
    }

    pub fn chat_text(&self) -> String {
        fs::read_to_string(self.path().join("chats/Alice/chat.jsonl")).unwrap()
    }
}

/// The binary under test.
pub fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_tavern-agent"))
}

/// The id from the `run: <id>` line of stderr.
pub fn run_id_of(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    text.lines()
        .find_map(|line| line.strip_prefix("run: "))
        .unwrap_or_else(|| panic!("no `run:` line in stderr:\n{text}"))
        .trim()
        .to_owned()
}

pub fn stdout_of(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stdout.clone()).unwrap()
}

pub fn stderr_of(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stderr.clone()).unwrap()
}

/// Starts `run --script slow.json` (a model call that takes very long) as a child process
/// over the fixture's data dir; returns the child, its stderr after the `run: <id>` line, and
/// the run id read from that line.
pub fn spawn_slow_run(
    fx: &Fixture,
    stdout: std::process::Stdio,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
    String,
) {
    spawn_scripted_run(fx, &slow_script(), stdout)
}

/// [`spawn_slow_run`] with any script.
pub fn spawn_scripted_run(
    fx: &Fixture,
    script: &Value,
    stdout: std::process::Stdio,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
    String,
) {
    use std::io::BufRead;
    let script = fx.write_json("spawned.json", script);
    let mut child = std::process::Command::new(bin())
        .env_remove("TAVERN_AGENT_DATA_DIR")
        .arg("--data-dir")
        .arg(fx.path())
        .args(["run", "--chat", CHAT, "--script"])
        .arg(&script)
        .stdout(stdout)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    let run_id = first.strip_prefix("run: ").expect(&first).trim().to_owned();
    (child, stderr, run_id)
}

/// Every file under `dir` that contains `needle`.
pub fn files_containing(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if String::from_utf8_lossy(&fs::read(&path).unwrap()).contains(needle) {
                found.push(path.display().to_string());
            }
        }
    }
    found
}
