//! [`resolve_skills`]: the effective skills of an invocation's scopes, filtered by the
//! profile's skills policy.

use std::collections::BTreeMap;

use agent_domain::ErrorCode;
use agent_domain::event::SkillScopesResolvedPayload;
use agent_domain::profile::SkillsPolicy;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ports::{SkillListing, SkillProblem, SkillRef, SkillScope, SkillStore, StoreError};

/// The policy entry that stands for every skill.
const ALL: &str = "*";

/// A skill an invocation can see, with the scope it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedSkill {
    pub name: String,
    pub description: String,
    pub scope: SkillScope,
}

impl ResolvedSkill {
    /// The skill as the store addresses it.
    pub fn skill_ref(&self) -> SkillRef {
        SkillRef::new(self.scope.clone(), self.name.clone())
    }
}

/// The skills of one invocation. Its serde form is the document written to
/// `input/resolved_skills.json` (see [`ResolvedSkills::document`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedSkills {
    /// The scopes read, in precedence order.
    pub scopes: Vec<SkillScope>,
    /// Every skill of those scopes, by name; of two with one name, the later scope's.
    pub effective: Vec<ResolvedSkill>,
    /// Names of the effective skills the policy lets the invocation use, sorted.
    pub visible: Vec<String>,
    /// The policy's `deny` list, kept to tell a denied skill from an unknown one.
    pub deny: Vec<String>,
    /// What the scopes' listings could not read, each problem once. Written to the document
    /// only when there is one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<SkillProblem>,
}

/// Why an invocation may not use a skill.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillDenial {
    /// `skills.deny` names the skill or `*`. Checked first, whether or not the skill exists.
    #[error("the profile does not allow skill `{0}`")]
    PolicyDenied(String),
    /// Not in `skills.visible`, or not a skill of any of the invocation's scopes.
    #[error("no skill `{0}` is available to you")]
    NotVisible(String),
}

impl ErrorCode for SkillDenial {
    fn code(&self) -> &'static str {
        match self {
            Self::PolicyDenied(_) => "skill.policy_denied",
            Self::NotVisible(_) => "skill.not_visible",
        }
    }
}

/// Lists every scope through `store` (in the order given) and resolves the result with
/// [`ResolvedSkills::merge`]. A scope without a folder lists no skills; a skill that cannot
/// be read is kept as a problem; store faults are returned as they are, for the runtime to
/// fail the invocation.
pub async fn resolve_skills(
    store: &dyn SkillStore,
    scopes: &[SkillScope],
    policy: &SkillsPolicy,
) -> Result<ResolvedSkills, StoreError> {
    let mut listings = Vec::with_capacity(scopes.len());
    for scope in scopes {
        listings.push((scope.clone(), store.list_scope(scope).await?));
    }
    Ok(ResolvedSkills::merge(listings, policy))
}

impl ResolvedSkills {
    /// Unions the listings in order (a later scope's skill replaces an earlier one of the
    /// same name) and applies `policy`: a skill is visible when `deny` names neither it nor
    /// `*`, and `visible` names it or `*`. The listings' problems are kept, each once.
    pub fn merge(listings: Vec<(SkillScope, SkillListing)>, policy: &SkillsPolicy) -> Self {
        let mut by_name: BTreeMap<String, ResolvedSkill> = BTreeMap::new();
        let mut scopes = Vec::with_capacity(listings.len());
        let mut problems: Vec<SkillProblem> = Vec::new();
        for (scope, listing) in listings {
            for problem in listing.problems {
                if !problems.contains(&problem) {
                    problems.push(problem);
                }
            }
            for entry in listing.skills {
                let skill = ResolvedSkill {
                    name: entry.name.clone(),
                    description: entry.description,
                    scope: scope.clone(),
                };
                by_name.insert(entry.name, skill);
            }
            scopes.push(scope);
        }
        let visible = by_name
            .keys()
            .filter(|name| !names(&policy.deny, name) && names(&policy.visible, name))
            .cloned()
            .collect();
        Self {
            scopes,
            effective: by_name.into_values().collect(),
            visible,
            deny: policy.deny.clone(),
            problems,
        }
    }

    /// The visible skills, by name.
    pub fn visible_skills(&self) -> impl Iterator<Item = &ResolvedSkill> {
        self.effective
            .iter()
            .filter(|skill| self.visible.contains(&skill.name))
    }

    /// The visible skill called `name`, or why the invocation may not use it.
    pub fn lookup(&self, name: &str) -> Result<&ResolvedSkill, SkillDenial> {
        if names(&self.deny, name) {
            return Err(SkillDenial::PolicyDenied(name.to_owned()));
        }
        self.visible_skills()
            .find(|skill| skill.name == name)
            .ok_or_else(|| SkillDenial::NotVisible(name.to_owned()))
    }

    /// The `skill_scopes_resolved` payload: scope kinds in order, the preset and character
    /// references (`{}` when none), the names of the visible skills, and the problems as
    /// diagnostics.
    pub fn scopes_resolved_payload(&self) -> SkillScopesResolvedPayload {
        let mut refs = Map::new();
        for scope in &self.scopes {
            match scope {
                SkillScope::Preset { api_id, name } => {
                    let mut preset = Map::new();
                    preset.insert("apiId".into(), Value::String(api_id.clone()));
                    preset.insert("name".into(), Value::String(name.clone()));
                    refs.insert("preset".into(), Value::Object(preset));
                }
                SkillScope::Character { character_id } => {
                    refs.insert("characterId".into(), Value::String(character_id.clone()));
                }
                _ => {}
            }
        }
        SkillScopesResolvedPayload {
            scopes: self.scopes.iter().map(|s| s.kind().to_owned()).collect(),
            refs: Value::Object(refs),
            effective_skills: self.visible.clone(),
            diagnostics: self.problems.iter().map(SkillProblem::diagnostic).collect(),
        }
    }

    /// The JSON document for `input/resolved_skills.json` (or
    /// `input/invocations/<id>/resolved_skills.json`): `{scopes, effective, visible, deny}`,
    /// plus `problems` when a listing found any.
    pub fn document(&self) -> Result<Value, serde_json::Error> {
        serde_json::to_value(self)
    }
}

/// Whether a policy list names `name`, directly or through `*`.
fn names(list: &[String], name: &str) -> bool {
    list.iter().any(|entry| entry == ALL || entry == name)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::testing::MemorySkills;

    fn policy(visible: &[&str], deny: &[&str]) -> SkillsPolicy {
        SkillsPolicy {
            visible: visible.iter().map(|s| s.to_string()).collect(),
            deny: deny.iter().map(|s| s.to_string()).collect(),
            max_read_chars_per_call: 20_000,
            max_read_chars_per_run: 80_000,
        }
    }

    fn profile() -> SkillScope {
        SkillScope::Profile {
            profile_id: "writer".into(),
        }
    }

    fn character() -> SkillScope {
        SkillScope::Character {
            character_id: "Seraphina".into(),
        }
    }

    fn store() -> MemorySkills {
        let skills = MemorySkills::new();
        skills.add(&SkillScope::Global, "poetry", "Global poems.");
        skills.add(&SkillScope::Global, "alchemy", "Brews.");
        skills.add(&profile(), "poetry", "Profile poems.");
        skills.add(&character(), "voice", "Speaks like Seraphina.");
        skills
    }

    #[tokio::test]
    async fn later_scopes_shadow_earlier_ones() {
        let scopes = [SkillScope::Global, profile(), character()];
        let resolved = resolve_skills(&store(), &scopes, &policy(&["*"], &[]))
            .await
            .unwrap();
        let found: Vec<(&str, &str, &str)> = resolved
            .effective
            .iter()
            .map(|s| (s.name.as_str(), s.description.as_str(), s.scope.kind()))
            .collect();
        assert_eq!(
            found,
            [
                ("alchemy", "Brews.", "global"),
                ("poetry", "Profile poems.", "profile"),
                ("voice", "Speaks like Seraphina.", "character"),
            ]
        );
        assert_eq!(resolved.visible, ["alchemy", "poetry", "voice"]);

        // Without the profile scope the global skill shows through.
        let global_only = resolve_skills(&store(), &[SkillScope::Global], &policy(&["*"], &[]))
            .await
            .unwrap();
        assert_eq!(
            global_only.lookup("poetry").unwrap().description,
            "Global poems."
        );
        assert_eq!(
            global_only.lookup("voice"),
            Err(SkillDenial::NotVisible("voice".into()))
        );
    }

    #[tokio::test]
    async fn deny_beats_visible_and_star_denies_all() {
        let scopes = [SkillScope::Global, profile()];
        let resolved = resolve_skills(&store(), &scopes, &policy(&["poetry", "ghost"], &[]))
            .await
            .unwrap();
        assert_eq!(resolved.visible, ["poetry"]);
        assert_eq!(
            resolved.lookup("alchemy").unwrap_err().code(),
            "skill.not_visible"
        );
        assert_eq!(
            resolved.lookup("ghost").unwrap_err().code(),
            "skill.not_visible"
        );

        let denied = resolve_skills(&store(), &scopes, &policy(&["*"], &["poetry"]))
            .await
            .unwrap();
        assert_eq!(denied.visible, ["alchemy"]);
        assert_eq!(
            denied.lookup("poetry").unwrap_err().code(),
            "skill.policy_denied"
        );

        let all_denied = resolve_skills(&store(), &scopes, &policy(&["*"], &["*"]))
            .await
            .unwrap();
        assert!(all_denied.visible.is_empty());
        assert_eq!(
            all_denied.lookup("nothing-like-it").unwrap_err().code(),
            "skill.policy_denied"
        );
    }

    #[tokio::test]
    async fn payload_and_document() {
        let scopes = [
            SkillScope::Global,
            SkillScope::Preset {
                api_id: "openai".into(),
                name: "Default".into(),
            },
            profile(),
            character(),
        ];
        let resolved = resolve_skills(&store(), &scopes, &policy(&["*"], &["alchemy"]))
            .await
            .unwrap();
        let payload = resolved.scopes_resolved_payload();
        assert_eq!(
            serde_json::to_value(&payload).unwrap(),
            json!({
                "scopes": ["global", "preset", "profile", "character"],
                "refs": {"preset": {"apiId": "openai", "name": "Default"}, "characterId": "Seraphina"},
                "effectiveSkills": ["poetry", "voice"],
            })
        );
        let document = resolved.document().unwrap();
        assert_eq!(document["visible"], json!(["poetry", "voice"]));
        assert_eq!(document["deny"], json!(["alchemy"]));
        assert_eq!(
            document["effective"][1],
            json!({"name": "poetry", "description": "Profile poems.",
                   "scope": {"kind": "profile", "profileId": "writer"}})
        );
        let back: ResolvedSkills = serde_json::from_value(document).unwrap();
        assert_eq!(back, resolved);

        let bare = ResolvedSkills::merge(
            vec![(SkillScope::Global, SkillListing::default())],
            &policy(&["*"], &[]),
        );
        assert_eq!(
            serde_json::to_value(bare.scopes_resolved_payload()).unwrap(),
            json!({"scopes": ["global"], "refs": {}, "effectiveSkills": []})
        );
    }

    #[tokio::test]
    async fn unreadable_skills_become_diagnostics_each_once() {
        let skills = store();
        let broken = SkillProblem::in_scope(
            &character(),
            "broken",
            "skill.front_matter_unclosed",
            "the front matter of SKILL.md is not closed",
        );
        let index = SkillProblem::of_store(
            None,
            "skill.index_version_unsupported",
            "index version 3 is not one this version reads",
        );
        skills.add_problem(&character(), broken.clone());
        // The store repeats its own problems; the journal gets them once.
        skills.add_problem(&SkillScope::Global, index.clone());
        skills.add_problem(&profile(), index.clone());
        let scopes = [SkillScope::Global, profile(), character()];
        let resolved = resolve_skills(&skills, &scopes, &policy(&["*"], &[]))
            .await
            .unwrap();
        assert_eq!(resolved.problems, [index, broken]);
        assert_eq!(resolved.visible, ["alchemy", "poetry", "voice"]);
        let payload = serde_json::to_value(resolved.scopes_resolved_payload()).unwrap();
        assert_eq!(
            payload["diagnostics"],
            json!([
                {"code": "skill.index_version_unsupported",
                 "message": "index version 3 is not one this version reads"},
                {"scope": {"kind": "character", "characterId": "Seraphina"},
                 "folder": "broken", "code": "skill.front_matter_unclosed",
                 "message": "the front matter of SKILL.md is not closed"},
            ])
        );
        assert_eq!(
            payload["effectiveSkills"],
            json!(["alchemy", "poetry", "voice"])
        );
        let document = resolved.document().unwrap();
        assert_eq!(document["problems"][1]["folder"], "broken");
    }

    #[tokio::test]
    async fn store_faults_are_returned() {
        let skills = store();
        skills.fail_with(StoreError::Io("disk gone".into()));
        let err = resolve_skills(&skills, &[SkillScope::Global], &policy(&["*"], &[]))
            .await
            .unwrap_err();
        assert_eq!(err, StoreError::Io("disk gone".into()));
    }
}
