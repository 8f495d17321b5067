//! Single-file operations of the workspace store (blocking): initialise, read, write,
//! append, and what is at a path.

use std::fmt::Display;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use agent_application::ports::{
    EntryKind, WorkspaceError, WorkspaceFile, WriteGuard, WriteReceipt,
};
use agent_domain::workspace::WorkspacePath;

use super::area::Area;
use super::locks::StripedLocks;
use crate::atomic::write_atomic_with;
use crate::blobs;
use crate::confine::{ConfineError, Parents, confine};
use crate::digest::sha256_hex;
use crate::durability::Syncer;
use crate::layout::RunDir;

/// Creates the run directory, the five roots and `tool-results/`. Running it again is
/// harmless; an area that exists as anything but a real folder is an integrity fault.
pub(crate) fn initialize(run_dir: &RunDir, syncer: &Syncer) -> Result<(), WorkspaceError> {
    fs::create_dir_all(run_dir.path()).map_err(|err| io_error(err, run_dir.path().display()))?;
    for area in Area::all() {
        let dir = run_dir.path().join(area.dir_name());
        match fs::create_dir(&dir) {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
                // `symlink_metadata` does not follow a link, so a linked area is no folder.
                let is_folder = fs::symlink_metadata(&dir)
                    .map_err(|err| io_error(err, area.dir_name()))?
                    .is_dir();
                if !is_folder {
                    return Err(WorkspaceError::Integrity(format!(
                        "`{}` is not a folder",
                        area.dir_name()
                    )));
                }
            }
            Err(err) => return Err(io_error(err, area.dir_name())),
        }
    }
    syncer.dir_changed(run_dir.path());
    Ok(())
}

pub(crate) fn read(
    run_dir: &RunDir,
    path: &WorkspacePath,
) -> Result<WorkspaceFile, WorkspaceError> {
    let target = resolve_readable(run_dir, path)?;
    let bytes = current_bytes(run_dir, &target, path)?
        .ok_or_else(|| WorkspaceError::NotFound(path.clone()))?;
    let sha256 = sha256_hex(&bytes);
    let len = bytes.len() as u64;
    let text = String::from_utf8(bytes).map_err(|_| WorkspaceError::NotText(path.clone()))?;
    Ok(WorkspaceFile {
        text,
        sha256,
        bytes: len,
    })
}

/// Replaces the file atomically. The guard is checked and the file renamed into place
/// while holding the path's lock, so no other write to the path can slip in between.
pub(crate) fn write(
    run_dir: &RunDir,
    locks: &StripedLocks,
    syncer: &Syncer,
    path: &WorkspacePath,
    text: &str,
    guard: &WriteGuard,
) -> Result<WriteReceipt, WorkspaceError> {
    let target = resolve_writable(run_dir, path)?;
    let _held = locks.lock(&target);
    let previous = current_bytes(run_dir, &target, path)?.map(|bytes| sha256_hex(&bytes));
    check_guard(guard, previous.as_deref(), path)?;
    replace(&target, path, text.as_bytes(), previous, syncer)
}

/// Appends verbatim by rewriting the whole file atomically, so a crash never leaves a
/// half-appended file.
pub(crate) fn append(
    run_dir: &RunDir,
    locks: &StripedLocks,
    syncer: &Syncer,
    path: &WorkspacePath,
    text: &str,
) -> Result<WriteReceipt, WorkspaceError> {
    let target = resolve_writable(run_dir, path)?;
    let _held = locks.lock(&target);
    let current = current_bytes(run_dir, &target, path)?;
    let previous = current.as_deref().map(sha256_hex);
    let mut whole = current.unwrap_or_default();
    whole.extend_from_slice(text.as_bytes());
    replace(&target, path, &whole, previous, syncer)
}

/// What is at `path`; hidden storage and paths under a missing folder are absent.
pub(crate) fn kind_of(
    run_dir: &RunDir,
    path: &WorkspacePath,
) -> Result<Option<EntryKind>, WorkspaceError> {
    match resolve_readable(run_dir, path) {
        Ok(target) => kind_at(&target, path),
        Err(WorkspaceError::NotFound(_)) => Ok(None),
        Err(err) => Err(err),
    }
}

/// Resolves a path to read. Hidden storage, and paths below a missing folder or a file,
/// do not exist as far as the port is concerned.
pub(super) fn resolve_readable(
    run_dir: &RunDir,
    path: &WorkspacePath,
) -> Result<PathBuf, WorkspaceError> {
    if Area::of(path).is_none() {
        return Err(WorkspaceError::NotFound(path.clone()));
    }
    confined(run_dir, path, Parents::MustExist)
}

/// Resolves a path to write: strictly below one of the five roots, parents created.
fn resolve_writable(run_dir: &RunDir, path: &WorkspacePath) -> Result<PathBuf, WorkspaceError> {
    if !Area::of(path).is_some_and(Area::is_writable) {
        return Err(WorkspaceError::ReadOnly(path.clone()));
    }
    if path.parent().is_none() {
        // A root itself is always a folder.
        return Err(WorkspaceError::IsDirectory(path.clone()));
    }
    confined(run_dir, path, Parents::Create)
}

fn confined(
    run_dir: &RunDir,
    path: &WorkspacePath,
    parents: Parents,
) -> Result<PathBuf, WorkspaceError> {
    confine(run_dir.path(), path, parents).map_err(|err| match err {
        err @ ConfineError::Symlink(_) => WorkspaceError::Integrity(err.to_string()),
        ConfineError::NotADirectory(_) | ConfineError::MissingParent(_) => {
            WorkspaceError::NotFound(path.clone())
        }
        ConfineError::Io(err) => io_error(err, path),
    })
}

/// The bytes of the file at `target`, `None` when there is none; a folder is
/// `IsDirectory`. A file with a second name must be the run's blob of these very bytes
/// (`blobs.rs`, [`kind_at`]); anything else is an integrity fault.
pub(super) fn current_bytes(
    run_dir: &RunDir,
    target: &Path,
    path: &WorkspacePath,
) -> Result<Option<Vec<u8>>, WorkspaceError> {
    match kind_at(target, path)? {
        None => Ok(None),
        Some(EntryKind::Directory) => Err(WorkspaceError::IsDirectory(path.clone())),
        Some(EntryKind::File) => {
            let read = blobs::read_with_metadata(target);
            match read {
                Ok((meta, bytes))
                    if blobs::names_of(&meta) > 1 && !own_blob(run_dir, path, &meta, &bytes) =>
                {
                    Err(hard_link_fault(path, blobs::names_of(&meta)))
                }
                Ok((_, bytes)) => Ok(Some(bytes)),
                Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(err) => Err(io_error(err, path)),
            }
        }
    }
}

/// Whether a file of the five roots with a second name shares it with its own blob.
fn own_blob(run_dir: &RunDir, path: &WorkspacePath, meta: &fs::Metadata, bytes: &[u8]) -> bool {
    !matches!(Area::of(path), Some(Area::Root(_))) || blobs::is_own_blob(run_dir, meta, bytes)
}

fn hard_link_fault(path: &WorkspacePath, names: u64) -> WorkspaceError {
    WorkspaceError::Integrity(format!(
        "`{path}` is a hard link ({names} names for one file); links are not followed inside \
         a workspace"
    ))
}

/// What is at `target` (the file of `path`) without following links. A link and anything
/// that is neither a regular file nor a folder are integrity faults, and so is a file in one
/// of the five roots with another name (a hard link), unless it is large enough to be the
/// run's blob of its bytes: whether it is, [`current_bytes`] checks when it reads them.
/// `tool-results/` is the runtime's own storage, whose files may share their content with
/// other runtime files.
pub(super) fn kind_at(
    target: &Path,
    path: &WorkspacePath,
) -> Result<Option<EntryKind>, WorkspaceError> {
    match fs::symlink_metadata(target) {
        Ok(meta) if meta.file_type().is_symlink() => Err(WorkspaceError::Integrity(format!(
            "`{path}` is a symbolic link; links are not followed inside a workspace"
        ))),
        Ok(meta) if meta.is_dir() => Ok(Some(EntryKind::Directory)),
        Ok(meta) if meta.is_file() && matches!(Area::of(path), Some(Area::Root(_))) => {
            match blobs::names_of(&meta) {
                1 => Ok(Some(EntryKind::File)),
                _ if meta.len() >= blobs::SHARED_MIN_BYTES => Ok(Some(EntryKind::File)),
                names => Err(hard_link_fault(path, names)),
            }
        }
        Ok(meta) if meta.is_file() => Ok(Some(EntryKind::File)),
        Ok(_) => Err(WorkspaceError::Integrity(format!(
            "`{path}` is neither a regular file nor a folder"
        ))),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(io_error(err, path)),
    }
}

fn check_guard(
    guard: &WriteGuard,
    current: Option<&str>,
    path: &WorkspacePath,
) -> Result<(), WorkspaceError> {
    match guard {
        WriteGuard::Unchecked => Ok(()),
        WriteGuard::MustNotExist if current.is_some() => {
            Err(WorkspaceError::AlreadyExists(path.clone()))
        }
        WriteGuard::MustNotExist => Ok(()),
        WriteGuard::MustMatchSha256(expected) if current == Some(expected.as_str()) => Ok(()),
        WriteGuard::MustMatchSha256(_) => Err(WorkspaceError::VersionMismatch {
            path: path.clone(),
            current: current.map(str::to_owned),
        }),
    }
}

fn replace(
    target: &Path,
    path: &WorkspacePath,
    bytes: &[u8],
    previous_sha256: Option<String>,
    syncer: &Syncer,
) -> Result<WriteReceipt, WorkspaceError> {
    write_atomic_with(target, bytes, syncer).map_err(|err| io_error(err, path))?;
    Ok(WriteReceipt {
        sha256: sha256_hex(bytes),
        bytes: bytes.len() as u64,
        previous_sha256,
    })
}

pub(super) fn io_error(err: io::Error, shown: impl Display) -> WorkspaceError {
    WorkspaceError::Io(format!("`{shown}`: {err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wp(raw: &str) -> WorkspacePath {
        WorkspacePath::parse(raw).unwrap()
    }

    #[test]
    fn guards_against_the_current_version() {
        let path = wp("output/a.md");
        let sha = "ab".repeat(32);
        let ok = |guard: WriteGuard, current: Option<&str>| check_guard(&guard, current, &path);
        assert_eq!(ok(WriteGuard::Unchecked, Some(&sha)), Ok(()));
        assert_eq!(ok(WriteGuard::MustNotExist, None), Ok(()));
        assert_eq!(
            ok(WriteGuard::MustNotExist, Some(&sha)),
            Err(WorkspaceError::AlreadyExists(path.clone()))
        );
        assert_eq!(
            ok(WriteGuard::MustMatchSha256(sha.clone()), Some(&sha)),
            Ok(())
        );
        assert_eq!(
            ok(WriteGuard::MustMatchSha256(sha.clone()), None),
            Err(WorkspaceError::VersionMismatch {
                path: path.clone(),
                current: None
            })
        );
    }

    #[test]
    fn racing_creators_on_the_sync_core_leave_one_winner() {
        let dir = tempfile::tempdir().unwrap();
        let run_dir = RunDir(dir.path().join("run"));
        let syncer = Syncer::strict();
        initialize(&run_dir, &syncer).unwrap();
        let locks = StripedLocks::new();
        let path = wp("output/once.md");
        let wins = std::thread::scope(|scope| {
            let tasks: Vec<_> = (0..8)
                .map(|i| {
                    let (run_dir, locks, path, syncer) = (&run_dir, &locks, &path, &syncer);
                    scope.spawn(move || {
                        write(
                            run_dir,
                            locks,
                            syncer,
                            path,
                            &i.to_string(),
                            &WriteGuard::MustNotExist,
                        )
                    })
                })
                .collect();
            tasks
                .into_iter()
                .map(|task| task.join())
                .filter(|joined| matches!(joined, Ok(Ok(_))))
                .count()
        });
        assert_eq!(wins, 1);
    }

    #[cfg(unix)]
    #[test]
    fn initialize_refuses_a_linked_root() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let run_dir = RunDir(dir.path().join("run"));
        fs::create_dir_all(run_dir.path()).unwrap();
        std::os::unix::fs::symlink(outside.path(), run_dir.path().join("plan")).unwrap();
        let err = initialize(&run_dir, &Syncer::strict()).unwrap_err();
        assert!(matches!(err, WorkspaceError::Integrity(_)), "{err}");
    }
}
