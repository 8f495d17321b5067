//! What a file of a run is for, decided from where it lives. Only the core class survives
//! slimming: it is what `runs show` and `runs events` read.

use serde::Serialize;

/// Where a file of a run lives: inside its folder (a path relative to it, `/`-separated),
/// or one of its two index documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileLocation {
    /// `chats/<ws>/runs/<run>/<path>`.
    RunFolder(String),
    /// `index/runs/<run>.json`.
    IndexRecord,
    /// `index/run-summaries/<run>.json`.
    Summary,
}

/// The class of a stored run file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StorageClass {
    /// The run record, its journal, its index entry and its summary: the core history.
    RunJournal,
    /// The manifest, the frozen inputs and the invocation records.
    RunContext,
    /// The `persist/`, `summaries/` and `plan/` roots.
    RunWorkspaceProjection,
    /// Tool arguments and results, and the results delegated agents returned.
    RunToolIo,
    /// The `output/` root.
    WorkspaceOutputs,
    /// The `scratch/` root.
    WorkspaceScratch,
    /// Delegated task records.
    Tasks,
    /// Every model response, round by round.
    ModelResponses,
    /// Checkpoints of workspace files.
    Checkpoints,
    /// Anything else: content blobs, cancel requests, guidance mailboxes, unknown files.
    OtherRunArtifact,
}

impl StorageClass {
    /// The class of the file at `location`.
    pub fn of(location: &FileLocation) -> Self {
        let path = match location {
            FileLocation::IndexRecord | FileLocation::Summary => return Self::RunJournal,
            FileLocation::RunFolder(path) => path.as_str(),
        };
        if matches!(path, "run.json" | "events.jsonl") {
            return Self::RunJournal;
        }
        if path == "manifest.json" {
            return Self::RunContext;
        }
        let Some((first, _)) = path.split_once('/') else {
            return Self::OtherRunArtifact;
        };
        match first {
            "input" | "invocations" => Self::RunContext,
            "persist" | "summaries" | "plan" => Self::RunWorkspaceProjection,
            "tool-args" | "tool-results" | "agent-results" => Self::RunToolIo,
            "output" => Self::WorkspaceOutputs,
            "scratch" => Self::WorkspaceScratch,
            "tasks" => Self::Tasks,
            "model-responses" => Self::ModelResponses,
            "checkpoints" => Self::Checkpoints,
            _ => Self::OtherRunArtifact,
        }
    }

    /// Whether slimming keeps files of this class.
    pub fn is_core(self) -> bool {
        self == Self::RunJournal
    }
}
