//! Skill archives: a `.zip` (or `.skill`, the same format) holding one skill, unpacked for an
//! import and packed by an export.
//!
//! An archive comes from anyone, so it is checked whole before a byte is written: at most
//! [`MAX_ENTRIES`] entries, every name a relative path by the rules of [`WorkspacePath`]
//! (no `..`, no absolute path, no drive), no link or special file, no entry declaring more
//! than a skill file may hold ([`MAX_FILE_BYTES`]) and not more in all than a skill may hold
//! ([`MAX_TOTAL_BYTES`]). Declared sizes can lie, so unpacking counts the bytes it really
//! inflates and stops at the same caps. The skill is the archive's root when it has a
//! `SKILL.md`, or its only top folder (how most tools pack a folder).

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use agent_domain::workspace::WorkspacePath;
use zip::ZipArchive;
use zip::write::SimpleFileOptions;

use super::fault::SkillFault;
use super::manifest::SKILL_FILE;
use super::package::{MAX_FILE_BYTES, MAX_FILES, MAX_TOTAL_BYTES};
use crate::persist::tree::walk_files;

/// At most this many entries (files and folders) in an archive.
pub(crate) const MAX_ENTRIES: usize = 2 * MAX_FILES;
/// The file name extensions of a skill archive.
const EXTENSIONS: [&str; 2] = ["zip", "skill"];
/// The folder macOS adds to archives it makes; never part of a skill.
const MACOS_LITTER: &str = "__MACOSX";
/// The file type bits of a Unix mode, and the two types an archive may hold.
const TYPE_MASK: u32 = 0o170_000;
const TYPE_FILE: u32 = 0o100_000;
const TYPE_DIR: u32 = 0o040_000;

/// Whether `path` names a skill archive rather than a folder.
pub(crate) fn is_archive(path: &Path) -> bool {
    path.extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| {
            EXTENSIONS
                .iter()
                .any(|known| ext.eq_ignore_ascii_case(known))
        })
}

/// One entry the archive may unpack.
struct Planned {
    index: usize,
    rel: WorkspacePath,
    dir: bool,
}

/// Unpacks the skill archive `archive` into the new folder `into` and returns the skill's
/// folder inside it. Nothing is written unless every entry passes the checks.
pub(crate) fn unpack(archive: &Path, into: &Path) -> Result<PathBuf, SkillFault> {
    let file = fs::File::open(archive)
        .map_err(|err| SkillFault::ArchiveInvalid(format!("{}: {err}", archive.display())))?;
    let mut zip = ZipArchive::new(io::BufReader::new(file))
        .map_err(|err| SkillFault::ArchiveInvalid(format!("not a zip archive: {err}")))?;
    if zip.len() > MAX_ENTRIES {
        return Err(SkillFault::ArchiveTooManyEntries(zip.len()));
    }
    let plan = check(&mut zip)?;
    fs::create_dir_all(into).map_err(|err| unpack_failed(into, &err))?;
    let mut total = 0u64;
    for entry in plan {
        let target = entry
            .rel
            .segments()
            .fold(into.to_path_buf(), |p, s| p.join(s));
        if entry.dir {
            fs::create_dir_all(&target).map_err(|err| unpack_failed(&target, &err))?;
            continue;
        }
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|err| unpack_failed(parent, &err))?;
        }
        let mut out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
            .map_err(|err| match err.kind() {
                io::ErrorKind::AlreadyExists => SkillFault::ArchiveInvalid(format!(
                    "`{}` appears more than once in the archive",
                    entry.rel
                )),
                _ => unpack_failed(&target, &err),
            })?;
        let mut reader = zip
            .by_index(entry.index)
            .map_err(|err| SkillFault::ArchiveInvalid(format!("`{}`: {err}", entry.rel)))?;
        // One byte over the cap is enough to know the entry lied about its size.
        let copied = io::copy(&mut (&mut reader).take(MAX_FILE_BYTES + 1), &mut out)
            .map_err(|err| SkillFault::ArchiveInvalid(format!("`{}`: {err}", entry.rel)))?;
        if copied > MAX_FILE_BYTES {
            return Err(SkillFault::ArchiveEntryTooLarge {
                path: entry.rel.to_string(),
                bytes: copied,
            });
        }
        total += copied;
        if total > MAX_TOTAL_BYTES {
            return Err(SkillFault::ArchiveTooLarge(total));
        }
        out.sync_all().map_err(|err| unpack_failed(&target, &err))?;
    }
    Ok(skill_root(into))
}

/// Checks every entry by its central directory record and returns what to unpack.
fn check<R: Read + io::Seek>(zip: &mut ZipArchive<R>) -> Result<Vec<Planned>, SkillFault> {
    let mut plan = Vec::with_capacity(zip.len());
    let mut declared = 0u64;
    for index in 0..zip.len() {
        let entry = zip
            .by_index_raw(index)
            .map_err(|err| SkillFault::ArchiveInvalid(format!("entry {index}: {err}")))?;
        let name = entry
            .name()
            .map_err(|err| SkillFault::ArchiveInvalid(format!("entry {index}: {err}")))?
            .into_owned();
        if entry.is_symlink() {
            return Err(SkillFault::ArchiveLink(name));
        }
        let kind = entry.unix_mode().map(|mode| mode & TYPE_MASK);
        if kind.is_some_and(|kind| kind != 0 && kind != TYPE_FILE && kind != TYPE_DIR) {
            return Err(SkillFault::ArchiveUnsafeEntry(format!(
                "`{name}` is neither a file nor a folder"
            )));
        }
        let rel = WorkspacePath::parse(&name).map_err(|err| {
            SkillFault::ArchiveUnsafeEntry(format!("`{name}` is not a safe relative path: {err}"))
        })?;
        if rel.first_segment() == MACOS_LITTER {
            continue;
        }
        if entry.encrypted() {
            return Err(SkillFault::ArchiveInvalid(format!(
                "`{name}` is encrypted; skill archives cannot be"
            )));
        }
        let dir = entry.is_dir();
        if !dir {
            if entry.size() > MAX_FILE_BYTES {
                return Err(SkillFault::ArchiveEntryTooLarge {
                    path: rel.to_string(),
                    bytes: entry.size(),
                });
            }
            declared = declared.saturating_add(entry.size());
            if declared > MAX_TOTAL_BYTES {
                return Err(SkillFault::ArchiveTooLarge(declared));
            }
        }
        plan.push(Planned { index, rel, dir });
    }
    Ok(plan)
}

fn unpack_failed(path: &Path, err: &io::Error) -> SkillFault {
    SkillFault::Unreadable(format!("unpacking to {}: {err}", path.display()))
}

/// The skill's folder in an unpacked archive: the root when it has a `SKILL.md`, else its
/// only folder when that has one; else the root (whose missing `SKILL.md` is then reported).
fn skill_root(root: &Path) -> PathBuf {
    if root.join(SKILL_FILE).exists() {
        return root.to_path_buf();
    }
    let children: Vec<PathBuf> = fs::read_dir(root)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|entry| entry.file_name() != MACOS_LITTER)
                .map(|entry| entry.path())
                .collect()
        })
        .unwrap_or_default();
    match children.as_slice() {
        [only] if only.is_dir() && only.join(SKILL_FILE).exists() => only.clone(),
        _ => root.to_path_buf(),
    }
}

/// Packs the files of the skill folder `dir` into a zip archive, under a top folder named
/// after the skill, and returns its bytes.
pub(crate) fn pack(dir: &Path, name: &str) -> Result<Vec<u8>, SkillFault> {
    let files = walk_files(dir).map_err(|err| SkillFault::UnsafeFile(err.to_string()))?;
    let mut out = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o644);
    for file in files {
        let content = fs::read(&file.path)
            .map_err(|err| SkillFault::Unreadable(format!("{}: {err}", file.rel)))?;
        out.start_file(format!("{name}/{}", file.rel), options)
            .and_then(|()| out.write_all(&content).map_err(Into::into))
            .map_err(|err| SkillFault::Unreadable(format!("packing {}: {err}", file.rel)))?;
    }
    out.finish()
        .map(io::Cursor::into_inner)
        .map_err(|err| SkillFault::Unreadable(format!("packing: {err}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
        for (name, bytes) in entries {
            out.start_file(*name, SimpleFileOptions::default()).unwrap();
            out.write_all(bytes).unwrap();
        }
        out.finish().unwrap().into_inner()
    }

    #[test]
    fn unpacks_a_packed_skill_under_its_top_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let skill = tmp.path().join("poetry");
        fs::create_dir_all(skill.join("refs")).unwrap();
        fs::write(skill.join(SKILL_FILE), "---\nname: poetry\n---\n").unwrap();
        fs::write(skill.join("refs/forms.md"), "sonnet\n").unwrap();
        let archive = tmp.path().join("poetry.skill");
        fs::write(&archive, pack(&skill, "poetry").unwrap()).unwrap();
        assert!(is_archive(&archive) && !is_archive(&skill));
        let root = unpack(&archive, &tmp.path().join("out")).unwrap();
        assert_eq!(root, tmp.path().join("out/poetry"));
        assert_eq!(
            fs::read_to_string(root.join("refs/forms.md")).unwrap(),
            "sonnet\n"
        );
    }

    #[test]
    fn refuses_traversal_and_duplicates_before_or_while_writing() {
        let tmp = tempfile::tempdir().unwrap();
        let evil = tmp.path().join("evil.zip");
        fs::write(&evil, zip_of(&[("SKILL.md", b"x"), ("../escape.md", b"x")])).unwrap();
        let out = tmp.path().join("out");
        let fault = unpack(&evil, &out).unwrap_err();
        assert!(
            matches!(fault, SkillFault::ArchiveUnsafeEntry(_)),
            "{fault:?}"
        );
        assert!(!out.exists() && !tmp.path().join("escape.md").exists());

        let twice = tmp.path().join("twice.zip");
        fs::write(&twice, zip_of(&[("SKILL.md", b"x"), ("./SKILL.md", b"y")])).unwrap();
        let fault = unpack(&twice, &tmp.path().join("out2")).unwrap_err();
        assert!(matches!(fault, SkillFault::ArchiveInvalid(_)), "{fault:?}");
    }
}
