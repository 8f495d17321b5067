#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! A chat with CRLF line endings (saved on Windows, or through a tool that converts them)
//! stays CRLF through every write: the stable id, a new reply, a revision, the persistent
//! state record, a new swipe, and rollbacks of both.

mod chat_support;

use std::fs;

use agent_application::ports::{
    ChatCommitPort, ChatRollbackRequest, CommitTarget, PersistStateUpdate, RollbackTarget,
};
use agent_domain::run::{RunId, StateId};
use agent_infra_fs::chat::{FsChatCommitter, FsChatStore};
use chat_support::{Chat, chat_with, request};

/// A header without a stable id (so opening the chat rewrites it), then messages; an
/// assistant message last, for the swipe.
const LINES: [&str; 4] = [
    r#"{"user_name":"Ann","character_name":"Seraphina","chat_metadata":{"note_prompt":""}}"#,
    r#"{"name":"Ann","is_user":true,"is_system":false,"mes":"Hello","extra":{}}"#,
    r#"{"name":"Seraphina","is_user":false,"is_system":false,"mes":"Welcome","extra":{},"swipe_id":0,"swipes":["Welcome"],"swipe_info":[{}]}"#,
    r#"{"name":"Ann","is_user":true,"is_system":false,"mes":"Go on","extra":{}}"#,
];

/// Every line break of the file is CRLF, and the file ends with one exactly when `ended`.
fn assert_crlf(chat: &Chat, ended: bool, step: &str) {
    let bytes = fs::read(&chat.path).unwrap();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            assert!(
                i > 0 && bytes[i - 1] == b'\r',
                "{step}: a bare LF at byte {i} in {:?}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }
    assert_eq!(bytes.ends_with(b"\r\n"), ended, "{step}");
    assert!(
        bytes
            .windows(2)
            .all(|pair| pair[0] != b'\r' || pair[1] == b'\n'),
        "{step}: a CR without its LF"
    );
}

async fn every_write_keeps_crlf(ended: bool) {
    let mut text = LINES.join("\r\n");
    if ended {
        text.push_str("\r\n");
    }
    let chat = chat_with(text.as_bytes());
    let store = FsChatStore::new(chat.data.clone());
    let committer = FsChatCommitter::new(chat.data.clone());

    store.open_blocking(&chat.chat).unwrap();
    assert_crlf(&chat, ended, "stable id");
    let opened = fs::read(&chat.path).unwrap();
    let body = &text.as_bytes()[LINES[0].len()..];
    assert!(opened.ends_with(body), "only the header changed");

    let first = committer
        .commit(request(&chat, "run_reply", CommitTarget::NewReply, "One"))
        .await
        .unwrap();
    assert_crlf(&chat, ended, "new reply");
    committer
        .commit(request(
            &chat,
            "run_reply",
            CommitTarget::Revise {
                message_id: first.message_id.clone(),
            },
            "One, revised",
        ))
        .await
        .unwrap();
    assert_crlf(&chat, ended, "revision");
    committer
        .record_persist_state(PersistStateUpdate {
            chat: chat.chat.clone(),
            run_id: RunId::parse("run_reply").unwrap(),
            message_id: first.message_id.clone(),
            state_id: StateId::parse("run_reply").unwrap(),
            base_state_id: None,
            change_count: 0,
        })
        .await
        .unwrap();
    assert_crlf(&chat, ended, "persistent state");
    let before_swipe = fs::read(&chat.path).unwrap();

    let swipe = committer
        .commit(request(
            &chat,
            "run_swipe",
            CommitTarget::NewSwipe { index: 1 },
            "Welcome back",
        ))
        .await
        .unwrap();
    assert_crlf(&chat, ended, "new swipe");
    committer
        .rollback(ChatRollbackRequest {
            chat: chat.chat.clone(),
            run_id: RunId::parse("run_swipe").unwrap(),
            targets: vec![RollbackTarget {
                message_id: swipe.message_id,
                previous_message: swipe.previous_message,
            }],
            metadata: Vec::new(),
        })
        .await
        .unwrap();
    assert_crlf(&chat, ended, "swipe rollback");
    assert_eq!(fs::read(&chat.path).unwrap(), before_swipe);

    committer
        .rollback(ChatRollbackRequest {
            chat: chat.chat.clone(),
            run_id: RunId::parse("run_reply").unwrap(),
            targets: vec![RollbackTarget {
                message_id: first.message_id,
                previous_message: None,
            }],
            metadata: Vec::new(),
        })
        .await
        .unwrap();
    assert_crlf(&chat, ended, "reply rollback");
    assert_eq!(fs::read(&chat.path).unwrap(), opened);
}

#[tokio::test]
async fn a_crlf_chat_stays_crlf() {
    every_write_keeps_crlf(false).await;
}

#[tokio::test]
async fn a_crlf_chat_ending_in_a_line_break_keeps_it() {
    every_write_keeps_crlf(true).await;
}
