#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Committing runs' messages with `FsChatCommitter`: where each commit lands, that nothing
//! else in the file changes, and that concurrent writers do not lose each other's messages.

use std::fs;
use std::path::PathBuf;

use agent_application::ports::{
    ChatCommitPort, ChatCommitReceipt, ChatCommitRequest, ChatError, CommitMode, PersistStateUpdate,
};
use agent_domain::event::ChatRef;
use agent_domain::run::{GenerationType, RunId, StateId};
use agent_infra_fs::chat::FsChatCommitter;
use agent_infra_fs::layout::DataDir;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tempfile::TempDir;

/// A SillyTavern chat with unknown keys, swipes, escapes and CJK, emoji and RTL text. Every
/// line is written verbatim, so byte comparisons show exactly what a commit touched.
const LINES: [&str; 6] = [
    r#"{"user_name":"Ann","character_name":"Seraphina","create_date":"2026-06-01@21h00m00s","chat_metadata":{"integrity":"0b1c9f1e-5d2a-4c8e-9a57-3f6d2b8e4a10","note_prompt":"","timedWorldInfo":{"sticky":{},"cooldown":{}},"variables":{"天気":"晴れ"},"zz_extension":{"z":1,"a":[1,2]}},"unknown_top":true}"#,
    r#"{"name":"Ann","is_user":true,"is_system":false,"send_date":"June 1, 2026 9:00pm","mes":"你好，世界！\u00e9 \"quoted\"","extra":{},"force_avatar":"user.png"}"#,
    r#"{"name":"Seraphina","is_user":false,"is_system":false,"send_date":"June 1, 2026 9:01pm","mes":"Welcome 🌸 — مرحبا بك","extra":{"api":"openai","model":"gpt"},"swipe_id":1,"swipes":["First 🌙","Welcome 🌸 — مرحبا بك"],"swipe_info":[{"send_date":"June 1, 2026 9:00pm","extra":{"api":"openai"}},{"send_date":"June 1, 2026 9:01pm","extra":{"api":"openai","model":"gpt"}}],"gen_started":"2026-06-01T21:00:59.000Z"}"#,
    r#"{"name":"Narrator","is_user":false,"is_system":true,"send_date":"June 1, 2026 9:02pm","mes":"The wind rises. שלום","extra":{"isSmallSys":true}}"#,
    r#"{"name":"Ann","is_user":true,"is_system":false,"send_date":"June 1, 2026 9:03pm","mes":"続けて 👉","extra":{}}"#,
    r#"{"zz_first":"kept","name":"Seraphina","is_user":false,"is_system":false,"send_date":"June 1, 2026 9:04pm","mes":"Old answer ✨ עברית","extra":{"api":"openai","display_text":"shown","tauritavern":{"agent":{"runId":"run_previous","persistStateId":"state_prev","persistStateStatus":"committed"}}},"swipe_id":0,"swipes":["Old answer ✨ עברית"],"swipe_info":[{}],"custom":{"nested":[1,{"b":2,"a":1}]}}"#,
];

/// Messages in [`LINES`] (the header is not one).
const MESSAGES: usize = LINES.len() - 1;

const TEXT: &str = "新しい答え 🎉 — نص جديد";

struct Chat {
    _dir: TempDir,
    data: DataDir,
    committer: FsChatCommitter,
    chat: ChatRef,
    path: PathBuf,
}

impl Chat {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path());
        let path = data.chats().join("Seraphina/2026-06-01@21h00m00s.jsonl");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, LINES.join("\n")).unwrap();
        let chat = ChatRef::Character {
            character_id: "Seraphina".into(),
            file_name: "2026-06-01@21h00m00s".into(),
        };
        Self {
            committer: FsChatCommitter::new(data.clone()),
            _dir: dir,
            data,
            chat,
            path,
        }
    }

    fn request(&self, run: &str, generation_type: GenerationType) -> ChatCommitRequest {
        ChatCommitRequest {
            chat: self.chat.clone(),
            run_id: RunId::parse(run).unwrap(),
            generation_type,
            input_message_count: MESSAGES - 1,
            message_id: None,
            mode: CommitMode::Replace,
            text: TEXT.into(),
        }
    }

    fn raw(&self) -> String {
        fs::read_to_string(&self.path).unwrap()
    }

    fn lines(&self) -> Vec<String> {
        self.raw().split('\n').map(str::to_owned).collect()
    }

    /// Message `index` as JSON.
    fn message(&self, index: usize) -> Value {
        serde_json::from_str(&self.lines()[index + 1]).unwrap()
    }

    /// Asserts every line of the original file except message `changed` is still there,
    /// byte for byte, and returns how many lines were added after them.
    fn assert_only_changed(&self, changed: Option<usize>) -> usize {
        let lines = self.lines();
        for (i, original) in LINES.iter().enumerate() {
            if changed.map(|index| index + 1) != Some(i) {
                assert_eq!(&lines[i], original, "line {} changed", i + 1);
            }
        }
        lines.len() - LINES.len()
    }
}

fn agent(run: &str) -> Value {
    json!({"runId": run, "persistStateStatus": "not_committed"})
}

fn is_iso_now(value: &Value) -> bool {
    let text = value.as_str().unwrap_or_default();
    text.len() == 24 && text.ends_with('Z') && text.as_bytes()[10] == b'T'
}

#[tokio::test]
async fn a_normal_commit_appends_a_reply_and_keeps_every_other_byte() {
    let chat = Chat::new();
    let receipt = chat
        .committer
        .commit(chat.request("run_normal", GenerationType::Normal))
        .await
        .unwrap();
    assert_eq!(
        receipt,
        ChatCommitReceipt {
            message_id: "5".into(),
            message_index: Some(5)
        }
    );
    assert_eq!(chat.assert_only_changed(None), 1);
    assert!(
        !chat.raw().ends_with('\n'),
        "the file keeps SillyTavern's missing final newline"
    );

    let reply = chat.message(5);
    let extra = json!({"api": "tavern-agent", "tauritavern": {"agent": agent("run_normal")}});
    assert!(is_iso_now(&reply["send_date"]), "{}", reply["send_date"]);
    assert_eq!(
        reply,
        json!({
            "name": "Seraphina", "is_user": false, "is_system": false, "send_date": reply["send_date"],
            "mes": TEXT, "extra": extra, "swipes": [TEXT], "swipe_id": 0,
            "swipe_info": [{"send_date": reply["send_date"], "extra": extra}],
        })
    );
    assert!(chat.lines()[6].starts_with(r#"{"name":"Seraphina","is_user":false,"#));
}

#[tokio::test]
async fn regenerate_replaces_the_hidden_message_only() {
    let chat = Chat::new();
    let receipt = chat
        .committer
        .commit(chat.request("run_regen", GenerationType::Regenerate))
        .await
        .unwrap();
    assert_eq!(receipt.message_index, Some(4));
    assert_eq!(chat.assert_only_changed(Some(4)), 0);

    let line = &chat.lines()[5];
    assert!(
        line.starts_with(r#"{"zz_first":"kept","name":"Seraphina","#),
        "key order kept: {line}"
    );
    let message = chat.message(4);
    assert_eq!(message["mes"], TEXT);
    assert_eq!(message["swipes"], json!([TEXT]));
    assert_eq!(
        message["extra"],
        json!({"api": "tavern-agent", "tauritavern": {"agent": agent("run_regen")}})
    );
    assert_eq!(message["swipe_info"][0]["extra"], message["extra"]);
    assert_eq!(message["custom"], json!({"nested": [1, {"b": 2, "a": 1}]}));
}

#[tokio::test]
async fn regenerate_and_swipe_need_a_target_of_the_right_kind() {
    let chat = Chat::new();
    let at = |index: usize, generation_type| ChatCommitRequest {
        input_message_count: index,
        ..chat.request("run_x", generation_type)
    };
    for (request, kind) in [
        (at(3, GenerationType::Regenerate), "regenerate"), // a user message
        (at(5, GenerationType::Regenerate), "regenerate"), // past the end
        (at(2, GenerationType::Swipe), "swipe"),           // a system message
        (at(3, GenerationType::Swipe), "swipe"),           // a user message
        (at(9, GenerationType::Swipe), "swipe"),
    ] {
        assert_eq!(
            chat.committer.commit(request).await,
            Err(ChatError::NoTarget(kind))
        );
    }
    assert_eq!(
        chat.raw(),
        LINES.join("\n"),
        "refused commits write nothing"
    );
    // A system message may be regenerated; it becomes a visible reply.
    chat.committer
        .commit(at(2, GenerationType::Regenerate))
        .await
        .unwrap();
    assert_eq!(chat.assert_only_changed(Some(2)), 0);
    assert_eq!(chat.message(2)["is_system"], false);
}

#[tokio::test]
async fn a_swipe_adds_to_the_hidden_message() {
    let chat = Chat::new();
    let request = ChatCommitRequest {
        input_message_count: 1,
        ..chat.request("run_swipe", GenerationType::Swipe)
    };
    let receipt = chat.committer.commit(request).await.unwrap();
    assert_eq!(
        receipt,
        ChatCommitReceipt {
            message_id: "1".into(),
            message_index: Some(1)
        }
    );
    assert_eq!(chat.assert_only_changed(Some(1)), 0);
    let message = chat.message(1);
    assert_eq!(
        message["swipes"],
        json!(["First 🌙", "Welcome 🌸 — مرحبا بك", TEXT])
    );
    assert_eq!(message["swipe_id"], 2);
    assert_eq!(message["mes"], TEXT);
    assert_eq!(message["gen_started"], "2026-06-01T21:00:59.000Z");
}

#[tokio::test]
async fn a_swipe_commit_snapshot() {
    let chat = Chat::new();
    chat.committer
        .commit(chat.request("run_swipe", GenerationType::Swipe))
        .await
        .unwrap();
    let messages: Vec<Value> = chat
        .lines()
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert!(is_iso_now(&messages[5]["send_date"]));
    insta::with_settings!({sort_maps => true}, {
        insta::assert_json_snapshot!("swipe_commit", messages, {
            "[5].send_date" => "[now]",
            "[5].swipe_info[1].send_date" => "[now]",
        });
    });
}

#[tokio::test]
async fn later_commits_replace_or_append_to_the_same_message() {
    let chat = Chat::new();
    let first = chat
        .committer
        .commit(chat.request("run_rev", GenerationType::Swipe))
        .await
        .unwrap();
    let later = |mode, text: &str| ChatCommitRequest {
        message_id: Some(first.message_id.clone()),
        mode,
        text: text.into(),
        ..chat.request("run_rev", GenerationType::Swipe)
    };
    let appended = chat
        .committer
        .commit(later(CommitMode::Append, "続き 🌟"))
        .await
        .unwrap();
    assert_eq!(appended, first);
    assert_eq!(chat.assert_only_changed(Some(4)), 0);
    let message = chat.message(4);
    let expected = format!("{TEXT}\n\n続き 🌟");
    assert_eq!(message["mes"], expected.as_str());
    assert_eq!(message["swipes"][1], expected.as_str());
    assert_eq!(message["swipes"][0], "Old answer ✨ עברית");

    chat.committer
        .commit(later(CommitMode::Replace, "final"))
        .await
        .unwrap();
    let message = chat.message(4);
    assert_eq!(
        (&message["mes"], &message["swipes"][1]),
        (&json!("final"), &json!("final"))
    );
    assert_eq!(message["extra"]["tauritavern"]["agent"], agent("run_rev"));
    assert_eq!(chat.assert_only_changed(Some(4)), 0);
}

#[tokio::test]
async fn a_message_of_another_run_or_gone_is_missing() {
    let chat = Chat::new();
    for id in ["4", "5", "99", "x", "-1"] {
        let request = ChatCommitRequest {
            message_id: Some(id.into()),
            ..chat.request("run_other", GenerationType::Normal)
        };
        assert_eq!(
            chat.committer.commit(request).await,
            Err(ChatError::MessageMissing(id.into()))
        );
    }
    assert_eq!(chat.raw(), LINES.join("\n"));
}

#[tokio::test]
async fn the_persistent_state_is_recorded_on_the_runs_message() {
    let chat = Chat::new();
    let receipt = chat
        .committer
        .commit(chat.request("run_state", GenerationType::Normal))
        .await
        .unwrap();
    let update = |run: &str| PersistStateUpdate {
        chat: chat.chat.clone(),
        run_id: RunId::parse(run).unwrap(),
        message_id: receipt.message_id.clone(),
        state_id: StateId::parse("state_7").unwrap(),
    };
    assert_eq!(
        chat.committer
            .record_persist_state(update("run_other"))
            .await,
        Err(ChatError::MessageMissing("5".into()))
    );
    chat.committer
        .record_persist_state(update("run_state"))
        .await
        .unwrap();
    assert_eq!(chat.assert_only_changed(None), 1);
    let message = chat.message(5);
    let recorded = json!({"runId": "run_state", "persistStateStatus": "committed", "persistStateId": "state_7"});
    assert_eq!(message["extra"]["tauritavern"]["agent"], recorded);
    assert_eq!(
        message["swipe_info"][0]["extra"]["tauritavern"]["agent"],
        recorded
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_commits_from_different_runs_all_land() {
    let chat = Chat::new();
    // Two committers: the in-process queue orders each one's writers, the OS lock both.
    let other = FsChatCommitter::new(chat.data.clone());
    let commits = (0..8).map(|i| {
        let committer = if i % 2 == 0 {
            chat.committer.clone()
        } else {
            other.clone()
        };
        let request = ChatCommitRequest {
            text: format!("reply {i}"),
            ..chat.request(&format!("run_{i}"), GenerationType::Normal)
        };
        tokio::spawn(async move { committer.commit(request).await })
    });
    let mut indexes: Vec<usize> = futures::future::join_all(commits)
        .await
        .into_iter()
        .map(|joined| joined.unwrap().unwrap().message_index.unwrap())
        .collect();
    indexes.sort_unstable();
    assert_eq!(indexes, (MESSAGES..MESSAGES + 8).collect::<Vec<_>>());

    assert_eq!(chat.assert_only_changed(None), 8);
    let mut runs: Vec<String> = (MESSAGES..MESSAGES + 8)
        .map(|index| {
            let message = chat.message(index);
            let run = message["extra"]["tauritavern"]["agent"]["runId"]
                .as_str()
                .unwrap()
                .to_owned();
            assert_eq!(message["mes"], format!("reply {}", &run["run_".len()..]));
            run
        })
        .collect();
    runs.sort();
    assert_eq!(runs, (0..8).map(|i| format!("run_{i}")).collect::<Vec<_>>());
    let leftovers: Vec<_> = fs::read_dir(chat.path.parent().unwrap()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temp files are left behind");
}
