//! Installing, exporting and removing skill folders, with the index kept in step.
//!
//! A skill folder appears or disappears whole: an import is copied under `skills/.staging/`,
//! then renamed into `installed/<scope dir>/<name>/`; a replaced or removed folder is first
//! renamed into staging. The index is written after the folders have moved, and if writing
//! it fails the folders are moved back; only then is an old folder deleted.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use agent_application::ports::{SkillIndexEntry, SkillRef, SkillScope, StoreError};

use super::catalog::skill_dir;
use super::fault::SkillFault;
use super::index;
use super::manifest;
use super::scopes::dir_name;
use super::state::{self, computed_entry};
use super::{invalid_request, tree_error};
use crate::atomic::temp_path_for;
use crate::layout::DataDir;
use crate::persist::tree::{TreeError, copy_tree};
use crate::profiles::is_simple_name;
use crate::runs::store_io::io_error;

/// A unique name in `skills/.staging/`: `<tag>-<uuid>`.
fn staging_path(data: &DataDir, tag: &str) -> PathBuf {
    data.skills_staging()
        .join(format!("{tag}-{}", uuid::Uuid::new_v4().simple()))
}

/// Installs the skill folder at `source` into `scope`, named by its `SKILL.md` front
/// matter. A skill of that name in the scope is `AlreadyExists` unless `replace`, in which
/// case it is swapped out whole and its index entry replaced (a new `installedAt`, no source
/// refs).
pub(crate) fn import_dir(
    data: &DataDir,
    scope: &SkillScope,
    source: &Path,
    replace: bool,
    now: &str,
) -> Result<SkillIndexEntry, StoreError> {
    match fs::metadata(source) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(invalid_request(format!(
                "{} is not a folder",
                source.display()
            )));
        }
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            return Err(StoreError::NotFound(source.display().to_string()));
        }
        Err(err) => return Err(io_error(source, err)),
    }
    let manifest = manifest::read(source).map_err(|fault| refused(source, &fault))?;
    let scope_dir = data.skills_scope_dir(&dir_name(scope)?);
    let mut index = state::load(data, now)?.writable()?;
    let target = scope_dir.join(&manifest.name);
    let exists = fs::symlink_metadata(&target).is_ok();
    if exists && !replace {
        return Err(already_installed(scope, &manifest.name));
    }

    let staged = staging_path(data, "import");
    let prepared = copy_tree(source, &staged)
        .map_err(|err| match err {
            TreeError::Io { .. } => tree_error(&SkillRef::new(scope.clone(), &manifest.name), err),
            unsafe_content => SkillFault::UnsafeFile(unsafe_content.to_string()).refusal(),
        })
        .and_then(|_| {
            let mut entry = computed_entry(&staged, &manifest.name, now)
                .map_err(|fault| refused(source, &fault))?;
            entry.scope = scope.clone();
            Ok(entry)
        });
    let entry = match prepared {
        Ok(entry) => entry,
        Err(err) => {
            let _ = fs::remove_dir_all(&staged);
            return Err(err);
        }
    };

    fs::create_dir_all(&scope_dir).map_err(|err| io_error(&scope_dir, err))?;
    let parked = staging_path(data, "replaced");
    if exists && let Err(err) = fs::rename(&target, &parked) {
        let _ = fs::remove_dir_all(&staged);
        return Err(io_error(&target, err));
    }
    let put_back = |data_err: StoreError| {
        if exists {
            let _ = fs::rename(&parked, &target);
        }
        data_err
    };
    if let Err(err) = fs::rename(&staged, &target) {
        let _ = fs::remove_dir_all(&staged);
        return Err(put_back(if fs::symlink_metadata(&target).is_ok() {
            already_installed(scope, &manifest.name)
        } else {
            io_error(&target, err)
        }));
    }
    index
        .skills
        .retain(|old| !(&old.scope == scope && old.name == entry.name));
    index.skills.push(entry.clone());
    if let Err(err) = index::write(&data.skills_index_file(), &mut index) {
        let _ = fs::remove_dir_all(&target);
        return Err(put_back(err));
    }
    if exists {
        // The new skill is installed and indexed; a leftover in staging is only litter.
        let _ = fs::remove_dir_all(&parked);
    }
    Ok(SkillIndexEntry {
        name: entry.name,
        description: entry.description,
    })
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

/// Copies a skill to the new folder `target` (which must not exist); it appears only when
/// complete.
pub(crate) fn export_dir(
    data: &DataDir,
    skill: &SkillRef,
    target: &Path,
) -> Result<(), StoreError> {
    let dir = skill_dir(data, skill)?;
    if fs::symlink_metadata(target).is_ok() {
        return Err(StoreError::AlreadyExists(target.display().to_string()));
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
    if exported.is_err() {
        let _ = fs::remove_dir_all(&staged);
    }
    exported
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
