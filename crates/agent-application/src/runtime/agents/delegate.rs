//! `agent.delegate`: checks the brief, the caller's right to delegate, the target and the
//! caller's budgets (TauriTavern's order), then creates the child invocation and its task
//! and hands the child to the run's scheduler. The call answers at once; the child runs in
//! the background.

use agent_domain::event::{
    DelegateStartedPayload, InvocationKind, Presentation, RunEvent, TaskContinuation, TaskStatus,
};
use agent_domain::run::{AgentTaskRecord, InvocationId, TaskId};
use agent_domain::tool::{AgentToolResult, BuiltinTool, ExitPolicy, ToolInvocation};
use serde_json::json;

use super::{
    BUDGET_EXHAUSTED, POLICY_DENIED_DELEGATION, Selection, bind_model, brief, new_id, prompts,
    refused, select_target,
};
use crate::runtime::candidates::Operation;
use crate::runtime::driver::Driver;
use crate::runtime::fault::Fault;
use crate::runtime::invocation::{
    Invocation, InvocationIdentity, InvocationStart, PendingInvocation,
};
use crate::runtime::invocation_build::create_record;
use crate::runtime::machine::{CommitLedger, ToolCallReport};
use crate::tools::{Args, ToolFailure};

pub(super) async fn delegate(
    d: &Driver,
    inv: &Invocation,
    call: &ToolInvocation,
) -> Result<ToolCallReport, Fault> {
    let checked = match check(d, inv, call).await {
        Ok(checked) => checked,
        Err(failure) => return Ok(refused(call, failure)),
    };
    let Checked {
        selection,
        task,
        model,
    } = checked;
    let target = selection.profile;
    let task_id = TaskId::parse(&new_id(d, "task")).map_err(|e| Fault::of(&e))?;
    let child_id = InvocationId::parse(&new_id(d, "inv")).map_err(|e| Fault::of(&e))?;
    let key = d.board.allocate_key(target.id.as_str());
    let parent = inv.record.id.clone();

    let record = create_record(
        d,
        InvocationIdentity {
            id: child_id.clone(),
            kind: InvocationKind::Subagent,
            parent: Some(parent.clone()),
            task: Some(task_id.clone()),
            profile_id: target.id.to_string(),
            exit_policy: ExitPolicy::TaskReturnRequired,
        },
    )
    .await?;
    let now = d.rec.now();
    let task_record = AgentTaskRecord {
        id: task_id.clone(),
        run_id: d.run_id().clone(),
        parent_invocation_id: parent.clone(),
        child_invocation_id: child_id.clone(),
        target_profile_id: target.id.to_string(),
        workspace_key: key.clone(),
        continuation: TaskContinuation::ReturnToParent,
        status: TaskStatus::Queued,
        task: serde_json::Value::Object(task.clone()),
        budget: None,
        created_by_tool_call_id: Some(call.call_id.clone()),
        result_ref: None,
        error: None,
        created_at: now.clone(),
        updated_at: now,
    };
    let cancel = inv.watch.token().child_token();
    d.board.insert(task_record.clone(), cancel.clone());
    d.register_task(&task_record).await?;
    d.rec
        .emit(RunEvent::AgentDelegateStarted(DelegateStartedPayload {
            task_id: task_id.to_string(),
            parent_invocation_id: parent.to_string(),
            child_invocation_id: child_id.to_string(),
            target_profile_id: target.id.to_string(),
            workspace_key: key,
        }))
        .await?;
    let messages = prompts::child_messages(&target, inv.profile.id.as_str(), &task);
    let pending = PendingInvocation {
        record,
        start: InvocationStart {
            task: Some(task_id.clone()),
            profile: target.clone(),
            presentation: Presentation::Background,
            messages,
            ledger: CommitLedger::new(),
            model,
            watch: inv.watch.with_token(cancel),
        },
    };
    d.journal_task_status(&task_record).await?;
    if !d.board.start(pending) {
        return Err(Fault::new(
            "agent.runtime_fault",
            "the run's scheduler no longer starts children",
        ));
    }
    let wait = BuiltinTool::AgentAwait.model_alias();
    let content = format!(
        "Started delegated task {task_id} with Agent {}. It works in the background: keep \
         working, and call `{wait}` when you need its result (a result you do not await is \
         added to your conversation after it arrives).",
        target.id
    );
    Ok(ToolCallReport::new(AgentToolResult::success(
        call,
        content,
        json!({"taskId": task_id, "status": "queued", "agentId": target.id}),
    )))
}

struct Checked {
    selection: Selection,
    task: serde_json::Map<String, serde_json::Value>,
    model: crate::runtime::facts::RunModel,
}

async fn check(
    d: &Driver,
    inv: &Invocation,
    call: &ToolInvocation,
) -> Result<Checked, ToolFailure> {
    let args = Args::parse(&call.arguments, &["agentId", "task"])?;
    let task = brief::check(args.raw("task"), "task", &["title"])?;
    if !inv.profile.delegation.can_delegate {
        return Err(ToolFailure::recoverable(
            POLICY_DENIED_DELEGATION,
            "Your profile may not delegate tasks to other agents (delegation.canDelegate is \
             false).",
        ));
    }
    let selection = select_target(d, inv, &args, Operation::Delegate).await?;
    let caller = &inv.profile.delegation;
    let mine = d.board.children_of(&inv.record.id);
    let active = mine
        .iter()
        .filter(|t| !t.record.status.is_terminal())
        .count();
    if mine.len() >= caller.max_invocations_per_run as usize {
        return Err(ToolFailure::recoverable(
            BUDGET_EXHAUSTED,
            format!(
                "You already started {} delegated tasks, the most your profile allows in one \
                 run (delegation.maxInvocationsPerRun). Work with the results you have.",
                mine.len()
            ),
        ));
    }
    if active >= caller.max_concurrent_invocations as usize {
        return Err(ToolFailure::recoverable(
            BUDGET_EXHAUSTED,
            format!(
                "{active} of your delegated tasks are still running, the most your profile \
                 allows at once (delegation.maxConcurrentInvocations). Await one first."
            ),
        ));
    }
    let model = bind_model(d, &selection.profile).await?;
    Ok(Checked {
        selection,
        task,
        model,
    })
}
