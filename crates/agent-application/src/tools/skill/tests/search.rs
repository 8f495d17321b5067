use agent_domain::tool::BuiltinTool::SkillSearch;
use serde_json::json;

use super::{Harness, poetry, policy, store};

#[tokio::test]
async fn finds_lines_with_refs_and_charges_the_snippets() {
    let mut h = Harness::new().await;
    let result = h
        .ok(
            SkillSearch,
            json!({"name": "poetry", "query": "rhyme", "context_lines": 1}),
        )
        .await;
    assert_eq!(
        result.content,
        "Found 1 match for `rhyme` in skill `poetry`. Read more with skill_read name=poetry \
         path=<path> start_line=<line>.\n\n\
         refs/style.md lines 1-3:\n\
         1 | Use short lines.\n\
         2 | Rhyme sparingly.\n\
         3 | End on an image.\n\n\
         Skipped 1 file that is not text."
    );
    assert_eq!(result.resource_refs, ["skill:poetry/refs/style.md#L1-L3"]);
    let s = &result.structured;
    assert_eq!(s["scope"]["kind"], "profile");
    assert_eq!(s["searchedFiles"], 4);
    assert_eq!(s["skippedFiles"], 1);
    assert_eq!(s["hits"][0]["ref"], "skill:poetry/refs/style.md#L1-L3");
    assert_eq!(
        s["hits"][0]["snippet"],
        "Use short lines.\nRhyme sparingly.\nEnd on an image."
    );
    let charged = "Use short lines.Rhyme sparingly.End on an image.".len() as u64;
    assert_eq!(s["returnedChars"], charged);
    assert_eq!(h.used(), charged);
}

#[tokio::test]
async fn ranks_across_files_and_honours_limit() {
    let mut h = Harness::new().await;
    let result = h
        .ok(
            SkillSearch,
            json!({"name": "poetry", "query": "short beat", "context_lines": 0}),
        )
        .await;
    let refs = &result.resource_refs;
    // The meter line has both words; the style line only one.
    assert_eq!(
        refs,
        &[
            "skill:poetry/refs/deep/meter.md#L1-L1",
            "skill:poetry/refs/style.md#L1-L1"
        ]
    );
    let limited = h
        .ok(
            SkillSearch,
            json!({"name": "poetry", "query": "short beat", "limit": 1, "context_lines": 0}),
        )
        .await;
    assert_eq!(limited.resource_refs.len(), 1);
    assert_eq!(limited.structured["truncated"], true);
    assert!(
        limited
            .content
            .ends_with("More matches exist; raise limit or narrow the search with path.")
    );
}

#[tokio::test]
async fn path_limits_the_search_to_a_file_or_folder() {
    let mut h = Harness::new().await;
    let folder = h
        .ok(
            SkillSearch,
            json!({"name": "poetry", "query": "short", "path": "refs/deep"}),
        )
        .await;
    assert_eq!(
        folder.resource_refs,
        ["skill:poetry/refs/deep/meter.md#L1-L1"]
    );
    let file = h
        .ok(
            SkillSearch,
            json!({"name": "poetry", "query": "short", "path": "refs/style.md"}),
        )
        .await;
    assert_eq!(file.resource_refs, ["skill:poetry/refs/style.md#L1-L3"]);
    assert_eq!(file.structured["path"], "refs/style.md");

    let (code, message) = h
        .error(
            SkillSearch,
            json!({"name": "poetry", "query": "x", "path": "nowhere"}),
        )
        .await;
    assert_eq!(code, "skill.not_found");
    assert!(message.contains("`nowhere`"), "{message}");
    let (code, _) = h
        .error(
            SkillSearch,
            json!({"name": "poetry", "query": "x", "path": "../x"}),
        )
        .await;
    assert_eq!(code, "skill.invalid_path");
}

#[tokio::test]
async fn no_hits_is_a_success_that_costs_nothing() {
    let mut h = Harness::new().await;
    let result = h
        .ok(SkillSearch, json!({"name": "poetry", "query": "dragons"}))
        .await;
    assert_eq!(
        result.content,
        "No text in skill `poetry` matched `dragons`.\n\nSkipped 1 file that is not text."
    );
    assert!(result.resource_refs.is_empty());
    assert_eq!(h.used(), 0);
}

#[tokio::test]
async fn punctuation_only_queries_match_literally() {
    let skills = store();
    skills.put(&poetry(), "marks.md", "plain\nwait -> go\nend\n");
    let mut h = Harness::with(skills, policy(&["*"], &[])).await;
    let result = h
        .ok(
            SkillSearch,
            json!({"name": "poetry", "query": " -> ", "context_lines": 0}),
        )
        .await;
    assert_eq!(result.resource_refs, ["skill:poetry/marks.md#L2-L2"]);
}

#[tokio::test]
async fn long_lines_in_snippets_are_cut() {
    let skills = store();
    skills.put(
        &poetry(),
        "min.js",
        format!("{}needle{}\n", "a".repeat(600), "b".repeat(600)),
    );
    let mut h = Harness::with(skills, policy(&["*"], &[])).await;
    let result = h
        .ok(
            SkillSearch,
            json!({"name": "poetry", "query": "needle", "path": "min.js"}),
        )
        .await;
    assert!(
        result.content.contains("… [line cut: 806 more characters]"),
        "{}",
        result.content
    );
    assert_eq!(h.used(), 400);
}

#[tokio::test]
async fn argument_limits() {
    let mut h = Harness::new().await;
    let cases = [
        (
            json!({"name": "poetry", "query": "x", "limit": 0}),
            "skill.search_limit_invalid",
        ),
        (
            json!({"name": "poetry", "query": "x", "limit": 51}),
            "skill.search_limit_too_large",
        ),
        (
            json!({"name": "poetry", "query": "x", "limit": "5"}),
            "tool.invalid_arguments",
        ),
        (
            json!({"name": "poetry", "query": "x", "context_lines": 6}),
            "skill.search_context_too_large",
        ),
        (
            json!({"name": "poetry", "query": "   "}),
            "tool.invalid_arguments",
        ),
        (json!({"name": "poetry"}), "tool.invalid_arguments"),
        (json!({"query": "x"}), "tool.invalid_arguments"),
        (
            json!({"name": "poetry", "query": "x", "max_chars": 5}),
            "tool.invalid_arguments",
        ),
    ];
    for (args, expected) in cases {
        let (code, message) = h.error(SkillSearch, args.clone()).await;
        assert_eq!(code, expected, "{args}: {message}");
    }
    let ok = h
        .ok(
            SkillSearch,
            json!({"name": "poetry", "query": "rhyme", "limit": 50, "context_lines": 5}),
        )
        .await;
    assert_eq!(ok.resource_refs.len(), 1);
}

#[tokio::test]
async fn visibility_and_links() {
    let mut h = Harness::with(store(), policy(&["*"], &["alchemy"])).await;
    let (code, _) = h
        .error(SkillSearch, json!({"name": "alchemy", "query": "x"}))
        .await;
    assert_eq!(code, "skill.policy_denied");
    let (code, _) = h
        .error(SkillSearch, json!({"name": "ghost", "query": "x"}))
        .await;
    assert_eq!(code, "skill.not_visible");
    // The character's skill holds a link, so it cannot be searched as a whole.
    let (code, message) = h
        .error(SkillSearch, json!({"name": "voice", "query": "x"}))
        .await;
    assert_eq!(code, "skill.invalid_path");
    assert_eq!(
        message,
        "skill `voice` contains a link or special file; only plain files inside the skill \
         folder can be read or searched."
    );
}
