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
//! migrated when the index is loaded (`state`). Imports (of folders and `.zip`/`.skill`
//! archives, `archive`), edits, renames and removals keep it in step (`install`).

mod archive;
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

pub use self::catalog::SkillDetails;
pub use self::install::{ImportConflict, ImportPreview, SkillFileSize};
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

    /// What importing `source` (a skill folder or a `.zip`/`.skill` archive) into `scope`
    /// would install: its name, description, files and sizes, and the installed skill it
    /// would replace. Nothing changes; a source that is not a valid skill is refused as
    /// [`Self::import`] refuses it.
    pub async fn preview_import(
        &self,
        scope: &SkillScope,
        source: &Path,
    ) -> Result<ImportPreview, StoreError> {
        let (scope, source) = (scope.clone(), source.to_path_buf());
        self.changing(move |data| install::preview(data, &scope, &source, &now_iso()))
            .await
    }

    /// Installs the skill at `source` (a folder or a `.zip`/`.skill` archive) into `scope`
    /// (named by its `SKILL.md` front matter) and indexes it. A skill of the same name in
    /// the scope is `AlreadyExists` unless `replace` is set. A source that is not a valid
    /// skill, or an archive that breaks the archive rules, is `Invalid` with the `skill.*`
    /// code of its problem; an index this version must not rewrite refuses with its own
    /// code.
    pub async fn import(
        &self,
        scope: &SkillScope,
        source: &Path,
        replace: bool,
    ) -> Result<SkillIndexEntry, StoreError> {
        let (scope, source) = (scope.clone(), source.to_path_buf());
        self.changing(move |data| install::import(data, &scope, &source, replace, &now_iso()))
            .await
    }

    /// Copies a skill to `target`, which must not exist: a new folder, or an archive when
    /// its name ends in `.zip` or `.skill`.
    pub async fn export(&self, skill: &SkillRef, target: &Path) -> Result<(), StoreError> {
        let (skill, target): (SkillRef, PathBuf) = (skill.clone(), target.to_path_buf());
        let data = self.data.clone();
        blocking(
            move || install::export(&data, &skill, &target),
            StoreError::Io,
        )
        .await
    }

    /// A skill's front matter, index facts, files and problems; it need not be valid.
    pub async fn details(&self, skill: &SkillRef) -> Result<SkillDetails, StoreError> {
        let skill = skill.clone();
        self.changing(move |data| catalog::details(data, &skill, &now_iso()))
            .await
    }

    /// Replaces (or creates) one file of a skill; the skill must stay valid.
    pub async fn write_file(
        &self,
        skill: &SkillRef,
        path: &WorkspacePath,
        content: Vec<u8>,
    ) -> Result<(), StoreError> {
        let (skill, path) = (skill.clone(), path.clone());
        self.changing(move |data| install::write_file(data, &skill, &path, &content, &now_iso()))
            .await
    }

    /// Renames a skill within its scope (folder and front matter `name`).
    pub async fn rename(&self, skill: &SkillRef, new_name: &str) -> Result<(), StoreError> {
        let (skill, new_name) = (skill.clone(), new_name.to_owned());
        self.changing(move |data| install::rename(data, &skill, &new_name, &now_iso()))
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
