//! The content-addressed store of a run: `blobs/sha256/<first 2 hex>/<64 hex>`, each blob
//! the bytes whose SHA-256 names it (see `docs/storage/workspace.md`).
//!
//! Checkpoints and audit documents keep file contents here instead of copying them, so
//! the same bytes are stored once however many checkpoints, tool arguments and model
//! responses carry them: a 100 MB write costs the workspace file plus one blob.
//!
//! Blobs are created, never changed: a blob that exists with the right size is taken as
//! it is. One with another size (cut short by a power loss before its barrier) is written
//! again.
//!
//! A workspace file of [`SHARED_MIN_BYTES`] or more is not copied into its blob: the blob is
//! a second name (a hard link) of the workspace file itself ([`adopt`]). That is safe
//! because the runtime never changes a file in place (every write renames a new file over
//! the old one, which then lives on as the blob only), and it makes a large write cost its
//! size once.

use std::fs;
use std::io;
use std::path::Path;

use agent_application::ports::StoreError;
use agent_domain::workspace::WorkspacePath;

use crate::atomic::{temp_path_for, write_atomic_with, write_create_only_with};
use crate::audit::documents::{confined, io_error};
use crate::confine::Parents;
use crate::digest::sha256_hex;
use crate::durability::Syncer;
use crate::layout::RunDir;

/// The blob of `sha256` relative to the run directory, `blobs/sha256/ab/ab…`. `None` when
/// `sha256` is not 64 lower-case hex digits.
pub(crate) fn blob_rel(sha256: &str) -> Option<WorkspacePath> {
    let valid = sha256.len() == 64
        && sha256
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if !valid {
        return None;
    }
    WorkspacePath::parse(&format!("blobs/sha256/{}/{sha256}", &sha256[..2])).ok()
}

fn invalid_name(sha256: &str) -> StoreError {
    StoreError::Integrity(format!("`{sha256}` is not a SHA-256 blob name"))
}

/// Stores `bytes` whose SHA-256 is `sha256` (the caller hashed them already), unless the
/// blob is there.
pub(crate) fn put_hashed(
    run_dir: &RunDir,
    sha256: &str,
    bytes: &[u8],
    syncer: &Syncer,
) -> Result<(), StoreError> {
    let rel = blob_rel(sha256).ok_or_else(|| invalid_name(sha256))?;
    let target = confined(run_dir.path(), &rel, Parents::Create)?;
    match fs::symlink_metadata(&target) {
        Ok(meta) if meta.is_file() && meta.len() == bytes.len() as u64 => return Ok(()),
        Ok(meta) if meta.is_file() => {
            return write_atomic_with(&target, bytes, syncer).map_err(|err| io_error(err, &rel));
        }
        Ok(_) => return Err(StoreError::Integrity(format!("`{rel}` is not a file"))),
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => return Err(io_error(err, &rel)),
    }
    match write_create_only_with(&target, bytes, syncer) {
        // Another writer stored the same bytes first.
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        other => other.map_err(|err| io_error(err, &rel)),
    }
}

/// Files at least this large become their own blob ([`adopt`]) instead of being copied.
/// Smaller ones are copied: a copy costs little, and a workspace file with one name is the
/// common, cheaply checked case.
pub(crate) const SHARED_MIN_BYTES: u64 = 64 * 1024;

/// The file at `source`, which the runtime wrote and never changes in place, becomes the
/// blob of its bytes by taking a second name. Returns its SHA-256 and size. The bytes are
/// hashed through the new name, so the blob holds exactly what it is named for even if
/// `source` is replaced meanwhile. A blob of the same bytes stored earlier as a copy is
/// replaced by the shared file (same bytes, one copy less). Where the file system cannot
/// link, the bytes are copied as [`put`] does.
pub(crate) fn adopt(
    run_dir: &RunDir,
    source: &Path,
    shown: &WorkspacePath,
    syncer: &Syncer,
) -> Result<(String, u64), StoreError> {
    let root = run_dir.sha256_blobs();
    fs::create_dir_all(&root).map_err(|err| io_error(err, "blobs/sha256"))?;
    let temp = temp_path_for(&root.join("adopted"));
    if fs::hard_link(source, &temp).is_err() {
        let bytes = fs::read(source).map_err(|err| io_error(err, shown))?;
        let len = bytes.len() as u64;
        return put(run_dir, &bytes, syncer).map(|sha256| (sha256, len));
    }
    let adopted = name_adopted(run_dir, &temp, syncer);
    // A no-op rename between two names of one file leaves the temp name in place.
    let _ = fs::remove_file(&temp);
    adopted
}

/// Gives the linked file at `temp` its blob name.
fn name_adopted(
    run_dir: &RunDir,
    temp: &Path,
    syncer: &Syncer,
) -> Result<(String, u64), StoreError> {
    let bytes = fs::read(temp).map_err(|err| io_error(err, "blobs/sha256"))?;
    let sha256 = sha256_hex(&bytes);
    let rel = blob_rel(&sha256).ok_or_else(|| invalid_name(&sha256))?;
    let target = confined(run_dir.path(), &rel, Parents::Create)?;
    match fs::symlink_metadata(&target) {
        Ok(meta) if !meta.is_file() => {
            return Err(StoreError::Integrity(format!("`{rel}` is not a file")));
        }
        Ok(_) | Err(_) => {}
    }
    fs::rename(temp, &target).map_err(|err| io_error(err, &rel))?;
    if let Some(parent) = target.parent() {
        syncer.dir_changed(parent);
    }
    Ok((sha256, bytes.len() as u64))
}

/// Whether `file` (a workspace file with more than one name, opened as `meta`) is the
/// run's blob of `bytes`, its content: the one kind of second name the runtime gives.
pub(crate) fn is_own_blob(run_dir: &RunDir, meta: &fs::Metadata, bytes: &[u8]) -> bool {
    let Some(rel) = blob_rel(&sha256_hex(bytes)) else {
        return false;
    };
    fs::symlink_metadata(run_dir.path().join(rel.as_str()))
        .is_ok_and(|blob| blob.is_file() && same_file(&blob, meta))
}

/// The metadata and bytes of one opened file: both of the same file, even if another is
/// renamed over `path` meanwhile.
pub(crate) fn read_with_metadata(path: &Path) -> io::Result<(fs::Metadata, Vec<u8>)> {
    let mut file = fs::File::open(path)?;
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut file, &mut bytes)?;
    Ok((file.metadata()?, bytes))
}

/// How many names (hard links) the file has. Only Unix tells; elsewhere every file counts
/// as having one.
pub(crate) fn names_of(meta: &fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::nlink(meta)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        1
    }
}

/// Whether two metadata describe one file. Only Unix tells; elsewhere files are never
/// shared (see [`adopt`]'s fallback), so the answer is no.
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

/// Stores `bytes` and returns their SHA-256.
pub(crate) fn put(run_dir: &RunDir, bytes: &[u8], syncer: &Syncer) -> Result<String, StoreError> {
    let sha256 = sha256_hex(bytes);
    put_hashed(run_dir, &sha256, bytes, syncer)?;
    Ok(sha256)
}

/// The bytes of blob `sha256`, checked against their name. Missing is `NotFound`; bytes
/// that do not hash to the name are `Integrity`.
pub(crate) fn read(run_dir: &RunDir, sha256: &str) -> Result<Vec<u8>, StoreError> {
    let rel = blob_rel(sha256).ok_or_else(|| invalid_name(sha256))?;
    let path = confined(run_dir.path(), &rel, Parents::MustExist)?;
    let bytes = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            return Err(StoreError::NotFound(rel.to_string()));
        }
        Err(err) => return Err(io_error(err, &rel)),
    };
    if sha256_hex(&bytes) != sha256 {
        return Err(StoreError::Integrity(format!(
            "`{rel}` does not hold the bytes its name promises"
        )));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_are_named_by_their_hash_and_stored_once() {
        let dir = tempfile::tempdir().unwrap();
        let run_dir = RunDir(dir.path().to_path_buf());
        let syncer = Syncer::strict();
        let sha = put(&run_dir, b"hello", &syncer).unwrap();
        assert_eq!(sha, sha256_hex(b"hello"));
        let path = dir.path().join(format!("blobs/sha256/{}/{sha}", &sha[..2]));
        assert_eq!(fs::read(&path).unwrap(), b"hello");
        assert_eq!(put(&run_dir, b"hello", &syncer).unwrap(), sha);
        assert_eq!(read(&run_dir, &sha).unwrap(), b"hello");
        assert_eq!(fs::read_dir(path.parent().unwrap()).unwrap().count(), 1);

        // A blob cut short is written again; one with wrong bytes of the right size is
        // reported when read.
        fs::write(&path, b"he").unwrap();
        put(&run_dir, b"hello", &syncer).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"hello");
        fs::write(&path, b"jello").unwrap();
        assert!(matches!(
            read(&run_dir, &sha),
            Err(StoreError::Integrity(_))
        ));

        let missing = sha256_hex(b"other");
        assert!(matches!(
            read(&run_dir, &missing),
            Err(StoreError::NotFound(_))
        ));
        for bad in ["", "../x", &sha.to_uppercase(), &sha[..63]] {
            assert!(blob_rel(bad).is_none(), "{bad}");
            assert!(matches!(read(&run_dir, bad), Err(StoreError::Integrity(_))));
        }
    }
}
