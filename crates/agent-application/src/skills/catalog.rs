//! [`skill_catalog`]: the skills of every scope a store holds, with everything it could
//! not read — what a host shows when it lists skills.

use serde::{Deserialize, Serialize};

use crate::ports::{SkillProblem, SkillScope, SkillStore, StoreError};

/// A skill with the scope it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopedSkill {
    pub scope: SkillScope,
    pub name: String,
    pub description: String,
}

/// Every scope's skills, and every problem found listing them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillCatalog {
    /// By scope (in the store's order: global first), then by name. Skills of one name in
    /// several scopes are all listed: shadowing is a per-invocation matter.
    pub skills: Vec<ScopedSkill>,
    /// Each problem once, in the order found.
    pub problems: Vec<SkillProblem>,
}

impl SkillCatalog {
    /// Whether every skill read and the store itself has nothing to report.
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Lists every scope `store` knows of. A skill that does not read is a problem of the
/// catalog; only a store fault (the disk refusing) is an error.
pub async fn skill_catalog(store: &dyn SkillStore) -> Result<SkillCatalog, StoreError> {
    let mut catalog = SkillCatalog::default();
    for scope in store.scopes().await? {
        let listing = store.list_scope(&scope).await?;
        catalog
            .skills
            .extend(listing.skills.into_iter().map(|entry| ScopedSkill {
                scope: scope.clone(),
                name: entry.name,
                description: entry.description,
            }));
        for problem in listing.problems {
            if !catalog.problems.contains(&problem) {
                catalog.problems.push(problem);
            }
        }
    }
    Ok(catalog)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::MemorySkills;

    #[tokio::test]
    async fn every_scope_with_its_problems() {
        let skills = MemorySkills::new();
        let seraphina = SkillScope::Character {
            character_id: "Seraphina".into(),
        };
        skills.add(&SkillScope::Global, "poetry", "Poems.");
        skills.add(&seraphina, "poetry", "Her poems.");
        skills.add(&seraphina, "voice", "Her voice.");
        let broken = SkillProblem::in_scope(&seraphina, "bad", "skill.front_matter_missing", "x");
        skills.add_problem(&seraphina, broken.clone());
        let index = SkillProblem::of_store(None, "skill.index_invalid", "not JSON");
        skills.add_problem(&SkillScope::Global, index.clone());

        let catalog = skill_catalog(&skills).await.unwrap();
        let listed: Vec<(String, &str)> = catalog
            .skills
            .iter()
            .map(|skill| (skill.scope.label(), skill.name.as_str()))
            .collect();
        assert_eq!(
            listed,
            [
                ("global".to_owned(), "poetry"),
                ("character:Seraphina".to_owned(), "poetry"),
                ("character:Seraphina".to_owned(), "voice"),
            ]
        );
        assert_eq!(catalog.problems, [index, broken]);
        assert!(!catalog.is_clean());

        skills.fail_with(StoreError::Io("disk gone".into()));
        assert!(skill_catalog(&skills).await.is_err());
    }
}
