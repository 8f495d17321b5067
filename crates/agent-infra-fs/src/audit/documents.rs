//! Create-only JSON documents inside a run directory, reported as [`StoreError`]s
//! (blocking). Shared by the audit and checkpoint stores.

use std::fmt::Display;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use agent_application::ports::StoreError;
use agent_domain::workspace::WorkspacePath;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::atomic::{pretty_json, write_create_only_with};
use crate::confine::{ConfineError, Parents, confine};
use crate::durability::Syncer;
use crate::layout::RunDir;

/// `target` relative to the run directory, as the `/`-separated path documents and journal
/// payloads refer to it by.
pub(crate) fn relative(run_dir: &RunDir, target: &Path) -> Result<WorkspacePath, StoreError> {
    let outside = || {
        StoreError::Integrity(format!(
            "`{}` is not a path inside run directory `{}`",
            target.display(),
            run_dir.path().display()
        ))
    };
    let rel = target.strip_prefix(run_dir.path()).map_err(|_| outside())?;
    let segments = rel
        .components()
        .map(|component| match component {
            Component::Normal(segment) => segment.to_str(),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(outside)?;
    WorkspacePath::parse(&segments.join("/")).map_err(|_| outside())
}

/// Writes `value` as pretty JSON at `root/rel` unless something is there already
/// (`AlreadyExists`, and the first document stays untouched).
pub(crate) fn create_json(
    root: &Path,
    rel: &WorkspacePath,
    value: &impl Serialize,
    syncer: &Syncer,
) -> Result<(), StoreError> {
    let bytes = pretty_json(value)
        .map_err(|err| StoreError::Integrity(format!("`{rel}` cannot be serialised: {err}")))?;
    create_bytes(root, rel, &bytes, syncer)
}

/// Writes `bytes` create-only at `root/rel`, parents created as needed.
pub(crate) fn create_bytes(
    root: &Path,
    rel: &WorkspacePath,
    bytes: &[u8],
    syncer: &Syncer,
) -> Result<(), StoreError> {
    let target = confined(root, rel, Parents::Create)?;
    write_create_only_with(&target, bytes, syncer).map_err(|err| {
        if err.kind() == io::ErrorKind::AlreadyExists {
            StoreError::AlreadyExists(rel.to_string())
        } else {
            io_error(err, rel)
        }
    })
}

/// Reads the JSON document at `root/rel`: missing is `NotFound`, unparsable `Integrity`.
pub(crate) fn read_json<T: DeserializeOwned>(
    root: &Path,
    rel: &WorkspacePath,
) -> Result<T, StoreError> {
    let target = confined(root, rel, Parents::MustExist)?;
    let bytes = match fs::read(&target) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            return Err(StoreError::NotFound(rel.to_string()));
        }
        Err(err) => return Err(io_error(err, rel)),
    };
    serde_json::from_slice(&bytes)
        .map_err(|err| StoreError::Integrity(format!("`{rel}` is not a valid document: {err}")))
}

/// `root/rel`, refusing links anywhere on the way. A missing folder means the document is
/// missing; a file where a folder belongs means the storage is damaged.
pub(crate) fn confined(
    root: &Path,
    rel: &WorkspacePath,
    parents: Parents,
) -> Result<PathBuf, StoreError> {
    confine(root, rel, parents).map_err(|err| match err {
        ConfineError::MissingParent(_) => StoreError::NotFound(rel.to_string()),
        err @ (ConfineError::Symlink(_) | ConfineError::NotADirectory(_)) => {
            StoreError::Integrity(err.to_string())
        }
        ConfineError::Io(err) => io_error(err, rel),
    })
}

pub(crate) fn io_error(err: io::Error, shown: impl Display) -> StoreError {
    StoreError::Io(format!("`{shown}`: {err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_use_slashes_and_stay_inside() {
        let run_dir = RunDir(PathBuf::from("/d/runs/run_1"));
        let rel = relative(&run_dir, &run_dir.tool_args().join("call_1.json")).unwrap();
        assert_eq!(rel.as_str(), "tool-args/call_1.json");
        assert!(matches!(
            relative(&run_dir, Path::new("/d/runs/run_2/x.json")),
            Err(StoreError::Integrity(_))
        ));
        assert!(matches!(
            relative(&run_dir, run_dir.path()),
            Err(StoreError::Integrity(_))
        ));
    }

    #[test]
    fn create_only_keeps_the_first_document_and_reads_report_damage() {
        let dir = tempfile::tempdir().unwrap();
        let rel = WorkspacePath::parse("a/b.json").unwrap();
        let syncer = Syncer::strict();
        create_json(dir.path(), &rel, &serde_json::json!({"n": 1}), &syncer).unwrap();
        let err = create_json(dir.path(), &rel, &serde_json::json!({"n": 2}), &syncer).unwrap_err();
        assert_eq!(err, StoreError::AlreadyExists("a/b.json".into()));
        let value: serde_json::Value = read_json(dir.path(), &rel).unwrap();
        assert_eq!(value, serde_json::json!({"n": 1}));
        assert_eq!(
            fs::read_to_string(dir.path().join("a/b.json")).unwrap(),
            "{\n  \"n\": 1\n}\n"
        );

        let missing = WorkspacePath::parse("nope/x.json").unwrap();
        let err = read_json::<serde_json::Value>(dir.path(), &missing).unwrap_err();
        assert_eq!(err, StoreError::NotFound("nope/x.json".into()));

        fs::write(dir.path().join("a/bad.json"), "{").unwrap();
        let bad = WorkspacePath::parse("a/bad.json").unwrap();
        let err = read_json::<serde_json::Value>(dir.path(), &bad).unwrap_err();
        assert!(matches!(err, StoreError::Integrity(_)));
    }
}
