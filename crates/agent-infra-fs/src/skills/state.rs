//! The state of a skills folder: which index it has, and the move from the flat layout to
//! TauriTavern's scoped one.
//!
//! Loading the index is where migration happens, as in TauriTavern. When the index belongs
//! to the flat `installed/<name>/` layout (TauriTavern's version 1, or the bare array earlier
//! versions of tavern-agent wrote), or when there is no index but `installed/` has folders:
//!
//! 1. every flat skill folder (a folder of `installed/` with a `SKILL.md` of its own, or one
//!    a version 1 entry names) is renamed into `installed/global/`; a folder already there
//!    is a conflict;
//! 2. the new index keeps the version 1 entries (as global) and gets an entry, computed
//!    from the folder, for every valid skill of `installed/global/` that has none;
//! 3. the index is written as version 2.
//!
//! If any step fails, the folders are renamed back and the old index stays as it was: the
//! skills are still listed from the flat layout, with the failure reported. A version 1
//! entry whose folder is gone is kept (TauriTavern stops its migration there instead); the
//! listing reports it. An index of an unknown version, or one that does not read, is never
//! rewritten.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use agent_application::ports::{SkillScope, StoreError};
use agent_domain::ErrorCode;
use serde_json::Map;

use super::fault::SkillFault;
use super::index::{self, IndexEntry, IndexFile, StoredIndex};
use super::manifest::{self, SKILL_FILE};
use super::package;
use super::scopes::GLOBAL_DIR;
use crate::layout::DataDir;
use crate::profiles::is_simple_name;
use crate::runs::store_io::io_error;

/// What the skills folder holds, once loaded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum IndexState {
    /// No index and no skill folder: nothing installed yet.
    Empty,
    /// A version 2 index (possibly just migrated to).
    Current(IndexFile),
    /// An index this code must not rewrite; the fault says why. `flat` when the skills are
    /// still in the flat layout (a migration that failed).
    Unusable { fault: SkillFault, flat: bool },
}

impl IndexState {
    /// The index, when writes may go ahead: the current one, or a new empty one.
    pub(crate) fn writable(self) -> Result<IndexFile, StoreError> {
        match self {
            Self::Empty => Ok(IndexFile::empty()),
            Self::Current(index) => Ok(index),
            Self::Unusable { fault, .. } => Err(fault.refusal()),
        }
    }
}

/// Whether the child `name` of `installed/` is a skill folder in the flat layout: a real
/// folder with a `SKILL.md` of its own.
fn is_flat_skill(installed: &Path, name: &str) -> bool {
    let dir = installed.join(name);
    !name.starts_with('.')
        && fs::symlink_metadata(&dir).is_ok_and(|meta| meta.is_dir())
        && fs::symlink_metadata(dir.join(SKILL_FILE)).is_ok()
}

/// The real, visible folders of `dir`, by name; none when `dir` does not exist.
pub(crate) fn child_dirs(dir: &Path) -> Result<Vec<String>, StoreError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(io_error(dir, err)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|err| io_error(dir, err))?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if !name.starts_with('.') && entry.file_type().is_ok_and(|t| t.is_dir()) {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// Whether the skills are in the flat layout: the index says so, or there is none and a
/// flat skill folder exists.
pub(crate) fn is_flat_layout(data: &DataDir) -> Result<bool, StoreError> {
    let stored = index::read(&data.skills_index_file())?;
    if stored.is_legacy() {
        return Ok(true);
    }
    if stored != StoredIndex::Absent {
        return Ok(false);
    }
    let installed = data.skills_installed();
    Ok(child_dirs(&installed)?
        .iter()
        .any(|name| is_flat_skill(&installed, name)))
}

/// Loads the index, migrating the flat layout on the way (see the module doc). `now` is the
/// `installedAt` of entries the migration computes.
pub(crate) fn load(data: &DataDir, now: &str) -> Result<IndexState, StoreError> {
    let legacy_entries = match index::read(&data.skills_index_file())? {
        StoredIndex::Current(index) => return Ok(IndexState::Current(index)),
        StoredIndex::Unsupported(version) => {
            return Ok(IndexState::Unusable {
                fault: SkillFault::IndexVersionUnsupported(version),
                flat: false,
            });
        }
        StoredIndex::Invalid(why) => {
            return Ok(IndexState::Unusable {
                fault: SkillFault::IndexInvalid(format!(
                    "{why}; it is left as it is and nothing is installed or removed until it \
                     is fixed"
                )),
                flat: false,
            });
        }
        StoredIndex::V1(index) => Some(index),
        StoredIndex::BareArray => None,
        StoredIndex::Absent if child_dirs(&data.skills_installed())?.is_empty() => {
            return Ok(IndexState::Empty);
        }
        StoredIndex::Absent => None,
    };
    let write = |index: &mut IndexFile| index::write(&data.skills_index_file(), index);
    match migrate(data, legacy_entries, now, write) {
        Ok(index) => Ok(IndexState::Current(index)),
        Err(why) => Ok(IndexState::Unusable {
            fault: SkillFault::MigrationFailed(format!(
                "moving the skills into TauriTavern's layout failed, and nothing was changed: \
                 {why}"
            )),
            flat: is_flat_layout(data)?,
        }),
    }
}

/// A folder renamed during a migration, to put back if it fails.
struct Moved {
    from: PathBuf,
    to: PathBuf,
}

/// Moves the flat skill folders into `installed/global/`, builds the version 2 index and
/// hands it to `write`; on any failure puts everything back and says why.
pub(crate) fn migrate(
    data: &DataDir,
    legacy: Option<IndexFile>,
    now: &str,
    write: impl FnOnce(&mut IndexFile) -> Result<(), StoreError>,
) -> Result<IndexFile, String> {
    let installed = data.skills_installed();
    let global = data.skills_scope_dir(GLOBAL_DIR);
    let global_existed = global.exists();
    let mut moved: Vec<Moved> = Vec::new();
    let result = (|| {
        let (mut entries, extra) = match legacy {
            Some(index) => (index.skills, index.extra),
            None => (Vec::new(), Map::new()),
        };
        for entry in &mut entries {
            entry.scope = SkillScope::Global;
        }
        let mut flat: Vec<String> = child_dirs(&installed)
            .map_err(|err| err.to_string())?
            .into_iter()
            .filter(|name| {
                is_flat_skill(&installed, name)
                    || (name != GLOBAL_DIR && entries.iter().any(|e| &e.name == name))
            })
            .collect();
        flat.sort();
        for name in flat {
            let from = installed.join(&name);
            let to = global.join(&name);
            if name == GLOBAL_DIR {
                return Err(
                    "a skill named `global` cannot move into the folder `installed/global/`"
                        .to_owned(),
                );
            }
            if fs::symlink_metadata(&to).is_ok() {
                return Err(format!(
                    "`{name}` exists both in `installed/` and in `installed/global/`"
                ));
            }
            fs::create_dir_all(&global).map_err(|err| format!("{}: {err}", global.display()))?;
            fs::rename(&from, &to).map_err(|err| format!("moving `{name}`: {err}"))?;
            moved.push(Moved { from, to });
        }
        for name in child_dirs(&global).map_err(|err| err.to_string())? {
            let indexed = entries
                .iter()
                .any(|entry| entry.name == name && entry.scope == SkillScope::Global);
            if !indexed && let Ok(entry) = computed_entry(&global.join(&name), &name, now) {
                entries.push(entry);
            }
        }
        let mut index = IndexFile {
            version: index::INDEX_VERSION,
            skills: entries,
            extra,
        };
        write(&mut index).map_err(|err| format!("{}: {err}", err.code()))?;
        Ok(index)
    })();
    if result.is_err() {
        for step in moved.iter().rev() {
            let _ = fs::rename(&step.to, &step.from);
        }
        if !global_existed {
            // Only removed when empty: nothing of anyone else's is touched.
            let _ = fs::remove_dir(&global);
        }
    }
    result
}

/// The index entry of the valid skill folder `dir` named `name`, computed from its files;
/// why not, when it is not one.
pub(crate) fn computed_entry(dir: &Path, name: &str, now: &str) -> Result<IndexEntry, SkillFault> {
    if !is_simple_name(name) {
        return Err(SkillFault::FolderNameInvalid(name.to_owned()));
    }
    let manifest = manifest::read(dir)?;
    if manifest.name != name {
        return Err(SkillFault::NameMismatch {
            name: manifest.name,
            folder: name.to_owned(),
        });
    }
    let sidecar = manifest::read_sidecar(dir)?;
    let facts = package::inspect(dir)?;
    let tags = manifest::merged_tags(&manifest, sidecar.as_ref());
    let (display_name, source_kind) = sidecar
        .map(|sidecar| (sidecar.display_name, sidecar.source_kind))
        .unwrap_or_default();
    Ok(IndexEntry {
        scope: SkillScope::Global,
        name: manifest.name,
        description: manifest.description,
        display_name,
        source_kind,
        license: manifest.license,
        author: manifest.author,
        version: manifest.version,
        tags,
        installed_hash: facts.installed_hash,
        file_count: facts.file_count,
        total_bytes: facts.total_bytes,
        has_scripts: facts.has_scripts,
        has_binary: facts.has_binary,
        installed_at: now.to_owned(),
        source_refs: Vec::new(),
        extra: Map::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-06-01T12:00:00.000Z";

    fn skill(dir: &Path, name: &str) {
        fs::create_dir_all(dir.join(name)).unwrap();
        fs::write(
            dir.join(name).join(SKILL_FILE),
            format!("---\nname: {name}\ndescription: The {name} skill.\n---\n"),
        )
        .unwrap();
    }

    /// A failed index write puts every moved folder back and leaves the old index alone.
    #[test]
    fn a_failed_index_write_rolls_the_move_back() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let installed = data.skills_installed();
        skill(&installed, "alpha");
        skill(&installed, "beta");
        fs::create_dir_all(data.skills_index_file().parent().unwrap()).unwrap();
        fs::write(data.skills_index_file(), "[]").unwrap();

        let err = migrate(&data, None, NOW, |index| {
            assert_eq!(index.skills.len(), 2);
            assert!(installed.join("global/alpha/SKILL.md").exists());
            Err(StoreError::Io("disk full".into()))
        })
        .unwrap_err();
        assert_eq!(err, "agent.storage_io: storage I/O: disk full");
        assert!(installed.join("alpha/SKILL.md").exists());
        assert!(installed.join("beta/SKILL.md").exists());
        assert!(!installed.join("global").exists());
        assert_eq!(fs::read_to_string(data.skills_index_file()).unwrap(), "[]");
    }

    #[test]
    fn a_completed_move_is_indexed() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let installed = data.skills_installed();
        skill(&installed, "alpha");
        let index = migrate(&data, None, NOW, |_| Ok(())).unwrap();
        assert_eq!(index.skills.len(), 1);
        assert_eq!(index.skills[0].name, "alpha");
        assert_eq!(index.skills[0].installed_at, NOW);
        assert!(installed.join("global/alpha/SKILL.md").exists());
        assert!(!installed.join("alpha").exists());
    }
}
