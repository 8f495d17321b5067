//! An in-memory [`WorkspaceStore`] with the same visible contract as the file-system one:
//! the five roots plus read-only `tool-results/`, guards, listings and search corpora.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use agent_domain::run::RunId;
use agent_domain::workspace::{RUNTIME_RESULTS_ROOT, WorkspacePath, WorkspaceRoot};
use async_trait::async_trait;

use super::fake_sha256_hex;
use crate::ports::{
    EntryKind, ListedEntry, Listing, SearchCorpus, SearchFile, WorkspaceError, WorkspaceFile,
    WorkspaceStore, WriteGuard, WriteReceipt,
};

#[derive(Debug, Default)]
struct RunFiles {
    files: BTreeMap<String, Vec<u8>>,
    dirs: BTreeSet<String>,
}

/// Files of every run, in memory.
#[derive(Debug, Default)]
pub struct MemoryWorkspace {
    runs: Mutex<BTreeMap<String, RunFiles>>,
}

fn top_level(path: &WorkspacePath) -> bool {
    let first = path.first_segment();
    first == RUNTIME_RESULTS_ROOT || WorkspaceRoot::parse(first).is_ok()
}

fn receipt(bytes: &[u8], previous: Option<&Vec<u8>>) -> WriteReceipt {
    WriteReceipt {
        sha256: fake_sha256_hex(bytes),
        bytes: bytes.len() as u64,
        previous_sha256: previous.map(|p| fake_sha256_hex(p)),
    }
}

impl MemoryWorkspace {
    pub fn new() -> Self {
        Self::default()
    }

    fn with_run<T>(&self, run: &RunId, f: impl FnOnce(&mut RunFiles) -> T) -> T {
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        f(runs.entry(run.as_str().to_owned()).or_default())
    }

    /// Places a file as if written from outside the tools (by another invocation or a
    /// person), including under `tool-results/`.
    pub fn put(&self, run: &RunId, path: &str, bytes: impl Into<Vec<u8>>) {
        self.with_run(run, |r| {
            add_parents(r, path);
            r.files.insert(path.to_owned(), bytes.into());
        });
    }

    /// The raw bytes of a file, if present.
    pub fn get(&self, run: &RunId, path: &str) -> Option<Vec<u8>> {
        self.with_run(run, |r| r.files.get(path).cloned())
    }
}

fn add_parents(files: &mut RunFiles, path: &str) {
    let mut prefix = String::new();
    let segments: Vec<&str> = path.split('/').collect();
    for segment in &segments[..segments.len().saturating_sub(1)] {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(segment);
        files.dirs.insert(prefix.clone());
    }
}

fn kind(files: &RunFiles, path: &str) -> Option<EntryKind> {
    if files.files.contains_key(path) {
        Some(EntryKind::File)
    } else if files.dirs.contains(path) {
        Some(EntryKind::Directory)
    } else {
        None
    }
}

fn check_writable(files: &RunFiles, path: &WorkspacePath) -> Result<(), WorkspaceError> {
    if !top_level(path) || path.first_segment() == RUNTIME_RESULTS_ROOT {
        return Err(WorkspaceError::ReadOnly(path.clone()));
    }
    if files.dirs.contains(path.as_str()) {
        return Err(WorkspaceError::IsDirectory(path.clone()));
    }
    Ok(())
}

fn below<'a>(
    files: &'a RunFiles,
    root: &str,
    depth: u32,
) -> impl Iterator<Item = ListedEntry> + 'a {
    let prefix = if root.is_empty() {
        String::new()
    } else {
        format!("{root}/")
    };
    let dirs = files.dirs.iter().map(|d| (d, EntryKind::Directory));
    let regular = files.files.keys().map(|f| (f, EntryKind::File));
    dirs.chain(regular).filter_map(move |(path, kind)| {
        let rest = path.strip_prefix(&prefix)?;
        if rest.split('/').count() as u32 > depth {
            return None;
        }
        let path = WorkspacePath::parse(path).ok()?;
        top_level(&path).then_some(ListedEntry { path, kind })
    })
}

#[async_trait]
impl WorkspaceStore for MemoryWorkspace {
    async fn initialize(&self, run: &RunId) -> Result<(), WorkspaceError> {
        self.with_run(run, |r| {
            for root in WorkspaceRoot::ALL {
                r.dirs.insert(root.as_str().to_owned());
            }
            r.dirs.insert(RUNTIME_RESULTS_ROOT.to_owned());
        });
        Ok(())
    }

    async fn read(
        &self,
        run: &RunId,
        path: &WorkspacePath,
    ) -> Result<WorkspaceFile, WorkspaceError> {
        self.with_run(run, |r| {
            if !top_level(path) {
                return Err(WorkspaceError::NotFound(path.clone()));
            }
            match kind(r, path.as_str()) {
                Some(EntryKind::Directory) => Err(WorkspaceError::IsDirectory(path.clone())),
                None => Err(WorkspaceError::NotFound(path.clone())),
                Some(EntryKind::File) => {
                    let bytes = r.files.get(path.as_str()).cloned().unwrap_or_default();
                    let sha256 = fake_sha256_hex(&bytes);
                    let len = bytes.len() as u64;
                    let text = String::from_utf8(bytes)
                        .map_err(|_| WorkspaceError::NotText(path.clone()))?;
                    Ok(WorkspaceFile {
                        text,
                        sha256,
                        bytes: len,
                    })
                }
            }
        })
    }

    async fn write(
        &self,
        run: &RunId,
        path: &WorkspacePath,
        text: &str,
        guard: WriteGuard,
    ) -> Result<WriteReceipt, WorkspaceError> {
        self.with_run(run, |r| {
            check_writable(r, path)?;
            let previous = r.files.get(path.as_str());
            match (&guard, previous) {
                (WriteGuard::MustNotExist, Some(_)) => {
                    return Err(WorkspaceError::AlreadyExists(path.clone()));
                }
                (WriteGuard::MustMatchSha256(expected), current) => {
                    let current = current.map(|c| fake_sha256_hex(c));
                    if current.as_deref() != Some(expected.as_str()) {
                        return Err(WorkspaceError::VersionMismatch {
                            path: path.clone(),
                            current,
                        });
                    }
                }
                _ => {}
            }
            let out = receipt(text.as_bytes(), previous);
            add_parents(r, path.as_str());
            r.files
                .insert(path.as_str().to_owned(), text.as_bytes().to_vec());
            Ok(out)
        })
    }

    async fn append(
        &self,
        run: &RunId,
        path: &WorkspacePath,
        text: &str,
    ) -> Result<WriteReceipt, WorkspaceError> {
        self.with_run(run, |r| {
            check_writable(r, path)?;
            let previous = r.files.get(path.as_str()).cloned();
            let mut bytes = previous.clone().unwrap_or_default();
            bytes.extend_from_slice(text.as_bytes());
            let out = receipt(&bytes, previous.as_ref());
            add_parents(r, path.as_str());
            r.files.insert(path.as_str().to_owned(), bytes);
            Ok(out)
        })
    }

    async fn list(
        &self,
        run: &RunId,
        path: Option<&WorkspacePath>,
        depth: u32,
        max_entries: usize,
    ) -> Result<Listing, WorkspaceError> {
        self.with_run(run, |r| {
            let root = path.map(WorkspacePath::as_str).unwrap_or_default();
            if let Some(p) = path {
                if !top_level(p) || kind(r, root).is_none() {
                    return Err(WorkspaceError::NotFound(p.clone()));
                }
                if kind(r, root) == Some(EntryKind::File) {
                    let entry = ListedEntry {
                        path: p.clone(),
                        kind: EntryKind::File,
                    };
                    return Ok(Listing {
                        entries: vec![entry],
                        truncated: false,
                    });
                }
            }
            let mut entries: Vec<ListedEntry> = below(r, root, depth).collect();
            entries.sort_by(|a, b| (a.kind, &a.path).cmp(&(b.kind, &b.path)));
            let truncated = entries.len() > max_entries;
            entries.truncate(max_entries);
            Ok(Listing { entries, truncated })
        })
    }

    async fn search_corpus(
        &self,
        run: &RunId,
        paths: &[WorkspacePath],
        max_depth: u32,
        max_files: usize,
    ) -> Result<SearchCorpus, WorkspaceError> {
        self.with_run(run, |r| {
            let mut files = Vec::new();
            let mut seen = BTreeSet::new();
            for path in paths {
                let found: Vec<String> = match kind(r, path.as_str()) {
                    None => return Err(WorkspaceError::NotFound(path.clone())),
                    Some(EntryKind::File) => vec![path.as_str().to_owned()],
                    Some(EntryKind::Directory) => below(r, path.as_str(), max_depth)
                        .filter(|e| e.kind == EntryKind::File)
                        .map(|e| e.path.as_str().to_owned())
                        .collect(),
                };
                for name in found {
                    if seen.insert(name.clone()) {
                        let bytes = r.files.get(&name).cloned().unwrap_or_default();
                        files.push(SearchFile {
                            path: WorkspacePath::parse(&name)
                                .map_err(|e| WorkspaceError::Integrity(e.to_string()))?,
                            sha256: fake_sha256_hex(&bytes),
                            text: String::from_utf8(bytes).ok(),
                        });
                    }
                }
            }
            files.sort_by(|a, b| a.path.cmp(&b.path));
            let truncated = files.len() > max_files;
            files.truncate(max_files);
            Ok(SearchCorpus { files, truncated })
        })
    }

    async fn kind_of(
        &self,
        run: &RunId,
        path: &WorkspacePath,
    ) -> Result<Option<EntryKind>, WorkspaceError> {
        Ok(self.with_run(run, |r| {
            if top_level(path) {
                kind(r, path.as_str())
            } else {
                None
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(raw: &str) -> WorkspacePath {
        WorkspacePath::parse(raw).unwrap()
    }

    #[tokio::test]
    async fn guards_listing_and_read_only_results() {
        let ws = MemoryWorkspace::new();
        let run = RunId::parse("run_1").unwrap();
        ws.initialize(&run).await.unwrap();
        let first = ws
            .write(&run, &p("output/a.md"), "one", WriteGuard::MustNotExist)
            .await
            .unwrap();
        assert_eq!(first.previous_sha256, None);
        assert!(matches!(
            ws.write(&run, &p("output/a.md"), "x", WriteGuard::MustNotExist)
                .await,
            Err(WorkspaceError::AlreadyExists(_))
        ));
        assert!(matches!(
            ws.write(
                &run,
                &p("output/a.md"),
                "x",
                WriteGuard::MustMatchSha256("nope".into())
            )
            .await,
            Err(WorkspaceError::VersionMismatch { .. })
        ));
        ws.write(
            &run,
            &p("output/a.md"),
            "two",
            WriteGuard::MustMatchSha256(first.sha256),
        )
        .await
        .unwrap();
        let appended = ws.append(&run, &p("output/a.md"), "!").await.unwrap();
        assert_eq!(ws.read(&run, &p("output/a.md")).await.unwrap().text, "two!");
        assert_eq!(appended.previous_sha256, Some(fake_sha256_hex(b"two")));
        assert!(matches!(
            ws.write(&run, &p("tool-results/x"), "", WriteGuard::Unchecked)
                .await,
            Err(WorkspaceError::ReadOnly(_))
        ));
        assert!(matches!(
            ws.read(&run, &p("output")).await,
            Err(WorkspaceError::IsDirectory(_))
        ));
        ws.put(&run, "input/prompt_snapshot.json", "{}");
        assert!(matches!(
            ws.read(&run, &p("input/prompt_snapshot.json")).await,
            Err(WorkspaceError::NotFound(_))
        ));
        let listing = ws.list(&run, None, 2, 100).await.unwrap();
        let names: Vec<_> = listing.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            names,
            [
                "output",
                "persist",
                "plan",
                "scratch",
                "summaries",
                "tool-results",
                "output/a.md"
            ]
        );
        ws.put(&run, "scratch/bin", vec![0xff, 0xfe]);
        let corpus = ws
            .search_corpus(&run, &[p("output"), p("scratch")], 8, 10)
            .await
            .unwrap();
        assert_eq!(corpus.files.len(), 2);
        assert!(corpus.files[1].text.is_none());
    }
}
