//! Small I/O helpers shared by the record stores (runs, profiles, settings, skills): error
//! mapping, reading and writing JSON documents, listing record folders, and running blocking
//! work off the async executor.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use agent_application::ports::StoreError;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::atomic::{pretty_json, write_atomic_with};
use crate::durability::{Durability, Syncer};

/// An operating-system failure on `path`.
pub(crate) fn io_error(path: &Path, err: io::Error) -> StoreError {
    StoreError::Io(format!("{}: {err}", path.display()))
}

/// Stored data at `path` that cannot be trusted.
pub(crate) fn integrity(path: &Path, detail: impl std::fmt::Display) -> StoreError {
    StoreError::Integrity(format!("{}: {detail}", path.display()))
}

/// How much file work a call may do, which decides where it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cost {
    /// Bounded by a record's, a tool's or a request's limits and not synced on the spot:
    /// done on the calling task when the policy defers syncs, because handing it to the
    /// blocking pool and back takes two thread wake-ups, more than such work itself takes
    /// in the page cache.
    Small,
    /// Unbounded (a user's file of any size, a whole folder, a run's history) or synced on
    /// the spot: always on the blocking pool, so it never stalls the executor's threads.
    Large,
}

impl Cost {
    /// Bytes beyond which writing them is [`Cost::Large`].
    const SMALL_MAX_BYTES: usize = 256 * 1024;

    /// The cost of writing `bytes` bytes.
    pub fn of_bytes(bytes: usize) -> Self {
        if bytes <= Self::SMALL_MAX_BYTES {
            Self::Small
        } else {
            Self::Large
        }
    }
}

/// Runs file work where its [`Cost`] says: small work on the calling task while `syncer`
/// defers syncs, everything else on the blocking pool.
pub(crate) async fn run_io<T, E>(
    cost: Cost,
    syncer: &Syncer,
    work: impl FnOnce() -> Result<T, E> + Send + 'static,
    join_failed: fn(String) -> E,
) -> Result<T, E>
where
    T: Send + 'static,
    E: Send + 'static,
{
    if cost == Cost::Small && syncer.durability() == Durability::Normal {
        work()
    } else {
        blocking(work, join_failed).await
    }
}

/// Runs blocking file work on the blocking pool. `join_failed` turns a task that panicked
/// or was cancelled into the caller's error type.
pub(crate) async fn blocking<T, E>(
    work: impl FnOnce() -> Result<T, E> + Send + 'static,
    join_failed: fn(String) -> E,
) -> Result<T, E>
where
    T: Send + 'static,
    E: Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(err) => Err(join_failed(format!("blocking storage task failed: {err}"))),
    }
}

/// The bytes of the regular file at `path`; `None` when it does not exist. A symlink or a
/// directory where a document should be is an integrity fault.
pub(crate) fn read_file(path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
    match fs::symlink_metadata(path) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(io_error(path, err)),
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(integrity(path, "is a symbolic link"));
        }
        Ok(meta) if !meta.is_file() => return Err(integrity(path, "is not a regular file")),
        Ok(_) => {}
    }
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(io_error(path, err)),
    }
}

/// A JSON document; `None` when the file does not exist. Unparsable JSON is an integrity
/// fault naming the file.
pub(crate) fn read_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, StoreError> {
    let Some(bytes) = read_file(path)? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|err| integrity(path, err))
}

/// Replaces `path` with `value` as pretty JSON, atomically, synced before it returns.
pub(crate) fn write_json(path: &Path, value: &impl Serialize) -> Result<(), StoreError> {
    write_json_with(path, value, &Syncer::strict())
}

/// [`write_json`], synced as `syncer` decides.
pub(crate) fn write_json_with(
    path: &Path,
    value: &impl Serialize,
    syncer: &Syncer,
) -> Result<(), StoreError> {
    let bytes = pretty_json(value).map_err(|err| io_error(path, err))?;
    write_atomic_with(path, &bytes, syncer).map_err(|err| io_error(path, err))
}

/// The `*.json` files directly inside `dir` as `(stem, path)`, sorted by stem. A missing
/// folder is empty. Hidden names (temp files), other extensions, non-UTF-8 names and
/// sub-folders are skipped; a symlink is an integrity fault.
pub(crate) fn json_files(dir: &Path) -> Result<Vec<(String, PathBuf)>, StoreError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(io_error(dir, err)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|err| io_error(dir, err))?;
        let path = entry.path();
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Some(stem) = name.strip_suffix(".json") else {
            continue;
        };
        if stem.is_empty() || name.starts_with('.') {
            continue;
        }
        let file_type = entry.file_type().map_err(|err| io_error(&path, err))?;
        if file_type.is_symlink() {
            return Err(integrity(&path, "is a symbolic link"));
        }
        if file_type.is_file() {
            files.push((stem.to_owned(), path));
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_files_skips_what_is_not_a_record() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "b.json",
            "a.json",
            ".a.json.tmp-1",
            ".hidden.json",
            "notes.txt",
            ".json",
        ] {
            fs::write(dir.path().join(name), "{}").unwrap();
        }
        fs::create_dir(dir.path().join("folder.json")).unwrap();
        let stems: Vec<_> = json_files(dir.path())
            .unwrap()
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        assert_eq!(stems, ["a", "b"]);
        assert!(json_files(&dir.path().join("missing")).unwrap().is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_documents_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("real.txt"), "{}").unwrap();
        std::os::unix::fs::symlink(dir.path().join("real.txt"), dir.path().join("x.json")).unwrap();
        assert!(matches!(
            json_files(dir.path()),
            Err(StoreError::Integrity(_))
        ));
        let err = read_json::<serde_json::Value>(&dir.path().join("x.json")).unwrap_err();
        assert!(matches!(err, StoreError::Integrity(_)));
    }

    #[test]
    fn bad_json_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("broken.json");
        fs::write(&path, "{").unwrap();
        let err = read_json::<serde_json::Value>(&path).unwrap_err();
        assert!(
            matches!(err, StoreError::Integrity(ref m) if m.contains("broken.json")),
            "{err}"
        );
        assert_eq!(
            read_json::<serde_json::Value>(&dir.path().join("none.json")).unwrap(),
            None
        );
    }
}
