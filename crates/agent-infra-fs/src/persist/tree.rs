//! Walking and copying file trees that must hold only plain files and folders.
//!
//! Persistent states and installed skills share these rules: a symlink anywhere is refused
//! (it could lead outside the tree), `.DS_Store` litter is skipped, every file name must be a
//! valid [`WorkspacePath`] segment, and copies never overwrite. Folders are replaced whole
//! with [`swap_dir`], so readers never see a half-written one.

use std::collections::BTreeSet;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use agent_domain::workspace::WorkspacePath;

use crate::atomic::sync_dir;
use crate::digest::sha256_hex;

/// Finder metadata files, never part of a tree's content.
const IGNORED_FILE: &str = ".DS_Store";

/// Why a tree could not be walked or copied.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TreeError {
    #[error("`{0}` is a symbolic link; links are not allowed here")]
    Symlink(String),
    #[error("`{0}` is neither a file nor a folder")]
    Special(String),
    #[error("`{0}` is not a usable file name")]
    BadName(String),
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> TreeError + '_ {
    move |source| TreeError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One file found under a root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeFile {
    /// Relative to the root.
    pub rel: WorkspacePath,
    pub path: PathBuf,
}

/// A file's path relative to its root, with the digest of its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileDigest {
    pub rel: WorkspacePath,
    pub sha256: String,
    pub bytes: u64,
}

impl FileDigest {
    fn of(rel: WorkspacePath, content: &[u8]) -> Self {
        Self {
            rel,
            sha256: sha256_hex(content),
            bytes: content.len() as u64,
        }
    }
}

/// Every file under `root` (which must be a folder), sorted by relative path.
pub(crate) fn walk_files(root: &Path) -> Result<Vec<TreeFile>, TreeError> {
    let mut files = Vec::new();
    walk_into(root, None, &mut files)?;
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(files)
}

fn walk_into(
    dir: &Path,
    prefix: Option<&WorkspacePath>,
    files: &mut Vec<TreeFile>,
) -> Result<(), TreeError> {
    for entry in fs::read_dir(dir).map_err(io_at(dir))? {
        let entry = entry.map_err(io_at(dir))?;
        let path = entry.path();
        let raw_name = entry.file_name();
        let shown = |name: &str| match prefix {
            Some(prefix) => format!("{prefix}/{name}"),
            None => name.to_owned(),
        };
        let Some(name) = raw_name.to_str() else {
            return Err(TreeError::BadName(shown(&raw_name.to_string_lossy())));
        };
        let rel = match WorkspacePath::parse(name) {
            Ok(segment) if segment.as_str() == name => match prefix {
                Some(prefix) => prefix.join(&segment),
                None => segment,
            },
            _ => return Err(TreeError::BadName(shown(name))),
        };
        let file_type = entry.file_type().map_err(io_at(&path))?;
        if file_type.is_symlink() {
            return Err(TreeError::Symlink(rel.to_string()));
        } else if file_type.is_dir() {
            walk_into(&path, Some(&rel), files)?;
        } else if !file_type.is_file() {
            return Err(TreeError::Special(rel.to_string()));
        } else if name != IGNORED_FILE {
            files.push(TreeFile { rel, path });
        }
    }
    Ok(())
}

/// Digests of every file under `root`, sorted by relative path.
pub(crate) fn digest_files(root: &Path) -> Result<Vec<FileDigest>, TreeError> {
    walk_files(root)?
        .into_iter()
        .map(|file| {
            let content = fs::read(&file.path).map_err(io_at(&file.path))?;
            Ok(FileDigest::of(file.rel, &content))
        })
        .collect()
}

/// Byte-copies every file under `from` into `to` (created if missing) and returns the
/// digests of what was copied, so they describe exactly the bytes written. Files are
/// created new and synced: an existing file in `to` is an error, never overwritten.
pub(crate) fn copy_tree(from: &Path, to: &Path) -> Result<Vec<FileDigest>, TreeError> {
    let files = walk_files(from)?;
    fs::create_dir_all(to).map_err(io_at(to))?;
    let mut touched_dirs = BTreeSet::from([to.to_path_buf()]);
    let mut copied = Vec::with_capacity(files.len());
    for file in files {
        let content = fs::read(&file.path).map_err(io_at(&file.path))?;
        let target = file.rel.segments().fold(to.to_path_buf(), |p, s| p.join(s));
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(io_at(parent))?;
            touched_dirs.insert(parent.to_path_buf());
        }
        let mut out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
            .map_err(io_at(&target))?;
        out.write_all(&content)
            .and_then(|()| out.sync_all())
            .map_err(io_at(&target))?;
        copied.push(FileDigest::of(file.rel, &content));
    }
    for dir in touched_dirs {
        sync_dir(&dir);
    }
    Ok(copied)
}

/// A fresh hidden name beside `target` for a folder in `kind` of a swap (a copy being built,
/// or the folder it replaces): `.<name>.<kind>-<writer>-<uuid>` (`stale.rs`).
pub(crate) fn sibling_path(target: &Path, kind: &str) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tag = crate::stale::temp_tag(target);
    target.with_file_name(format!(".{name}.{kind}-{tag}"))
}

/// Puts the fully written folder `staged` in place of `target`: the old folder (if any) is
/// renamed to `parked`, `staged` is renamed to `target`, then the parked folder is deleted.
/// Between the two renames a reader sees no folder, never a half one. If the second rename
/// fails the old folder is put back. `staged` is left to the caller on error.
pub(crate) fn swap_dir(staged: &Path, target: &Path, parked: &Path) -> io::Result<()> {
    let had_old = match fs::rename(target, parked) {
        Ok(()) => true,
        Err(err) if err.kind() == io::ErrorKind::NotFound => false,
        Err(err) => return Err(err),
    };
    if let Err(err) = fs::rename(staged, target) {
        if had_old {
            let _ = fs::rename(parked, target);
        }
        return Err(err);
    }
    if let Some(parent) = target.parent() {
        sync_dir(parent);
    }
    if had_old {
        // The new folder is in place; a leftover hidden parked folder is only litter.
        let _ = fs::remove_dir_all(parked);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(files: &[FileDigest]) -> Vec<&str> {
        files.iter().map(|f| f.rel.as_str()).collect()
    }

    #[test]
    fn copies_are_sorted_byte_exact_and_skip_finder_litter() {
        let src = tempfile::tempdir().unwrap();
        let dst = tempfile::tempdir().unwrap();
        fs::create_dir_all(src.path().join("b/c")).unwrap();
        fs::write(src.path().join("b/c/deep.bin"), [0u8, 159, 146, 150]).unwrap();
        fs::write(src.path().join("a.md"), "alpha").unwrap();
        fs::write(src.path().join(".DS_Store"), "junk").unwrap();
        let copied = copy_tree(src.path(), &dst.path().join("out")).unwrap();
        assert_eq!(names(&copied), ["a.md", "b/c/deep.bin"]);
        assert_eq!(copied[0].sha256, sha256_hex(b"alpha"));
        assert_eq!(copied[1].bytes, 4);
        assert_eq!(
            fs::read(dst.path().join("out/b/c/deep.bin")).unwrap(),
            [0u8, 159, 146, 150]
        );
        assert!(!dst.path().join("out/.DS_Store").exists());
        assert_eq!(digest_files(&dst.path().join("out")).unwrap(), copied);
    }

    #[test]
    fn copies_never_overwrite() {
        let src = tempfile::tempdir().unwrap();
        let dst = tempfile::tempdir().unwrap();
        fs::write(src.path().join("a.md"), "new").unwrap();
        fs::write(dst.path().join("a.md"), "old").unwrap();
        assert!(matches!(
            copy_tree(src.path(), dst.path()),
            Err(TreeError::Io { .. })
        ));
        assert_eq!(fs::read_to_string(dst.path().join("a.md")).unwrap(), "old");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_and_odd_names_are_refused() {
        let src = tempfile::tempdir().unwrap();
        fs::create_dir(src.path().join("d")).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", src.path().join("d/link")).unwrap();
        assert!(matches!(walk_files(src.path()), Err(TreeError::Symlink(ref p)) if p == "d/link"));
        fs::remove_file(src.path().join("d/link")).unwrap();
        fs::write(src.path().join("d/back\\slash"), "x").unwrap();
        assert!(matches!(walk_files(src.path()), Err(TreeError::BadName(_))));
    }

    #[test]
    fn swap_replaces_a_folder_whole() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("persist");
        let staged = dir.path().join(".persist.tmp");
        fs::create_dir_all(&target).unwrap();
        fs::write(target.join("old.md"), "old").unwrap();
        fs::create_dir_all(&staged).unwrap();
        fs::write(staged.join("new.md"), "new").unwrap();
        swap_dir(&staged, &target, &sibling_path(&target, "old")).unwrap();
        assert!(target.join("new.md").exists());
        assert!(!target.join("old.md").exists());
        let left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["persist"]);
    }
}
