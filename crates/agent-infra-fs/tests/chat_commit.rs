#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Committing runs' messages with `FsChatCommitter`: where each commit lands, the exact
//! shape SillyTavern would have written, that nothing else in the file changes, that
//! concurrent writers do not lose each other's messages, and that a rollback undoes a run.

use std::fs;
use std::path::PathBuf;

use agent_application::ports::{
    ChatCommitPort, ChatCommitReceipt, ChatCommitRequest, ChatError, ChatRollbackReport,
    ChatRollbackRequest, CommitTarget, MetadataChange, PersistStateUpdate, ReplyAuthor, ReplyModel,
    RollbackError, RollbackTarget,
};
use agent_domain::event::ChatRef;
use agent_domain::json::OrderedJson;
use agent_domain::run::{
    AgentMessageRecord, CommitRecord, RecordIdentity, RollbackStrategy, RunId, StateId,
};
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

const STARTED: &str = "2026-06-01T21:05:00.000Z";
const NOW: &str = "2026-06-01T21:06:30.500Z";

fn record(run: &str, seq: u32) -> AgentMessageRecord {
    let identity = RecordIdentity {
        run_id: run.into(),
        workspace_id: "chat_d474bb6f0a9e39a7".into(),
        stable_chat_id: "0b1c9f1e-5d2a-4c8e-9a57-3f6d2b8e4a10".into(),
        profile_id: Some("default-writer".into()),
        persist_base_state_id: Some("state_prev".into()),
    };
    let commit = |seq: u32| CommitRecord {
        seq,
        commit_id: format!("commit_{seq}"),
        checkpoint_id: format!("cp_00000{seq}"),
        path: "output/main.md".into(),
        mode: "replace".into(),
        reason: None,
        chars: 22,
        words: 4,
        sha256: "5e".into(),
    };
    let earlier: Vec<CommitRecord> = (1..seq).map(commit).collect();
    AgentMessageRecord::after(&identity, &earlier, &commit(seq))
}

impl Chat {
    fn new() -> Self {
        Self::with_lines(&LINES)
    }

    fn with_lines(lines: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path());
        let path = data.chats().join("Seraphina/2026-06-01@21h00m00s.jsonl");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, lines.join("\n")).unwrap();
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

    fn request(&self, run: &str, target: CommitTarget) -> ChatCommitRequest {
        ChatCommitRequest {
            chat: self.chat.clone(),
            run_id: RunId::parse(run).unwrap(),
            target,
            text: TEXT.into(),
            author: ReplyAuthor {
                name: "Seraphina".into(),
                ..ReplyAuthor::default()
            },
            model: ReplyModel {
                api: "claude".into(),
                model: "claude-sonnet-4-5".into(),
            },
            reasoning: String::new(),
            generation_started: STARTED.into(),
            committed_at: NOW.into(),
            record: record(run, 1),
            metadata: Vec::new(),
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

    async fn rollback(
        &self,
        run: &str,
        targets: &[Target<'_>],
    ) -> Result<ChatRollbackReport, ChatError> {
        let targets = targets
            .iter()
            .map(|(id, previous)| RollbackTarget {
                message_id: (*id).to_owned(),
                previous_message: previous.map(str::to_owned),
            })
            .collect();
        self.committer
            .rollback(ChatRollbackRequest {
                chat: self.chat.clone(),
                run_id: RunId::parse(run).unwrap(),
                targets,
                metadata: Vec::new(),
            })
            .await
    }
}

/// A rollback target: a message id and the message as it was before the run.
type Target<'a> = (&'a str, Option<&'a str>);

fn swipe_at(index: usize) -> CommitTarget {
    CommitTarget::NewSwipe { index }
}

fn revise(id: &str) -> CommitTarget {
    CommitTarget::Revise {
        message_id: id.into(),
    }
}

#[tokio::test]
async fn a_new_reply_is_written_as_sillytavern_writes_one() {
    let chat = Chat::new();
    let receipt = chat
        .committer
        .commit(chat.request("run_normal", CommitTarget::NewReply))
        .await
        .unwrap();
    assert_eq!(
        receipt,
        ChatCommitReceipt {
            message_id: "5".into(),
            message_index: Some(5),
            rollback: RollbackStrategy::DeleteMessage,
            previous_message: None,
            metadata_changes: Vec::new(),
        }
    );
    assert_eq!(chat.assert_only_changed(None), 1);
    assert!(
        !chat.raw().ends_with('\n'),
        "the file keeps SillyTavern's missing final newline"
    );
    insta::assert_snapshot!("new_reply_line", chat.lines()[6]);
}

#[tokio::test]
async fn a_group_reply_names_its_member_and_generation() {
    let chat = Chat::new();
    let request = ChatCommitRequest {
        author: ReplyAuthor {
            name: "Bram".into(),
            avatar: Some("Bram the Bard.png".into()),
            generation_id: Some(1_780_000_000_000),
        },
        ..chat.request("run_group", CommitTarget::NewReply)
    };
    chat.committer.commit(request).await.unwrap();
    let reply = chat.message(5);
    assert_eq!(
        reply["force_avatar"],
        "/thumbnail?type=avatar&file=Bram%20the%20Bard.png"
    );
    assert_eq!(reply["original_avatar"], "Bram the Bard.png");
    assert_eq!(reply["extra"]["gen_id"], 1_780_000_000_000u64);
    let line = &chat.lines()[6];
    let order: Vec<&str> = [
        "\"gen_finished\"",
        "\"force_avatar\"",
        "\"original_avatar\"",
        "\"swipe_info\"",
    ]
    .iter()
    .map(|key| {
        line.find(key).unwrap();
        *key
    })
    .collect();
    let positions: Vec<usize> = order.iter().map(|key| line.find(key).unwrap()).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{line}");
}

#[tokio::test]
async fn a_swipe_keeps_earlier_swipes_and_drops_stale_timings() {
    let chat = Chat::new();
    let receipt = chat
        .committer
        .commit(chat.request("run_swipe", swipe_at(1)))
        .await
        .unwrap();
    assert_eq!(
        (receipt.message_index, &receipt.rollback),
        (Some(1), &RollbackStrategy::DeleteSwipe { swipe_id: 2 })
    );
    assert_eq!(receipt.previous_message.as_deref(), Some(LINES[2]));
    assert_eq!(chat.assert_only_changed(Some(1)), 0);
    let message = chat.message(1);
    assert_eq!(
        message["swipes"],
        json!(["First 🌙", "Welcome 🌸 — مرحبا بك", TEXT])
    );
    assert_eq!(message["swipe_id"], 2);
    assert_eq!(message["mes"], TEXT);
    assert_eq!(
        (&message["gen_started"], &message["gen_finished"]),
        (&json!(STARTED), &json!(NOW)),
        "the old gen_started is gone"
    );
    assert_eq!(message["swipe_info"][2]["extra"], message["extra"]);
    assert_eq!(
        message["swipe_info"][1]["gen_started"], "2026-06-01T21:00:59.000Z",
        "the previous swipe keeps its own timing"
    );
    insta::assert_snapshot!("swipe_line", chat.lines()[2]);
}

#[tokio::test]
async fn a_regenerated_message_keeps_its_key_order_and_unknown_keys() {
    let chat = Chat::new();
    chat.committer
        .commit(chat.request("run_regen", swipe_at(4)))
        .await
        .unwrap();
    assert_eq!(chat.assert_only_changed(Some(4)), 0);
    let line = &chat.lines()[5];
    assert!(
        line.starts_with(r#"{"zz_first":"kept","name":"Seraphina","#),
        "key order kept: {line}"
    );
    let message = chat.message(4);
    assert_eq!(message["swipes"], json!(["Old answer ✨ עברית", TEXT]));
    assert_eq!(message["custom"], json!({"nested": [1, {"b": 2, "a": 1}]}));
    assert_eq!(
        message["extra"].get("display_text"),
        None,
        "transient extras go"
    );
    assert_eq!(
        message["extra"]["tauritavern"]["agent"]["runId"], "run_regen",
        "the earlier run's record is replaced"
    );
}

#[tokio::test]
async fn a_swipe_needs_an_assistant_message() {
    let chat = Chat::new();
    for index in [0, 2, 3, 9] {
        assert_eq!(
            chat.committer
                .commit(chat.request("run_x", swipe_at(index)))
                .await,
            Err(ChatError::NoTarget("swipe")),
            "{index}"
        );
    }
    assert_eq!(
        chat.raw(),
        LINES.join("\n"),
        "refused commits write nothing"
    );
}

#[tokio::test]
async fn later_commits_set_the_text_of_the_runs_swipe() {
    let chat = Chat::new();
    let first = chat
        .committer
        .commit(chat.request("run_rev", swipe_at(4)))
        .await
        .unwrap();
    let later = ChatCommitRequest {
        text: "final".into(),
        record: record("run_rev", 2),
        committed_at: "2026-06-01T21:07:00.000Z".into(),
        ..chat.request("run_rev", revise(&first.message_id))
    };
    let receipt = chat.committer.commit(later).await.unwrap();
    assert_eq!(
        receipt.rollback, first.rollback,
        "the first commit's strategy stays"
    );
    assert_eq!(receipt.previous_message, None);
    let message = chat.message(4);
    assert_eq!(
        (
            &message["mes"],
            &message["swipes"][1],
            &message["swipes"][0]
        ),
        (
            &json!("final"),
            &json!("final"),
            &json!("Old answer ✨ עברית")
        )
    );
    let recorded = &message["extra"]["tauritavern"]["agent"];
    assert_eq!(recorded["commitSeq"], 2);
    assert_eq!(
        recorded["rollback"],
        json!({"strategy": "deleteSwipe", "swipeId": 1})
    );
    assert_eq!(message["swipe_info"][1]["extra"], message["extra"]);
    assert_eq!(message["gen_finished"], "2026-06-01T21:07:00.000Z");
    assert_eq!(chat.assert_only_changed(Some(4)), 0);
}

#[tokio::test]
async fn a_message_of_another_run_or_gone_is_refused() {
    let chat = Chat::new();
    for (id, error) in [
        ("4", ChatError::MessageMismatch("4".into())),
        ("0", ChatError::MessageMismatch("0".into())),
        ("99", ChatError::MessageMissing("99".into())),
        ("x", ChatError::MessageMissing("x".into())),
        ("-1", ChatError::MessageMissing("-1".into())),
    ] {
        assert_eq!(
            chat.committer
                .commit(chat.request("run_other", revise(id)))
                .await,
            Err(error)
        );
    }
    assert_eq!(chat.raw(), LINES.join("\n"));
}

#[tokio::test]
async fn a_later_commit_needs_the_runs_message_to_end_the_chat() {
    let chat = Chat::new();
    let first = chat
        .committer
        .commit(chat.request("run_rev", swipe_at(4)))
        .await
        .unwrap();
    // The user writes on while the run still works.
    let mut file = chat.raw();
    file.push_str("\n{\"name\":\"Ann\",\"is_user\":true,\"mes\":\"And then?\"}");
    fs::write(&chat.path, &file).unwrap();
    let later = ChatCommitRequest {
        record: record("run_rev", 2),
        ..chat.request("run_rev", revise(&first.message_id))
    };
    assert_eq!(
        chat.committer.commit(later).await,
        Err(ChatError::MessageMismatch("4".into()))
    );
    assert_eq!(chat.raw(), file, "nothing written");
}

#[tokio::test]
async fn a_later_commit_needs_the_strategy_the_first_one_wrote() {
    let line = r#"{"name":"S","is_user":false,"mes":"b","extra":{"tauritavern":{"agent":{"runId":"run_r","rollback":{"strategy":"burn"}}}}}"#;
    let chat = Chat::with_lines(&[LINES[0], line]);
    assert_eq!(
        chat.committer
            .commit(chat.request("run_r", revise("0")))
            .await,
        Err(ChatError::MessageMismatch("0".into()))
    );
    assert_eq!(chat.raw(), [LINES[0], line].join("\n"));
}

#[tokio::test]
async fn a_swipe_id_out_of_range_is_refused_not_clamped() {
    let line = r#"{"name":"S","is_user":false,"mes":"b","swipe_id":7,"swipes":["a","b"],"extra":{"tauritavern":{"agent":{"runId":"run_r","rollback":{"strategy":"deleteSwipe","swipeId":1}}}}}"#;
    let chat = Chat::with_lines(&[LINES[0], line]);
    let err = chat
        .committer
        .commit(chat.request("run_s", swipe_at(0)))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ChatError::InvalidMessage { line: 2, detail } if detail.contains("`swipe_id` 7")),
        "{err:?}"
    );
    assert_eq!(
        chat.rollback("run_r", &[("0", None)]).await,
        Err(ChatError::Rollback(RollbackError::SwipeStateInvalid {
            index: 0
        }))
    );
    assert_eq!(chat.raw(), [LINES[0], line].join("\n"));
}

#[tokio::test]
async fn chat_metadata_is_set_in_the_same_write() {
    let chat = Chat::new();
    let timed = OrderedJson::from_slice(
        br#"{"sticky":{"Eldoria.3":{"hash":1,"start":4,"end":7,"protected":false}},"cooldown":{}}"#,
    )
    .unwrap();
    let fresh = OrderedJson::from("new");
    let request = ChatCommitRequest {
        metadata: vec![
            ("timedWorldInfo".into(), timed.clone()),
            ("zz_new".into(), fresh.clone()),
        ],
        ..chat.request("run_meta", CommitTarget::NewReply)
    };
    let receipt = chat.committer.commit(request).await.unwrap();
    let header = &chat.lines()[0];
    assert!(
        header.contains(r#""timedWorldInfo":{"sticky":{"Eldoria.3":{"hash":1,"start":4,"end":7,"protected":false}},"cooldown":{}},"variables""#),
        "replaced in place: {header}"
    );
    assert!(
        header.ends_with(r#""zz_new":"new"},"unknown_top":true}"#),
        "{header}"
    );
    assert_eq!(
        chat.lines()[1..6],
        LINES[1..6]
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()[..]
    );
    let was = OrderedJson::from_slice(br#"{"sticky":{},"cooldown":{}}"#).unwrap();
    assert_eq!(
        receipt.metadata_changes,
        [
            MetadataChange {
                key: "timedWorldInfo".into(),
                before: Some(was),
                after: timed,
            },
            MetadataChange {
                key: "zz_new".into(),
                before: None,
                after: fresh,
            },
        ]
    );

    // A rollback puts both keys back (the new one goes away): the file is as it was.
    let undo = |metadata: Vec<MetadataChange>| ChatRollbackRequest {
        chat: chat.chat.clone(),
        run_id: RunId::parse("run_meta").unwrap(),
        targets: vec![RollbackTarget {
            message_id: "5".into(),
            previous_message: None,
        }],
        metadata,
    };
    let report = chat
        .committer
        .rollback(undo(receipt.metadata_changes.clone()))
        .await
        .unwrap();
    assert_eq!(report.restored_metadata, ["timedWorldInfo", "zz_new"]);
    assert_eq!(chat.raw(), LINES.join("\n"));
}

#[tokio::test]
async fn metadata_changed_since_the_run_is_left_as_it_is() {
    let chat = Chat::new();
    let request = ChatCommitRequest {
        metadata: vec![("zz_new".into(), OrderedJson::from("run"))],
        ..chat.request("run_meta", CommitTarget::NewReply)
    };
    let receipt = chat.committer.commit(request).await.unwrap();
    // SillyTavern saves the chat again with another value.
    let edited = chat
        .raw()
        .replace(r#""zz_new":"run""#, r#""zz_new":"user""#);
    fs::write(&chat.path, &edited).unwrap();
    let report = chat
        .committer
        .rollback(ChatRollbackRequest {
            chat: chat.chat.clone(),
            run_id: RunId::parse("run_meta").unwrap(),
            targets: vec![RollbackTarget {
                message_id: "5".into(),
                previous_message: None,
            }],
            metadata: receipt.metadata_changes,
        })
        .await
        .unwrap();
    assert_eq!(report.restored_metadata, Vec::<String>::new());
    assert_eq!(report.deleted_messages, [5]);
    assert!(chat.lines()[0].contains(r#""zz_new":"user""#));
}

#[tokio::test]
async fn the_persistent_state_is_recorded_on_the_runs_message() {
    let chat = Chat::new();
    let receipt = chat
        .committer
        .commit(chat.request("run_state", CommitTarget::NewReply))
        .await
        .unwrap();
    let update = |run: &str| PersistStateUpdate {
        chat: chat.chat.clone(),
        run_id: RunId::parse(run).unwrap(),
        message_id: receipt.message_id.clone(),
        state_id: StateId::parse("run_state").unwrap(),
        base_state_id: Some(StateId::parse("state_prev").unwrap()),
        change_count: 3,
    };
    assert_eq!(
        chat.committer
            .record_persist_state(update("run_other"))
            .await,
        Err(ChatError::MessageMismatch("5".into()))
    );
    chat.committer
        .record_persist_state(update("run_state"))
        .await
        .unwrap();
    assert_eq!(chat.assert_only_changed(None), 1);
    let message = chat.message(5);
    let recorded = &message["extra"]["tauritavern"]["agent"];
    assert_eq!(recorded["persistStateId"], "run_state");
    assert_eq!(recorded["persistStateStatus"], "committed");
    assert_eq!(recorded["persistChangeCount"], 3);
    assert_eq!(message["swipe_info"][0]["extra"], message["extra"]);
    let line = &chat.lines()[6];
    let status = line.find("persistStateStatus").unwrap();
    assert!(
        status < line.find("checkpointId").unwrap(),
        "an existing key keeps its place: {line}"
    );
    assert!(line.find("persistChangeCount").unwrap() > line.find("artifacts").unwrap());
}

#[tokio::test]
async fn rolling_back_a_new_reply_deletes_it() {
    let chat = Chat::new();
    chat.committer
        .commit(chat.request("run_gone", CommitTarget::NewReply))
        .await
        .unwrap();
    let report = chat.rollback("run_gone", &[("5", None)]).await.unwrap();
    assert_eq!(report.deleted_messages, [5]);
    assert_eq!(chat.raw(), LINES.join("\n"));
}

#[tokio::test]
async fn rolling_back_a_swipe_restores_the_message_byte_for_byte() {
    let chat = Chat::new();
    let first = chat
        .committer
        .commit(chat.request("run_undo", swipe_at(4)))
        .await
        .unwrap();
    let later = ChatCommitRequest {
        record: record("run_undo", 2),
        ..chat.request("run_undo", revise("4"))
    };
    chat.committer.commit(later).await.unwrap();
    let report = chat
        .rollback("run_undo", &[("4", first.previous_message.as_deref())])
        .await
        .unwrap();
    assert_eq!(report.removed_swipes, [(4, 1)]);
    assert_eq!(report.restored_messages, [4]);
    assert_eq!(chat.raw(), LINES.join("\n"));
}

#[tokio::test]
async fn a_swipe_rolled_back_after_the_user_moved_on_is_removed_as_sillytavern_would() {
    let chat = Chat::new();
    let first = chat
        .committer
        .commit(chat.request("run_undo", swipe_at(1)))
        .await
        .unwrap();
    // The user swiped back to the first swipe in SillyTavern since.
    let mut lines = chat.lines();
    let mut message: Value = serde_json::from_str(&lines[2]).unwrap();
    message["swipe_id"] = json!(0);
    message["mes"] = message["swipes"][0].clone();
    lines[2] = serde_json::to_string(&message).unwrap();
    fs::write(&chat.path, lines.join("\n")).unwrap();

    let report = chat
        .rollback("run_undo", &[("1", first.previous_message.as_deref())])
        .await
        .unwrap();
    assert_eq!(report.restored_messages, Vec::<usize>::new());
    let message = chat.message(1);
    assert_eq!(
        message["swipes"],
        json!(["First 🌙", "Welcome 🌸 — مرحبا بك"])
    );
    assert_eq!(
        (&message["swipe_id"], &message["mes"]),
        (&json!(0), &json!("First 🌙"))
    );
    assert_eq!(message["swipe_info"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn the_selected_swipe_after_a_removal_follows_sillytavern() {
    // Removing the selected last swipe selects the one before it and shows its metadata.
    let chat = Chat::new();
    chat.committer
        .commit(chat.request("run_undo", swipe_at(1)))
        .await
        .unwrap();
    chat.rollback("run_undo", &[("1", None)]).await.unwrap();
    let message = chat.message(1);
    assert_eq!(
        (&message["swipe_id"], &message["mes"]),
        (&json!(1), &json!("Welcome 🌸 — مرحبا بك"))
    );
    assert_eq!(message["send_date"], "June 1, 2026 9:01pm");
    assert_eq!(message["extra"], json!({"api": "openai", "model": "gpt"}));
    assert_eq!(message.get("gen_finished"), None);
}

#[tokio::test]
async fn rollback_checks_every_target_before_changing_anything() {
    let chat = Chat::new();
    chat.committer
        .commit(chat.request("run_mine", CommitTarget::NewReply))
        .await
        .unwrap();
    let before = chat.raw();
    let cases: [(&[Target], RollbackError); 3] = [
        (
            &[("5", None), ("4", None)],
            RollbackError::RunMismatch { index: 4 },
        ),
        (
            &[("5", None), ("77", None)],
            RollbackError::TargetMissing("77".into()),
        ),
        (&[("0", None)], RollbackError::RunMismatch { index: 0 }),
    ];
    for (targets, error) in cases {
        assert_eq!(
            chat.rollback("run_mine", targets).await,
            Err(ChatError::Rollback(error))
        );
        assert_eq!(chat.raw(), before, "nothing changed");
    }
    assert_eq!(
        chat.rollback("run_other", &[("5", None)]).await,
        Err(ChatError::Rollback(RollbackError::RunMismatch { index: 5 }))
    );
}

#[tokio::test]
async fn rollback_needs_a_strategy_it_knows_and_a_swipe_it_can_remove() {
    let record = |rollback: &str| {
        format!(
            r#"{{"name":"S","is_user":false,"mes":"b","swipe_id":1,"swipes":["a","b"],"extra":{{"tauritavern":{{"agent":{{"runId":"run_r"{rollback}}}}}}}}}"#
        )
    };
    let cases = [
        ("", RollbackError::StrategyMissing { index: 0 }),
        (
            r#","rollback":{}"#,
            RollbackError::StrategyMissing { index: 0 },
        ),
        (
            r#","rollback":{"strategy":"burn"}"#,
            RollbackError::StrategyUnsupported {
                index: 0,
                strategy: "burn".into(),
            },
        ),
        (
            r#","rollback":{"strategy":"deleteSwipe","swipeId":5}"#,
            RollbackError::SwipeIdInvalid {
                index: 0,
                swipe_id: "5".into(),
            },
        ),
        (
            r#","rollback":{"strategy":"deleteSwipe","swipeId":"x"}"#,
            RollbackError::SwipeIdInvalid {
                index: 0,
                swipe_id: "\"x\"".into(),
            },
        ),
    ];
    for (rollback, error) in cases {
        let line = record(rollback);
        let chat = Chat::with_lines(&[LINES[0], &line]);
        assert_eq!(
            chat.rollback("run_r", &[("0", None)]).await,
            Err(ChatError::Rollback(error)),
            "{rollback}"
        );
    }
    let single = r#"{"name":"S","is_user":false,"mes":"b","swipe_id":0,"swipes":["b"],"extra":{"tauritavern":{"agent":{"runId":"run_r","rollback":{"strategy":"deleteSwipe","swipeId":0}}}}}"#;
    let chat = Chat::with_lines(&[LINES[0], single]);
    assert_eq!(
        chat.rollback("run_r", &[("0", None)]).await,
        Err(ChatError::Rollback(RollbackError::SwipeStateInvalid {
            index: 0
        }))
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
            ..chat.request(&format!("run_{i}"), CommitTarget::NewReply)
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
