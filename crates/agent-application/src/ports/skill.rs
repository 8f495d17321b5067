//! Skills: folders with a `SKILL.md` and supporting files, read-only to agents.
//!
//! Skills live in scopes. An invocation reads the union of its scopes, in the order
//! global → preset → profile → character, where a later scope's skill shadows an earlier
//! one of the same name (see `crate::skills`). The store knows where each scope lives; this
//! port only names scopes and skills.

use std::fmt;

use agent_domain::workspace::WorkspacePath;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::{SearchCorpus, StoreError};

/// The [`StoreError::Invalid`] code a store uses when a read names a folder of a skill
/// rather than a file.
pub const SKILL_PATH_IS_FOLDER: &str = "skill.path_is_folder";

/// Where a skill is installed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum SkillScope {
    /// Installed for everyone.
    Global,
    /// Attached to one prompt preset (`apiId` is the preset type, such as `openai`).
    Preset { api_id: String, name: String },
    /// Attached to one agent profile.
    Profile { profile_id: String },
    /// Attached to one character.
    Character { character_id: String },
}

impl SkillScope {
    /// The scope's kind: `global`, `preset`, `profile` or `character`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Global => "global",
            Self::Preset { .. } => "preset",
            Self::Profile { .. } => "profile",
            Self::Character { .. } => "character",
        }
    }
}

impl fmt::Display for SkillScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Global => f.write_str("global"),
            Self::Preset { api_id, name } => write!(f, "preset {api_id}/{name}"),
            Self::Profile { profile_id } => write!(f, "profile {profile_id}"),
            Self::Character { character_id } => write!(f, "character {character_id}"),
        }
    }
}

/// One skill of one scope.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillRef {
    pub scope: SkillScope,
    pub name: String,
}

impl SkillRef {
    pub fn new(scope: SkillScope, name: impl Into<String>) -> Self {
        Self {
            scope,
            name: name.into(),
        }
    }
}

impl fmt::Display for SkillRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "skill {} ({})", self.name, self.scope)
    }
}

/// A skill as its scope lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillIndexEntry {
    /// `[a-z0-9_-]{1,128}`.
    pub name: String,
    pub description: String,
}

/// A file of a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    /// `None` when the file is not UTF-8 text.
    pub text: Option<String>,
    pub sha256: String,
}

/// Read access to the skills of every scope.
///
/// Errors: a missing scope lists no skills; a missing skill or file is
/// [`StoreError::NotFound`]; a read naming a folder is [`StoreError::Invalid`] with code
/// [`SKILL_PATH_IS_FOLDER`]; a link or special file inside a skill (which could lead outside
/// it) is [`StoreError::Integrity`]; the operating system refusing is [`StoreError::Io`].
#[async_trait]
pub trait SkillStore: Send + Sync {
    /// The valid skills of one scope, by name.
    async fn list_scope(&self, scope: &SkillScope) -> Result<Vec<SkillIndexEntry>, StoreError>;

    /// Installed (global) skills, by name.
    async fn list(&self) -> Result<Vec<SkillIndexEntry>, StoreError> {
        self.list_scope(&SkillScope::Global).await
    }

    /// A file inside a skill (a relative path, confined to the skill's folder).
    async fn read_file(
        &self,
        skill: &SkillRef,
        path: &WorkspacePath,
    ) -> Result<SkillFile, StoreError>;

    /// The files of a skill under `path` (a file or a folder; the whole skill when `None`),
    /// sorted by path relative to the skill folder, at most `max_files`.
    async fn search_corpus(
        &self,
        skill: &SkillRef,
        path: Option<&WorkspacePath>,
        max_files: usize,
    ) -> Result<SearchCorpus, StoreError>;
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn scopes_serialise_camel_case_with_a_kind() {
        let cases = [
            (SkillScope::Global, json!({"kind": "global"})),
            (
                SkillScope::Preset {
                    api_id: "openai".into(),
                    name: "Default".into(),
                },
                json!({"kind": "preset", "apiId": "openai", "name": "Default"}),
            ),
            (
                SkillScope::Profile {
                    profile_id: "writer".into(),
                },
                json!({"kind": "profile", "profileId": "writer"}),
            ),
            (
                SkillScope::Character {
                    character_id: "Seraphina".into(),
                },
                json!({"kind": "character", "characterId": "Seraphina"}),
            ),
        ];
        for (scope, expected) in cases {
            assert_eq!(serde_json::to_value(&scope).unwrap(), expected);
            let back: SkillScope = serde_json::from_value(expected).unwrap();
            assert_eq!(back, scope);
        }
        let skill = SkillRef::new(SkillScope::Global, "poetry");
        assert_eq!(skill.to_string(), "skill poetry (global)");
    }
}
