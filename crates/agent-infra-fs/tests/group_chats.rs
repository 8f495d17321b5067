#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Chat headers and group chats as SillyTavern writes them: the 1.18 header with `"unused"`
//! names, group replies with their card and generation, and group chats of SillyTavern 1.12,
//! which have no header line at all (message 0 is line 1, the metadata is in the group file).
//! Read with `FsChatStore` and written with `FsChatCommitter`, on the fixture folder
//! `tests/fixtures/sillytavern-user/`.

use std::fs;
use std::path::{Path, PathBuf};

use agent_application::ports::{
    ChatCommitPort, ChatCommitRequest, ChatError, ChatStore, CommitTarget, Groups,
    PersistStateUpdate, ReplyAuthor, ReplyModel,
};
use agent_domain::event::ChatRef;
use agent_domain::run::{AgentMessageRecord, CommitRecord, RecordIdentity, RunId, StateId};
use agent_infra_fs::FsStorage;
use agent_infra_fs::layout::DataDir;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tempfile::TempDir;

const CURRENT: &str = "2026-06-01@21h00m00s123ms";
const OLD: &str = "2024-09-28@10h11m12s";

/// A copy of the fixture folder, opened as storage.
fn storage() -> (TempDir, FsStorage) {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sillytavern-user");
    let options = fs_extra::dir::CopyOptions::new()
        .content_only(true)
        .overwrite(true);
    fs_extra::dir::copy(&fixture, dir.path(), &options).unwrap();
    let storage = FsStorage::open(DataDir::new(dir.path()));
    (dir, storage)
}

fn group(chat_id: &str) -> ChatRef {
    ChatRef::Group {
        chat_id: chat_id.into(),
    }
}

fn group_chat_path(storage: &FsStorage, chat_id: &str) -> PathBuf {
    storage.data.group_chats().join(format!("{chat_id}.jsonl"))
}

/// `ChatInfo` as JSON, for snapshots.
fn info_json(info: &agent_application::ports::ChatInfo) -> Value {
    json!({
        "stable_chat_id": info.stable_chat_id,
        "message_count": info.message_count,
        "character_name": info.character_name,
        "user_name": info.user_name,
        "chat_metadata": info.chat_metadata,
        "create_date": info.create_date,
        "has_header": info.has_header,
    })
}

#[tokio::test]
async fn a_current_group_chat_reads_its_header_and_speakers() {
    let (_dir, storage) = storage();
    let chat = group(CURRENT);
    let before = fs::read(group_chat_path(&storage, CURRENT)).unwrap();
    let info = storage.chats.open(&chat).await.unwrap();
    let info = info_json(&info);
    insta::assert_json_snapshot!("current_group_chat_info", info);
    let messages = storage.chats.read_messages(&chat, 0..10).await.unwrap();
    insta::assert_yaml_snapshot!("current_group_chat_messages", messages);
    assert_eq!(
        fs::read(group_chat_path(&storage, CURRENT)).unwrap(),
        before
    );
}

#[tokio::test]
async fn an_old_group_chat_has_no_header_and_its_metadata_is_in_the_group() {
    let (_dir, storage) = storage();
    let chat = group(OLD);
    let path = group_chat_path(&storage, OLD);
    let before = fs::read_to_string(&path).unwrap();

    let info = storage.chats.open(&chat).await.unwrap();
    let info = info_json(&info);
    insta::assert_json_snapshot!("old_group_chat_info", info);
    // Opening never writes a header into it (SillyTavern 1.12 would read it as a message).
    assert_eq!(fs::read_to_string(&path).unwrap(), before);

    let messages = storage.chats.read_messages(&chat, 0..10).await.unwrap();
    insta::assert_yaml_snapshot!("old_group_chat_messages", messages);
    let second = storage.chats.read_messages(&chat, 1..2).await.unwrap();
    assert_eq!(second, messages[1..2]);

    let group = storage.groups.find_by_chat(OLD).await.unwrap().unwrap();
    assert_eq!(group.id, "1700000000000");
    assert_eq!(
        group
            .chat_metadata(OLD)
            .map(|meta| meta["world_info"].clone()),
        Some(json!("Eldoria"))
    );
}

fn request(chat: &ChatRef, run: &str, target: CommitTarget) -> ChatCommitRequest {
    let identity = RecordIdentity {
        run_id: run.into(),
        workspace_id: "chat_e3a3589a09f81729".into(),
        stable_chat_id: OLD.into(),
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
        chars: 23,
        words: 5,
        sha256: "00".into(),
    };
    ChatCommitRequest {
        chat: chat.clone(),
        run_id: RunId::parse(run).unwrap(),
        target,
        text: "The road north is open.".into(),
        author: ReplyAuthor {
            name: "Bram".into(),
            avatar: Some("Bram.png".into()),
            generation_id: Some(1_780_000_000_000),
        },
        model: ReplyModel::default(),
        reasoning: String::new(),
        generation_started: "2026-06-01T20:00:00.000Z".into(),
        committed_at: "2026-06-01T20:00:05.000Z".into(),
        record: AgentMessageRecord::after(&identity, &[], &commit),
        metadata: Vec::new(),
    }
}

#[tokio::test]
async fn commits_into_an_old_group_chat_never_take_a_message_for_the_header() {
    let (_dir, storage) = storage();
    let chat = group(OLD);
    let path = group_chat_path(&storage, OLD);
    let original: Vec<String> = fs::read_to_string(&path)
        .unwrap()
        .split('\n')
        .map(str::to_owned)
        .collect();
    assert_eq!(original.len(), 4);

    // A normal reply is appended as message 4 (line 5); line 1 stays message 0.
    let receipt = storage
        .chat_commits
        .commit(request(&chat, "run_normal", CommitTarget::NewReply))
        .await
        .unwrap();
    assert_eq!(receipt.message_index, Some(4));
    let lines: Vec<String> = fs::read_to_string(&path)
        .unwrap()
        .split('\n')
        .map(str::to_owned)
        .collect();
    assert_eq!(lines[..4], original[..]);
    let reply: Value = serde_json::from_str(&lines[4]).unwrap();
    assert_eq!(reply["name"], "Bram");
    assert_eq!(reply["mes"], "The road north is open.");

    // A swipe of message 1 (Bram's reply, line 2) changes line 2 only.
    let receipt = storage
        .chat_commits
        .commit(request(
            &chat,
            "run_swipe",
            CommitTarget::NewSwipe { index: 1 },
        ))
        .await
        .unwrap();
    assert_eq!(receipt.message_index, Some(1));
    let swiped: Vec<String> = fs::read_to_string(&path)
        .unwrap()
        .split('\n')
        .map(str::to_owned)
        .collect();
    assert_eq!(swiped[0], original[0]);
    assert_eq!(swiped[2..4], original[2..4]);
    let bram: Value = serde_json::from_str(&swiped[1]).unwrap();
    assert_eq!(bram["original_avatar"], "Bram.png");
    assert_eq!(
        bram["swipes"],
        json!(["Ale for everyone!", "The road north is open."])
    );

    storage
        .chat_commits
        .record_persist_state(PersistStateUpdate {
            chat: chat.clone(),
            run_id: RunId::parse("run_normal").unwrap(),
            message_id: "4".into(),
            state_id: StateId::parse("state_1").unwrap(),
            base_state_id: None,
            change_count: 0,
        })
        .await
        .unwrap();
    let read = storage.chats.read_messages(&chat, 0..10).await.unwrap();
    assert_eq!(read.len(), 5);
    assert_eq!(read[0].text, "The fire is warm tonight.");
    assert_eq!(read[1].text, "The road north is open.");
    assert_eq!(read[4].agent.as_ref().unwrap()["persistStateId"], "state_1");
    let info = storage.chats.open(&chat).await.unwrap();
    assert_eq!((info.message_count, info.has_header), (5, false));
}

#[tokio::test]
async fn an_unused_header_names_nobody() {
    let (_dir, storage) = storage();
    let chat = ChatRef::Character {
        character_id: "Seraphina".into(),
        file_name: "Seraphina - 2026-06-01@20h00m00s000ms".into(),
    };
    let info = storage.chats.open(&chat).await.unwrap();
    assert_eq!((info.character_name, info.user_name), (None, None));
    assert_eq!(info.chat_metadata["persona"], "knight.png");
    assert_eq!(info.stable_chat_id, "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d");
}

#[tokio::test]
async fn odd_first_lines() {
    let (_dir, storage) = storage();
    let write = |relative: &str, content: &str| {
        let path = storage.data.root().join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    };

    // An empty group chat (SillyTavern 1.12 writes nothing for a chat without messages).
    write("group chats/empty.jsonl", "");
    let info = storage.chats.open(&group("empty")).await.unwrap();
    assert_eq!((info.message_count, info.has_header), (0, false));
    assert_eq!(info.stable_chat_id, "empty");
    let receipt = storage
        .chat_commits
        .commit(request(&group("empty"), "run_1", CommitTarget::NewReply))
        .await
        .unwrap();
    assert_eq!(receipt.message_index, Some(0));
    let written = fs::read_to_string(storage.data.group_chats().join("empty.jsonl")).unwrap();
    assert!(!written.contains('\n'), "{written}");
    assert_eq!(
        storage
            .chats
            .open(&group("empty"))
            .await
            .unwrap()
            .message_count,
        1
    );

    // A header-less line with a broken message reports the file's own line number.
    write(
        "group chats/broken.jsonl",
        "{\"name\":\"A\",\"mes\":\"one\"}\n{\"name\":\"B\",\"mes\":",
    );
    let err = storage
        .chats
        .read_messages(&group("broken"), 0..2)
        .await
        .unwrap_err();
    assert!(
        matches!(err, ChatError::InvalidMessage { line: 2, .. }),
        "{err:?}"
    );

    // The oldest one-to-one header has no chat_metadata, and is still a header.
    write(
        "chats/Bram/old.jsonl",
        "{\"user_name\":\"Ann\",\"character_name\":\"Bram\",\"create_date\":\"2023-05-01@12h00m00s\"}\n{\"name\":\"Bram\",\"mes\":\"Ale?\"}",
    );
    let bram = ChatRef::Character {
        character_id: "Bram".into(),
        file_name: "old".into(),
    };
    let info = storage.chats.open(&bram).await.unwrap();
    assert_eq!(info.message_count, 1);
    assert_eq!(info.character_name.as_deref(), Some("Bram"));
    assert_eq!(info.create_date.as_deref(), Some("2023-05-01@12h00m00s"));

    // A character chat always starts with its header: a message there, or nothing, is refused.
    write(
        "chats/Bram/headless.jsonl",
        "{\"name\":\"Bram\",\"mes\":\"Ale?\"}",
    );
    write("chats/Bram/empty.jsonl", "");
    for file in ["headless", "empty"] {
        let chat = ChatRef::Character {
            character_id: "Bram".into(),
            file_name: file.into(),
        };
        let err = storage.chats.open(&chat).await.unwrap_err();
        assert!(
            matches!(err, ChatError::InvalidHeader(_)),
            "{file}: {err:?}"
        );
        let err = storage.chats.read_messages(&chat, 0..1).await.unwrap_err();
        assert!(
            matches!(err, ChatError::InvalidHeader(_)),
            "{file}: {err:?}"
        );
    }
    assert_eq!(
        fs::read_to_string(storage.data.chats().join("Bram/headless.jsonl")).unwrap(),
        "{\"name\":\"Bram\",\"mes\":\"Ale?\"}"
    );
}
