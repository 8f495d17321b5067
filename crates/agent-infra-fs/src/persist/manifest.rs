//! `persistent-states/<state>/manifest.json`: what a state holds and how it differs from
//! the state it was based on.

use std::collections::{BTreeMap, BTreeSet};

use agent_application::ports::CheckpointFile;
use agent_domain::event::{PersistentChange, PersistentChangeKind};
use agent_domain::run::{RunId, StateId, WorkspaceId};
use agent_domain::workspace::WorkspacePath;
use serde::{Deserialize, Serialize};

/// The only manifest version this store reads and writes.
pub(crate) const MANIFEST_VERSION: u64 = 1;

/// The manifest of one immutable persistent state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StateManifest {
    pub version: u64,
    pub state_id: StateId,
    pub run_id: RunId,
    pub workspace_id: WorkspaceId,
    pub stable_chat_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_state_id: Option<StateId>,
    pub created_at: String,
    /// Every file of the state (`persist/...`), sorted by path.
    pub files: Vec<CheckpointFile>,
    /// How the files differ from the run's starting files, sorted by path.
    pub changes: Vec<PersistentChange>,
}

/// The changes from `base` to `now`: new paths are added, different content is modified,
/// paths gone from `now` are deleted. Sorted by path.
pub(crate) fn diff(base: &[CheckpointFile], now: &[CheckpointFile]) -> Vec<PersistentChange> {
    let mut changes: BTreeMap<&WorkspacePath, PersistentChange> = BTreeMap::new();
    let before: BTreeMap<&WorkspacePath, &str> = base
        .iter()
        .map(|file| (&file.path, file.sha256.as_str()))
        .collect();
    for file in now {
        let kind = match before.get(&file.path) {
            None => PersistentChangeKind::Added,
            Some(old) if *old != file.sha256 => PersistentChangeKind::Modified,
            Some(_) => continue,
        };
        changes.insert(
            &file.path,
            PersistentChange {
                path: file.path.clone(),
                kind,
                sha256: Some(file.sha256.clone()),
            },
        );
    }
    let after: BTreeSet<&WorkspacePath> = now.iter().map(|file| &file.path).collect();
    for file in base {
        if !after.contains(&file.path) {
            changes.insert(
                &file.path,
                PersistentChange {
                    path: file.path.clone(),
                    kind: PersistentChangeKind::Deleted,
                    sha256: None,
                },
            );
        }
    }
    changes.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, sha: &str) -> CheckpointFile {
        CheckpointFile {
            path: WorkspacePath::parse(path).unwrap(),
            sha256: sha.into(),
            bytes: 1,
        }
    }

    #[test]
    fn diff_reports_added_modified_and_deleted_in_path_order() {
        let base = [
            file("persist/a", "1"),
            file("persist/b", "2"),
            file("persist/c", "3"),
        ];
        let now = [
            file("persist/a", "1"),
            file("persist/b", "9"),
            file("persist/d", "4"),
        ];
        let changes = diff(&base, &now);
        let summary: Vec<_> = changes
            .iter()
            .map(|c| (c.path.as_str(), c.kind, c.sha256.as_deref()))
            .collect();
        assert_eq!(
            summary,
            [
                ("persist/b", PersistentChangeKind::Modified, Some("9")),
                ("persist/c", PersistentChangeKind::Deleted, None),
                ("persist/d", PersistentChangeKind::Added, Some("4")),
            ]
        );
    }
}
