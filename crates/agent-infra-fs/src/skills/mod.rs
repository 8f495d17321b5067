//! [`FsSkillStore`]: skills of every scope, in TauriTavern's layout, read-only to agents and
//! managed by the host.
//!
//! ```text
//! _tauritavern/skills/installed/global/<name>/SKILL.md (+ files)    the global scope
//! _tauritavern/skills/installed/character_<16 hex>/<name>/          other scopes (`scopes`)
//! _tauritavern/skills/index/skills.json    {"version": 2, "skills": [...]} (`index`)
//! _tauritavern/skills/.staging/            imports and removals in progress
//! ```
//!
//! A skill is a folder named `[a-z0-9_-]{1,128}` whose `SKILL.md` starts with YAML front
//! matter giving the same `name` and a `description` (`manifest`). Listing a scope reads
//! its folders; every folder that is not a valid skill, and every disagreement with the
//! index, is reported as a problem of the listing, never dropped. The index is
//! TauriTavern's, read and written in its format; the flat layout of earlier versions is
//! migrated when the index is loaded (`state`). Imports and removals keep it in step.

mod catalog;
mod fault;
mod index;
mod install;
mod manifest;
mod package;
mod scopes;
mod state;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use agent_application::ports::{
    SearchCorpus, SkillFile, SkillIndexEntry, SkillListing, SkillRef, SkillScope, SkillStore,
    StoreError,
};
use agent_domain::workspace::WorkspacePath;
use async_trait::async_trait;

use crate::environment::now_iso;
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
    /// Serialises loading (which may migrate), imports and removals within this process.
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

    /// Installs the skill folder at `source` into `scope` (named by its `SKILL.md` front
    /// matter) and indexes it. A skill of the same name in the scope is `AlreadyExists`
    /// unless `replace` is set. A source that is not a valid skill is `Invalid` with the
    /// `skill.*` code of its problem; an index this version must not rewrite refuses with
    /// its own code.
    pub async fn import_dir(
        &self,
        scope: &SkillScope,
        source: &Path,
        replace: bool,
    ) -> Result<SkillIndexEntry, StoreError> {
        let (scope, source) = (scope.clone(), source.to_path_buf());
        self.changing(move |data| install::import_dir(data, &scope, &source, replace, &now_iso()))
            .await
    }

    /// Copies a skill into the new folder `target` (which must not exist).
    pub async fn export_dir(&self, skill: &SkillRef, target: &Path) -> Result<(), StoreError> {
        let (skill, target): (SkillRef, PathBuf) = (skill.clone(), target.to_path_buf());
        let data = self.data.clone();
        blocking(
            move || install::export_dir(&data, &skill, &target),
            StoreError::Io,
        )
        .await
    }

    /// Uninstalls a skill and drops it from the index; `NotFound` when the scope has no
    /// skill of that name.
    pub async fn remove(&self, scope: &SkillScope, name: &str) -> Result<(), StoreError> {
        let (scope, name) = (scope.clone(), name.to_owned());
        self.changing(move |data| install::remove(data, &scope, &name, &now_iso()))
            .await
    }
}

#[async_trait]
impl SkillStore for FsSkillStore {
    async fn list_scope(&self, scope: &SkillScope) -> Result<SkillListing, StoreError> {
        let scope = scope.clone();
        self.changing(move |data| catalog::list(data, &scope, &now_iso()))
            .await
    }

    async fn scopes(&self) -> Result<Vec<SkillScope>, StoreError> {
        self.changing(|data| catalog::scopes(data, &now_iso()))
            .await
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
