#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Reading chats through `FsChatStore`: messages, the stable chat id, and refused files.

use std::fs;
use std::path::PathBuf;

use agent_application::ports::{ChatError, ChatRole, ChatStore};
use agent_domain::event::ChatRef;
use agent_infra_fs::chat::FsChatStore;
use agent_infra_fs::layout::DataDir;
use pretty_assertions::assert_eq;
use serde_json::json;
use tempfile::TempDir;

const HEADER: &str = r#"{"user_name":"Ann","character_name":"Seraphina","create_date":"2026-06-01@21h00m00s","chat_metadata":{"integrity":"stable-1","note_prompt":""}}"#;

struct Chat {
    _dir: TempDir,
    store: FsChatStore,
    chat: ChatRef,
    path: PathBuf,
}

/// A character chat `Seraphina/chat.jsonl` holding exactly `content`.
fn chat(content: &str) -> Chat {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    let path = data.chats().join("Seraphina/chat.jsonl");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, content).unwrap();
    let chat = ChatRef::Character {
        character_id: "Seraphina".into(),
        file_name: "chat".into(),
    };
    Chat {
        _dir: dir,
        store: FsChatStore::new(data),
        chat,
        path,
    }
}

fn messages() -> String {
    [
        HEADER,
        r#"{"name":"Ann","is_user":true,"is_system":false,"send_date":"June 1, 2026 9:00pm","mes":"你好 👋","extra":{}}"#,
        r#"{"name":"Seraphina","is_user":false,"is_system":false,"mes":"مرحبا","extra":{"tauritavern":{"agent":{"runId":"run_1","persistStateStatus":"not_committed"}}}}"#,
        r#"{"name":"Narrator","is_user":false,"is_system":true,"mes":"The wind rises."}"#,
    ]
    .join("\n")
}

#[tokio::test]
async fn open_reports_the_chat_and_its_stable_id() {
    let chat = chat(&messages());
    let info = chat.store.open(&chat.chat).await.unwrap();
    assert_eq!(info.chat, chat.chat);
    assert_eq!(info.stable_chat_id, "stable-1");
    assert_eq!(info.message_count, 3);
    assert_eq!(info.character_name.as_deref(), Some("Seraphina"));
    assert_eq!(info.user_name.as_deref(), Some("Ann"));
}

#[tokio::test]
async fn messages_are_read_by_index_range() {
    let chat = chat(&messages());
    let all = chat.store.read_messages(&chat.chat, 0..10).await.unwrap();
    let summary: Vec<_> = all
        .iter()
        .map(|m| (m.index, m.role, m.name.as_str(), m.text.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            (0, ChatRole::User, "Ann", "你好 👋"),
            (1, ChatRole::Assistant, "Seraphina", "مرحبا"),
            (2, ChatRole::System, "Narrator", "The wind rises."),
        ]
    );
    assert_eq!(all[0].send_date.as_deref(), Some("June 1, 2026 9:00pm"));
    assert_eq!(
        all[1].agent,
        Some(json!({"runId": "run_1", "persistStateStatus": "not_committed"}))
    );
    assert_eq!(all[0].agent, None);
    let middle = chat.store.read_messages(&chat.chat, 1..2).await.unwrap();
    assert_eq!(middle, all[1..2]);
    assert!(
        chat.store
            .read_messages(&chat.chat, 3..5)
            .await
            .unwrap()
            .is_empty()
    );
    #[allow(clippy::reversed_empty_ranges)]
    let backwards = 2..1;
    assert!(
        chat.store
            .read_messages(&chat.chat, backwards)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn a_changed_file_is_indexed_again() {
    let chat = chat(&messages());
    assert_eq!(
        chat.store
            .read_messages(&chat.chat, 0..10)
            .await
            .unwrap()
            .len(),
        3
    );
    let longer = format!(
        "{}\n{}",
        messages(),
        r#"{"name":"Ann","is_user":true,"mes":"more"}"#
    );
    fs::write(&chat.path, longer).unwrap();
    let last = chat.store.read_messages(&chat.chat, 3..4).await.unwrap();
    assert_eq!(last[0].text, "more");
    fs::write(&chat.path, HEADER).unwrap();
    assert!(
        chat.store
            .read_messages(&chat.chat, 0..10)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(chat.store.open(&chat.chat).await.unwrap().message_count, 0);
}

#[tokio::test]
async fn a_chat_without_integrity_gets_one_written_into_its_header() {
    let header = r#"{"user_name":"Ann","character_name":"Seraphina","chat_metadata":{"note_prompt":"","tainted":false},"zz":1}"#;
    let rest = messages().split_once('\n').unwrap().1.to_owned();
    let chat = chat(&format!("{header}\n{rest}"));
    let first = chat.store.open(&chat.chat).await.unwrap();
    assert!(
        uuid::Uuid::parse_str(&first.stable_chat_id).is_ok(),
        "{}",
        first.stable_chat_id
    );
    assert_eq!(first.stable_chat_id.len(), 36);
    assert_eq!(first.message_count, 3);

    let written = fs::read_to_string(&chat.path).unwrap();
    let (new_header, new_rest) = written.split_once('\n').unwrap();
    assert_eq!(new_rest, rest, "only the header changes");
    assert_eq!(
        new_header,
        format!(
            r#"{{"user_name":"Ann","character_name":"Seraphina","chat_metadata":{{"note_prompt":"","tainted":false,"integrity":"{}"}},"zz":1}}"#,
            first.stable_chat_id
        )
    );
    let again = FsChatStore::new(DataDir::new(chat._dir.path()))
        .open(&chat.chat)
        .await
        .unwrap();
    assert_eq!(again.stable_chat_id, first.stable_chat_id);
    assert_eq!(fs::read_to_string(&chat.path).unwrap(), written);
}

#[tokio::test]
async fn an_integrity_that_is_not_a_string_is_refused() {
    for integrity in ["7", "null", r#""  ""#] {
        let header = format!(r#"{{"chat_metadata":{{"integrity":{integrity}}}}}"#);
        let chat = chat(&header);
        let err = chat.store.open(&chat.chat).await.unwrap_err();
        assert!(
            matches!(err, ChatError::InvalidHeader(_)),
            "{integrity}: {err:?}"
        );
        assert_eq!(
            fs::read_to_string(&chat.path).unwrap(),
            header,
            "nothing is written"
        );
    }
}

#[tokio::test]
async fn an_invalid_line_is_reported_with_its_line_number() {
    let content = format!("{}\n{{\"mes\":\"broken\"\n{}", HEADER, r#"{"mes":"fine"}"#);
    let chat = chat(&content);
    assert_eq!(chat.store.open(&chat.chat).await.unwrap().message_count, 2);
    let err = chat
        .store
        .read_messages(&chat.chat, 0..2)
        .await
        .unwrap_err();
    assert!(
        matches!(err, ChatError::InvalidMessage { line: 2, .. }),
        "{err:?}"
    );
    assert_eq!(
        chat.store.read_messages(&chat.chat, 1..2).await.unwrap()[0].text,
        "fine"
    );
}

#[tokio::test]
async fn a_blank_line_between_messages_is_refused() {
    let content = format!("{HEADER}\n{{\"mes\":\"a\"}}\n\n{{\"mes\":\"b\"}}");
    let chat = chat(&content);
    let err = chat.store.open(&chat.chat).await.unwrap_err();
    assert_eq!(
        err,
        ChatError::InvalidMessage {
            line: 3,
            detail: "blank line".into()
        }
    );
    let err = chat
        .store
        .read_messages(&chat.chat, 0..1)
        .await
        .unwrap_err();
    assert!(matches!(err, ChatError::InvalidMessage { line: 3, .. }));
}

#[tokio::test]
async fn a_missing_chat_is_not_found() {
    let chat = chat(HEADER);
    let missing = ChatRef::Character {
        character_id: "Seraphina".into(),
        file_name: "nope".into(),
    };
    assert!(matches!(
        chat.store.open(&missing).await,
        Err(ChatError::NotFound(_))
    ));
    assert!(matches!(
        chat.store.read_messages(&missing, 0..1).await,
        Err(ChatError::NotFound(_))
    ));
}

#[tokio::test]
async fn group_chats_use_the_same_format() {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    fs::create_dir_all(data.group_chats()).unwrap();
    fs::write(
        data.group_chats().join("g-1.jsonl"),
        format!("{}\n", messages()),
    )
    .unwrap();
    let store = FsChatStore::new(data);
    let group = ChatRef::Group {
        chat_id: "g-1".into(),
    };
    assert_eq!(store.open(&group).await.unwrap().message_count, 3);
    assert_eq!(
        store.read_messages(&group, 2..3).await.unwrap()[0].role,
        ChatRole::System
    );
}
