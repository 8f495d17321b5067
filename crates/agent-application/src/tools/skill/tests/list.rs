use agent_domain::tool::BuiltinTool::SkillList;
use serde_json::json;

use super::{Harness, policy, store};

#[tokio::test]
async fn lists_visible_skills_from_the_shadowing_scope() {
    let mut h = Harness::new().await;
    let result = h.ok(SkillList, json!({})).await;
    assert_eq!(
        result.content,
        "- alchemy: Brews potions. Carefully.\n\
         - poetry: Writes poems.\n\
         - voice: Speaks softly.\n\n\
         Read a skill with skill_read name=<name> (its SKILL.md) before relying on it."
    );
    assert_eq!(
        result.structured["skills"][1],
        json!({"name": "poetry", "description": "Writes poems.",
               "scope": {"kind": "profile", "profileId": "writer"}})
    );
    assert_eq!(
        result.structured["skills"][0]["scope"],
        json!({"kind": "global"})
    );
    assert_eq!(h.used(), 0, "listing reads no skill file");
}

#[tokio::test]
async fn deny_and_visible_narrow_the_list() {
    let mut h = Harness::with(store(), policy(&["poetry", "voice"], &["voice"])).await;
    let result = h.ok(SkillList, json!(null)).await;
    assert!(result.content.starts_with("- poetry: Writes poems.\n\n"));
    assert_eq!(result.structured["skills"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn no_visible_skill_is_a_short_sentence() {
    let mut h = Harness::with(store(), policy(&["*"], &["*"])).await;
    let result = h.ok(SkillList, json!({})).await;
    assert_eq!(
        result.content,
        "No skills are available to you under the current profile."
    );
    assert_eq!(result.structured, json!({"skills": []}));
}

#[tokio::test]
async fn takes_no_arguments() {
    let mut h = Harness::new().await;
    let (code, message) = h.error(SkillList, json!({"name": "poetry"})).await;
    assert_eq!(code, "tool.invalid_arguments");
    assert!(message.contains("takes no arguments"), "{message}");
}
