//! Skills: folders with a `SKILL.md` and supporting files, read-only to agents.
//!
//! Skills live in scopes. An invocation reads the union of its scopes, in the order
//! global → preset → profile → character, where a later scope's skill shadows an earlier
//! one of the same name (see `crate::skills`). The store knows where each scope lives; this
//! port only names scopes and skills.

use std::fmt;

use agent_domain::event::SkillDiagnostic;
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

impl SkillScope {
    /// The scope as TauriTavern labels it: `global`, `preset:<apiId>:<name>`,
    /// `profile:<profileId>`, `character:<characterId>`.
    pub fn label(&self) -> String {
        match self {
            Self::Global => "global".to_owned(),
            Self::Preset { api_id, name } => format!("preset:{api_id}:{name}"),
            Self::Profile { profile_id } => format!("profile:{profile_id}"),
            Self::Character { character_id } => format!("character:{character_id}"),
        }
    }

    /// The scope a [`label`](Self::label) names; `None` for text that is not a label. A
    /// preset's name may itself hold `:` (only the first one after the api id splits).
    pub fn from_label(label: &str) -> Option<Self> {
        let (kind, rest) = label.split_once(':').unwrap_or((label, ""));
        let nonempty = |text: &str| (!text.is_empty()).then(|| text.to_owned());
        match kind {
            "global" if rest.is_empty() && !label.ends_with(':') => Some(Self::Global),
            "preset" => {
                let (api_id, name) = rest.split_once(':')?;
                Some(Self::Preset {
                    api_id: nonempty(api_id)?,
                    name: nonempty(name)?,
                })
            }
            "profile" => Some(Self::Profile {
                profile_id: nonempty(rest)?,
            }),
            "character" => Some(Self::Character {
                character_id: nonempty(rest)?,
            }),
            _ => None,
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

/// What listing a scope found: the skills that read, and everything that did not.
///
/// One broken skill never hides the others, and is never dropped without a word: it is
/// reported in `problems`, for hosts to show and runs to journal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillListing {
    /// The valid skills of the scope, by name.
    pub skills: Vec<SkillIndexEntry>,
    /// What could not be read, in the order found.
    pub problems: Vec<SkillProblem>,
}

/// A skill that could not be read, or a problem of the skill store as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillProblem {
    /// The scope whose listing found it; `None` for a problem of the store as a whole (its
    /// index, a folder that belongs to no scope it knows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<SkillScope>,
    /// The folder concerned: a skill's folder in its scope (the skill's name when it is
    /// one), or a folder of the store; `None` when the problem is not about one folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// A `skill.*` code, e.g. `skill.front_matter_invalid`.
    pub code: String,
    pub message: String,
}

impl SkillProblem {
    /// A problem of the skill in `folder` of `scope`.
    pub fn in_scope(
        scope: &SkillScope,
        folder: impl Into<String>,
        code: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            scope: Some(scope.clone()),
            folder: Some(folder.into()),
            code: code.into(),
            message: message.into(),
        }
    }

    /// A problem of the store as a whole, about `folder` when it names one.
    pub fn of_store(
        folder: Option<String>,
        code: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            scope: None,
            folder,
            code: code.into(),
            message: message.into(),
        }
    }

    /// The journal form of the problem (`skill_scopes_resolved` diagnostics).
    pub fn diagnostic(&self) -> SkillDiagnostic {
        SkillDiagnostic {
            scope: self
                .scope
                .as_ref()
                .and_then(|scope| serde_json::to_value(scope).ok()),
            folder: self.folder.clone(),
            code: self.code.clone(),
            message: self.message.clone(),
        }
    }
}

impl fmt::Display for SkillProblem {
    /// `code: where: message`, e.g. `skill.name_mismatch: global/poems: …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.code)?;
        match (&self.scope, &self.folder) {
            (Some(scope), Some(folder)) => write!(f, "{}/{folder}: ", scope.label())?,
            (Some(scope), None) => write!(f, "{}: ", scope.label())?,
            (None, Some(folder)) => write!(f, "{folder}: ")?,
            (None, None) => {}
        }
        f.write_str(&self.message)
    }
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
/// Errors: a missing scope lists no skills; a skill that cannot be read is a
/// [`SkillProblem`] of its listing, not an error; a missing skill or file is
/// [`StoreError::NotFound`]; a read naming a folder is [`StoreError::Invalid`] with code
/// [`SKILL_PATH_IS_FOLDER`]; a link or special file inside a skill (which could lead outside
/// it) is [`StoreError::Integrity`]; the operating system refusing is [`StoreError::Io`].
#[async_trait]
pub trait SkillStore: Send + Sync {
    /// The valid skills of one scope, by name, and the problems found listing it. The
    /// global scope's listing also carries the problems of the store as a whole, so every
    /// invocation (which always reads the global scope) reports them.
    async fn list_scope(&self, scope: &SkillScope) -> Result<SkillListing, StoreError>;

    /// Installed (global) skills, by name.
    async fn list(&self) -> Result<SkillListing, StoreError> {
        self.list_scope(&SkillScope::Global).await
    }

    /// Every scope the store holds skills for, the global scope first. A store that keeps
    /// only global skills needs not say more.
    async fn scopes(&self) -> Result<Vec<SkillScope>, StoreError> {
        Ok(vec![SkillScope::Global])
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

    #[test]
    fn problems_name_their_scope_folder_and_code() {
        let seraphina = SkillScope::Character {
            character_id: "Seraphina".into(),
        };
        let problem = SkillProblem::in_scope(
            &seraphina,
            "voice",
            "skill.name_mismatch",
            "SKILL.md names the skill `other`",
        );
        assert_eq!(
            problem.to_string(),
            "skill.name_mismatch: character:Seraphina/voice: SKILL.md names the skill `other`"
        );
        assert_eq!(
            serde_json::to_value(&problem).unwrap(),
            json!({"scope": {"kind": "character", "characterId": "Seraphina"},
                   "folder": "voice", "code": "skill.name_mismatch",
                   "message": "SKILL.md names the skill `other`"})
        );
        assert_eq!(
            serde_json::to_value(problem.diagnostic()).unwrap(),
            serde_json::to_value(&problem).unwrap()
        );
        let store = SkillProblem::of_store(None, "skill.index_invalid", "not JSON");
        assert_eq!(store.to_string(), "skill.index_invalid: not JSON");
        assert_eq!(
            serde_json::to_value(&store).unwrap(),
            json!({"code": "skill.index_invalid", "message": "not JSON"})
        );
        let preset = SkillScope::Preset {
            api_id: "openai".into(),
            name: "My Preset".into(),
        };
        assert_eq!(preset.label(), "preset:openai:My Preset");
        assert_eq!(SkillScope::Global.label(), "global");
        assert_eq!(
            SkillScope::from_label("preset:openai:My Preset"),
            Some(preset)
        );
        assert_eq!(SkillScope::from_label("global"), Some(SkillScope::Global));
        assert_eq!(
            SkillScope::from_label("character:Seraphina"),
            Some(seraphina.clone())
        );
        for bad in [
            "",
            "global:",
            "global:x",
            "preset:openai",
            "profile:",
            "scope:x",
        ] {
            assert_eq!(SkillScope::from_label(bad), None, "{bad}");
        }
    }
}
