//! Installing, previewing, exporting, editing, renaming and removing skill folders, with
//! the index kept in step.
//!
//! A skill folder appears or disappears whole: every change is built in a copy under
//! `skills/.staging/` (an import's source, or the installed skill with the edit applied),
//! checked as a listing would check it, then renamed into `installed/<scope dir>/<name>/`;
//! a replaced, renamed or removed folder is first renamed into staging. The index is written
//! after the folders have moved, and if writing it fails the folders are moved back; only
//! then is an old folder deleted. An import's source is a folder or a skill archive
//! (`archive`), which is unpacked into staging first.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use agent_application::ports::{SkillIndexEntry, SkillRef, SkillScope, StoreError};
use agent_domain::workspace::WorkspacePath;
use serde::Serialize;

use super::archive;
use super::catalog::skill_dir;
use super::fault::SkillFault;
use super::index::{self, IndexEntry, IndexFile};
use super::manifest::{self, SKILL_FILE};
use super::package;
use super::scopes::dir_name;
use super::state::{self, computed_entry};
use super::{invalid_request, tree_error};
use crate::atomic::{temp_path_for, write_create_only};
use crate::layout::DataDir;
use crate::persist::tree::{TreeError, copy_tree, walk_files};
use crate::profiles::is_simple_name;
use crate::runs::store_io::io_error;

/// A unique name in `skills/.staging/`: `<tag>-<uuid>`.
fn staging_path(data: &DataDir, tag: &str) -> PathBuf {
    data.skills_staging()
        .join(format!("{tag}-{}", uuid::Uuid::new_v4().simple()))
}

/// One file of a skill and its size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillFileSize {
    pub path: String,
    pub bytes: u64,
}

/// What an import would install, computed without installing it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportPreview {
    pub scope: SkillScope,
    pub name: String,
    pub description: String,
    pub files: Vec<SkillFileSize>,
    pub total_bytes: u64,
    pub installed_hash: String,
    pub has_scripts: bool,
    pub has_binary: bool,
    /// The skill of that name already in the scope, if any: an import needs `replace`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict: Option<ImportConflict>,
}

/// A skill an import would replace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportConflict {
    /// The installed skill's hash, when its folder is a valid skill.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub installed_hash: Option<String>,
    /// The import holds exactly the installed files.
    pub identical: bool,
}

/// The files of the folder `dir` with their sizes, in path order.
pub(crate) fn file_sizes(dir: &Path) -> Result<Vec<SkillFileSize>, TreeError> {
    walk_files(dir)?
        .into_iter()
        .map(|file| {
            let bytes = fs::symlink_metadata(&file.path)
                .map_err(|source| TreeError::Io {
                    path: file.path.clone(),
                    source,
                })?
                .len();
            Ok(SkillFileSize {
                path: file.rel.to_string(),
                bytes,
            })
        })
        .collect()
}

/// Runs `work` on the skill folder of `source`: the folder itself, or the skill unpacked
/// from an archive into staging (removed afterwards).
fn with_source<T>(
    data: &DataDir,
    source: &Path,
    work: impl FnOnce(&Path) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    if archive::is_archive(source) && fs::metadata(source).is_ok_and(|meta| meta.is_file()) {
        let unpacked = staging_path(data, "archive");
        let result = archive::unpack(source, &unpacked)
            .map_err(|fault| refused(source, &fault))
            .and_then(|root| work(&root));
        let _ = fs::remove_dir_all(&unpacked);
        return result;
    }
    match fs::metadata(source) {
        Ok(meta) if meta.is_dir() => work(source),
        Ok(_) => Err(invalid_request(format!(
            "{} is neither a folder nor a `.zip`/`.skill` archive",
            source.display()
        ))),
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            Err(StoreError::NotFound(source.display().to_string()))
        }
        Err(err) => Err(io_error(source, err)),
    }
}

/// What importing `source` (a folder or an archive) into `scope` would install, and what it
/// would replace. Nothing is changed.
pub(crate) fn preview(
    data: &DataDir,
    scope: &SkillScope,
    source: &Path,
    now: &str,
) -> Result<ImportPreview, StoreError> {
    let scope_dir = data.skills_scope_dir(&dir_name(scope)?);
    with_source(data, source, |dir| {
        let manifest = manifest::read(dir).map_err(|fault| refused(source, &fault))?;
        let entry =
            computed_entry(dir, &manifest.name, now).map_err(|fault| refused(source, &fault))?;
        let files = file_sizes(dir).map_err(|err| tree_refusal(scope, &entry.name, err))?;
        let installed = scope_dir.join(&entry.name);
        let conflict = fs::symlink_metadata(&installed).is_ok().then(|| {
            let installed_hash = package::inspect(&installed)
                .ok()
                .map(|facts| facts.installed_hash);
            ImportConflict {
                identical: installed_hash.as_deref() == Some(entry.installed_hash.as_str()),
                installed_hash,
            }
        });
        Ok(ImportPreview {
            scope: scope.clone(),
            name: entry.name,
            description: entry.description,
            files,
            total_bytes: entry.total_bytes,
            installed_hash: entry.installed_hash,
            has_scripts: entry.has_scripts,
            has_binary: entry.has_binary,
            conflict,
        })
    })
}

/// Installs the skill of `source` (a folder or an archive) into `scope`, named by its
/// `SKILL.md` front matter. A skill of that name in the scope is `AlreadyExists` unless
/// `replace`, in which case it is swapped out whole and its index entry replaced (a new
/// `installedAt`, no source refs).
pub(crate) fn import(
    data: &DataDir,
    scope: &SkillScope,
    source: &Path,
    replace: bool,
    now: &str,
) -> Result<SkillIndexEntry, StoreError> {
    with_source(data, source, |dir| {
        let manifest = manifest::read(dir).map_err(|fault| refused(source, &fault))?;
        let scope_dir = data.skills_scope_dir(&dir_name(scope)?);
        let index = state::load(data, now)?.writable()?;
        if !replace && fs::symlink_metadata(scope_dir.join(&manifest.name)).is_ok() {
            return Err(already_installed(scope, &manifest.name));
        }
        let staged = stage(data, scope, &manifest.name, dir)?;
        let entry = discard_on_error(
            &staged,
            checked(&staged, &manifest.name, scope, now).map_err(|fault| refused(source, &fault)),
        )?;
        let installed = SkillIndexEntry {
            name: entry.name.clone(),
            description: entry.description.clone(),
        };
        commit(data, scope, staged, entry, index, replace, None)?;
        Ok(installed)
    })
}

/// Replaces the file `path` of `skill` with `content` (creating it and its folders when
/// missing). The skill must still be valid afterwards: a `SKILL.md` that no longer reads,
/// or names another skill, is refused with its problem's code and nothing changes. The
/// index entry is recomputed; `installedAt` and source refs are kept.
pub(crate) fn write_file(
    data: &DataDir,
    skill: &SkillRef,
    path: &WorkspacePath,
    content: &[u8],
    now: &str,
) -> Result<(), StoreError> {
    let dir = skill_dir(data, skill)?;
    let index = state::load(data, now)?.writable()?;
    let staged = stage(data, &skill.scope, &skill.name, &dir)?;
    let edited = write_into(&staged, skill, path, content).and_then(|()| {
        checked(&staged, &skill.name, &skill.scope, now)
            .map_err(|fault| fault.refusal())
            .map(|entry| kept_history(entry, index.find(&skill.scope, &skill.name)))
    });
    let entry = discard_on_error(&staged, edited)?;
    commit(data, &skill.scope, staged, entry, index, true, None)
}

/// Writes `content` to `path` inside the staged copy `staged` of `skill`.
fn write_into(
    staged: &Path,
    skill: &SkillRef,
    path: &WorkspacePath,
    content: &[u8],
) -> Result<(), StoreError> {
    let target = path.segments().fold(staged.to_path_buf(), |p, s| p.join(s));
    if target.is_dir() {
        return Err(StoreError::Invalid {
            code: agent_application::ports::SKILL_PATH_IS_FOLDER,
            message: format!("{skill}: {path} is a folder"),
        });
    }
    if let Some(parent) = target.parent() {
        fs::create_dir_all(parent).map_err(|err| {
            invalid_request(format!(
                "{skill}: cannot create the folders of {path}: {err}"
            ))
        })?;
    }
    fs::write(&target, content).map_err(|err| io_error(&target, err))
}

/// Renames `skill` to `new_name` in its scope: the folder and the `name` line of its
/// `SKILL.md` front matter. `new_name` must be a free, valid skill name.
pub(crate) fn rename(
    data: &DataDir,
    skill: &SkillRef,
    new_name: &str,
    now: &str,
) -> Result<(), StoreError> {
    if !is_simple_name(new_name) {
        return Err(SkillFault::NameInvalid(new_name.to_owned()).refusal());
    }
    let dir = skill_dir(data, skill)?;
    let index = state::load(data, now)?.writable()?;
    let scope_dir = data.skills_scope_dir(&dir_name(&skill.scope)?);
    if fs::symlink_metadata(scope_dir.join(new_name)).is_ok() {
        return Err(already_installed(&skill.scope, new_name));
    }
    let staged = stage(data, &skill.scope, &skill.name, &dir)?;
    let renamed = (|| {
        let skill_md = staged.join(SKILL_FILE);
        let text = fs::read_to_string(&skill_md).map_err(|err| io_error(&skill_md, err))?;
        let rewritten = manifest::with_name(&text, new_name).map_err(|f| f.refusal())?;
        fs::write(&skill_md, rewritten).map_err(|err| io_error(&skill_md, err))?;
        checked(&staged, new_name, &skill.scope, now)
            .map_err(|fault| fault.refusal())
            .map(|entry| kept_history(entry, index.find(&skill.scope, &skill.name)))
    })();
    let entry = discard_on_error(&staged, renamed)?;
    commit(
        data,
        &skill.scope,
        staged,
        entry,
        index,
        false,
        Some(&skill.name),
    )
}

/// An edited skill keeps when it was installed and where it came from.
fn kept_history(mut entry: IndexEntry, old: Option<&IndexEntry>) -> IndexEntry {
    if let Some(old) = old {
        entry.installed_at.clone_from(&old.installed_at);
        entry.source_refs.clone_from(&old.source_refs);
        entry.extra.clone_from(&old.extra);
    }
    entry
}

fn discard_on_error<T>(staged: &Path, result: Result<T, StoreError>) -> Result<T, StoreError> {
    if result.is_err() {
        let _ = fs::remove_dir_all(staged);
    }
    result
}

/// Copies the skill folder `source` into a new folder of staging.
fn stage(
    data: &DataDir,
    scope: &SkillScope,
    name: &str,
    source: &Path,
) -> Result<PathBuf, StoreError> {
    let staged = staging_path(data, "import");
    let copied = copy_tree(source, &staged).map_err(|err| tree_refusal(scope, name, err));
    discard_on_error(&staged, copied.map(|_| staged.clone()))
}

/// The index entry of the staged skill folder `staged`, which must be the valid skill
/// `name`; the entry is of `scope`.
fn checked(
    staged: &Path,
    name: &str,
    scope: &SkillScope,
    now: &str,
) -> Result<IndexEntry, SkillFault> {
    let mut entry = computed_entry(staged, name, now)?;
    entry.scope = scope.clone();
    Ok(entry)
}

/// A fault walking the tree of skill `name`: an I/O fault as such, unsafe content as the
/// refusal `skill.unsafe_file`.
fn tree_refusal(scope: &SkillScope, name: &str, err: TreeError) -> StoreError {
    match err {
        TreeError::Io { .. } => tree_error(&SkillRef::new(scope.clone(), name), err),
        unsafe_content => SkillFault::UnsafeFile(unsafe_content.to_string()).refusal(),
    }
}

/// Puts the staged folder `staged` in place as skill `entry.name` of `scope` and writes the
/// index with `entry`. A folder of that name is swapped out only when `replace`
/// (`AlreadyExists` otherwise); `retire` names a skill of the scope that leaves with it (a
/// rename). If the index cannot be written every folder is put back.
fn commit(
    data: &DataDir,
    scope: &SkillScope,
    staged: PathBuf,
    entry: IndexEntry,
    mut index: IndexFile,
    replace: bool,
    retire: Option<&str>,
) -> Result<(), StoreError> {
    let scope_dir = data.skills_scope_dir(&dir_name(scope)?);
    let target = scope_dir.join(&entry.name);
    let exists = fs::symlink_metadata(&target).is_ok();
    if exists && !replace {
        let _ = fs::remove_dir_all(&staged);
        return Err(already_installed(scope, &entry.name));
    }
    if let Err(err) = fs::create_dir_all(&scope_dir) {
        let _ = fs::remove_dir_all(&staged);
        return Err(io_error(&scope_dir, err));
    }
    let replaced = staging_path(data, "replaced");
    if exists && let Err(err) = fs::rename(&target, &replaced) {
        let _ = fs::remove_dir_all(&staged);
        return Err(io_error(&target, err));
    }
    let put_back = |undo: &[(&Path, &Path)], err: StoreError| {
        for (from, to) in undo {
            let _ = fs::rename(from, to);
        }
        if exists {
            let _ = fs::rename(&replaced, &target);
        }
        err
    };
    if let Err(err) = fs::rename(&staged, &target) {
        let _ = fs::remove_dir_all(&staged);
        return Err(put_back(
            &[],
            if fs::symlink_metadata(&target).is_ok() {
                already_installed(scope, &entry.name)
            } else {
                io_error(&target, err)
            },
        ));
    }
    let retired = retire.map(|name| (scope_dir.join(name), staging_path(data, "removed")));
    if let Some((old, parked)) = &retired
        && let Err(err) = fs::rename(old, parked)
    {
        let _ = fs::remove_dir_all(&target);
        return Err(put_back(&[], io_error(old, err)));
    }
    index.skills.retain(|old| {
        &old.scope != scope || (old.name != entry.name && Some(old.name.as_str()) != retire)
    });
    index.skills.push(entry);
    if let Err(err) = index::write(&data.skills_index_file(), &mut index) {
        let _ = fs::remove_dir_all(&target);
        let undo: Vec<(&Path, &Path)> = retired
            .iter()
            .map(|(old, parked)| (parked.as_path(), old.as_path()))
            .collect();
        return Err(put_back(&undo, err));
    }
    // The change is in place and indexed; what is left in staging is only litter.
    if exists {
        let _ = fs::remove_dir_all(&replaced);
    }
    if let Some((_, parked)) = retired {
        let _ = fs::remove_dir_all(parked);
    }
    Ok(())
}

/// The refusal of a source that is not an installable skill.
fn refused(source: &Path, fault: &SkillFault) -> StoreError {
    let mut refusal = fault.refusal();
    if let StoreError::Invalid { message, .. } = &mut refusal {
        *message = format!("{}: {message}", source.display());
    }
    refusal
}

fn already_installed(scope: &SkillScope, name: &str) -> StoreError {
    StoreError::AlreadyExists(format!("skill {name} ({})", scope.label()))
}

/// Copies a skill to `target`, which must not exist: a new folder, or a skill archive when
/// its name ends in `.zip` or `.skill`. It appears only when complete.
pub(crate) fn export(data: &DataDir, skill: &SkillRef, target: &Path) -> Result<(), StoreError> {
    let dir = skill_dir(data, skill)?;
    if fs::symlink_metadata(target).is_ok() {
        return Err(StoreError::AlreadyExists(target.display().to_string()));
    }
    if archive::is_archive(target) {
        let bytes = archive::pack(&dir, &skill.name).map_err(|fault| fault.refusal())?;
        return write_create_only(target, &bytes).map_err(|err| match err.kind() {
            io::ErrorKind::AlreadyExists => StoreError::AlreadyExists(target.display().to_string()),
            _ => io_error(target, err),
        });
    }
    let staged = temp_path_for(target);
    let exported = copy_tree(&dir, &staged)
        .map_err(|err| tree_error(skill, err))
        .and_then(|_| {
            fs::rename(&staged, target).map_err(|err| {
                if fs::symlink_metadata(target).is_ok() {
                    StoreError::AlreadyExists(target.display().to_string())
                } else {
                    io_error(target, err)
                }
            })
        });
    discard_on_error(&staged, exported)
}

/// Uninstalls a skill: parks its folder in staging, writes the index without it, then
/// deletes the folder. `NotFound` when the scope has neither a folder nor an entry of
/// that name.
pub(crate) fn remove(
    data: &DataDir,
    scope: &SkillScope,
    name: &str,
    now: &str,
) -> Result<(), StoreError> {
    if !is_simple_name(name) {
        return Err(invalid_request(format!(
            "`{name}` is not a valid skill name"
        )));
    }
    let dir = data.skills_scope_dir(&dir_name(scope)?).join(name);
    let mut index = state::load(data, now)?.writable()?;
    let indexed = index.find(scope, name).is_some();
    let parked = staging_path(data, "removed");
    let folder = match fs::symlink_metadata(&dir) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => false,
        Err(err) => return Err(io_error(&dir, err)),
        // A link is removed itself; whatever it points to is not ours.
        Ok(meta) if !meta.is_dir() => {
            fs::remove_file(&dir).map_err(|err| io_error(&dir, err))?;
            false
        }
        Ok(_) => {
            let staging = data.skills_staging();
            fs::create_dir_all(&staging).map_err(|err| io_error(&staging, err))?;
            fs::rename(&dir, &parked).map_err(|err| io_error(&dir, err))?;
            true
        }
    };
    if !folder && !indexed {
        return Err(StoreError::NotFound(format!(
            "skill {name} ({})",
            scope.label()
        )));
    }
    if indexed {
        index
            .skills
            .retain(|entry| !(&entry.scope == scope && entry.name == name));
        if let Err(err) = index::write(&data.skills_index_file(), &mut index) {
            if folder {
                let _ = fs::rename(&parked, &dir);
            }
            return Err(err);
        }
    }
    if folder {
        // The skill is gone from `installed/` and the index; a leftover is only litter.
        let _ = fs::remove_dir_all(&parked);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::package;
    use super::*;

    #[test]
    fn computed_entries_follow_the_package() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("poetry");
        fs::create_dir_all(dir.join("scripts")).unwrap();
        fs::write(
            dir.join("SKILL.md"),
            "---\nname: poetry\ndescription: Writes poems.\nlicense: MIT\n---\n",
        )
        .unwrap();
        fs::write(dir.join("scripts/run.sh"), "echo\n").unwrap();
        let entry = computed_entry(&dir, "poetry", "2026-06-01T12:00:00.000Z").unwrap();
        assert_eq!(entry.scope, SkillScope::Global);
        assert_eq!(entry.license.as_deref(), Some("MIT"));
        assert_eq!(entry.file_count, 2);
        assert!(entry.has_scripts);
        assert!(!entry.has_binary);
        assert_eq!(
            entry.installed_hash,
            package::inspect(&dir).unwrap().installed_hash
        );
    }
}
