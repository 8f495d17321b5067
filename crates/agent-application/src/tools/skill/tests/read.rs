use agent_domain::tool::BuiltinTool::SkillRead;
use serde_json::json;

use super::{Harness, STYLE, poetry, policy, store};
use crate::ports::StoreError;

#[tokio::test]
async fn reads_skill_md_of_the_shadowing_skill_by_default() {
    let mut h = Harness::new().await;
    let result = h.ok(SkillRead, json!({"name": "poetry"})).await;
    assert_eq!(
        result.content,
        "poetry/SKILL.md lines 1-5 of 5\n\n\
         1 | ---\n\
         2 | name: poetry\n\
         3 | description: Writes poems.\n\
         4 | ---\n\
         5 | # poetry"
    );
    assert_eq!(result.resource_refs, ["skill:poetry/SKILL.md#L1-L5"]);
    let s = &result.structured;
    assert_eq!(
        s["scope"],
        json!({"kind": "profile", "profileId": "writer"})
    );
    assert_eq!(s["path"], "SKILL.md");
    assert_eq!(s["window"]["complete"], true);
    let shown = "---name: poetrydescription: Writes poems.---# poetry"
        .chars()
        .count() as u64;
    assert_eq!(s["chars"], shown);
    assert_eq!(h.used(), shown);
    assert_eq!(s["budgetRemaining"], 80_000 - shown);
}

#[tokio::test]
async fn reads_a_line_range_of_a_path() {
    let mut h = Harness::new().await;
    let result = h
        .ok(
            SkillRead,
            json!({"name": "poetry", "path": "refs/style.md", "start_line": 2, "line_count": 1}),
        )
        .await;
    assert_eq!(
        result.content,
        "poetry/refs/style.md lines 2-2 of 3\n\n2 | Rhyme sparingly."
    );
    assert_eq!(result.resource_refs, ["skill:poetry/refs/style.md#L2-L2"]);
    assert_eq!(h.used(), "Rhyme sparingly.".len() as u64);

    let empty = h
        .ok(SkillRead, json!({"name": "poetry", "path": "empty.md"}))
        .await;
    assert_eq!(empty.content, "poetry/empty.md is empty.");
    assert_eq!(empty.resource_refs, ["skill:poetry/empty.md"]);
}

#[tokio::test]
async fn over_the_call_budget_is_a_preview_with_where_to_continue() {
    let mut h = Harness::new().await.budgets(35, 80_000);
    let result = h
        .ok(
            SkillRead,
            json!({"name": "poetry", "path": "refs/style.md"}),
        )
        .await;
    assert_eq!(
        result.content,
        "poetry/refs/style.md lines 1-2 of 3\n\n\
         1 | Use short lines.\n\
         2 | Rhyme sparingly.\n\n\
         Showing lines 1-2 of 3; the rest did not fit the read budget. \
         Continue with skill_read name=poetry path=refs/style.md start_line=3."
    );
    assert_eq!(result.structured["window"]["nextStartLine"], 3);
    assert_eq!(result.structured["window"]["preview"], true);

    let rest = h
        .ok(
            SkillRead,
            json!({"name": "poetry", "path": "refs/style.md", "start_line": 3}),
        )
        .await;
    assert!(
        rest.content.ends_with("3 | End on an image."),
        "{}",
        rest.content
    );
    let all: u64 = STYLE.lines().map(|l| l.len() as u64).sum();
    assert_eq!(h.used(), all);
}

#[tokio::test]
async fn a_line_longer_than_the_budget_is_cut_and_marked() {
    let skills = store();
    skills.put(&poetry(), "long.md", format!("{}\nafter\n", "x".repeat(50)));
    let mut h = Harness::with(skills, policy(&["*"], &[]))
        .await
        .budgets(20, 80_000);
    let result = h
        .ok(SkillRead, json!({"name": "poetry", "path": "long.md"}))
        .await;
    assert!(
        result.content.contains(&format!(
            "1 | {} … [line cut: 30 more characters]",
            "x".repeat(20)
        )),
        "{}",
        result.content
    );
    assert!(
        result.content.contains("Line 1 is too long"),
        "{}",
        result.content
    );
    assert!(
        result.content.contains("start_line=2"),
        "{}",
        result.content
    );
    assert_eq!(h.used(), 20);
}

#[tokio::test]
async fn visibility_errors() {
    let mut h = Harness::with(store(), policy(&["poetry", "alchemy"], &["alchemy"])).await;
    let (code, message) = h.error(SkillRead, json!({"name": "alchemy"})).await;
    assert_eq!(code, "skill.policy_denied");
    assert_eq!(
        message,
        "the profile does not allow skill `alchemy`; call skill_list to see the skills you can use."
    );
    // In the scopes but not in `visible`.
    let (code, _) = h.error(SkillRead, json!({"name": "voice"})).await;
    assert_eq!(code, "skill.not_visible");
    // In no scope at all.
    let (code, message) = h.error(SkillRead, json!({"name": "ghost"})).await;
    assert_eq!(code, "skill.not_visible");
    assert!(
        message.starts_with("no skill `ghost` is available to you"),
        "{message}"
    );

    let mut all_denied = Harness::with(store(), policy(&["*"], &["*"])).await;
    let (code, _) = all_denied.error(SkillRead, json!({"name": "ghost"})).await;
    assert_eq!(code, "skill.policy_denied");
}

#[tokio::test]
async fn file_errors_are_recoverable() {
    let mut h = Harness::new().await;
    let cases = [
        (
            json!({"name": "poetry", "path": "nope.md"}),
            "skill.not_found",
        ),
        (
            json!({"name": "poetry", "path": "logo.bin/x"}),
            "skill.not_found",
        ),
        (
            json!({"name": "poetry", "path": "logo.bin"}),
            "skill.file_not_text",
        ),
        (
            json!({"name": "poetry", "path": "../alchemy/SKILL.md"}),
            "skill.invalid_path",
        ),
        (
            json!({"name": "poetry", "path": "/etc/passwd"}),
            "skill.invalid_path",
        ),
        (
            json!({"name": "poetry", "path": "refs"}),
            "skill.invalid_request",
        ),
        (
            json!({"name": "voice", "path": "refs/outside/secret"}),
            "skill.invalid_path",
        ),
        (
            json!({"name": "poetry", "start_line": 0}),
            "skill.invalid_line_range",
        ),
        (
            json!({"name": "poetry", "start_line": 9}),
            "skill.invalid_line_range",
        ),
        (
            json!({"name": "poetry", "line_count": 0}),
            "skill.invalid_line_range",
        ),
        (
            json!({"name": "poetry", "max_chars": 10}),
            "tool.invalid_arguments",
        ),
        (
            json!({"name": "poetry", "start_char": 0}),
            "tool.invalid_arguments",
        ),
        (json!({"name": "  "}), "tool.invalid_arguments"),
        (
            json!({"name": "poetry", "start_line": -1}),
            "tool.invalid_arguments",
        ),
    ];
    for (args, expected) in cases {
        let (code, message) = h.error(SkillRead, args.clone()).await;
        assert_eq!(code, expected, "{args}: {message}");
    }
    assert_eq!(h.used(), 0, "failed reads charge nothing");

    let (_, folder) = h
        .error(SkillRead, json!({"name": "poetry", "path": "refs"}))
        .await;
    assert_eq!(
        folder,
        "`refs` is a folder of skill `poetry`, not a file; read one of its files, or call \
         skill_search name=poetry with this path to find them."
    );
    let (_, link) = h
        .error(SkillRead, json!({"name": "voice", "path": "refs/outside"}))
        .await;
    assert_eq!(
        link,
        "`refs/outside` of skill `voice` is or contains a link or special file; only plain \
         files inside the skill folder can be read or searched."
    );
    let (_, missing) = h
        .error(SkillRead, json!({"name": "poetry", "path": "nope.md"}))
        .await;
    assert_eq!(
        missing,
        "skill `poetry` has no file or folder `nope.md`; call skill_search name=poetry to find its files."
    );
}

#[tokio::test]
async fn store_io_faults_end_the_run() {
    let mut h = Harness::new().await;
    h.store.fail_with(StoreError::Io("disk gone".into()));
    let fault = h
        .try_call(SkillRead, json!({"name": "poetry"}))
        .await
        .unwrap_err();
    assert_eq!(fault.code, "agent.storage_io");
}

#[tokio::test]
async fn a_skill_gone_since_resolution_is_not_found() {
    let mut h = Harness::new().await;
    h.store
        .fail_with(StoreError::NotFound("skill poetry (profile writer)".into()));
    let (code, message) = h.error(SkillRead, json!({"name": "poetry"})).await;
    assert_eq!(code, "skill.not_found");
    assert!(message.contains("`SKILL.md`"), "{message}");
}
