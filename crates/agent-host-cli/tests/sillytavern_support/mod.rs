//! A copy of the real-shaped SillyTavern corpus in `tests/data/sillytavern/` (a TauriTavern
//! install: `data/default-user/` with `data/_tauritavern/` beside it), and helpers to run the
//! binary on it and read what it wrote.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

/// The current-format one-to-one chat (header names `"unused"`, ends with the user).
pub const CURRENT_CHAT: &str = "Seraphina/Seraphina - 2026-05-20@12h03m07s123ms.jsonl";
/// The old-format chat (names and `create_date` in the header, humanized dates, ends with a
/// reply that has two swipes).
pub const OLD_CHAT: &str = "Seraphina/Seraphina - 2024-09-28@10h11m12s.jsonl";
/// The group chat, by its path relative to the user folder.
pub const GROUP_CHAT: &str = "group chats/2026-05-21@18h30m00s000ms.jsonl";

pub struct Corpus {
    pub dir: TempDir,
}

impl Corpus {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sillytavern");
        copy_tree(&source, dir.path());
        Self { dir }
    }

    /// The SillyTavern user folder (`--data-dir`).
    pub fn user(&self) -> PathBuf {
        self.dir.path().join("data/default-user")
    }

    /// TauriTavern's folder beside it.
    pub fn ours(&self) -> PathBuf {
        self.dir.path().join("data/_tauritavern")
    }

    pub fn cmd(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tavern-agent"));
        cmd.env_remove("TAVERN_AGENT_DATA_DIR")
            .env("NO_COLOR", "1")
            .arg("--data-dir")
            .arg(self.user());
        cmd
    }

    pub fn write_script(&self, script: &Value) -> PathBuf {
        let path = self.dir.path().join("script.json");
        fs::write(&path, serde_json::to_string(script).unwrap()).unwrap();
        path
    }

    /// `run --chat <chat> --script <script> [extra…]`; the chat is relative to `chats/` or
    /// (for a group chat) to the user folder.
    pub fn run(&self, chat: &str, script: &Value, extra: &[&str]) -> assert_cmd::assert::Assert {
        let script = self.write_script(script);
        let chat = self.chat_arg(chat);
        self.cmd()
            .args(["run", "--chat"])
            .arg(chat)
            .arg("--script")
            .arg(script)
            .args(extra)
            .assert()
    }

    pub fn chat_arg(&self, chat: &str) -> PathBuf {
        if chat.starts_with("group chats/") {
            self.user().join(chat)
        } else {
            PathBuf::from(chat)
        }
    }

    pub fn chat_path(&self, chat: &str) -> PathBuf {
        if chat.starts_with("group chats/") {
            self.user().join(chat)
        } else {
            self.user().join("chats").join(chat)
        }
    }

    pub fn chat_text(&self, chat: &str) -> String {
        fs::read_to_string(self.chat_path(chat)).unwrap()
    }

    pub fn lines(&self, chat: &str) -> Vec<String> {
        self.chat_text(chat)
            .split('\n')
            .map(str::to_owned)
            .collect()
    }

    /// The run's directory under our folder.
    pub fn run_dir(&self, run_id: &str) -> PathBuf {
        let chats = self.ours().join("agent-workspaces/chats");
        for workspace in fs::read_dir(&chats).unwrap() {
            let dir = workspace.unwrap().path().join("runs").join(run_id);
            if dir.is_dir() {
                return dir;
            }
        }
        panic!("no directory for run {run_id}");
    }

    pub fn prompt_snapshot(&self, run_id: &str) -> Value {
        let text =
            fs::read_to_string(self.run_dir(run_id).join("input/prompt_snapshot.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    pub fn events(&self, run_id: &str) -> Vec<Value> {
        fs::read_to_string(self.run_dir(run_id).join("events.jsonl"))
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    /// The `content` of every tool result of a run, in call order.
    pub fn tool_results(&self, run_id: &str) -> Vec<Value> {
        let dir = self.run_dir(run_id).join("tool-results");
        let mut results: Vec<(String, Value)> = fs::read_dir(dir)
            .unwrap()
            .map(|entry| {
                let text = fs::read_to_string(entry.unwrap().path()).unwrap();
                let value: Value = serde_json::from_str(&text).unwrap();
                (value["callId"].as_str().unwrap().to_owned(), value)
            })
            .collect();
        results.sort_by_key(|(id, _)| id.trim_start_matches("call_").parse::<u32>().unwrap_or(0));
        results.into_iter().map(|(_, v)| v).collect()
    }
}

/// Copies the contents of the folder `from` into the folder `to`.
fn copy_tree(from: &Path, to: &Path) {
    let options = fs_extra::dir::CopyOptions::new()
        .content_only(true)
        .overwrite(true);
    fs_extra::dir::copy(from, to, &options).unwrap();
}

/// The id from the `run: <id>` line of stderr.
pub fn run_id_of(assert: &assert_cmd::assert::Assert) -> String {
    let text = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    text.lines()
        .find_map(|line| line.strip_prefix("run: "))
        .unwrap_or_else(|| panic!("no `run:` line in stderr:\n{text}"))
        .trim()
        .to_owned()
}

/// `line` with what changes from run to run replaced: ids (`run_…`, `commit_…`) and the
/// times that are not in `original` (the chat before the run).
pub fn scrub(line: &str, original: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while !rest.is_empty() {
        if let Some(len) = id_at(rest, "run_").or_else(|| id_at(rest, "commit_")) {
            let prefix = if rest.starts_with("run_") {
                "run_"
            } else {
                "commit_"
            };
            out.push_str(prefix);
            out.push_str("[id]");
            rest = &rest[len..];
        } else if is_timestamp(rest) && !original.contains(&rest[..24]) {
            out.push_str("[time]");
            rest = &rest[24..];
        } else {
            let ch = rest.chars().next().unwrap();
            out.push(ch);
            rest = &rest[ch.len_utf8()..];
        }
    }
    out
}

fn id_at(text: &str, prefix: &str) -> Option<usize> {
    let hex = text.strip_prefix(prefix)?.get(..32)?;
    hex.bytes()
        .all(|b| b.is_ascii_hexdigit())
        .then_some(prefix.len() + 32)
}

/// `2026-05-20T12:04:19.902Z` at the start of `text`, from this year on.
fn is_timestamp(text: &str) -> bool {
    let Some(head) = text.get(..24) else {
        return false;
    };
    let b = head.as_bytes();
    head.starts_with("202") && b[4] == b'-' && b[10] == b'T' && b[19] == b'.' && b[23] == b'Z'
}
