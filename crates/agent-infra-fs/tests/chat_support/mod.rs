//! A character chat in a temporary data directory, and commit requests for it: what the
//! staging and line-ending tests share.

use std::fs;
use std::path::PathBuf;

use agent_application::ports::{ChatCommitRequest, CommitTarget, ReplyAuthor, ReplyModel};
use agent_domain::event::ChatRef;
use agent_domain::run::{AgentMessageRecord, CommitRecord, RecordIdentity, RunId};
use agent_infra_fs::layout::DataDir;
use tempfile::TempDir;

pub struct Chat {
    pub _dir: TempDir,
    pub data: DataDir,
    pub chat: ChatRef,
    pub path: PathBuf,
}

/// `chats/Seraphina/chat.jsonl` holding exactly `bytes`.
pub fn chat_with(bytes: &[u8]) -> Chat {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    let path = data.chats().join("Seraphina/chat.jsonl");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, bytes).unwrap();
    Chat {
        _dir: dir,
        data,
        chat: ChatRef::Character {
            character_id: "Seraphina".into(),
            file_name: "chat".into(),
        },
        path,
    }
}

/// Run `run`'s first commit of `text` to `target`.
pub fn request(chat: &Chat, run: &str, target: CommitTarget, text: &str) -> ChatCommitRequest {
    let identity = RecordIdentity {
        run_id: run.into(),
        workspace_id: "chat_d474bb6f0a9e39a7".into(),
        stable_chat_id: "stable-1".into(),
        profile_id: None,
        persist_base_state_id: None,
    };
    let commit = CommitRecord {
        seq: 1,
        commit_id: "commit_1".into(),
        checkpoint_id: "cp_000001".into(),
        path: "output/main.md".into(),
        mode: "replace".into(),
        reason: None,
        chars: text.chars().count() as u64,
        words: 1,
        sha256: "5e".into(),
    };
    ChatCommitRequest {
        chat: chat.chat.clone(),
        run_id: RunId::parse(run).unwrap(),
        target,
        text: text.into(),
        author: ReplyAuthor {
            name: "Seraphina".into(),
            ..ReplyAuthor::default()
        },
        model: ReplyModel {
            api: "claude".into(),
            model: "claude-sonnet-4-5".into(),
        },
        reasoning: String::new(),
        generation_started: "2026-06-01T21:05:00.000Z".into(),
        committed_at: "2026-06-01T21:06:30.500Z".into(),
        record: AgentMessageRecord::after(&identity, &[], &commit),
        metadata: Vec::new(),
    }
}
