//! Installed skills: folders with a `SKILL.md` and supporting files, read-only to agents.

use agent_domain::workspace::WorkspacePath;
use async_trait::async_trait;

use super::{SearchCorpus, StoreError};

/// A skill as the index lists it.
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

#[async_trait]
pub trait SkillStore: Send + Sync {
    /// Installed skills, by name.
    async fn list(&self) -> Result<Vec<SkillIndexEntry>, StoreError>;

    /// A file inside a skill (a relative path, confined to the skill's folder).
    async fn read_file(&self, skill: &str, path: &WorkspacePath) -> Result<SkillFile, StoreError>;

    /// The files of a skill under `path` (the whole skill when `None`).
    async fn search_corpus(
        &self,
        skill: &str,
        path: Option<&WorkspacePath>,
        max_files: usize,
    ) -> Result<SearchCorpus, StoreError>;
}
