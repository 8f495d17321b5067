//! Status vocabularies shared by run, invocation and task records and by the events that
//! report their transitions.

use serde::{Deserialize, Serialize};

/// Severity of a journal line. UIs filter on it; the runtime never branches on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventLevel {
    Debug,
    Info,
    Warn,
    Error,
}

/// Where a run's output is shown. Foreground runs must commit before they may finish;
/// background runs may finish without committing.
///
/// Run records written before presentation existed read as foreground, hence the
/// `Default`. Profiles use the same type for their default presentation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Presentation {
    /// The run answers the user in the chat.
    #[default]
    Foreground,
    /// The run works out of sight; committing is optional.
    Background,
}

/// Lifecycle state of a run record (`run.json` and the run index).
///
/// Records written by older builds may say `awaiting_commit`; it is read as
/// [`RunStatus::AwaitingHostCommit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunStatus {
    Created,
    InitializingWorkspace,
    AssemblingContext,
    CallingModel,
    DispatchingTool,
    ApplyingWorkspacePatch,
    CreatingCheckpoint,
    #[serde(alias = "awaiting_commit")]
    AwaitingHostCommit,
    Finishing,
    Completed,
    PartialSuccess,
    Cancelling,
    Cancelled,
    Failed,
}

impl RunStatus {
    /// Whether a run passes through this status in every model round (calling the model,
    /// running its tools), so it changes many times a second in a fast run.
    pub fn is_per_round(self) -> bool {
        matches!(
            self,
            Self::CallingModel
                | Self::DispatchingTool
                | Self::ApplyingWorkspacePatch
                | Self::CreatingCheckpoint
        )
    }

    /// Whether the run has ended; a terminal run never changes status again.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            Self::Completed | Self::PartialSuccess | Self::Cancelled | Self::Failed
        )
    }

    /// The snake_case name used on disk and in `status_changed` payloads.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::InitializingWorkspace => "initializing_workspace",
            Self::AssemblingContext => "assembling_context",
            Self::CallingModel => "calling_model",
            Self::DispatchingTool => "dispatching_tool",
            Self::ApplyingWorkspacePatch => "applying_workspace_patch",
            Self::CreatingCheckpoint => "creating_checkpoint",
            Self::AwaitingHostCommit => "awaiting_host_commit",
            Self::Finishing => "finishing",
            Self::Completed => "completed",
            Self::PartialSuccess => "partial_success",
            Self::Cancelling => "cancelling",
            Self::Cancelled => "cancelled",
            Self::Failed => "failed",
        }
    }
}

/// Lifecycle state of one agent invocation (root, child or handoff target).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum InvocationStatus {
    Created,
    Running,
    Completed,
    Failed,
    Cancelled,
    /// Control passed to a handoff target; this invocation is done but did not finish the run.
    Transferred,
}

impl InvocationStatus {
    /// Whether the invocation has ended.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Failed | Self::Cancelled | Self::Transferred
        )
    }
}

/// How an invocation came to exist, which decides its exit policy and presentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum InvocationKind {
    /// The invocation a run starts with (`inv_root`).
    Root,
    /// A return-mode child started by `agent.delegate`.
    Subagent,
    /// The target of `agent.handoff`, which takes over the run.
    Handoff,
}

/// Lifecycle state of a delegated or handoff task record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    Queued,
    Running,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    /// The wire name (`queued`, `running`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Whether the task has ended; transitions out of a terminal status are ignored.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// What happens when a task's child invocation ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskContinuation {
    /// Delegation: the child's result goes back to the parent, which keeps control.
    ReturnToParent,
    /// Handoff: the target invocation takes over the run.
    TransferControl,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn run_status_names_and_terminal_set() {
        let all = [
            RunStatus::Created,
            RunStatus::InitializingWorkspace,
            RunStatus::AssemblingContext,
            RunStatus::CallingModel,
            RunStatus::DispatchingTool,
            RunStatus::ApplyingWorkspacePatch,
            RunStatus::CreatingCheckpoint,
            RunStatus::AwaitingHostCommit,
            RunStatus::Finishing,
            RunStatus::Completed,
            RunStatus::PartialSuccess,
            RunStatus::Cancelling,
            RunStatus::Cancelled,
            RunStatus::Failed,
        ];
        for status in all {
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                json!(status.as_str())
            );
            let back: RunStatus = serde_json::from_value(json!(status.as_str())).unwrap();
            assert_eq!(back, status);
        }
        let terminal: Vec<_> = all.into_iter().filter(|s| s.is_terminal()).collect();
        assert_eq!(
            terminal,
            [
                RunStatus::Completed,
                RunStatus::PartialSuccess,
                RunStatus::Cancelled,
                RunStatus::Failed
            ]
        );
    }

    #[test]
    fn legacy_awaiting_commit_reads_as_awaiting_host_commit() {
        let status: RunStatus = serde_json::from_value(json!("awaiting_commit")).unwrap();
        assert_eq!(status, RunStatus::AwaitingHostCommit);
        assert_eq!(
            serde_json::to_value(status).unwrap(),
            json!("awaiting_host_commit")
        );
    }

    #[test]
    fn invocation_and_task_vocabularies() {
        assert!(InvocationStatus::Transferred.is_terminal());
        assert!(!InvocationStatus::Running.is_terminal());
        assert!(!InvocationStatus::Created.is_terminal());
        assert!(TaskStatus::Cancelled.is_terminal());
        assert!(!TaskStatus::Queued.is_terminal());
        assert_eq!(
            serde_json::to_value(InvocationKind::Subagent).unwrap(),
            json!("subagent")
        );
        assert_eq!(
            serde_json::to_value(TaskContinuation::TransferControl).unwrap(),
            json!("transfer_control")
        );
        assert_eq!(
            serde_json::to_value(EventLevel::Warn).unwrap(),
            json!("warn")
        );
    }

    #[test]
    fn presentation_defaults_to_foreground() {
        assert_eq!(Presentation::default(), Presentation::Foreground);
        assert_eq!(
            serde_json::to_value(Presentation::Background).unwrap(),
            json!("background")
        );
    }
}
