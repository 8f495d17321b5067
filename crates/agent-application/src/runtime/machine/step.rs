//! What the machine asks of its driver ([`Step`], [`Action`]) and what the driver reports
//! back ([`ToolCallReport`], [`AutoPublishReport`]), plus how an invocation ends
//! ([`Outcome`]).

use agent_domain::event::{PartialSuccessPayload, RunEvent, RunFailurePayload, WriteMode};
use agent_domain::model::AgentModelRequest;
use agent_domain::tool::{AgentToolResult, ToolInvocation};
use agent_domain::workspace::WorkspacePath;
use serde::{Deserialize, Serialize};

use crate::tools::{ToolEffect, ToolExecution};

/// One instruction for the driver.
///
/// The driver first appends `events` to the journal, in order, then performs `action`.
/// Events the machine can know without I/O come here; events that need I/O facts (paths
/// of audit files, hashes, checkpoint ids, elapsed time) are the driver's own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub events: Vec<RunEvent>,
    pub action: Action,
}

/// What the driver does next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "action",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum Action {
    /// Call the model gateway with `request`, then report through
    /// [`on_model_response`](super::InvocationMachine::on_model_response) or
    /// [`on_model_error`](super::InvocationMachine::on_model_error).
    CallModel {
        round: u32,
        /// 1-based; retries count up.
        attempt: u32,
        request: AgentModelRequest,
    },
    /// Sleep (cancel-aware) before the next attempt, then ask for the next step.
    WaitBeforeRetry {
        round: u32,
        next_attempt: u32,
        delay_ms: u64,
    },
    /// The model answered with text only: write `text` to `path` (unguarded), journal
    /// `direct_output_captured` and checkpoint it, then ask for the next step.
    CaptureDirectOutput {
        round: u32,
        path: WorkspacePath,
        text: String,
    },
    /// Handle one tool call of the round (calls come one at a time, in the model's order):
    /// write its arguments audit file, journal `tool_call_requested`, then execute or
    /// answer with the given rejection, store the result, journal the outcome and report
    /// through [`on_tool_result`](super::InvocationMachine::on_tool_result).
    RunTool {
        round: u32,
        /// 0-based position of the call in the round.
        index: usize,
        /// Calls in the round.
        count: usize,
        call: PlannedCall,
    },
    /// Publish `path` as this run's chat message in `replace` mode, as an automatic
    /// (`isExplicit: false`) commit; the host re-reads the file and checks `sha256`.
    /// Report through [`on_auto_publish`](super::InvocationMachine::on_auto_publish).
    AutoPublish {
        round: u32,
        path: WorkspacePath,
        sha256: String,
    },
    /// The invocation is over. Asking again returns the same outcome with no events.
    Finish(Outcome),
}

/// One tool call as the machine decided it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "disposition",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum PlannedCall {
    /// Admitted (budgets reserved): journal `tool_call_started` and execute it through the
    /// runtime control handler, the builtin dispatcher or the MCP service.
    Execute { call: ToolInvocation },
    /// Refused without execution (gate, position or finish rule): `result` is the
    /// recoverable error result to store and report back unchanged. No
    /// `tool_call_started`.
    Reject {
        call: ToolInvocation,
        result: AgentToolResult,
    },
}

impl PlannedCall {
    /// The call, either way.
    pub fn call(&self) -> &ToolInvocation {
        match self {
            Self::Execute { call } | Self::Reject { call, .. } => call,
        }
    }

    /// The rejection result, when the call is not to be executed.
    #[cfg(test)]
    pub fn rejection(&self) -> Option<&AgentToolResult> {
        match self {
            Self::Execute { .. } => None,
            Self::Reject { result, .. } => Some(result),
        }
    }
}

/// How an invocation's loop ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "payload", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Outcome {
    /// `workspace.finish` was accepted: the driver finalises the run (persist promotion,
    /// metadata write-back) and classifies failures there with
    /// [`CommitLedger::classify`](super::CommitLedger::classify).
    Completed,
    /// `task.return` was accepted (return-mode child).
    TaskReturned,
    /// `agent.handoff` was accepted: the target invocation takes over the run.
    HandedOff,
    /// The run was cancelled.
    Cancelled,
    /// An error before any host-confirmed commit.
    Failed(RunFailurePayload),
    /// An error after at least one host-confirmed commit (explicit or automatic).
    PartialSuccess(PartialSuccessPayload),
}

impl Outcome {
    /// The failure behind a failed or partially successful end.
    #[cfg(test)]
    pub fn failure(&self) -> Option<&RunFailurePayload> {
        match self {
            Self::Failed(failure) => Some(failure),
            Self::PartialSuccess(partial) => Some(&partial.failure),
            _ => None,
        }
    }
}

/// A workspace file a call changed, with its content hash after the change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WrittenFile {
    pub path: WorkspacePath,
    pub sha256: String,
}

/// What a runtime control tool achieved, beyond its result.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum ToolControl {
    /// Nothing beyond the result (every builtin and MCP call, and every error result).
    #[default]
    None,
    /// `workspace.commit`: the host confirmed the write into the chat.
    Committed {
        path: WorkspacePath,
        mode: WriteMode,
        message_id: String,
    },
    /// `workspace.finish` was accepted.
    Finished,
    /// `task.return` recorded the child's result.
    TaskReturned,
    /// `agent.handoff` created the target invocation.
    HandoffAccepted,
}

/// The driver's report on one tool call: the stored result plus what it achieved.
///
/// Runtime faults (I/O, integrity, a host commit that failed) are not reports: the driver
/// calls [`fail`](super::InvocationMachine::fail) instead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallReport {
    pub result: AgentToolResult,
    #[serde(default)]
    pub control: ToolControl,
    /// The file a successful `workspace.write_file` / `workspace.apply_patch` changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<WrittenFile>,
}

impl ToolCallReport {
    /// A plain result (also the report for a rejected call).
    pub fn new(result: AgentToolResult) -> Self {
        Self {
            result,
            control: ToolControl::None,
            written: None,
        }
    }

    /// The report of a builtin execution; a write or patch effect names the file.
    pub fn from_execution(execution: ToolExecution) -> Self {
        let written = match execution.effect {
            ToolEffect::FileWritten { path, receipt, .. }
            | ToolEffect::FilePatched { path, receipt, .. } => Some(WrittenFile {
                path,
                sha256: receipt.sha256,
            }),
            _ => None,
        };
        Self {
            result: execution.result,
            control: ToolControl::None,
            written,
        }
    }

    /// The same report with a control outcome.
    pub fn with_control(mut self, control: ToolControl) -> Self {
        self.control = control;
        self
    }
}

/// The driver's report on an [`Action::AutoPublish`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum AutoPublishReport {
    /// The host confirmed the commit.
    Published { message_id: String },
    /// Nothing was published (the file vanished, became empty or is not text by the time
    /// the host read it); the run goes on. A host failure is a fault: call `fail`.
    Skipped { reason: String },
}
