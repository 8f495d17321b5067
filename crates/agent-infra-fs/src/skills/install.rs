//! Installing, exporting and removing skill folders. A skill folder appears or disappears
//! whole: it is built under `skills/.staging/` and renamed into place, and removal first
//! renames it out of `installed/`.

use std::fs;
use std::io;
use std::path::Path;

use agent_application::ports::{SkillIndexEntry, SkillRef, SkillScope, StoreError};

use super::catalog::{SKILL_FILE, rebuild_index, skill_dir};
use super::front_matter;
use super::{invalid_request, tree_error};
use crate::atomic::temp_path_for;
use crate::layout::DataDir;
use crate::persist::tree::{TreeError, copy_tree, swap_dir};
use crate::profiles::is_simple_name;
use crate::runs::store_io::{io_error, read_file};

/// A unique name in `skills/.staging/` for work on skill `name`: `<name>.<tag><uuid>`.
fn staging_path(data: &DataDir, name: &str, tag: &str) -> std::path::PathBuf {
    data.skills_staging()
        .join(format!("{name}.{tag}{}", uuid::Uuid::new_v4().simple()))
}

/// Installs the skill folder at `source`, named by its `SKILL.md` front matter. An
/// installed skill of that name is `AlreadyExists` unless `replace`, in which case it is
/// swapped out whole.
pub(crate) fn import_dir(
    data: &DataDir,
    source: &Path,
    replace: bool,
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
    let skill_md = source.join(SKILL_FILE);
    let bytes = read_file(&skill_md)?
        .ok_or_else(|| invalid_request(format!("{} has no {SKILL_FILE}", source.display())))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| invalid_request(format!("{} is not UTF-8 text", skill_md.display())))?;
    let front = front_matter::parse(&text)
        .map_err(|err| invalid_request(format!("{}: {err}", source.display())))?;
    let target = data.skills_installed().join(&front.name);
    let exists = fs::symlink_metadata(&target).is_ok();
    if exists && !replace {
        return Err(already_installed(&front.name));
    }
    let staged = staging_path(data, &front.name, "");
    let placed = copy_tree(source, &staged)
        .map_err(|err| match err {
            TreeError::Io { .. } => tree_error(&installed(&front.name), err),
            unsafe_content => invalid_request(format!("{}: {unsafe_content}", source.display())),
        })
        .and_then(|_| place(data, &staged, &target, &front.name, exists));
    if placed.is_err() {
        let _ = fs::remove_dir_all(&staged);
    }
    placed?;
    rebuild_index(data)?;
    Ok(SkillIndexEntry {
        name: front.name,
        description: front.description,
    })
}

/// The installed (global) skill `name`.
fn installed(name: &str) -> SkillRef {
    SkillRef::new(SkillScope::Global, name)
}

fn already_installed(name: &str) -> StoreError {
    StoreError::AlreadyExists(format!("skill {name}"))
}

/// Moves the staged folder to `target`, swapping out the installed one when replacing.
fn place(
    data: &DataDir,
    staged: &Path,
    target: &Path,
    name: &str,
    replace: bool,
) -> Result<(), StoreError> {
    let installed = data.skills_installed();
    fs::create_dir_all(&installed).map_err(|err| io_error(&installed, err))?;
    if replace {
        let parked = staging_path(data, name, "old-");
        return swap_dir(staged, target, &parked).map_err(|err| io_error(target, err));
    }
    fs::rename(staged, target).map_err(|err| {
        if fs::symlink_metadata(target).is_ok() {
            already_installed(name)
        } else {
            io_error(target, err)
        }
    })
}

/// Copies an installed skill to the new folder `target`, which appears only when complete.
pub(crate) fn export_dir(data: &DataDir, name: &str, target: &Path) -> Result<(), StoreError> {
    let skill = installed(name);
    let dir = skill_dir(data, &skill)?;
    if fs::symlink_metadata(target).is_ok() {
        return Err(StoreError::AlreadyExists(target.display().to_string()));
    }
    let staged = temp_path_for(target);
    let exported = copy_tree(&dir, &staged)
        .map_err(|err| tree_error(&skill, err))
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

/// Uninstalls a skill: renames its folder into staging, deletes it, rewrites the index.
pub(crate) fn remove(data: &DataDir, name: &str) -> Result<(), StoreError> {
    if !is_simple_name(name) {
        return Err(invalid_request(format!(
            "`{name}` is not a valid skill name"
        )));
    }
    let dir = data.skills_installed().join(name);
    match fs::symlink_metadata(&dir) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            return Err(StoreError::NotFound(format!("skill {name}")));
        }
        Err(err) => return Err(io_error(&dir, err)),
        // A link is removed itself; whatever it points to is not ours.
        Ok(meta) if !meta.is_dir() => fs::remove_file(&dir).map_err(|err| io_error(&dir, err))?,
        Ok(_) => {
            let staging = data.skills_staging();
            fs::create_dir_all(&staging).map_err(|err| io_error(&staging, err))?;
            let parked = staging_path(data, name, "removed-");
            fs::rename(&dir, &parked).map_err(|err| io_error(&dir, err))?;
            // The skill is gone from `installed/`; a leftover in staging is only litter.
            let _ = fs::remove_dir_all(&parked);
        }
    }
    rebuild_index(data)?;
    Ok(())
}
