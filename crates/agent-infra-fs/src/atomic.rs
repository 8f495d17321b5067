//! Crash-safe file writes. Blocking; async callers run them on the blocking pool.
//!
//! * [`write_atomic`]: temp file in the same directory, fsync, rename over the target, fsync
//!   the directory. A reader sees the old file or the new one, never a torn one.
//! * [`write_create_only`]: the same staging, then a rename that fails if the target exists
//!   (`RENAME_NOREPLACE` on Linux; a hard link elsewhere, or where the file system lacks
//!   it), so a first audit fact is never replaced and never half-written.
//!
//! The `_with` variants take the [`Syncer`] of a run's data directory: under the normal
//! durability policy the fsyncs wait for the next barrier (see [`crate::durability`]).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::durability::Syncer;

/// A temp path beside `target`: `.tmp-<writer>-<uuid>`, so a sweep can tell a dead
/// writer's temp from a live one's (`stale.rs`). It never embeds the target's name, so any
/// name the file system can hold (255 bytes) can also be staged.
pub fn temp_path_for(target: &Path) -> PathBuf {
    target.with_file_name(format!(".tmp-{}", crate::stale::temp_tag(target)))
}

/// Writes `bytes` to a new temp file beside `target`. The parent folders are created only
/// when the temp cannot be created for want of them: most writes go to folders that exist,
/// and checking first would cost them a system call each.
fn stage(target: &Path, bytes: &[u8], syncer: &Syncer) -> io::Result<(PathBuf, File)> {
    let tmp = temp_path_for(target);
    let create = || OpenOptions::new().write(true).create_new(true).open(&tmp);
    let mut file = match (create(), target.parent()) {
        (Err(err), Some(parent)) if err.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(parent)?;
            create()?
        }
        (opened, _) => opened?,
    };
    let written = file.write_all(bytes).and_then(|()| syncer.staged(&file));
    if let Err(err) = written {
        let _ = fs::remove_file(&tmp);
        return Err(err);
    }
    Ok((tmp, file))
}

/// Creates `path`, which must not exist, holding `bytes`, synced. Nothing is left behind
/// when it fails.
pub(crate) fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    if written.is_err() {
        let _ = fs::remove_file(path);
    }
    written
}

/// Makes a rename or link durable by syncing the directory that holds it. Best effort on
/// platforms where directories cannot be opened.
pub fn sync_dir(dir: &Path) {
    if let Ok(handle) = File::open(dir) {
        let _ = handle.sync_all();
    }
}

/// The file at `target` is in place: its folder entry and bytes are made durable now or at
/// the next barrier.
fn placed(target: &Path, file: File, syncer: &Syncer) -> io::Result<()> {
    if let Some(parent) = target.parent() {
        syncer.dir_changed(parent);
    }
    syncer.placed(target, file)
}

/// Replaces `target` with `bytes` atomically, creating parent directories; synced before
/// it returns.
pub fn write_atomic(target: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(target, bytes, &Syncer::strict())
}

/// [`write_atomic`], synced as `syncer` decides.
pub fn write_atomic_with(target: &Path, bytes: &[u8], syncer: &Syncer) -> io::Result<()> {
    let (tmp, file) = stage(target, bytes, syncer)?;
    if let Err(err) = fs::rename(&tmp, target) {
        let _ = fs::remove_file(&tmp);
        return Err(err);
    }
    placed(target, file, syncer)
}

/// Writes `bytes` to `target` only if it does not exist yet (`AlreadyExists` otherwise);
/// synced before it returns.
pub fn write_create_only(target: &Path, bytes: &[u8]) -> io::Result<()> {
    write_create_only_with(target, bytes, &Syncer::strict())
}

/// [`write_create_only`], synced as `syncer` decides.
pub fn write_create_only_with(target: &Path, bytes: &[u8], syncer: &Syncer) -> io::Result<()> {
    let (tmp, file) = stage(target, bytes, syncer)?;
    if let Err(err) = move_no_replace(&tmp, target) {
        let _ = fs::remove_file(&tmp);
        return Err(err);
    }
    placed(target, file, syncer)
}

/// Gives the file at `tmp` the name `target` unless `target` exists (`AlreadyExists`),
/// atomically: one `renameat2(RENAME_NOREPLACE)` on Linux, else (or where the file system
/// does not support it) a hard link and the removal of `tmp`.
fn move_no_replace(tmp: &Path, target: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        use rustix::io::Errno;
        match renameat_with(CWD, tmp, CWD, target, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {}
            Err(errno) => return Err(errno.into()),
        }
    }
    let linked = fs::hard_link(tmp, target);
    let _ = fs::remove_file(tmp);
    linked
}

/// Pretty JSON with a trailing newline, the format of every JSON document we write.
pub fn pretty_json<T: serde::Serialize>(value: &T) -> io::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    bytes.push(b'\n');
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a/b/file.json");
        write_atomic(&target, b"one").unwrap();
        write_atomic(&target, b"two").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(target.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_name_of_255_bytes_can_be_written() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("n".repeat(255));
        write_atomic(&target, b"long").unwrap();
        write_create_only(&dir.path().join("c".repeat(255)), b"once").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"long");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn create_only_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("x.json");
        write_create_only(&target, b"first").unwrap();
        let err = write_create_only(&target, b"second").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&target).unwrap(), b"first");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_writer_killed_before_rename_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("run.json");
        write_atomic(&target, b"old").unwrap();
        // Simulate a crash between staging and rename: the temp file exists, rename never ran.
        let (tmp, _) = stage(&target, b"new, never renamed", &Syncer::strict()).unwrap();
        assert!(tmp.exists());
        assert_eq!(fs::read(&target).unwrap(), b"old");
    }
}
