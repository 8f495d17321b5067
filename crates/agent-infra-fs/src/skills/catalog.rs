//! Reading skills: listing a scope (every valid skill, and a problem for every folder that
//! is not one), the scopes the index knows, one skill's details, and confined reads of a
//! skill's files.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use agent_application::ports::{
    SKILL_PATH_IS_FOLDER, SearchCorpus, SearchFile, SkillFile, SkillIndexEntry, SkillListing,
    SkillProblem, SkillRef, SkillScope, StoreError,
};
use agent_domain::workspace::WorkspacePath;
use serde::Serialize;

use super::fault::{INDEX_FOLDER, SkillFault};
use super::index;
use super::install::{SkillFileSize, file_sizes};
use super::manifest::{self, Manifest, SKILL_FILE};
use super::scopes::{GLOBAL_DIR, dir_name, is_scope_dir_name};
use super::state::{self, IndexState};
use super::{invalid_request, tree_error};
use crate::confine::{ConfineError, Parents, confine};
use crate::digest::sha256_hex;
use crate::layout::DataDir;
use crate::persist::tree::{TreeError, TreeFile, walk_files};
use crate::profiles::is_simple_name;
use crate::runs::store_io::{integrity, io_error};

/// What one scope folder holds.
#[derive(Debug, Default)]
struct Scan {
    /// The valid skills, by name.
    skills: Vec<Manifest>,
    problems: Vec<SkillProblem>,
    /// Every skill folder seen, valid or not.
    folders: BTreeSet<String>,
}

/// Checks the skill folder `dir` named `folder`: its `SKILL.md`, that the front matter
/// names the folder, and that no link or special file lies inside.
fn read_skill(dir: &Path, folder: &str) -> Result<Manifest, SkillFault> {
    if !is_simple_name(folder) {
        return Err(SkillFault::FolderNameInvalid(folder.to_owned()));
    }
    let manifest = manifest::read(dir)?;
    if manifest.name != folder {
        return Err(SkillFault::NameMismatch {
            name: manifest.name,
            folder: folder.to_owned(),
        });
    }
    walk_files(dir).map_err(|err| match err {
        TreeError::Io { .. } => SkillFault::Unreadable(err.to_string()),
        unsafe_content => SkillFault::UnsafeFile(unsafe_content.to_string()),
    })?;
    Ok(manifest)
}

/// Every folder of the scope folder `dir`. Hidden entries and plain files are passed over;
/// anything else that is not a valid skill is a problem. With `flat`, `dir` is `installed/`
/// in the flat layout, whose scope folders (no `SKILL.md` of their own) are not skills.
fn scan(dir: &Path, scope: &SkillScope, flat: bool) -> Result<Scan, StoreError> {
    let mut scan = Scan::default();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(scan),
        Err(err) => return Err(io_error(dir, err)),
    };
    for entry in entries {
        let entry = entry.map_err(|err| io_error(dir, err))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let file_type = entry.file_type().map_err(|err| io_error(dir, err))?;
        if name.starts_with('.') || !(file_type.is_dir() || file_type.is_symlink()) {
            continue;
        }
        let path = entry.path();
        if flat && is_scope_dir_name(&name) && !path.join(SKILL_FILE).exists() {
            continue;
        }
        scan.folders.insert(name.clone());
        let read = if file_type.is_symlink() {
            Err(SkillFault::FolderIsLink)
        } else if entry.file_name().to_str().is_none() {
            Err(SkillFault::FolderNameInvalid(name.clone()))
        } else {
            read_skill(&path, &name)
        };
        match read {
            Ok(manifest) => scan.skills.push(manifest),
            Err(fault) => scan.problems.push(fault.in_scope(scope, &name)),
        }
    }
    scan.skills.sort_by(|a, b| a.name.cmp(&b.name));
    scan.problems.sort_by(|a, b| a.folder.cmp(&b.folder));
    Ok(scan)
}

/// The skills of `scope`, with a problem for every folder that is not a valid skill and
/// every mismatch with the index. The global scope's listing also carries the problems of
/// the store as a whole. Loading the index may migrate the flat layout (see `state`).
pub(crate) fn list(
    data: &DataDir,
    scope: &SkillScope,
    now: &str,
) -> Result<SkillListing, StoreError> {
    let folder = dir_name(scope)?;
    let state = state::load(data, now)?;
    let flat =
        *scope == SkillScope::Global && matches!(state, IndexState::Unusable { flat: true, .. });
    let dir = if flat {
        data.skills_installed()
    } else {
        data.skills_scope_dir(&folder)
    };
    let mut scan = scan(&dir, scope, flat)?;
    if let IndexState::Current(index) = &state {
        for entry in index.skills.iter().filter(|entry| &entry.scope == scope) {
            if !scan.folders.contains(&entry.name) {
                let fault = SkillFault::FolderMissing(
                    "the skill index lists this skill, but its folder is missing (TauriTavern \
                     does not show it either)"
                        .to_owned(),
                );
                scan.problems.push(fault.in_scope(scope, &entry.name));
            }
        }
        for skill in &scan.skills {
            if index.find(scope, &skill.name).is_none() {
                let fault = SkillFault::NotIndexed(
                    "the skill reads, but the skill index does not list it, so TauriTavern \
                     does not show it; importing it again indexes it"
                        .to_owned(),
                );
                scan.problems.push(fault.in_scope(scope, &skill.name));
            }
        }
    }
    if *scope == SkillScope::Global {
        scan.problems.extend(store_problems(data, &state)?);
    }
    Ok(SkillListing {
        skills: scan
            .skills
            .into_iter()
            .map(|manifest| SkillIndexEntry {
                name: manifest.name,
                description: manifest.description,
            })
            .collect(),
        problems: scan.problems,
    })
}

/// The problems of the store as a whole: an index that cannot be rewritten, and folders of
/// `installed/` that belong to no scope this store knows.
fn store_problems(data: &DataDir, state: &IndexState) -> Result<Vec<SkillProblem>, StoreError> {
    let index = match state {
        IndexState::Unusable { fault, .. } => return Ok(vec![fault.of_store(INDEX_FOLDER)]),
        IndexState::Current(index) => Some(index),
        IndexState::Empty => None,
    };
    let known: BTreeSet<String> = index
        .iter()
        .flat_map(|index| &index.skills)
        .filter_map(|entry| dir_name(&entry.scope).ok())
        .collect();
    let installed = data.skills_installed();
    let entries = match fs::read_dir(&installed) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(io_error(&installed, err)),
    };
    let mut problems = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|err| io_error(&installed, err))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let file_type = entry.file_type().map_err(|err| io_error(&installed, err))?;
        let folder = format!("installed/{name}");
        let fault = if name.starts_with('.') || name == GLOBAL_DIR {
            continue;
        } else if file_type.is_symlink() {
            SkillFault::StrayFolder(
                "a symbolic link in `installed/`; skills and scope folders are never links"
                    .to_owned(),
            )
        } else if !file_type.is_dir() {
            continue;
        } else if is_scope_dir_name(&name) {
            if known.contains(&name) || state::child_dirs(&entry.path())?.is_empty() {
                continue;
            }
            SkillFault::ScopeUnknown(
                "no entry of the skill index names this scope folder's scope, so its skills \
                 cannot be told apart from the others; they are listed when that scope is \
                 read"
                    .to_owned(),
            )
        } else if entry.path().join(SKILL_FILE).exists() {
            SkillFault::StrayFolder(
                "a skill in the old flat layout beside TauriTavern's scope folders; import it \
                 again to install it in the global scope"
                    .to_owned(),
            )
        } else {
            SkillFault::StrayFolder("not a scope folder of TauriTavern's layout".to_owned())
        };
        problems.push(fault.of_store(&folder));
    }
    problems.sort_by(|a, b| a.folder.cmp(&b.folder));
    Ok(problems)
}

/// Every scope the index names, the global scope first, then in precedence order (preset,
/// profile, character) and by key. An index that cannot be used is still read for the
/// scopes it names, as far as it reads.
pub(crate) fn scopes(data: &DataDir, now: &str) -> Result<Vec<SkillScope>, StoreError> {
    let named: Vec<SkillScope> = match state::load(data, now)? {
        IndexState::Current(index) => index.skills.into_iter().map(|e| e.scope).collect(),
        IndexState::Unusable { flat: false, .. } => index::named_scopes(&data.skills_index_file())?,
        _ => Vec::new(),
    };
    let others: BTreeSet<SkillScope> = named
        .into_iter()
        .filter(|scope| *scope != SkillScope::Global && dir_name(scope).is_ok())
        .collect();
    Ok(std::iter::once(SkillScope::Global).chain(others).collect())
}

/// The folder of a skill, which must be a real folder.
pub(crate) fn skill_dir(data: &DataDir, skill: &SkillRef) -> Result<PathBuf, StoreError> {
    if !is_simple_name(&skill.name) {
        return Err(invalid_request(format!(
            "`{}` is not a valid skill name",
            skill.name
        )));
    }
    let flat = data.skills_installed().join(&skill.name);
    let dir = if skill.scope == SkillScope::Global && flat.is_dir() && state::is_flat_layout(data)?
    {
        // The flat layout, until its migration succeeds.
        flat
    } else {
        data.skills_scope_dir(&dir_name(&skill.scope)?)
            .join(&skill.name)
    };
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

/// One skill as `skills show` presents it: what its front matter and the index say, its
/// files, and every problem its scope's listing reports about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillDetails {
    pub scope: SkillScope,
    pub name: String,
    /// `None` when the front matter does not read (the problem says why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    pub tags: Vec<String>,
    /// From the index entry, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub installed_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub installed_hash: Option<String>,
    /// Empty when the folder holds a link or special file (a problem says which).
    pub files: Vec<SkillFileSize>,
    pub problems: Vec<SkillProblem>,
}

/// The details of `skill`, whether or not it reads; `NotFound` without a folder.
pub(crate) fn details(
    data: &DataDir,
    skill: &SkillRef,
    now: &str,
) -> Result<SkillDetails, StoreError> {
    let listing = list(data, &skill.scope, now)?;
    let dir = skill_dir(data, skill)?;
    let manifest = manifest::read(&dir).ok();
    let entry = match state::load(data, now)? {
        IndexState::Current(index) => index.find(&skill.scope, &skill.name).cloned(),
        _ => None,
    };
    let problems = listing
        .problems
        .into_iter()
        .filter(|problem| {
            problem.scope.as_ref() == Some(&skill.scope)
                && problem.folder.as_deref() == Some(skill.name.as_str())
        })
        .collect();
    Ok(SkillDetails {
        scope: skill.scope.clone(),
        name: skill.name.clone(),
        description: manifest.as_ref().map(|m| m.description.clone()),
        license: manifest.as_ref().and_then(|m| m.license.clone()),
        author: manifest.as_ref().and_then(|m| m.author.clone()),
        version: manifest.as_ref().and_then(|m| m.version.clone()),
        tags: manifest.map(|m| m.tags).unwrap_or_default(),
        installed_at: entry.as_ref().map(|e| e.installed_at.clone()),
        installed_hash: entry.map(|e| e.installed_hash),
        files: file_sizes(&dir).unwrap_or_default(),
        problems,
    })
}
