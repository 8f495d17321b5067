use agent_domain::workspace::WorkspaceRoot::{Output, Scratch};
use serde_json::json;

use super::*;
use crate::testing::fake_sha256_hex;

const STORY: &str = "The night was dark.\nA blue lantern swung.\nWind.\nRain.\nMore rain.\n\
                     The lantern went out.\n";

async fn sample() -> Harness {
    let h = Harness::new().await;
    h.put("output/story.md", STORY);
    h.put("scratch/notes.md", "lanterns: blue, red\n");
    h
}

#[tokio::test]
async fn hits_come_back_ranked_with_numbered_snippets() {
    let mut h = sample().await;
    let result = h
        .ok(SEARCH, json!({"query": "blue lantern", "context_lines": 1}))
        .await;
    assert_eq!(
        result.content,
        "Found 3 matches for `blue lantern`. Read around a hit with workspace_read_file \
         path=<path> start_line=<line>.\n\n\
         output/story.md, lines 1-3 (score 1.00) ref workspace:output/story.md#L1-L3\n\
         1 | The night was dark.\n\
         2 | A blue lantern swung.\n\
         3 | Wind.\n\n\
         scratch/notes.md, lines 1-1 (score 1.00) ref workspace:scratch/notes.md#L1-L1\n\
         1 | lanterns: blue, red\n\n\
         output/story.md, lines 5-6 (score 0.64) ref workspace:output/story.md#L5-L6\n\
         5 | More rain.\n\
         6 | The lantern went out."
    );
    assert_eq!(
        result.resource_refs,
        [
            "workspace:output/story.md#L1-L3",
            "workspace:scratch/notes.md#L1-L1",
            "workspace:output/story.md#L5-L6",
        ]
    );
    let first = &result.structured["hits"][0];
    assert_eq!(first["path"], json!("output/story.md"));
    assert_eq!(first["startLine"], json!(1));
    assert_eq!(first["endLine"], json!(3));
    assert_eq!(first["score"], json!(1.0));
    assert_eq!(first["ref"], json!("workspace:output/story.md#L1-L3"));
    assert_eq!(first["sha256"], json!(fake_sha256_hex(STORY.as_bytes())));
    assert_eq!(
        first["snippet"],
        json!("1 | The night was dark.\n2 | A blue lantern swung.\n3 | Wind.")
    );
    assert_eq!(result.structured["query"], json!("blue lantern"));
    assert_eq!(result.structured["searchedFiles"], json!(2));
    assert_eq!(result.structured["skippedFiles"], json!(0));
    assert_eq!(result.structured["truncated"], json!(false));
}

#[tokio::test]
async fn no_hits_is_a_short_success() {
    let mut h = sample().await;
    let result = h.ok(SEARCH, json!({"query": "zebra"})).await;
    assert_eq!(result.content, "No workspace file matched `zebra`.");
    assert_eq!(result.structured["hits"], json!([]));
    assert!(result.resource_refs.is_empty());
}

#[tokio::test]
async fn punctuation_queries_match_literally_and_cjk_matches_without_spaces() {
    let mut h = Harness::new().await;
    h.put("output/code.md", "a -> b\nc => d\nplain\n");
    h.put("output/zh.md", "今天天气很好。\n我最喜欢北京烤鸭。\n");
    let arrows = h
        .ok(SEARCH, json!({"query": "->", "context_lines": 0}))
        .await;
    assert!(
        arrows.content.contains(
            "output/code.md, lines 1-1 (score 1.00) ref workspace:output/code.md#L1-L1\n1 | a -> b"
        ),
        "{}",
        arrows.content
    );
    assert_eq!(arrows.structured["hits"].as_array().unwrap().len(), 1);
    let duck = h
        .ok(SEARCH, json!({"query": "北京烤鸭", "context_lines": 0}))
        .await;
    assert!(
        duck.content
            .ends_with("output/zh.md, lines 2-2 (score 1.00) ref workspace:output/zh.md#L2-L2\n2 | 我最喜欢北京烤鸭。"),
        "{}",
        duck.content
    );
}

#[tokio::test]
async fn only_visible_roots_and_tool_results_are_searched() {
    let mut h = Harness::with_roots(roots(&[Output, Scratch], &[Output])).await;
    h.put("output/a.md", "needle in output");
    h.put("tool-results/call_1.txt", "needle in a result");
    h.put("persist/memory.md", "needle in persist");
    h.put("input/prompt_snapshot.json", "needle in input");
    h.put("model-responses/r1.json", "needle in a response");
    h.put("checkpoints/c1/output/a.md", "needle in a checkpoint");
    h.put("events.jsonl", "needle in the journal");
    let result = h.ok(SEARCH, json!({"query": "needle"})).await;
    let paths: Vec<&str> = result.structured["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["output/a.md", "tool-results/call_1.txt"]);
    assert_eq!(result.structured["searchedFiles"], json!(2));

    let results_only = h
        .ok(SEARCH, json!({"query": "needle", "path": "tool-results"}))
        .await;
    assert_eq!(results_only.structured["hits"].as_array().unwrap().len(), 1);
    for hidden in ["persist", "input", "events.jsonl", "checkpoints/c1"] {
        h.expect_code(
            SEARCH,
            json!({"query": "needle", "path": hidden}),
            "workspace.path_not_visible",
        )
        .await;
    }
}

#[tokio::test]
async fn path_narrows_to_a_file_or_folder() {
    let mut h = sample().await;
    h.put("output/deep/more.md", "lantern");
    let file = h
        .ok(
            SEARCH,
            json!({"query": "lantern", "path": "scratch/notes.md"}),
        )
        .await;
    assert_eq!(file.structured["searchedFiles"], json!(1));
    let folder = h
        .ok(SEARCH, json!({"query": "lantern", "path": "output/deep/"}))
        .await;
    assert_eq!(
        folder.resource_refs,
        ["workspace:output/deep/more.md#L1-L1"]
    );
    for root in ["", ".", "./", " "] {
        let all = h
            .ok(SEARCH, json!({"query": "lantern", "path": root}))
            .await;
        assert_eq!(all.structured["searchedFiles"], json!(3), "{root:?}");
    }
    let message = h
        .expect_code(
            SEARCH,
            json!({"query": "lantern", "path": "output/gone"}),
            "workspace.path_not_found",
        )
        .await;
    assert!(message.contains("`output/gone`"), "{message}");
    h.expect_code(
        SEARCH,
        json!({"query": "lantern", "path": "../x"}),
        "workspace.invalid_path",
    )
    .await;
}

#[tokio::test]
async fn limits_and_context_are_bounded() {
    let mut h = sample().await;
    let cases = [
        (json!({"limit": 0}), "workspace.search_limit_invalid"),
        (json!({"limit": 51}), "workspace.search_limit_too_large"),
        (
            json!({"context_lines": 6}),
            "workspace.search_context_too_large",
        ),
        (json!({"limit": "5"}), "tool.invalid_arguments"),
        (json!({"limit": -1}), "tool.invalid_arguments"),
        (json!({"context_lines": 1.5}), "tool.invalid_arguments"),
        (json!({"regex": true}), "tool.invalid_arguments"),
    ];
    for (extra, code) in cases {
        let mut args = extra.clone();
        args["query"] = json!("lantern");
        h.expect_code(SEARCH, args, code).await;
    }
    for query in [json!(""), json!("   "), json!(null), json!(3)] {
        h.expect_code(SEARCH, json!({"query": query}), "tool.invalid_arguments")
            .await;
    }
    h.ok(
        SEARCH,
        json!({"query": "lantern", "limit": 50, "context_lines": 5}),
    )
    .await;
    let one = h.ok(SEARCH, json!({"query": "lantern", "limit": 1})).await;
    assert_eq!(one.structured["hits"].as_array().unwrap().len(), 1);
    assert!(
        one.content.ends_with(
            "More matches exist; narrow the search with path, or raise limit (at most 50)."
        ),
        "{}",
        one.content
    );
    let defaults = h.ok(SEARCH, json!({"query": "night"})).await;
    assert_eq!(defaults.resource_refs, ["workspace:output/story.md#L1-L3"]);
}

#[tokio::test]
async fn binary_files_are_skipped_and_counted() {
    let mut h = sample().await;
    h.put("scratch/image.png", vec![0x89, 0x50, 0xff, 0xfe]);
    let result = h.ok(SEARCH, json!({"query": "lantern"})).await;
    assert_eq!(result.structured["skippedFiles"], json!(1));
    assert_eq!(result.structured["searchedFiles"], json!(2));
    assert!(
        result
            .content
            .ends_with("Skipped 1 file that is not UTF-8 text."),
        "{}",
        result.content
    );
    let none = h.ok(SEARCH, json!({"query": "zebra"})).await;
    assert_eq!(
        none.content,
        "No workspace file matched `zebra`.\n\nSkipped 1 file that is not UTF-8 text."
    );
}

#[tokio::test]
async fn searches_stop_at_1000_files() {
    let mut h = Harness::new().await;
    for i in 0..1_005 {
        h.put(&format!("scratch/f{i:04}.md"), format!("file {i}\n"));
    }
    h.put("scratch/zzz.md", "needle\n");
    let result = h.ok(SEARCH, json!({"query": "needle"})).await;
    assert_eq!(result.structured["truncated"], json!(true));
    assert_eq!(result.structured["searchedFiles"], json!(1_000));
    assert_eq!(
        result.content,
        "No workspace file matched `needle`.\n\nOnly the first 1,000 files were searched; \
         give a path to search the rest."
    );
    let narrowed = h
        .ok(SEARCH, json!({"query": "needle", "path": "scratch/zzz.md"}))
        .await;
    assert_eq!(narrowed.structured["truncated"], json!(false));
    assert_eq!(narrowed.structured["hits"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn long_snippet_lines_are_cut_and_marked() {
    let mut h = Harness::new().await;
    h.put("output/wide.md", format!("needle {}\n", "x".repeat(1_000)));
    let result = h.ok(SEARCH, json!({"query": "needle"})).await;
    let shown = format!("needle {}", "x".repeat(393));
    assert!(
        result
            .content
            .ends_with(&format!("1 | {shown} … [line cut: 607 more characters]")),
        "{}",
        result.content
    );
}
