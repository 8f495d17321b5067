//! Depth-limited walks of a workspace, for listings and search corpora (blocking).
//!
//! A walk never follows a link: meeting one anywhere is an integrity fault. Every name it
//! meets must be usable as a workspace path segment, or the walk stops with an integrity
//! fault rather than report a path that would name something else.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use agent_application::ports::{
    EntryKind, ListedEntry, Listing, SearchCorpus, SearchFile, WorkspaceError,
};
use agent_domain::workspace::WorkspacePath;

use super::area::Area;
use super::files::{current_bytes, io_error, kind_at, resolve_readable};
use crate::digest::sha256_hex;
use crate::layout::RunDir;

/// An entry met by a walk, with where it is on disk.
struct Found {
    abs: PathBuf,
    entry: ListedEntry,
}

/// Lists `path` (the workspace root when `None`) `depth` levels deep: depth 1 is the
/// direct children, depth 0 lists nothing. A file path lists itself. The root shows only
/// the reachable areas, never hidden runtime storage.
pub(crate) fn list(
    run_dir: &RunDir,
    path: Option<&WorkspacePath>,
    depth: u32,
    max_entries: usize,
) -> Result<Listing, WorkspaceError> {
    let mut entries: Vec<ListedEntry> = collect(run_dir, path, depth)?
        .into_iter()
        .map(|found| found.entry)
        .collect();
    entries.sort_by(|a, b| (a.kind, &a.path).cmp(&(b.kind, &b.path)));
    let truncated = entries.len() > max_entries;
    entries.truncate(max_entries);
    Ok(Listing { entries, truncated })
}

/// The files under `paths` (files or folders, `max_depth` levels deep), deduplicated, in
/// path order, at most `max_files` of them read.
pub(crate) fn search_corpus(
    run_dir: &RunDir,
    paths: &[WorkspacePath],
    max_depth: u32,
    max_files: usize,
) -> Result<SearchCorpus, WorkspaceError> {
    let mut found_files = BTreeMap::new();
    for path in paths {
        for found in collect(run_dir, Some(path), max_depth)? {
            if found.entry.kind == EntryKind::File {
                found_files.insert(found.entry.path, found.abs);
            }
        }
    }
    let truncated = found_files.len() > max_files;
    let files = found_files
        .into_iter()
        .take(max_files)
        .map(|(path, abs)| {
            let bytes = current_bytes(run_dir, &abs, &path)?
                .ok_or_else(|| WorkspaceError::NotFound(path.clone()))?;
            Ok(SearchFile {
                sha256: sha256_hex(&bytes),
                text: String::from_utf8(bytes).ok(),
                path,
            })
        })
        .collect::<Result<_, WorkspaceError>>()?;
    Ok(SearchCorpus { files, truncated })
}

/// Everything under `path` to `levels` levels (unsorted).
fn collect(
    run_dir: &RunDir,
    path: Option<&WorkspacePath>,
    levels: u32,
) -> Result<Vec<Found>, WorkspaceError> {
    let mut out = Vec::new();
    match path {
        None => walk(run_dir.path(), None, levels, &mut out)?,
        Some(path) => {
            let abs = resolve_readable(run_dir, path)?;
            match kind_at(&abs, path)? {
                None => return Err(WorkspaceError::NotFound(path.clone())),
                Some(EntryKind::Directory) => walk(&abs, Some(path), levels, &mut out)?,
                Some(EntryKind::File) => out.push(Found {
                    abs,
                    entry: ListedEntry {
                        path: path.clone(),
                        kind: EntryKind::File,
                    },
                }),
            }
        }
    }
    Ok(out)
}

fn walk(
    dir: &Path,
    rel: Option<&WorkspacePath>,
    levels: u32,
    out: &mut Vec<Found>,
) -> Result<(), WorkspaceError> {
    if levels == 0 {
        return Ok(());
    }
    for found in children(dir, rel)? {
        if found.entry.kind == EntryKind::Directory {
            walk(&found.abs, Some(&found.entry.path), levels - 1, out)?;
        }
        out.push(found);
    }
    Ok(())
}

/// The entries directly inside `dir`; for the workspace root (`rel` is `None`) only the
/// reachable areas that exist.
fn children(dir: &Path, rel: Option<&WorkspacePath>) -> Result<Vec<Found>, WorkspaceError> {
    let names = match rel {
        None => Area::all().map(|area| area.dir_name().to_owned()).collect(),
        Some(rel) => names_in(dir, rel)?,
    };
    let mut found = Vec::new();
    for name in names {
        let path = child_path(rel, &name)?;
        let abs = dir.join(&name);
        // `None`: the entry vanished while we looked, or the area was never created.
        if let Some(kind) = kind_at(&abs, &path)? {
            found.push(Found {
                abs,
                entry: ListedEntry { path, kind },
            });
        }
    }
    Ok(found)
}

fn names_in(dir: &Path, rel: &WorkspacePath) -> Result<Vec<String>, WorkspaceError> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(|err| io_error(err, rel))? {
        let entry = entry.map_err(|err| io_error(err, rel))?;
        let name = entry.file_name().into_string().map_err(|raw| {
            WorkspaceError::Integrity(format!("a name in `{rel}` is not UTF-8: {raw:?}"))
        })?;
        names.push(name);
    }
    Ok(names)
}

/// `rel/name` as a workspace path, refusing names the path rules would rewrite (a
/// backslash inside a name would otherwise be read as a separator).
fn child_path(rel: Option<&WorkspacePath>, name: &str) -> Result<WorkspacePath, WorkspaceError> {
    let raw = match rel {
        Some(rel) => format!("{rel}/{name}"),
        None => name.to_owned(),
    };
    match WorkspacePath::parse(&raw) {
        Ok(path) if path.as_str() == raw => Ok(path),
        _ => Err(WorkspaceError::Integrity(format!(
            "`{raw}` cannot be named as a workspace path"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_path_rules_would_rewrite_are_integrity_faults() {
        let output = WorkspacePath::parse("output").unwrap();
        assert_eq!(
            child_path(Some(&output), "a.md").unwrap().as_str(),
            "output/a.md"
        );
        assert_eq!(child_path(None, "output").unwrap(), output);
        for name in ["a\\b", "..", ".", ""] {
            let err = child_path(Some(&output), name).unwrap_err();
            assert!(matches!(err, WorkspaceError::Integrity(_)), "{name:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_listing_stops_at_an_unnameable_file() {
        let dir = tempfile::tempdir().unwrap();
        let run_dir = RunDir(dir.path().to_path_buf());
        fs::create_dir_all(dir.path().join("output")).unwrap();
        fs::write(dir.path().join("output/a\\b"), "x").unwrap();
        let err = list(&run_dir, None, 2, 10).unwrap_err();
        assert!(matches!(err, WorkspaceError::Integrity(_)), "{err}");
    }
}
