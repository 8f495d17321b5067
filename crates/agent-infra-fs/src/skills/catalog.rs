//! Reading skills: the scan of a scope's folders (behind `skills/index/skills.json` for the
//! global scope), and confined reads of a skill's files.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use agent_application::ports::{
    SKILL_PATH_IS_FOLDER, SearchCorpus, SearchFile, SkillFile, SkillIndexEntry, SkillRef,
    SkillScope, StoreError,
};
use agent_domain::workspace::WorkspacePath;
use serde::{Deserialize, Serialize};

use super::front_matter;
use super::scopes::scope_dir;
use super::{invalid_request, tree_error};
use crate::confine::{ConfineError, Parents, confine};
use crate::digest::sha256_hex;
use crate::layout::DataDir;
use crate::persist::tree::{TreeFile, walk_files};
use crate::profiles::is_simple_name;
use crate::runs::store_io::{integrity, io_error, read_file, write_json};

/// The entry point of every skill.
pub(crate) const SKILL_FILE: &str = "SKILL.md";

/// One skill as `skills/index/skills.json` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct IndexedSkill {
    pub name: String,
    pub description: String,
    /// Every file of the skill, relative to its folder, sorted.
    pub files: Vec<WorkspacePath>,
}

impl IndexedSkill {
    pub(crate) fn entry(&self) -> SkillIndexEntry {
        SkillIndexEntry {
            name: self.name.clone(),
            description: self.description.clone(),
        }
    }
}

/// Every skill in the scope folder `dir` with a readable `SKILL.md` whose front matter names
/// the skill's own folder, sorted by name. Anything else is skipped, so one broken skill
/// never hides the others; a missing folder holds no skills.
fn scan_dir(dir: &Path) -> Result<Vec<IndexedSkill>, StoreError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(io_error(dir, err)),
    };
    let mut skills = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|err| io_error(dir, err))?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let is_real_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_real_dir
            && is_simple_name(&name)
            && let Some(skill) = read_skill(&entry.path(), &name)
        {
            skills.push(skill);
        }
    }
    skills.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(skills)
}

/// The index entry of the skill in `dir`; `None` when it is not a valid skill.
fn read_skill(dir: &Path, name: &str) -> Option<IndexedSkill> {
    let text = String::from_utf8(read_file(&dir.join(SKILL_FILE)).ok()??).ok()?;
    let front = front_matter::parse(&text).ok()?;
    if front.name != name {
        return None;
    }
    let files = walk_files(dir)
        .ok()?
        .into_iter()
        .map(|file| file.rel)
        .collect();
    Some(IndexedSkill {
        name: front.name,
        description: front.description,
        files,
    })
}

/// Rescans the installed (global) skills and rewrites the index from them.
pub(crate) fn rebuild_index(data: &DataDir) -> Result<Vec<IndexedSkill>, StoreError> {
    let skills = scan_dir(&data.skills_installed())?;
    write_json(&data.skills_index_file(), &skills)?;
    Ok(skills)
}

/// The skills of `scope`. The global scope also writes its index when it is missing.
pub(crate) fn list(data: &DataDir, scope: &SkillScope) -> Result<Vec<IndexedSkill>, StoreError> {
    match scope {
        SkillScope::Global if !data.skills_index_file().exists() => rebuild_index(data),
        scope => scan_dir(&scope_dir(data, scope)?),
    }
}

/// The folder of a skill, which must be a real folder.
pub(crate) fn skill_dir(data: &DataDir, skill: &SkillRef) -> Result<PathBuf, StoreError> {
    if !is_simple_name(&skill.name) {
        return Err(invalid_request(format!(
            "`{}` is not a valid skill name",
            skill.name
        )));
    }
    let dir = scope_dir(data, &skill.scope)?.join(&skill.name);
    match fs::symlink_metadata(&dir) {
        Ok(meta) if meta.is_dir() => Ok(dir),
        Ok(meta) if meta.file_type().is_symlink() => Err(integrity(&dir, "is a symbolic link")),
        Ok(_) => Err(integrity(&dir, "is not a folder")),
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            Err(StoreError::NotFound(skill.to_string()))
        }
        Err(err) => Err(io_error(&dir, err)),
    }
}

/// `path` inside the skill folder, refusing symlinks on the way.
fn confined(dir: &Path, skill: &SkillRef, path: &WorkspacePath) -> Result<PathBuf, StoreError> {
    confine(dir, path, Parents::MustExist).map_err(|err| match err {
        ConfineError::Symlink(at) => integrity(dir, format!("`{at}` is a symbolic link")),
        ConfineError::NotADirectory(_) | ConfineError::MissingParent(_) => not_found(skill, path),
        ConfineError::Io(err) => io_error(dir, err),
    })
}

fn not_found(skill: &SkillRef, path: &WorkspacePath) -> StoreError {
    StoreError::NotFound(format!("{skill}: {path}"))
}

fn read_skill_file(path: &Path) -> Result<(Option<String>, String), StoreError> {
    let bytes = fs::read(path).map_err(|err| io_error(path, err))?;
    let sha256 = sha256_hex(&bytes);
    Ok((String::from_utf8(bytes).ok(), sha256))
}

/// One file of a skill.
pub(crate) fn read(
    data: &DataDir,
    skill: &SkillRef,
    path: &WorkspacePath,
) -> Result<SkillFile, StoreError> {
    let dir = skill_dir(data, skill)?;
    let target = confined(&dir, skill, path)?;
    match fs::symlink_metadata(&target) {
        Ok(meta) if meta.is_file() => {
            let (text, sha256) = read_skill_file(&target)?;
            Ok(SkillFile { text, sha256 })
        }
        Ok(meta) if meta.is_dir() => Err(StoreError::Invalid {
            code: SKILL_PATH_IS_FOLDER,
            message: format!("{skill}: {path} is a folder"),
        }),
        Ok(_) => Err(integrity(&target, "is not a regular file")),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Err(not_found(skill, path)),
        Err(err) => Err(io_error(&target, err)),
    }
}

/// The files of a skill under `path` (a file or a folder; the whole skill when `None`),
/// sorted by path, at most `max_files`. Paths are relative to the skill folder.
pub(crate) fn search_corpus(
    data: &DataDir,
    skill: &SkillRef,
    path: Option<&WorkspacePath>,
    max_files: usize,
) -> Result<SearchCorpus, StoreError> {
    let dir = skill_dir(data, skill)?;
    let files: Vec<TreeFile> = match path {
        None => walk_files(&dir).map_err(|err| tree_error(skill, err))?,
        Some(path) => {
            let target = confined(&dir, skill, path)?;
            match fs::symlink_metadata(&target) {
                Ok(meta) if meta.is_file() => vec![TreeFile {
                    rel: path.clone(),
                    path: target,
                }],
                Ok(meta) if meta.is_dir() => walk_files(&target)
                    .map_err(|err| tree_error(skill, err))?
                    .into_iter()
                    .map(|file| TreeFile {
                        rel: path.join(&file.rel),
                        path: file.path,
                    })
                    .collect(),
                Ok(_) => return Err(integrity(&target, "is not a regular file")),
                Err(err) if err.kind() == io::ErrorKind::NotFound => {
                    return Err(not_found(skill, path));
                }
                Err(err) => return Err(io_error(&target, err)),
            }
        }
    };
    let truncated = files.len() > max_files;
    let files = files
        .into_iter()
        .take(max_files)
        .map(|file| {
            let (text, sha256) = read_skill_file(&file.path)?;
            Ok(SearchFile {
                path: file.rel,
                text,
                sha256,
            })
        })
        .collect::<Result<_, StoreError>>()?;
    Ok(SearchCorpus { files, truncated })
}
