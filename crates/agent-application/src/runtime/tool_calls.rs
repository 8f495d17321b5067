//! One tool call (`Action::RunTool`): its arguments audit, the journal around it, the
//! execution (commit and finish here, the multi-agent tools in [`agents`], MCP tools in
//! [`mcp`], builtins through [`execute_builtin`]), the result audit, the workspace effects with their
//! checkpoints, and the report.

use agent_domain::event::{
    ChatCommitRecordedPayload, CheckpointReason, RunEvent, RunStatus, ToolCallOutcomePayload,
    ToolCallRequestedPayload, ToolCallStartedPayload, ToolResultStoredPayload,
    WorkspaceFileWrittenPayload, WorkspacePatchAppliedPayload,
};
use agent_domain::tool::{AgentToolResult, BuiltinTool, ToolInvocation};
use serde_json::json;

use super::driver::{Driver, count};
use super::fault::Fault;
use super::invocation::Invocation;
use super::machine::{
    PlannedCall, RESULT_IDENTITY_MISMATCH, ToolCallReport, ToolControl, tool_outcome_event,
};
use super::{agents, commit, mcp};
use crate::ports::StoreError;
use crate::tools::{Args, ToolContext, ToolEffect, execute_builtin};

/// Handles one planned call and reports it to the machine.
pub(super) async fn run_tool(
    d: &Driver,
    invocation: &mut Invocation,
    round: u32,
    planned: PlannedCall,
) -> Result<(), Fault> {
    d.count_tool_call();
    let invocation_id = invocation.machine.invocation_id().to_string();
    let call = planned.call().clone();
    if invocation.owns_run() {
        d.rec.set_status(RunStatus::DispatchingTool).await?;
    }
    let arguments_ref = match d
        .ports()
        .audit
        .write_tool_args(d.run_id(), &call.call_id, &call.arguments)
        .await
    {
        Ok(stored) => stored.0,
        Err(StoreError::AlreadyExists(_)) => {
            return Err(Fault::new(
                "model.duplicate_tool_call_id",
                format!(
                    "the model reused tool call id `{}`, which already has an audit file in \
                     this run",
                    call.call_id
                ),
            ));
        }
        Err(error) => return Err(Fault::of(&error).context("writing the tool arguments")),
    };
    d.rec
        .emit(RunEvent::ToolCallRequested(ToolCallRequestedPayload {
            round,
            invocation_id: invocation_id.clone(),
            call_id: call.call_id.clone(),
            tool_id: call.tool_id.clone(),
            arguments_ref,
            provider_metadata: call.provider_metadata.clone(),
        }))
        .await?;

    let (report, effect, elapsed_ms) = match planned {
        PlannedCall::Reject { result, .. } => (ToolCallReport::new(result), ToolEffect::None, 0),
        PlannedCall::Execute { call } => {
            d.rec
                .emit(RunEvent::ToolCallStarted(ToolCallStartedPayload {
                    round,
                    invocation_id: invocation_id.clone(),
                    call_id: call.call_id.clone(),
                    tool_id: call.tool_id.clone(),
                }))
                .await?;
            let started = d.ports().clock.now_millis();
            let executed = execute(d, invocation, round, &call).await;
            let elapsed_ms = d.ports().clock.now_millis().saturating_sub(started);
            match executed {
                Ok((report, effect)) => (report, effect, elapsed_ms),
                Err(fault) => {
                    let payload = ToolCallOutcomePayload {
                        round,
                        invocation_id: invocation_id.clone(),
                        call_id: call.call_id.clone(),
                        tool_id: call.tool_id.clone(),
                        is_error: true,
                        error_code: Some(fault.code.to_owned()),
                        message: Some(fault.message.clone()),
                        elapsed_ms,
                        resource_refs: Vec::new(),
                        fatal: true,
                    };
                    let _ = d.rec.emit(RunEvent::ToolCallFailed(payload)).await;
                    return Err(fault);
                }
            }
        }
    };

    // A result that does not answer this call (`docs/spec-map.md`, Tool results) is a runtime fault, found
    // before anything of it is stored or journaled.
    report
        .result
        .validate_identity(&call)
        .map_err(|e| Fault::new(RESULT_IDENTITY_MISMATCH, e.to_string()))?;
    let stored = d
        .ports()
        .audit
        .write_tool_result(d.run_id(), &report.result)
        .await
        .map_err(|e| Fault::of(&e).context("writing the tool result"))?;
    d.rec
        .emit(RunEvent::ToolResultStored(ToolResultStoredPayload {
            round,
            invocation_id: invocation_id.clone(),
            call_id: call.call_id.clone(),
            tool_id: call.tool_id.clone(),
            path: stored.0,
        }))
        .await?;
    d.rec
        .emit(tool_outcome_event(
            round,
            &invocation_id,
            &report.result,
            elapsed_ms,
        ))
        .await?;
    journal_effect(d, invocation, &call, effect).await?;

    let control = report.control.clone();
    invocation
        .machine
        .on_tool_result(report)
        .map_err(|e| Fault::of(&e))?;
    if let ToolControl::Committed {
        path,
        mode,
        message_id,
    } = control
        && !invocation.machine.is_finished()
    {
        d.rec
            .emit(RunEvent::ChatCommitRecorded(ChatCommitRecordedPayload {
                invocation_id,
                commit_count: invocation.machine.ledger().confirmed_count(),
                path,
                mode,
                message_id,
            }))
            .await?;
    }
    Ok(())
}

/// Runs an admitted call: runtime control tools here, every other builtin through the
/// dispatcher. `Err` is a runtime fault (the run stops).
async fn execute(
    d: &Driver,
    invocation: &mut Invocation,
    round: u32,
    call: &ToolInvocation,
) -> Result<(ToolCallReport, ToolEffect), Fault> {
    match BuiltinTool::from_id(&call.tool_id) {
        Some(BuiltinTool::WorkspaceCommit) => {
            let report = commit::explicit(d, invocation, call).await?;
            Ok((report, ToolEffect::None))
        }
        Some(BuiltinTool::WorkspaceFinish) => Ok((finish(call), ToolEffect::None)),
        Some(
            tool @ (BuiltinTool::AgentList
            | BuiltinTool::AgentDelegate
            | BuiltinTool::AgentHandoff
            | BuiltinTool::AgentAwait
            | BuiltinTool::TaskReturn),
        ) => Ok((
            agents::execute(d, invocation, call, tool).await?,
            ToolEffect::None,
        )),
        None => Ok((
            mcp::call(d, invocation, round, call).await?,
            ToolEffect::None,
        )),
        Some(_) => {
            let world = &mut invocation.world;
            let mut ctx = ToolContext {
                run: &world.run,
                invocation: &world.scope,
                session: &mut world.session,
                ports: &world.ports,
            };
            let execution = execute_builtin(&mut ctx, call)
                .await
                .map_err(|fault| Fault::of(&fault))?;
            let effect = execution.effect.clone();
            Ok((ToolCallReport::from_execution(execution), effect))
        }
    }
}

/// `workspace.finish`: the machine already refused a finish the rules forbid, so an
/// admitted call ends the loop.
fn finish(call: &ToolInvocation) -> ToolCallReport {
    let reason =
        Args::parse(&call.arguments, &["reason"]).and_then(|args| args.optional_str("reason"));
    match reason {
        Ok(reason) => ToolCallReport::new(AgentToolResult::success(
            call,
            "Finished.",
            json!({"reason": reason}),
        ))
        .with_control(ToolControl::Finished),
        Err(failure) => ToolCallReport::new(failure.into_error_result(call)),
    }
}

/// `workspace_file_written` / `workspace_patch_applied` and their checkpoint.
async fn journal_effect(
    d: &Driver,
    invocation: &mut Invocation,
    call: &ToolInvocation,
    effect: ToolEffect,
) -> Result<(), Fault> {
    let (event, path, reason) = match effect {
        ToolEffect::FileWritten {
            path,
            mode,
            receipt,
            metrics,
        } => (
            RunEvent::WorkspaceFileWritten(WorkspaceFileWrittenPayload {
                invocation_id: invocation.record.id.to_string(),
                path: path.clone(),
                mode,
                chars: count(metrics.chars),
                words: count(metrics.words),
                sha256: receipt.sha256,
            }),
            path,
            CheckpointReason::ToolWorkspaceWrite,
        ),
        ToolEffect::FilePatched {
            path,
            receipt,
            replacements,
            metrics,
        } => (
            RunEvent::WorkspacePatchApplied(WorkspacePatchAppliedPayload {
                invocation_id: invocation.record.id.to_string(),
                path: path.clone(),
                chars: count(metrics.chars),
                words: count(metrics.words),
                old_sha256: receipt.previous_sha256.unwrap_or_default(),
                sha256: receipt.sha256,
                replacements: u32::try_from(replacements).unwrap_or(u32::MAX),
            }),
            path,
            CheckpointReason::ToolWorkspacePatch,
        ),
        _ => return Ok(()),
    };
    let line = d.rec.emit(event).await?;
    d.checkpoint(reason, line.seq, &path).await?;
    invocation.last_write_call = Some((path, call.call_id.clone()));
    Ok(())
}
