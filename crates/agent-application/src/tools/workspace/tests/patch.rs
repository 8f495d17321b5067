use agent_domain::text::TextMetrics;
use agent_domain::workspace::WorkspaceRoot::{Output, Scratch};
use serde_json::json;

use super::*;
use crate::testing::fake_sha256_hex;

fn patch(path: &str, old: &str, new: &str) -> Value {
    json!({"path": path, "old_string": old, "new_string": new})
}

async fn read_whole(h: &mut Harness, path: &str) {
    h.ok(READ, json!({"path": path})).await;
}

#[tokio::test]
async fn a_patch_after_a_full_read_replaces_exactly_once() {
    let mut h = Harness::new().await;
    h.put("output/main.md", "The cat sat.\nThe dog ran.\n");
    read_whole(&mut h, "output/main.md").await;
    let (result, effect) = h
        .ok_with_effect(PATCH, patch("output/main.md", "cat sat", "cat slept"))
        .await;
    assert_eq!(result.content, "Patched output/main.md (1 replacement).");
    let after = "The cat slept.\nThe dog ran.\n";
    assert_eq!(h.text("output/main.md").unwrap(), after);
    assert_eq!(
        result.structured,
        json!({
            "path": "output/main.md", "replacements": 1, "chars": 28, "words": 6,
            "oldSha256": fake_sha256_hex(b"The cat sat.\nThe dog ran.\n"),
            "sha256": fake_sha256_hex(after.as_bytes()),
        })
    );
    let ToolEffect::FilePatched {
        path: patched,
        receipt,
        replacements,
        metrics,
    } = effect
    else {
        panic!("expected FilePatched, got {effect:?}");
    };
    assert_eq!(patched, path("output/main.md"));
    assert_eq!(replacements, 1);
    assert_eq!(metrics, TextMetrics::of(after));
    assert_eq!(receipt.sha256, fake_sha256_hex(after.as_bytes()));

    h.ok(PATCH, patch("output/main.md", "dog ran", "dog rested"))
        .await;
    assert_eq!(
        h.text("output/main.md").unwrap(),
        "The cat slept.\nThe dog rested.\n"
    );
}

#[tokio::test]
async fn replace_all_changes_every_occurrence() {
    let mut h = Harness::new().await;
    h.put("output/main.md", "a-b-a-b-a");
    read_whole(&mut h, "output/main.md").await;
    let mut args = patch("output/main.md", "a", "x");
    args["replace_all"] = json!(true);
    let result = h.ok(PATCH, args).await;
    assert_eq!(result.content, "Patched output/main.md (3 replacements).");
    assert_eq!(h.text("output/main.md").unwrap(), "x-b-x-b-x");
}

#[tokio::test]
async fn argument_checks_come_first() {
    let mut h = Harness::new().await;
    h.expect_code(
        PATCH,
        patch("output/none.md", "", "x"),
        "workspace.patch_empty_old_string",
    )
    .await;
    h.expect_code(
        PATCH,
        patch("output/none.md", "same", "same"),
        "workspace.patch_no_change",
    )
    .await;
    for args in [
        json!({"path": "output/a.md", "old_string": "a"}),
        json!({"path": "output/a.md", "new_string": "a"}),
        json!({"old_string": "a", "new_string": "b"}),
        json!({"path": "output/a.md", "old_string": "a", "new_string": "b", "replace_all": "yes"}),
        json!({"path": "output/a.md", "old_string": "a", "new_string": "b", "expected_sha256": "x"}),
    ] {
        h.expect_code(PATCH, args, "tool.invalid_arguments").await;
    }
    h.expect_code(PATCH, patch("../a.md", "a", "b"), "workspace.invalid_path")
        .await;
}

#[tokio::test]
async fn the_target_must_be_a_writable_text_file() {
    let mut h = Harness::with_roots(roots(&[Output, Scratch], &[Output])).await;
    h.put("output/bin.dat", vec![0xff, 0x00]);
    h.put("output/notes/a.md", "a");
    h.put("scratch/a.md", "a");
    h.put("tool-results/call_1.txt", "a");
    h.expect_code(
        PATCH,
        patch("output/missing.md", "a", "b"),
        "workspace.file_not_found",
    )
    .await;
    for folder in ["output", "output/notes"] {
        let message = h
            .expect_code(
                PATCH,
                patch(folder, "a", "b"),
                "workspace.path_is_directory",
            )
            .await;
        assert!(message.contains("workspace_list_files"), "{message}");
    }
    h.expect_code(
        PATCH,
        patch("output/bin.dat", "a", "b"),
        "workspace.file_not_text",
    )
    .await;
    for read_only in ["scratch/a.md", "tool-results/call_1.txt", "persist/a.md"] {
        h.expect_code(
            PATCH,
            patch(read_only, "a", "b"),
            "workspace.path_not_writable",
        )
        .await;
    }
}

#[tokio::test]
async fn matches_must_be_read_present_and_unique() {
    let mut h = Harness::new().await;
    h.put("output/main.md", "alpha beta alpha\n");
    let message = h
        .expect_code(
            PATCH,
            patch("output/main.md", "beta", "gamma"),
            "workspace.patch_requires_read",
        )
        .await;
    assert!(message.contains("`output/main.md`"), "{message}");
    read_whole(&mut h, "output/main.md").await;
    h.expect_code(
        PATCH,
        patch("output/main.md", "delta", "gamma"),
        "workspace.patch_old_string_not_found",
    )
    .await;
    let message = h
        .expect_code(
            PATCH,
            patch("output/main.md", "alpha", "omega"),
            "workspace.patch_old_string_not_unique",
        )
        .await;
    assert!(message.contains("matched 2 times"), "{message}");
    h.ok(PATCH, patch("output/main.md", "beta", "gamma")).await;
    assert_eq!(h.text("output/main.md").unwrap(), "alpha gamma alpha\n");
}

#[tokio::test]
async fn a_lost_race_is_stale_and_needs_a_full_read_after_a_partial_one() {
    let memory = Arc::new(MemoryWorkspace::new());
    let change = Interference::ChangeBeforeWrite {
        path: "output/main.md".into(),
        bytes: b"one\ntwo\nthree\n".to_vec(),
    };
    let store = Interfering::new(memory.clone(), change);
    let mut h = Harness::with_store(memory, store).await;
    h.put("output/main.md", "one\ntwo\n");
    h.ok(
        READ,
        json!({"path": "output/main.md", "start_line": 2, "line_count": 1}),
    )
    .await;
    let message = h
        .expect_code(
            PATCH,
            patch("output/main.md", "two", "2"),
            "workspace.patch_stale_file",
        )
        .await;
    assert!(
        message.contains("omit start_line and line_count"),
        "{message}"
    );
    assert!(
        h.session
            .read_state
            .get(&path("output/main.md"))
            .unwrap()
            .patch_requires_full_read
    );
    assert_eq!(h.text("output/main.md").unwrap(), "one\ntwo\nthree\n");
    h.ok(
        READ,
        json!({"path": "output/main.md", "start_line": 2, "line_count": 1}),
    )
    .await;
    h.expect_code(
        PATCH,
        patch("output/main.md", "two", "2"),
        "workspace.patch_requires_full_read",
    )
    .await;
    read_whole(&mut h, "output/main.md").await;
    h.ok(PATCH, patch("output/main.md", "two", "2")).await;
    assert_eq!(h.text("output/main.md").unwrap(), "one\n2\nthree\n");
}
