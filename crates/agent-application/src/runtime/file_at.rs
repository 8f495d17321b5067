//! A workspace file as it stood at one event of its run, read back from the run's
//! checkpoints: what a timeline's detail view shows for an event, rather than the file as it
//! is now.
//!
//! **What "the file at event N" means.** Every mutation of a workspace file is journaled by
//! one event (`workspace_file_written`, `workspace_patch_applied`,
//! `direct_output_captured`) and copied into a checkpoint whose `event_seq` is that event's
//! seq; a chat commit's checkpoint follows its `chat_commit_started`. The file at N is the
//! copy in the newest checkpoint with `event_seq <= N` that holds the path. One refinement:
//! a tool writes the file *before* its result is stored, yet the write is journaled right
//! *after* the call's `tool_call_completed`. So when N is a call's `tool_result_stored` or
//! `tool_call_completed`, the write that call journals next counts as part of N, and the
//! file at a write tool's result is the text that write produced.
//!
//! Checkpoints record only copies, never a removal (no tool deletes a workspace file), and
//! files a run starts with (a `persist/` seeded from a saved state) have no checkpoint until
//! the run writes them: both read as not written at that point.

use agent_domain::event::RunEvent;
use agent_domain::run::{InvocationId, RunId};
use agent_domain::workspace::WorkspacePath;

use super::errors::RuntimeError;
use super::wiring::RuntimePorts;
use crate::ports::{EventQuery, WorkspaceError, WorkspaceFile};

/// A workspace file read as of one event, and the checkpoint it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceFileAt {
    pub file: WorkspaceFile,
    /// `cp_000003`.
    pub checkpoint_id: String,
    /// The seq of the event that journals the mutation the checkpoint copied.
    pub checkpoint_event_seq: u64,
}

/// `path` of `run` as of the event with seq `at_seq` (see the module doc). The path is
/// already checked to be one a host may read.
pub(super) async fn read(
    ports: &RuntimePorts,
    run: &RunId,
    path: &WorkspacePath,
    at_seq: u64,
) -> Result<WorkspaceFileAt, RuntimeError> {
    ports.runs.load_run(run).await?;
    if let Some(slimmed) = ports
        .runs
        .load_run_summary(run)
        .await?
        .and_then(|summary| summary.slimmed)
    {
        return Err(RuntimeError::CheckpointsPruned {
            run: run.clone(),
            at: slimmed.at,
        });
    }
    let seq = counted_seq(ports, run, at_seq).await?;
    let checkpoints = ports.checkpoints.list(run).await?;
    let found = checkpoints.iter().rev().find_map(|record| {
        let file = record.files.iter().find(|file| file.path == *path)?;
        (record.event_seq <= seq).then_some((record, file))
    });
    let Some((record, file)) = found else {
        return Err(RuntimeError::FileNotWrittenYet {
            path: path.clone(),
            at_seq,
        });
    };
    let bytes = ports.checkpoints.read_file(run, record, file).await?;
    let text = String::from_utf8(bytes).map_err(|_| WorkspaceError::NotText(path.clone()))?;
    Ok(WorkspaceFileAt {
        file: WorkspaceFile {
            text,
            sha256: file.sha256.clone(),
            bytes: file.bytes,
        },
        checkpoint_id: record.id.clone(),
        checkpoint_event_seq: record.event_seq,
    })
}

/// The newest checkpoint event seq that counts at `at_seq`: `at_seq` itself, or the seq of
/// the write a tool call journals right after its result and outcome when `at_seq` is one
/// of those two events.
async fn counted_seq(ports: &RuntimePorts, run: &RunId, at_seq: u64) -> Result<u64, RuntimeError> {
    let Some(before) = at_seq.checked_sub(1) else {
        return Ok(at_seq);
    };
    let at = EventQuery {
        after_seq: Some(before),
        limit: Some(1),
        ..EventQuery::default()
    };
    let lines = ports.journal.read(run, &at).await?;
    let Some(line) = lines.first().filter(|line| line.seq == at_seq) else {
        return Ok(at_seq);
    };
    let (invocation, call) = match &line.event {
        RunEvent::ToolResultStored(p) => (&p.invocation_id, &p.call_id),
        RunEvent::ToolCallCompleted(p) => (&p.invocation_id, &p.call_id),
        _ => return Ok(at_seq),
    };
    let Ok(invocation_id) = InvocationId::parse(invocation) else {
        return Ok(at_seq);
    };
    // Within one invocation the call's outcome and its write follow its stored result
    // with nothing between them.
    let next = EventQuery {
        after_seq: Some(at_seq),
        limit: Some(2),
        invocation_id: Some(invocation_id),
        ..EventQuery::default()
    };
    for line in ports.journal.read(run, &next).await? {
        match &line.event {
            RunEvent::ToolCallCompleted(p) if p.call_id == *call => continue,
            RunEvent::WorkspaceFileWritten(_) | RunEvent::WorkspacePatchApplied(_) => {
                return Ok(line.seq);
            }
            _ => break,
        }
    }
    Ok(at_seq)
}
