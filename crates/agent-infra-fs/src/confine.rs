//! Confining relative paths to a directory without ever following a symlink.
//!
//! [`WorkspacePath`] already rules out absolute paths and `..`; what remains is the file
//! system itself: a symlink planted anywhere on the way could lead outside. So every existing
//! component is checked with `symlink_metadata` (which does not follow links) and a symlink,
//! anywhere, is refused.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use agent_domain::workspace::WorkspacePath;

/// Why a path could not be confined.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    /// A component of the path (or the target) is a symlink.
    #[error("`{0}` is a symbolic link; links are not followed inside a workspace")]
    Symlink(String),
    /// A component that must be a directory is a file.
    #[error("`{0}` is not a directory")]
    NotADirectory(String),
    /// A parent directory does not exist (only for [`Parents::MustExist`]).
    #[error("`{0}` does not exist")]
    MissingParent(String),
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Whether missing parent directories may be created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parents {
    MustExist,
    Create,
}

/// `root/path`, after checking that no component of `path` below `root` is a symlink and
/// that every parent is a real directory. The target itself may be missing; if it exists it
/// must not be a symlink. `root` is trusted (callers build it from the layout).
pub fn confine(
    root: &Path,
    path: &WorkspacePath,
    parents: Parents,
) -> Result<PathBuf, ConfineError> {
    let segments: Vec<&str> = path.segments().collect();
    let mut current = root.to_path_buf();
    let mut shown = String::new();
    for (i, segment) in segments.iter().enumerate() {
        current.push(segment);
        if !shown.is_empty() {
            shown.push('/');
        }
        shown.push_str(segment);
        let is_last = i + 1 == segments.len();
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => return Err(ConfineError::Symlink(shown)),
            Ok(meta) if !is_last && !meta.is_dir() => {
                return Err(ConfineError::NotADirectory(shown));
            }
            Ok(_) => {}
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                if is_last {
                    break;
                }
                match parents {
                    Parents::MustExist => return Err(ConfineError::MissingParent(shown)),
                    Parents::Create => match fs::create_dir(&current) {
                        Ok(()) => {}
                        // Someone else created it meanwhile: re-check it on the next pass.
                        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                            if fs::symlink_metadata(&current)?.file_type().is_symlink() {
                                return Err(ConfineError::Symlink(shown));
                            }
                        }
                        Err(e) => return Err(e.into()),
                    },
                }
            }
            Err(err) => return Err(err.into()),
        }
    }
    Ok(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(raw: &str) -> WorkspacePath {
        WorkspacePath::parse(raw).unwrap()
    }

    #[test]
    fn plain_paths_resolve_and_parents_are_created_on_request() {
        let dir = tempfile::tempdir().unwrap();
        let got = confine(dir.path(), &p("output/a/b.md"), Parents::Create).unwrap();
        assert_eq!(got, dir.path().join("output/a/b.md"));
        assert!(dir.path().join("output/a").is_dir());
        let err = confine(dir.path(), &p("scratch/x/y.md"), Parents::MustExist).unwrap_err();
        assert!(matches!(err, ConfineError::MissingParent(ref s) if s == "scratch"));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_anywhere_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("output")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("output/link")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("output"), dir.path().join("scratch")).unwrap();
        for path in ["output/link", "output/link/x.md", "scratch/a.md"] {
            let err = confine(dir.path(), &p(path), Parents::Create).unwrap_err();
            assert!(matches!(err, ConfineError::Symlink(_)), "{path}: {err}");
        }
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_file_in_the_middle_is_not_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("output")).unwrap();
        fs::write(dir.path().join("output/f"), "x").unwrap();
        let err = confine(dir.path(), &p("output/f/g"), Parents::Create).unwrap_err();
        assert!(matches!(err, ConfineError::NotADirectory(_)));
    }
}
