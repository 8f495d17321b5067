//! `agent.handoff`: hands the rest of the run to another agent. Checked in TauriTavern's
//! order — arguments and brief, then `agent_handoff_requested` (journaled for refused
//! handoffs too), the caller's right to hand off, its pending children, the run's handoff
//! depth, the target — then the handoff task and the target's invocation are created. The
//! caller stops once the call is accepted; the driver starts the target, which continues
//! the same run with the run's commit ledger.

use agent_domain::event::{
    HandoffAcceptedPayload, HandoffRequestedPayload, InvocationKind, RunEvent, TaskContinuation,
    TaskStatus,
};
use agent_domain::run::{AgentTaskRecord, InvocationId, TaskId};
use agent_domain::tool::{AgentToolResult, ExitPolicy, ToolInvocation};
use serde_json::{Map, Value, json};

use super::{POLICY_DENIED_HANDOFF, bind_model, brief, new_id, prompts, refused, select_target};
use crate::runtime::candidates::Operation;
use crate::runtime::driver::Driver;
use crate::runtime::fault::Fault;
use crate::runtime::invocation::{
    Invocation, InvocationIdentity, InvocationStart, PendingInvocation,
};
use crate::runtime::invocation_build::create_record;
use crate::runtime::machine::{ToolCallReport, ToolControl};
use crate::tools::{Args, ToolFailure, invalid};

/// The caller still has delegated tasks running.
const PENDING_TASKS: &str = "agent.handoff_pending_tasks";
/// The run handed off as often as the caller's profile allows.
const DEPTH_EXHAUSTED: &str = "agent.handoff_depth_exhausted";
/// Children never hand off.
const CHILD_HANDOFF_DENIED: &str = "agent.child_handoff_denied";
/// The only pending-task policy.
const DENY_IF_PENDING: &str = "denyIfPending";

pub(super) async fn handoff(
    d: &Driver,
    inv: &Invocation,
    call: &ToolInvocation,
) -> Result<ToolCallReport, Fault> {
    let (args, brief) = match parse(call) {
        Ok(parsed) => parsed,
        Err(failure) => return Ok(refused(call, failure)),
    };
    let target_id = args
        .optional_str("agentId")
        .ok()
        .flatten()
        .unwrap_or_default();
    d.rec
        .emit(RunEvent::AgentHandoffRequested(HandoffRequestedPayload {
            source_invocation_id: inv.record.id.to_string(),
            target_profile_id: target_id.trim().to_owned(),
            pending_task_policy: DENY_IF_PENDING.to_owned(),
        }))
        .await?;
    let (target, model) = match check(d, inv, &args).await {
        Ok(checked) => checked,
        Err(failure) => return Ok(refused(call, failure)),
    };

    let task_id = TaskId::parse(&new_id(d, "handoff")).map_err(|e| Fault::of(&e))?;
    let new_id = InvocationId::parse(&new_id(d, "inv")).map_err(|e| Fault::of(&e))?;
    let key = d.board.allocate_key(target.id.as_str());
    let record = create_record(
        d,
        InvocationIdentity {
            id: new_id.clone(),
            kind: InvocationKind::Handoff,
            parent: Some(inv.record.id.clone()),
            task: Some(task_id.clone()),
            profile_id: target.id.to_string(),
            exit_policy: ExitPolicy::RunFinishAllowed,
        },
    )
    .await?;
    let now = d.rec.now();
    let task_record = AgentTaskRecord {
        id: task_id.clone(),
        run_id: d.run_id().clone(),
        parent_invocation_id: inv.record.id.clone(),
        child_invocation_id: new_id.clone(),
        target_profile_id: target.id.to_string(),
        workspace_key: key.clone(),
        continuation: TaskContinuation::TransferControl,
        status: TaskStatus::Queued,
        task: Value::Object(brief.clone()),
        budget: None,
        created_by_tool_call_id: Some(call.call_id.clone()),
        result_ref: None,
        error: None,
        created_at: now.clone(),
        updated_at: now,
    };
    d.board
        .insert(task_record.clone(), inv.watch.token().clone());
    d.register_task(&task_record).await?;
    d.rec
        .emit(RunEvent::AgentHandoffAccepted(HandoffAcceptedPayload {
            task_id: task_id.to_string(),
            source_invocation_id: inv.record.id.to_string(),
            new_invocation_id: new_id.to_string(),
            target_profile_id: target.id.to_string(),
            workspace_key: key,
        }))
        .await?;
    let messages = prompts::handoff_messages(
        &d.facts.prompt.messages,
        &target,
        inv.profile.id.as_str(),
        &brief,
    );
    d.board.set_next_owner(PendingInvocation {
        record,
        start: InvocationStart {
            task: Some(task_id.clone()),
            profile: target.clone(),
            presentation: d.facts.presentation,
            messages,
            ledger: inv.machine.ledger().clone(),
            model,
            watch: inv.watch.clone(),
        },
    });
    let content = format!(
        "Handoff accepted for Agent {}. Your part is complete.",
        target.id
    );
    Ok(ToolCallReport::new(AgentToolResult::success(
        call,
        content,
        json!({"handoffId": task_id, "taskId": task_id, "status": "accepted", "agentId": target.id}),
    ))
    .with_control(ToolControl::HandoffAccepted))
}

/// The arguments and the brief.
fn parse(call: &ToolInvocation) -> Result<(Args, Map<String, Value>), ToolFailure> {
    let args = Args::parse(
        &call.arguments,
        &["agentId", "handoff", "pendingTaskPolicy"],
    )?;
    let brief = brief::check(
        args.raw("handoff"),
        "handoff",
        &["title", "reason", "contextSummary"],
    )?;
    match args
        .optional_str("pendingTaskPolicy")?
        .as_deref()
        .map(str::trim)
    {
        None | Some(DENY_IF_PENDING) => {}
        Some(other) => {
            return Err(invalid(format!(
                "`pendingTaskPolicy` must be `{DENY_IF_PENDING}`, not `{other}`"
            )));
        }
    }
    Ok((args, brief))
}

async fn check(
    d: &Driver,
    inv: &Invocation,
    args: &Args,
) -> Result<
    (
        agent_domain::profile::ResolvedAgentProfile,
        crate::runtime::facts::RunModel,
    ),
    ToolFailure,
> {
    if inv.record.kind == InvocationKind::Subagent {
        return Err(ToolFailure::recoverable(
            CHILD_HANDOFF_DENIED,
            "A delegated task cannot hand the run off; return your result instead.",
        ));
    }
    if !inv.profile.delegation.can_handoff {
        return Err(ToolFailure::recoverable(
            POLICY_DENIED_HANDOFF,
            "Your profile may not hand the run off (delegation.canHandoff is false).",
        ));
    }
    let pending = d
        .board
        .children_of(&inv.record.id)
        .into_iter()
        .filter(|task| !task.record.status.is_terminal())
        .count();
    if pending > 0 {
        return Err(ToolFailure::recoverable(
            PENDING_TASKS,
            format!(
                "{pending} of your delegated tasks are still running. Await them (or let them \
                 finish) before handing off."
            ),
        ));
    }
    let depth = inv.profile.delegation.max_handoff_depth as usize;
    if d.board.handoff_count() >= depth {
        return Err(ToolFailure::recoverable(
            DEPTH_EXHAUSTED,
            format!(
                "This run was already handed off {} times, the most your profile allows \
                 (delegation.maxHandoffDepth). Finish the work yourself.",
                d.board.handoff_count()
            ),
        ));
    }
    let selection = select_target(d, inv, args, Operation::Handoff).await?;
    let model = bind_model(d, &selection.profile).await?;
    Ok((selection.profile, model))
}
