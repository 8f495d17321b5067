//! MCP tools in a run (`docs/mcp.md`): the snapshot entries from the cached catalogs, the
//! send-time gate, the outcome of a call and what the model is shown.
//!
//! Kept apart from the dispatcher so the runtime files only hook in: `invocation_build` asks
//! for [`snapshot_entries`], `tool_calls` hands every `mcp/...` call to [`call`], and the
//! run's end closes its sessions ([`RunSessions`](super::mcp_sessions::RunSessions)). A server is started (stdio) or connected (HTTP) on the first
//! call of the run that needs it and reused by every invocation of the run; one that could
//! not start or died is reported once and later calls to it fail recoverably. A call whose
//! outcome is unknown (sent, then timed out or lost) ends the run with
//! `mcp.call_outcome_unknown`: it may have run, so it is never retried.

use std::collections::BTreeMap;
use std::pin::pin;

use agent_domain::ErrorCode;
use agent_domain::event::{RunEvent, ToolResultReadableViewStoredPayload};
use agent_domain::mcp::{
    McpCallOutcome, McpErrorKind, McpServerStatus, McpToolPermission, hard_wrap, prefix_preview,
    project,
};
use agent_domain::tool::{
    AgentToolResult, BuiltinTool, McpToolEntry, ToolId, ToolInvocation, ToolProvider,
};
use agent_domain::workspace::WorkspacePath;
use futures::future::{Either, select};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::driver::Driver;
use super::fault::Fault;
use super::invocation::Invocation;
use super::machine::ToolCallReport;
use super::mcp_notices::NoticeJournal;
use super::mcp_sessions::McpPorts;

/// Arguments whose JSON is larger than this are never sent.
const ARGUMENTS_LIMIT: usize = 256 * 1024;
/// The code of a call that may have run although no answer came.
const OUTCOME_UNKNOWN: &str = "mcp.call_outcome_unknown";

/// The entry of every MCP tool among `allowed`, read from the cached catalogs only. Without
/// MCP ports there are none, so each allowed MCP tool is left out as not cached.
pub(super) async fn snapshot_entries(
    ports: Option<&McpPorts>,
    allowed: &[ToolId],
) -> BTreeMap<ToolId, McpToolEntry> {
    match ports {
        Some(ports) => crate::mcp::snapshot_entries(ports.registry.as_ref(), allowed).await,
        None => BTreeMap::new(),
    }
}

/// A recoverable refusal: the call was not sent.
fn refused(call: &ToolInvocation, code: &str, message: impl Into<String>) -> ToolCallReport {
    ToolCallReport::new(AgentToolResult::error(call, code, message))
}

/// Runs one MCP call: the send-time gate, the session, the call and its outcome. `Err` ends
/// the run (an unknown outcome, or a fault of the runtime's own storage).
pub(super) async fn call(
    d: &Driver,
    invocation: &Invocation,
    round: u32,
    call: &ToolInvocation,
) -> Result<ToolCallReport, Fault> {
    let ToolProvider::Mcp { registration: id } = call.tool_id.provider() else {
        return Err(Fault::new(
            "tool.dispatch_handler_missing",
            format!("`{}` is not an MCP tool", call.tool_id),
        ));
    };
    let native = call.tool_id.native_name();
    let Some(ports) = d.shared.mcp.as_ref() else {
        return Ok(refused(
            call,
            "mcp.call_registration_not_found",
            "this runtime has no MCP servers",
        ));
    };

    // The send-time gate, in this order; each refusal is recoverable and nothing is sent.
    if d.watch.check().await {
        return Ok(refused(
            call,
            "mcp.call_cancelled_before_send",
            "the run was cancelled before the call was sent",
        ));
    }
    let size = call.arguments.to_string().len();
    if size > ARGUMENTS_LIMIT {
        return Ok(refused(
            call,
            "mcp.call_arguments_size_limit",
            format!("the arguments take {size} bytes, over the limit of {ARGUMENTS_LIMIT}"),
        ));
    }
    let Value::Object(arguments) = &call.arguments else {
        return Ok(refused(
            call,
            "mcp.call_arguments_not_object",
            "the arguments of an MCP tool must be a JSON object",
        ));
    };
    let registration = match ports.registry.get(id).await {
        Ok(Some(registration)) => registration,
        Ok(None) => {
            return Ok(refused(
                call,
                "mcp.call_registration_not_found",
                format!(
                    "no MCP server is registered for `{}` any more",
                    call.tool_id
                ),
            ));
        }
        Err(error) => {
            return Ok(refused(
                call,
                "mcp.registration_storage_issue",
                format!(
                    "the MCP registration of `{}` cannot be read: {error}",
                    call.tool_id
                ),
            ));
        }
    };
    let server = registration.display_name.clone();
    if registration.status == McpServerStatus::Paused {
        return Ok(refused(
            call,
            "mcp.call_server_paused",
            format!("MCP server `{server}` is paused"),
        ));
    }
    if registration.permission(native) == McpToolPermission::Off {
        return Ok(refused(
            call,
            "mcp.call_permission_off",
            format!("the permission of `{native}` on MCP server `{server}` is off"),
        ));
    }
    let (session, notices) = match d
        .mcp_sessions
        .session(ports.connector.as_ref(), &registration)
        .await
    {
        Ok(live) => live,
        Err((code, message)) => return Ok(refused(call, code, message)),
    };

    // Dropping the call (the run was cancelled) abandons the request. The server's
    // notices are journaled while it runs, between polls of the call.
    let never = CancellationToken::new();
    let mut journal = NoticeJournal::new(round, invocation.machine.invocation_id().as_str(), call);
    let mut work = pin!(
        d.watch
            .race(session.call_tool(native, arguments.clone(), &never))
    );
    let answer = loop {
        match select(work.as_mut(), pin!(notices.arrived())).await {
            Either::Left((answer, _)) => break answer,
            Either::Right(((), _)) => journal.flush(d, &notices).await?,
        }
    };
    journal.finish(d, &notices).await?;
    match answer {
        None => Ok(refused(
            call,
            "mcp.call_cancelled",
            format!(
                "the run was cancelled while `{native}` ran on MCP server `{server}`; it may \
                 have executed"
            ),
        )),
        Some(Ok(outcome)) => known(d, invocation, round, call, outcome).await,
        Some(Err(error)) => {
            let crashed = error.kind == McpErrorKind::TransportClosed;
            if crashed || error.sent {
                d.mcp_sessions
                    .break_off(&registration, error.code(), &error.message)
                    .await;
            }
            if !error.sent {
                return Ok(refused(call, error.code(), error.to_string()));
            }
            let message = format!(
                "MCP tool `{native}` on server `{server}` may have executed, but its outcome \
                 is unknown ({}: {error}); this call will not be retried",
                error.code()
            );
            let result = AgentToolResult::error(call, OUTCOME_UNKNOWN, message.clone());
            d.ports()
                .audit
                .write_tool_result(d.run_id(), &result)
                .await
                .map_err(|e| Fault::of(&e).context("writing the tool result"))?;
            Err(Fault::new(OUTCOME_UNKNOWN, message))
        }
    }
}

/// The result of a known outcome: projected for the model, stored as a readable view when
/// longer than the invocation's inline limit. `structured` keeps the raw outcome.
async fn known(
    d: &Driver,
    invocation: &Invocation,
    round: u32,
    call: &ToolInvocation,
    outcome: McpCallOutcome,
) -> Result<ToolCallReport, Fault> {
    let error_code = match &outcome {
        McpCallOutcome::Result { result } if result.is_error => Some("mcp.tool_error"),
        McpCallOutcome::Result { .. } => None,
        McpCallOutcome::ServerError { .. } => Some("mcp.server_error"),
        McpCallOutcome::Unsupported { .. } => Some("mcp.unsupported_response"),
    };
    let raw = serde_json::to_value(&outcome)
        .map_err(|e| Fault::new("agent.runtime_fault", e.to_string()))?;
    let projected = project(&outcome);
    let snapshot = &invocation.world.scope.snapshot;
    let limit = snapshot.mcp_result_inline_char_limit();
    let chars = projected.chars().count();
    let mut result = AgentToolResult {
        call_id: call.call_id.clone(),
        tool_id: call.tool_id.clone(),
        content: projected,
        structured: json!({ "outcome": raw }),
        is_error: error_code.is_some(),
        error_code: error_code.map(str::to_owned),
        resource_refs: Vec::new(),
    };
    if chars <= usize::try_from(limit).unwrap_or(usize::MAX) {
        return Ok(ToolCallReport::new(result));
    }

    // Too long to inline: a readable, hard-wrapped copy the model can page through, beside
    // the JSON audit (`.txt` for `.json`), which keeps the raw outcome.
    let stored = d
        .ports()
        .audit
        .write_tool_result_view(d.run_id(), &call.call_id, &hard_wrap(&result.content))
        .await
        .map_err(|e| Fault::of(&e).context("storing the readable view of an MCP result"))?;
    let raw_path = stored.0;
    let audit_path = match raw_path.strip_suffix(".txt") {
        Some(stem) => format!("{stem}.json"),
        None => raw_path.clone(),
    };
    let path = WorkspacePath::parse(&raw_path)
        .map_err(|e| Fault::new("agent.runtime_fault", e.to_string()))?;
    d.rec
        .emit(RunEvent::ToolResultReadableViewStored(
            ToolResultReadableViewStoredPayload {
                round,
                invocation_id: invocation.machine.invocation_id().to_string(),
                call_id: call.call_id.clone(),
                tool_id: call.tool_id.clone(),
                path,
                audit_path: audit_path.clone(),
            },
        ))
        .await?;
    let read = snapshot.alias_of(&BuiltinTool::WorkspaceReadFile.id());
    let search = snapshot.alias_of(&BuiltinTool::WorkspaceSearchFiles.id());
    let how = match (read, search) {
        (Some(read), Some(search)) => format!(
            "Read it with `{read}` (path `{raw_path}`, `start_line`; continue from the \
             reported nextStartLine using start_line) or search it with `{search}`."
        ),
        (Some(read), None) => format!(
            "Read it with `{read}` (path `{raw_path}`, `start_line`; continue from the \
             reported nextStartLine using start_line)."
        ),
        (None, Some(search)) => format!("Search it with `{search}` (path `{raw_path}`)."),
        (None, None) => "No tool to read files is available in this invocation, so only the \
                         preview below can be used."
            .to_owned(),
    };
    result.content = format!(
        "The MCP result is {chars} characters long, over this invocation's inline limit of \
         {limit}, so it was saved as a readable view at `{raw_path}` (lines wrapped at 3,000 \
         characters). {how}\n\n## Prefix preview\n\n{}",
        prefix_preview(&result.content)
    );
    result.structured = json!({
        "externalized": true,
        "path": raw_path,
        "auditPath": audit_path,
        "charCount": chars,
        "charLimit": limit,
        "outcome": result.structured["outcome"].take(),
    });
    result.resource_refs = vec![raw_path, audit_path];
    Ok(ToolCallReport::new(result))
}
