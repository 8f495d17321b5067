use agent_domain::workspace::WorkspaceRoot::{Output, Scratch};
use serde_json::json;

use super::*;

async fn sample() -> Harness {
    let h = Harness::new().await;
    h.put("output/main.md", "draft");
    h.put("output/notes/ideas.md", "ideas");
    h.put("tool-results/call_1.json", "{}");
    h.put("input/prompt_snapshot.json", "{}");
    h.put("events.jsonl", "{}");
    h
}

const ROOT_AT_DEPTH_2: &str = "output/\noutput/notes/\npersist/\nplan/\nscratch/\nsummaries/\n\
                               tool-results/\noutput/main.md\ntool-results/call_1.json";

#[tokio::test]
async fn the_root_lists_visible_roots_one_level_deep_folders_first() {
    let mut h = sample().await;
    let result = h.ok(LIST, json!({})).await;
    assert_eq!(result.content, ROOT_AT_DEPTH_2);
    assert_eq!(result.structured["truncated"], json!(false));
    assert_eq!(
        result.structured["entries"][1],
        json!({"path": "output/notes", "kind": "directory"})
    );
    assert_eq!(
        result.structured["entries"][7],
        json!({"path": "output/main.md", "kind": "file"})
    );
    assert!(result.resource_refs.is_empty());
}

#[tokio::test]
async fn every_root_form_lists_the_root() {
    let mut h = sample().await;
    for form in [
        json!(null),
        json!(""),
        json!("."),
        json!("./"),
        json!("  "),
        json!(" ./ "),
    ] {
        let result = h.ok(LIST, json!({"path": form})).await;
        assert_eq!(result.content, ROOT_AT_DEPTH_2, "{form}");
    }
}

#[tokio::test]
async fn depth_is_bounded() {
    let mut h = sample().await;
    let shallow = h.ok(LIST, json!({"depth": 1})).await;
    assert_eq!(
        shallow.content,
        "output/\npersist/\nplan/\nscratch/\nsummaries/\ntool-results/"
    );
    let deeper = h.ok(LIST, json!({"depth": 3})).await;
    assert!(
        deeper
            .content
            .ends_with("output/notes/ideas.md\ntool-results/call_1.json")
    );
    h.ok(LIST, json!({"depth": 4})).await;

    let message = h
        .expect_code(LIST, json!({"depth": 5}), "workspace.list_depth_too_large")
        .await;
    assert!(message.contains("at most 4"), "{message}");
    h.expect_code(LIST, json!({"depth": 0}), "tool.invalid_arguments")
        .await;
    h.expect_code(LIST, json!({"depth": "2"}), "tool.invalid_arguments")
        .await;
    h.expect_code(LIST, json!({"recursive": true}), "tool.invalid_arguments")
        .await;
}

#[tokio::test]
async fn a_folder_or_file_lists_below_it() {
    let mut h = sample().await;
    let folder = h.ok(LIST, json!({"path": "output"})).await;
    assert_eq!(
        folder.content,
        "output/notes/\noutput/main.md\noutput/notes/ideas.md"
    );
    let one = h.ok(LIST, json!({"path": "output/", "depth": 1})).await;
    assert_eq!(one.content, "output/notes/\noutput/main.md");
    let file = h.ok(LIST, json!({"path": "output/main.md"})).await;
    assert_eq!(file.content, "output/main.md");
    let results = h.ok(LIST, json!({"path": "tool-results"})).await;
    assert_eq!(results.content, "tool-results/call_1.json");
    let empty = h.ok(LIST, json!({"path": "plan"})).await;
    assert_eq!(empty.content, "`plan` has no files yet.");
    assert_eq!(empty.structured, json!({"entries": [], "truncated": false}));
}

#[tokio::test]
async fn bad_missing_and_hidden_paths_are_recoverable() {
    let mut h = sample().await;
    let message = h
        .expect_code(
            LIST,
            json!({"path": "output/nope"}),
            "workspace.path_not_found",
        )
        .await;
    assert!(message.contains("workspace_list_files"), "{message}");
    for hidden in [
        "input",
        "input/prompt_snapshot.json",
        "events.jsonl",
        "outputs",
    ] {
        let message = h
            .expect_code(LIST, json!({"path": hidden}), "workspace.path_not_visible")
            .await;
        assert!(message.contains("output/, scratch/"), "{message}");
    }
    for bad in ["../x", "/etc", "output/../..", "C:\\x", "a\u{0}b"] {
        h.expect_code(LIST, json!({"path": bad}), "workspace.invalid_path")
            .await;
    }
    h.expect_code(LIST, json!({"path": 3}), "tool.invalid_arguments")
        .await;
}

#[tokio::test]
async fn narrowed_roots_hide_the_rest() {
    let mut h = Harness::with_roots(roots(&[Output, Scratch], &[Output])).await;
    h.put("persist/memory.md", "secret");
    let result = h.ok(LIST, json!({})).await;
    assert_eq!(result.content, "output/\nscratch/\ntool-results/");
    let message = h
        .expect_code(
            LIST,
            json!({"path": "persist"}),
            "workspace.path_not_visible",
        )
        .await;
    assert_eq!(
        message,
        "`persist` is outside the folders you can see: output/, scratch/, tool-results/."
    );
}

#[tokio::test]
async fn listings_stop_at_200_entries() {
    let mut h = Harness::new().await;
    for i in 0..250 {
        h.put(&format!("scratch/f{i:03}.md"), "x");
    }
    let root = h.ok(LIST, json!({})).await;
    let lines: Vec<&str> = root.content.lines().collect();
    assert_eq!(lines.len(), 202, "200 entries, a blank line and the note");
    assert_eq!(lines[5], "tool-results/");
    assert_eq!(lines[6], "scratch/f000.md");
    assert_eq!(lines[199], "scratch/f193.md");
    assert!(lines[201].starts_with("Only the first 200 entries are shown"));
    assert_eq!(root.structured["truncated"], json!(true));
    assert_eq!(root.structured["entries"].as_array().unwrap().len(), 200);

    let folder = h.ok(LIST, json!({"path": "scratch"})).await;
    assert_eq!(folder.structured["truncated"], json!(true));
    assert_eq!(
        folder.structured["entries"][199],
        json!({"path": "scratch/f199.md", "kind": "file"})
    );

    let mut exact = Harness::new().await;
    for i in 0..194 {
        exact.put(&format!("scratch/f{i:03}.md"), "x");
    }
    let full = exact.ok(LIST, json!({})).await;
    assert_eq!(full.structured["truncated"], json!(false));
    assert_eq!(full.content.lines().count(), 200);
}
