//! The per-invocation reading budget shared by `skill_search` snippets and `skill_read`.

use agent_domain::tool::BuiltinTool::{SkillRead, SkillSearch};
use serde_json::json;

use super::Harness;

const STYLE_CHARS: u64 = "Use short lines.Rhyme sparingly.End on an image.".len() as u64;

#[tokio::test]
async fn search_then_read_use_up_the_budget() {
    // Room for the search snippet and 20 more characters.
    let mut h = Harness::new().await.budgets(1_000, STYLE_CHARS + 20);
    h.ok(SkillSearch, json!({"name": "poetry", "query": "rhyme"}))
        .await;
    assert_eq!(h.used(), STYLE_CHARS);

    // The read is held to what is left: one line of 16, the next would pass 20.
    let read = h
        .ok(
            SkillRead,
            json!({"name": "poetry", "path": "refs/style.md"}),
        )
        .await;
    assert!(
        read.content
            .contains("1 | Use short lines.\n\nShowing lines 1-1 of 3"),
        "{}",
        read.content
    );
    assert_eq!(h.used(), STYLE_CHARS + 16);
    assert_eq!(read.structured["budgetRemaining"], 4);

    // Four characters remain: a line is cut to them, and the budget is then used up.
    let cut = h
        .ok(
            SkillRead,
            json!({"name": "poetry", "path": "refs/style.md", "start_line": 2}),
        )
        .await;
    assert!(
        cut.content
            .contains("2 | Rhym … [line cut: 12 more characters]"),
        "{}",
        cut.content
    );
    assert!(
        cut.content
            .ends_with("Your skill reading budget for this task is now used up.")
    );
    assert_eq!(h.used(), STYLE_CHARS + 20);

    for (tool, args) in [
        (SkillRead, json!({"name": "poetry"})),
        (SkillSearch, json!({"name": "poetry", "query": "rhyme"})),
    ] {
        let (code, message) = h.error(tool, args).await;
        assert_eq!(code, "skill.read_budget_exhausted");
        assert_eq!(
            message,
            format!(
                "your skill reading budget for this task ({} characters) is used up; continue \
                 with what you have already read.",
                STYLE_CHARS + 20
            )
        );
    }
    // Listing still works: it reads nothing.
    h.ok(agent_domain::tool::BuiltinTool::SkillList, json!({}))
        .await;
}

#[tokio::test]
async fn snippets_beyond_what_remains_are_refused_without_charge() {
    let mut h = Harness::new().await.budgets(1_000, STYLE_CHARS - 1);
    let (code, message) = h
        .error(SkillSearch, json!({"name": "poetry", "query": "rhyme"}))
        .await;
    assert_eq!(code, "skill.read_budget_exhausted");
    assert_eq!(
        message,
        format!(
            "these snippets need {STYLE_CHARS} characters, but only {} remain of your skill \
             reading budget; narrow the search with path, a smaller limit or fewer context_lines.",
            STYLE_CHARS - 1
        )
    );
    assert_eq!(h.used(), 0);

    // A narrower search fits.
    h.ok(
        SkillSearch,
        json!({"name": "poetry", "query": "rhyme", "context_lines": 0}),
    )
    .await;
    assert_eq!(h.used(), "Rhyme sparingly.".len() as u64);
}

#[tokio::test]
async fn a_zero_budget_refuses_every_read() {
    let mut h = Harness::new().await.budgets(1_000, 0);
    let (code, _) = h.error(SkillRead, json!({"name": "poetry"})).await;
    assert_eq!(code, "skill.read_budget_exhausted");
    let (code, _) = h
        .error(SkillSearch, json!({"name": "poetry", "query": "dragons"}))
        .await;
    assert_eq!(code, "skill.read_budget_exhausted");
}

#[tokio::test]
async fn a_read_shows_at_most_the_profiles_per_call_budget() {
    let skills = super::store();
    let long: String = (1..=3_000)
        .map(|n| format!("line {n:04} of a long file\n"))
        .collect();
    skills.put(&super::poetry(), "long.md", long);
    let mut h = Harness::with(skills, super::policy(&["*"], &[]))
        .await
        .budgets(30_000, 200_000);
    let result = h
        .ok(SkillRead, json!({"name": "poetry", "path": "long.md"}))
        .await;
    assert!(h.used() > 20_000 && h.used() <= 30_000, "{}", h.used());
    assert!(
        result
            .content
            .contains("Continue with skill_read name=poetry path=long.md start_line=")
    );
}
