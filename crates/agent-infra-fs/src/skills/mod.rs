//! [`FsSkillStore`]: skills of every scope, read-only to agents, managed by the host.
//!
//! ```text
//! _tauritavern/skills/installed/<name>/SKILL.md (+ supporting files)   the global scope
//! _tauritavern/skills/scopes/…/<name>/                                 other scopes (see `scopes`)
//! _tauritavern/skills/index/skills.json   [{name, description, files}] of installed/, by name
//! _tauritavern/skills/.staging/           imports and removals in progress
//! ```
//!
//! A skill is a folder named `[a-z0-9_-]{1,128}` whose `SKILL.md` starts with front matter
//! giving the same `name` and a `description`. The folders are the truth; the index of the
//! global scope is rewritten from them after every change and rebuilt when missing. Host
//! commands (import, export, remove) manage the global scope; the other scopes are folders
//! the host or the user fills.

mod catalog;
mod front_matter;
mod install;
mod scopes;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use agent_application::ports::{
    SearchCorpus, SkillFile, SkillIndexEntry, SkillListing, SkillRef, SkillScope, SkillStore,
    StoreError,
};
use agent_domain::workspace::WorkspacePath;
use async_trait::async_trait;

use crate::layout::DataDir;
use crate::persist::tree::TreeError;
use crate::runs::store_io::{blocking, io_error};

/// The request names no usable skill or file.
fn invalid_request(message: String) -> StoreError {
    StoreError::Invalid {
        code: "skill.invalid_request",
        message,
    }
}

/// A fault found while walking the files of `skill`.
fn tree_error(skill: &SkillRef, err: TreeError) -> StoreError {
    match err {
        TreeError::Io { path, source } => io_error(&path, source),
        unsafe_content => StoreError::Integrity(format!("{skill}: {unsafe_content}")),
    }
}

/// The [`SkillStore`] over a data directory, plus the host's install commands.
#[derive(Debug, Clone)]
pub struct FsSkillStore {
    data: DataDir,
    /// Serialises changes to `installed/` and the index within this process.
    changes: Arc<Mutex<()>>,
}

impl FsSkillStore {
    pub fn new(data: DataDir) -> Self {
        Self {
            data,
            changes: Arc::new(Mutex::new(())),
        }
    }

    /// Runs `work` on the blocking pool while holding the change lock.
    async fn changing<T: Send + 'static>(
        &self,
        work: impl FnOnce(&DataDir) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (data, changes) = (self.data.clone(), Arc::clone(&self.changes));
        blocking(
            move || {
                let _changing = changes.lock().unwrap_or_else(PoisonError::into_inner);
                work(&data)
            },
            StoreError::Io,
        )
        .await
    }

    /// Installs the skill folder at `source` (named by its `SKILL.md` front matter). An
    /// installed skill of the same name is `AlreadyExists` unless `replace` is set.
    pub async fn import_dir(
        &self,
        source: &Path,
        replace: bool,
    ) -> Result<SkillIndexEntry, StoreError> {
        let source = source.to_path_buf();
        self.changing(move |data| install::import_dir(data, &source, replace))
            .await
    }

    /// Copies an installed skill into the new folder `target` (which must not exist).
    pub async fn export_dir(&self, name: &str, target: &Path) -> Result<(), StoreError> {
        let (name, target): (String, PathBuf) = (name.to_owned(), target.to_path_buf());
        let data = self.data.clone();
        blocking(
            move || install::export_dir(&data, &name, &target),
            StoreError::Io,
        )
        .await
    }

    /// Uninstalls a skill; `NotFound` when it is not installed.
    pub async fn remove(&self, name: &str) -> Result<(), StoreError> {
        let name = name.to_owned();
        self.changing(move |data| install::remove(data, &name))
            .await
    }
}

#[async_trait]
impl SkillStore for FsSkillStore {
    async fn list_scope(&self, scope: &SkillScope) -> Result<SkillListing, StoreError> {
        let scope = scope.clone();
        let skills = self
            .changing(move |data| catalog::list(data, &scope))
            .await?;
        Ok(SkillListing {
            skills: skills.iter().map(catalog::IndexedSkill::entry).collect(),
            problems: Vec::new(),
        })
    }

    async fn read_file(
        &self,
        skill: &SkillRef,
        path: &WorkspacePath,
    ) -> Result<SkillFile, StoreError> {
        let (data, skill, path) = (self.data.clone(), skill.clone(), path.clone());
        blocking(move || catalog::read(&data, &skill, &path), StoreError::Io).await
    }

    async fn search_corpus(
        &self,
        skill: &SkillRef,
        path: Option<&WorkspacePath>,
        max_files: usize,
    ) -> Result<SearchCorpus, StoreError> {
        let (data, skill, path) = (self.data.clone(), skill.clone(), path.cloned());
        blocking(
            move || catalog::search_corpus(&data, &skill, path.as_ref(), max_files),
            StoreError::Io,
        )
        .await
    }
}
