use agent_domain::event::WriteMode;
use agent_domain::text::TextMetrics;
use agent_domain::workspace::WorkspaceRoot::{Output, Scratch};
use serde_json::json;

use super::*;
use crate::testing::fake_sha256_hex;

#[tokio::test]
async fn creating_a_file_needs_no_read_and_reports_one_line() {
    let mut h = Harness::new().await;
    let (result, effect) = h
        .ok_with_effect(
            WRITE,
            json!({"path": "output/main.md", "content": "Hello, world"}),
        )
        .await;
    assert_eq!(result.content, "Wrote 12 characters to output/main.md.");
    let sha = fake_sha256_hex(b"Hello, world");
    assert_eq!(
        result.structured,
        json!({
            "path": "output/main.md", "mode": "replace", "chars": 12, "words": 2,
            "sha256": sha, "bytes": 12,
        })
    );
    assert_eq!(result.resource_refs, ["workspace:output/main.md"]);
    let ToolEffect::FileWritten {
        path: written,
        mode,
        receipt,
        metrics,
    } = effect
    else {
        panic!("expected FileWritten, got {effect:?}");
    };
    assert_eq!(written, path("output/main.md"));
    assert_eq!(mode, WriteMode::Replace);
    assert_eq!(receipt.sha256, sha);
    assert_eq!(receipt.previous_sha256, None);
    assert_eq!(metrics, TextMetrics::of("Hello, world"));
    assert_eq!(h.text("output/main.md").unwrap(), "Hello, world");
    assert!(
        h.session
            .read_state
            .get(&path("output/main.md"))
            .unwrap()
            .full
    );
}

#[tokio::test]
async fn sizes_are_grouped_and_cjk_is_counted_in_characters() {
    let mut h = Harness::new().await;
    let long = h
        .ok(
            WRITE,
            json!({"path": "scratch/long.md", "content": "a".repeat(1_234)}),
        )
        .await;
    assert_eq!(long.content, "Wrote 1,234 characters to scratch/long.md.");
    let cjk = h
        .ok(
            WRITE,
            json!({"path": "output/zh.md", "content": "你好，世界"}),
        )
        .await;
    assert_eq!(cjk.content, "Wrote 5 characters to output/zh.md.");
    assert_eq!(cjk.structured["words"], json!(4));
    assert_eq!(cjk.structured["bytes"], json!(15));
    let empty = h
        .ok(WRITE, json!({"path": "output/empty.md", "content": ""}))
        .await;
    assert_eq!(empty.content, "Wrote 0 characters to output/empty.md.");
    assert_eq!(h.text("output/empty.md").unwrap(), "");
    let one = h
        .ok(
            WRITE,
            json!({"path": "output/one.md", "content": "!", "mode": "append"}),
        )
        .await;
    assert_eq!(one.content, "Appended 1 character to output/one.md.");
}

#[tokio::test]
async fn append_is_verbatim_and_creates_missing_files() {
    let mut h = Harness::new().await;
    let (created, effect) = h
        .ok_with_effect(
            WRITE,
            json!({"path": "summaries/log.md", "content": "one", "mode": "append"}),
        )
        .await;
    assert_eq!(
        created.content,
        "Appended 3 characters to summaries/log.md."
    );
    assert!(matches!(
        effect,
        ToolEffect::FileWritten {
            mode: WriteMode::Append,
            ..
        }
    ));
    h.ok(
        WRITE,
        json!({"path": "summaries/log.md", "content": "\ntwo", "mode": " APPEND "}),
    )
    .await;
    assert_eq!(h.text("summaries/log.md").unwrap(), "one\ntwo");
    let more = h
        .ok(
            WRITE,
            json!({"path": "summaries/log.md", "content": "3", "mode": "append"}),
        )
        .await;
    assert_eq!(more.structured["chars"], json!(1));
    assert_eq!(more.structured["bytes"], json!(8));
    assert_eq!(h.text("summaries/log.md").unwrap(), "one\ntwo3");
}

#[tokio::test]
async fn replacing_an_existing_file_needs_a_current_read() {
    let mut h = Harness::new().await;
    h.put("output/main.md", "old");
    let args = json!({"path": "output/main.md", "content": "new"});
    let message = h
        .expect_code(WRITE, args.clone(), "workspace.write_requires_read")
        .await;
    assert!(
        message.contains("`output/main.md`") && message.contains("workspace_read_file"),
        "{message}"
    );
    h.ok(READ, json!({"path": "output/main.md"})).await;
    h.put("output/main.md", "changed elsewhere");
    h.expect_code(WRITE, args.clone(), "workspace.write_stale_file")
        .await;
    h.ok(READ, json!({"path": "output/main.md"})).await;
    let (_, effect) = h.ok_with_effect(WRITE, args).await;
    let ToolEffect::FileWritten { receipt, .. } = effect else {
        panic!("expected FileWritten");
    };
    assert_eq!(
        receipt.previous_sha256,
        Some(fake_sha256_hex(b"changed elsewhere"))
    );
    assert_eq!(h.text("output/main.md").unwrap(), "new");
}

#[tokio::test]
async fn modes_and_arguments_are_checked() {
    let mut h = Harness::new().await;
    for mode in [json!("prepend"), json!(""), json!(5), json!(true)] {
        let message = h
            .expect_code(
                WRITE,
                json!({"path": "output/a.md", "content": "x", "mode": mode}),
                "workspace.write_mode_invalid",
            )
            .await;
        assert_eq!(message, "mode must be `replace` or `append`.");
    }
    h.ok(
        WRITE,
        json!({"path": "output/a.md", "content": "x", "mode": null}),
    )
    .await;
    for args in [
        json!({"path": "output/b.md"}),
        json!({"path": "output/b.md", "content": 5}),
        json!({"content": "x"}),
        json!({"path": "output/b.md", "content": "x", "overwrite": true}),
    ] {
        h.expect_code(WRITE, args, "tool.invalid_arguments").await;
    }
    for bad in ["", "../x.md", "/abs.md", "C:\\x.md"] {
        h.expect_code(
            WRITE,
            json!({"path": bad, "content": "x"}),
            "workspace.invalid_path",
        )
        .await;
    }
    assert_eq!(h.text("output/b.md"), None);
}

#[tokio::test]
async fn a_name_longer_than_255_bytes_is_refused_with_the_limit() {
    let mut h = Harness::new().await;
    let name = |bytes: usize| format!("output/{}.md", "n".repeat(bytes - 3));
    h.ok(WRITE, json!({"path": name(255), "content": "x"}))
        .await;
    let too_long = name(256);
    let message = h
        .expect_code(
            WRITE,
            json!({"path": too_long, "content": "x"}),
            "workspace.invalid_path",
        )
        .await;
    assert!(
        message.contains("256 bytes long; names can be at most 255 bytes"),
        "{message}"
    );
    h.expect_code(
        PATCH,
        json!({"path": too_long, "old_string": "a", "new_string": "b"}),
        "workspace.invalid_path",
    )
    .await;
    assert_eq!(h.text(&too_long), None);
}

#[tokio::test]
async fn only_writable_files_can_be_written() {
    let mut h = Harness::with_roots(roots(&[Output, Scratch], &[Output])).await;
    h.put("output/notes/a.md", "a");
    let message = h
        .expect_code(
            WRITE,
            json!({"path": "tool-results/call_1.json", "content": "x"}),
            "workspace.path_not_writable",
        )
        .await;
    assert_eq!(
        message,
        "`tool-results/` is read-only; you can write files under output/."
    );
    let message = h
        .expect_code(
            WRITE,
            json!({"path": "scratch/a.md", "content": "x", "mode": "append"}),
            "workspace.path_not_writable",
        )
        .await;
    assert_eq!(
        message,
        "You cannot write `scratch/a.md`; you can write files under output/."
    );
    for hidden in ["persist/a.md", "input/x.json", "events.jsonl"] {
        h.expect_code(
            WRITE,
            json!({"path": hidden, "content": "x"}),
            "workspace.path_not_writable",
        )
        .await;
    }
    for folder in ["output", "output/notes"] {
        for mode in ["replace", "append"] {
            let message = h
                .expect_code(
                    WRITE,
                    json!({"path": folder, "content": "x", "mode": mode}),
                    "workspace.path_is_directory",
                )
                .await;
            assert!(message.contains("workspace_list_files"), "{message}");
        }
    }

    let mut read_only = Harness::with_roots(roots(&[Output], &[])).await;
    let message = read_only
        .expect_code(
            WRITE,
            json!({"path": "output/a.md", "content": "x"}),
            "workspace.path_not_writable",
        )
        .await;
    assert_eq!(
        message,
        "You cannot write `output/a.md`; this task has no writable folders."
    );
}

#[tokio::test]
async fn binary_files_are_not_replaced() {
    let mut h = Harness::new().await;
    h.put("output/bin.dat", vec![0xff, 0x00]);
    h.expect_code(
        WRITE,
        json!({"path": "output/bin.dat", "content": "x"}),
        "workspace.file_not_text",
    )
    .await;
}

#[tokio::test]
async fn a_lost_write_race_is_recoverable() {
    let memory = Arc::new(MemoryWorkspace::new());
    let change = Interference::ChangeBeforeWrite {
        path: "output/main.md".into(),
        bytes: b"theirs".to_vec(),
    };
    let store = Interfering::new(memory.clone(), change.clone());
    let mut h = Harness::with_store(memory.clone(), store).await;
    h.put("output/main.md", "mine");
    h.ok(READ, json!({"path": "output/main.md"})).await;
    h.expect_code(
        WRITE,
        json!({"path": "output/main.md", "content": "new"}),
        "workspace.write_stale_file",
    )
    .await;
    assert_eq!(h.text("output/main.md").unwrap(), "theirs");

    let memory = Arc::new(MemoryWorkspace::new());
    let store = Interfering::new(memory.clone(), change);
    let mut h = Harness::with_store(memory, store).await;
    let message = h
        .expect_code(
            WRITE,
            json!({"path": "output/main.md", "content": "new"}),
            "workspace.write_requires_read",
        )
        .await;
    assert!(message.contains("created by someone else"), "{message}");
    assert_eq!(h.text("output/main.md").unwrap(), "theirs");
}
