//! [`FsDataDirInspector`]: the doctor's look at a data directory as a whole — paths of the
//! layout of the wrong kind, unknown entries in our closed folders, stale temps — and every
//! chat file, read the way a run reads it. Paths come from `layout.rs`; staleness from
//! `stale.rs`; chat parsing from `chat/`.

use std::fs;
use std::path::{Path, PathBuf};

use agent_application::ports::{
    ChatError, ChatProblem, ChatScan, DataDirInspector, EntryKind, LayoutProblem, LayoutScan,
    StoreError,
};
use async_trait::async_trait;

use crate::chat::check_chat_bytes;
use crate::layout::DataDir;

/// The inspector of one data directory.
#[derive(Debug, Clone)]
pub struct FsDataDirInspector {
    data: DataDir,
}

impl FsDataDirInspector {
    pub fn new(data: DataDir) -> Self {
        Self { data }
    }

    /// `path` relative to the data directory when it is inside it (`_tauritavern/` may be
    /// beside it, on a TauriTavern install: then the full path).
    fn relative(&self, path: &Path) -> String {
        path.strip_prefix(self.data.root())
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    }

    /// The trees temps may be staged in: the data directory, and `_tauritavern/` when it is
    /// beside it.
    fn temp_roots(&self) -> Vec<PathBuf> {
        let mut roots = vec![self.data.root().to_path_buf()];
        let ours = self.data.tauritavern();
        if !ours.starts_with(self.data.root()) {
            roots.push(ours);
        }
        roots
    }

    fn stale_temps(&self) -> Vec<PathBuf> {
        let mut sweeper = self.data.sweeper();
        let mut found: Vec<PathBuf> = self
            .temp_roots()
            .iter()
            .flat_map(|root| sweeper.find_in_tree(root))
            .collect();
        found.sort();
        found
    }

    fn scan_layout_blocking(&self) -> Result<LayoutScan, StoreError> {
        let root = self.data.root();
        if !fs::metadata(root).is_ok_and(|meta| meta.is_dir()) {
            return Err(StoreError::Io(format!(
                "the data directory {} is not a folder",
                root.display()
            )));
        }
        let entries = self.data.layout_entries();
        let mut problems = Vec::new();
        let mut present = 0;
        for (path, expected, required) in &entries {
            let relative = self.relative(path);
            match fs::symlink_metadata(path) {
                Err(_) if *required => problems.push(LayoutProblem::Missing {
                    path: relative,
                    expected: *expected,
                }),
                Err(_) => {}
                Ok(meta) => {
                    let right = match expected {
                        EntryKind::Directory => meta.is_dir(),
                        EntryKind::File => meta.is_file(),
                    };
                    if right {
                        present += 1;
                    } else {
                        problems.push(LayoutProblem::WrongKind {
                            path: relative,
                            expected: *expected,
                        });
                    }
                }
            }
        }
        let known: Vec<&PathBuf> = entries.iter().map(|(path, _, _)| path).collect();
        for folder in self.data.closed_folders() {
            let Ok(children) = fs::read_dir(&folder) else {
                continue;
            };
            for child in children.flatten() {
                let path = child.path();
                let temp = child
                    .file_name()
                    .to_str()
                    .is_some_and(|name| name.starts_with('.'));
                if !temp && !known.contains(&&path) {
                    problems.push(LayoutProblem::Unknown {
                        path: self.relative(&path),
                    });
                }
            }
        }
        problems.extend(
            self.stale_temps()
                .iter()
                .map(|path| LayoutProblem::StaleTemp {
                    path: self.relative(path),
                }),
        );
        Ok(LayoutScan { present, problems })
    }

    fn scan_chats_blocking(&self) -> ChatScan {
        let (characters, groups) = self.data.chat_folders();
        let mut files = Vec::new();
        if let Ok(folders) = fs::read_dir(&characters) {
            for folder in folders.flatten() {
                if folder.file_type().is_ok_and(|kind| kind.is_dir()) {
                    files.extend(jsonl_files(&folder.path()));
                }
            }
        }
        files.extend(jsonl_files(&groups));
        files.sort();
        let mut scan = ChatScan::default();
        for file in files {
            scan.checked += 1;
            let checked = fs::read(&file)
                .map_err(|err| ChatError::Io(err.to_string()))
                .and_then(check_chat_bytes);
            if let Err(error) = checked {
                scan.problems.push(ChatProblem {
                    path: self.relative(&file),
                    error,
                });
            }
        }
        scan
    }
}

/// The `.jsonl` files directly in `folder` (links are not followed).
fn jsonl_files(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(folder) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect()
}

fn join_error(err: tokio::task::JoinError) -> StoreError {
    StoreError::Io(err.to_string())
}

#[async_trait]
impl DataDirInspector for FsDataDirInspector {
    async fn scan_layout(&self) -> Result<LayoutScan, StoreError> {
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.scan_layout_blocking())
            .await
            .map_err(join_error)?
    }

    async fn scan_chats(&self) -> Result<ChatScan, StoreError> {
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.scan_chats_blocking())
            .await
            .map_err(join_error)
    }

    async fn sweep_stale_temps(&self) -> Result<usize, StoreError> {
        let this = self.clone();
        tokio::task::spawn_blocking(move || {
            let found = this.stale_temps().len();
            let mut sweeper = this.data.sweeper();
            for root in this.temp_roots() {
                sweeper.sweep_tree(&root);
            }
            found
        })
        .await
        .map_err(join_error)
    }
}
