//! Payloads of tool-call events and of the workspace effects tools have.
//!
//! Every tool event names the call by the provider's untouched `callId`, the canonical
//! `toolId`, the invocation and the round, so a UI can jump from any tool event back to
//! the model turn that asked for it.

use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use crate::tool::ToolId;
use crate::workspace::WorkspacePath;

/// `tool_call_requested`: a decoded call, written after its arguments audit file and
/// before any gate check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRequestedPayload {
    pub round: u32,
    pub invocation_id: String,
    pub call_id: String,
    pub tool_id: ToolId,
    /// Run-relative path of the create-only arguments audit file.
    pub arguments_ref: String,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub provider_metadata: Value,
}

/// `tool_call_started`: the gate admitted the call and it is executing. Calls the gate
/// refuses never get this event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallStartedPayload {
    pub round: u32,
    pub invocation_id: String,
    pub call_id: String,
    pub tool_id: ToolId,
}

/// `tool_result_stored`: the create-only result audit file was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultStoredPayload {
    pub round: u32,
    pub invocation_id: String,
    pub call_id: String,
    pub tool_id: ToolId,
    /// Run-relative path of the audit file.
    pub path: String,
}

/// `tool_result_readable_view_stored`: a result too long to inline was written as a
/// readable text view the model can page through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultReadableViewStoredPayload {
    pub round: u32,
    pub invocation_id: String,
    pub call_id: String,
    pub tool_id: ToolId,
    /// The readable view, under `tool-results/`.
    pub path: WorkspacePath,
    /// The full JSON audit of the unprojected result.
    pub audit_path: String,
}

/// `mcp_notice_received`: something an MCP server said on the side while a call ran
/// (progress, a log line), or how many such notices were left out of the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpNoticeReceivedPayload {
    pub round: u32,
    pub invocation_id: String,
    pub call_id: String,
    pub tool_id: ToolId,
    pub notice: McpNoticeBody,
}

/// What an [`McpNoticeReceivedPayload`] reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum McpNoticeBody {
    /// A progress notification: how far, out of how much when the server knows.
    Progress {
        progress: Number,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<Number>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// A log message at the server's level (`debug` … `emergency`).
    Log { level: String, data: Value },
    /// Notices of this call beyond the journal's per-call bound, counted, not kept.
    Suppressed { count: u64 },
}

/// `tool_call_completed` and `tool_call_failed`: how a call ended.
///
/// A model-readable error result is a `tool_call_failed` at warn level with `isError`.
/// A runtime failure that ends the run is a `tool_call_failed` with `fatal: true` and is
/// journaled at error level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallOutcomePayload {
    pub round: u32,
    pub invocation_id: String,
    pub call_id: String,
    pub tool_id: ToolId,
    pub is_error: bool,
    pub error_code: Option<String>,
    /// The result content when the call failed, else `null`.
    pub message: Option<String>,
    pub elapsed_ms: u64,
    #[serde(default)]
    pub resource_refs: Vec<String>,
    /// Set only when the failure is a runtime fault rather than a result the model reads.
    #[serde(default, skip_serializing_if = "is_false")]
    pub fatal: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// How a write or a commit applies text to its target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteMode {
    /// Replace the whole target (the default).
    #[default]
    Replace,
    /// Add to the end of the target.
    Append,
}

/// `workspace_file_written`: a tool wrote a workspace file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceFileWrittenPayload {
    pub invocation_id: String,
    pub path: WorkspacePath,
    pub mode: WriteMode,
    pub chars: u64,
    pub words: u64,
    pub sha256: String,
}

/// `workspace_patch_applied`: an exact-replacement patch changed a workspace file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspacePatchAppliedPayload {
    pub invocation_id: String,
    pub path: WorkspacePath,
    pub chars: u64,
    pub words: u64,
    pub old_sha256: String,
    pub sha256: String,
    pub replacements: u32,
}

/// Why a checkpoint was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CheckpointReason {
    ToolWorkspaceWrite,
    ToolWorkspacePatch,
    DirectOutputCapture,
    ChatCommit,
}

/// `checkpoint_created`: a copy of the file just touched was kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointCreatedPayload {
    pub checkpoint_id: String,
    pub reason: CheckpointReason,
}

/// What ended an invocation's tool loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LoopEnding {
    /// `workspace.finish` was accepted.
    Finish,
    /// `task.return` was accepted.
    TaskReturn,
    /// `agent.handoff` was accepted.
    Handoff,
    /// A text-only turn ended the loop because the finish policy was already met.
    TextTurn,
}

/// `agent_loop_finished`: an invocation's tool loop ended normally.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentLoopFinishedPayload {
    pub round: u32,
    pub invocation_id: String,
    /// Confirmed chat commits in the run so far.
    pub commit_count: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_by: Option<LoopEnding>,
}
