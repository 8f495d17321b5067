//! The facts the skill index records about a skill folder, computed as TauriTavern computes
//! them: its files, `installedHash`, `fileCount`, `totalBytes`, `hasScripts`, `hasBinary`.
//!
//! Every regular file under the folder counts (special files are passed over, a symbolic
//! link anywhere is refused). Paths are relative with `/` separators and sorted by their
//! bytes. `installedHash` is the lowercase hex SHA-256 of, for each file in that order, the
//! path's bytes, a NUL byte, the file's bytes and a NUL byte.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use super::fault::SkillFault;

/// At most this many files in a skill.
pub(crate) const MAX_FILES: usize = 1000;
/// At most this many bytes in one file of a skill.
pub(crate) const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// At most this many bytes in all the files of a skill.
pub(crate) const MAX_TOTAL_BYTES: u64 = 256 * 1024 * 1024;
/// Path segments a skill may not contain.
const FORBIDDEN_SEGMENTS: [&str; 3] = [".git", ".ssh", ".env"];

/// What the index says about a skill folder's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PackageFacts {
    pub installed_hash: String,
    pub file_count: u64,
    pub total_bytes: u64,
    /// A file is `scripts` or lies under `scripts/`.
    pub has_scripts: bool,
    /// A file is not UTF-8 text.
    pub has_binary: bool,
}

/// One file found, by its normalised relative path.
struct Found {
    rel: String,
    path: PathBuf,
    bytes: u64,
}

/// Computes the facts of the skill folder `root`, refusing what TauriTavern refuses: an
/// empty folder, a link, a forbidden segment, more than 1000 files, a file over 16 MiB or
/// more than 256 MiB in all.
pub(crate) fn inspect(root: &Path) -> Result<PackageFacts, SkillFault> {
    let mut found = Vec::new();
    collect(root, "", &mut found)?;
    found.sort_by(|a, b| a.rel.as_bytes().cmp(b.rel.as_bytes()));
    if found.is_empty() {
        return Err(SkillFault::PackageInvalid(
            "the skill folder holds no file".to_owned(),
        ));
    }
    if found.len() > MAX_FILES {
        return Err(SkillFault::PackageInvalid(format!(
            "the skill holds {} files; at most {MAX_FILES} are allowed",
            found.len()
        )));
    }
    let total_bytes: u64 = found.iter().map(|file| file.bytes).sum();
    if total_bytes > MAX_TOTAL_BYTES {
        return Err(SkillFault::PackageInvalid(format!(
            "the skill holds {total_bytes} bytes; at most {MAX_TOTAL_BYTES} are allowed"
        )));
    }
    let mut hasher = Sha256::new();
    let mut has_binary = false;
    for file in &found {
        let content = fs::read(&file.path)
            .map_err(|err| SkillFault::Unreadable(format!("{}: {err}", file.rel)))?;
        has_binary |= std::str::from_utf8(&content).is_err();
        hasher.update(file.rel.as_bytes());
        hasher.update([0]);
        hasher.update(&content);
        hasher.update([0]);
    }
    let installed_hash = hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    Ok(PackageFacts {
        installed_hash,
        file_count: found.len() as u64,
        total_bytes,
        has_scripts: found
            .iter()
            .any(|file| file.rel == "scripts" || file.rel.starts_with("scripts/")),
        has_binary,
    })
}

fn collect(dir: &Path, prefix: &str, found: &mut Vec<Found>) -> Result<(), SkillFault> {
    let unreadable =
        |err: std::io::Error| SkillFault::Unreadable(format!("{}: {err}", dir.display()));
    for entry in fs::read_dir(dir).map_err(unreadable)? {
        let entry = entry.map_err(unreadable)?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            return Err(SkillFault::UnsafeFile(format!(
                "`{prefix}{}` is not a UTF-8 file name",
                name.to_string_lossy()
            )));
        };
        let rel = format!("{prefix}{name}");
        if FORBIDDEN_SEGMENTS.contains(&name) {
            return Err(SkillFault::PackageInvalid(format!(
                "`{rel}`: skills may not hold `.git`, `.ssh` or `.env`"
            )));
        }
        if name.contains('\\') {
            return Err(SkillFault::UnsafeFile(format!(
                "`{rel}` has a backslash in its name"
            )));
        }
        let meta = fs::symlink_metadata(entry.path()).map_err(unreadable)?;
        if meta.file_type().is_symlink() {
            return Err(SkillFault::UnsafeFile(format!(
                "`{rel}` is a symbolic link; links are not allowed in a skill"
            )));
        } else if meta.is_dir() {
            collect(&entry.path(), &format!("{rel}/"), found)?;
        } else if meta.is_file() {
            if meta.len() > MAX_FILE_BYTES {
                return Err(SkillFault::PackageInvalid(format!(
                    "`{rel}` has {} bytes; at most {MAX_FILE_BYTES} are allowed per file",
                    meta.len()
                )));
            }
            found.push(Found {
                rel,
                path: entry.path(),
                bytes: meta.len(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, bytes: &[u8]) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }

    /// The hash of a known file set is pinned: TauriTavern computes the same one.
    #[test]
    fn installed_hash_is_pinned() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            root,
            "SKILL.md",
            b"---\nname: poetry\ndescription: Writes poems.\n---\n",
        );
        write(root, "scripts/count.py", b"print(1)\n");
        write(root, "refs-a.md", b"a\n");
        write(root, "refs/b.md", b"b\n");
        write(root, "logo.bin", &[0xff, 0x00]);
        let facts = inspect(root).unwrap();
        assert_eq!(
            facts,
            PackageFacts {
                installed_hash: "16eec01fbbc3239042e959f95a913d202637f324494c0b1f5de8495ce6c61c54"
                    .into(),
                file_count: 5,
                total_bytes: 48 + 9 + 2 + 2 + 2,
                has_scripts: true,
                has_binary: true,
            }
        );
    }

    #[test]
    fn refuses_what_tauritavern_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty");
        fs::create_dir_all(empty.join("sub")).unwrap();
        assert!(matches!(
            inspect(&empty),
            Err(SkillFault::PackageInvalid(_))
        ));
        let env = dir.path().join("env");
        write(&env, "SKILL.md", b"x");
        write(&env, "config/.env", b"KEY=1");
        assert!(matches!(inspect(&env), Err(SkillFault::PackageInvalid(_))));
        #[cfg(unix)]
        {
            let linked = dir.path().join("linked");
            write(&linked, "SKILL.md", b"x");
            std::os::unix::fs::symlink("/etc", linked.join("etc")).unwrap();
            assert!(matches!(inspect(&linked), Err(SkillFault::UnsafeFile(_))));
        }
    }
}
