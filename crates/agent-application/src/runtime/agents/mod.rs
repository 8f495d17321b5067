//! The multi-agent tools the runtime runs itself: `agent.list`, `agent.delegate`,
//! `agent.await`, `agent.handoff` and `task.return` (`docs/spec-map.md`, Delegation tools; TauriTavern's checks
//! and codes). They read and change the run's [`TaskBoard`](super::tasks::TaskBoard) and
//! create invocations; children run in the run's scheduler (`drive`), handoff targets take
//! over when their source stops.

mod await_tasks;
mod brief;
mod delegate;
mod handoff;
mod list;
mod prompts;
pub(super) mod results;
mod task_return;

use agent_domain::ErrorCode;
use agent_domain::profile::{ProfileId, ResolvedAgentProfile};
use agent_domain::tool::{BuiltinTool, ToolInvocation};

use super::candidates::{Operation, available_agents, candidates};
use super::driver::Driver;
use super::facts::RunModel;
use super::fault::Fault;
use super::invocation::Invocation;
use super::machine::ToolCallReport;
use crate::profiles::ProfileService;
use crate::tools::{Args, ToolFailure, invalid};

/// The caller may not delegate (or list delegation targets), or the target refuses it.
pub(super) const POLICY_DENIED_DELEGATION: &str = "agent.delegation_policy_denied";
/// The caller may not hand off, or the target refuses it.
pub(super) const POLICY_DENIED_HANDOFF: &str = "agent.handoff_policy_denied";
/// No profile has that id.
const TARGET_NOT_FOUND: &str = "agent.target_profile_not_found";
/// The caller's delegation limits are reached.
pub(super) const BUDGET_EXHAUSTED: &str = "agent.delegation_budget_exhausted";

/// Runs one of the multi-agent tools.
pub(super) async fn execute(
    d: &Driver,
    inv: &mut Invocation,
    call: &ToolInvocation,
    tool: BuiltinTool,
) -> Result<ToolCallReport, Fault> {
    match tool {
        BuiltinTool::AgentList => Ok(list::list(d, inv, call).await),
        BuiltinTool::AgentDelegate => delegate::delegate(d, inv, call).await,
        BuiltinTool::AgentAwait => await_tasks::await_tasks(d, inv, call).await,
        BuiltinTool::AgentHandoff => handoff::handoff(d, inv, call).await,
        BuiltinTool::TaskReturn => task_return::task_return(d, inv, call).await,
        other => Err(Fault::new(
            "tool.dispatch_handler_missing",
            format!("`{}` is not a multi-agent tool", other.native_name()),
        )),
    }
}

/// A refusal the model reads.
fn refused(call: &ToolInvocation, failure: ToolFailure) -> ToolCallReport {
    ToolCallReport::new(failure.into_error_result(call))
}

fn new_id(d: &Driver, prefix: &str) -> String {
    d.ports().new_id(prefix)
}

/// A target that passed every check.
struct Selection {
    profile: ResolvedAgentProfile,
}

/// Finds `agentId` and checks it accepts `operation` from this caller. Every refusal ends
/// with the caller's current "Available agents:" list.
async fn select_target(
    d: &Driver,
    inv: &Invocation,
    args: &Args,
    operation: Operation,
) -> Result<Selection, ToolFailure> {
    let raw = args.required_str("agentId")?;
    let id = ProfileId::parse(&raw)
        .map_err(|e| invalid(format!("`agentId` is not a profile id: {e}")))?;
    let denied = match operation {
        Operation::Delegate => POLICY_DENIED_DELEGATION,
        Operation::Handoff => POLICY_DENIED_HANDOFF,
    };
    let refusal = |code: String, message: String| async move {
        let listed = candidates(&d.ports().profiles, &inv.profile).await;
        ToolFailure::recoverable(
            code,
            format!("{message}\n\n{}", available_agents(&listed, &[operation])),
        )
    };
    let service = ProfileService::new(std::sync::Arc::clone(&d.ports().profiles));
    let target = match service.resolve(Some(id.as_str())).await {
        Ok(target) => target,
        Err(error) if error.is_not_found() => {
            return Err(refusal(
                TARGET_NOT_FOUND.to_owned(),
                format!("No agent has the id `{id}`."),
            )
            .await);
        }
        Err(error) => {
            return Err(refusal(
                error.code().to_owned(),
                format!("Agent `{id}` cannot be used: {error}"),
            )
            .await);
        }
    };
    if let Some((reason, why)) = target_problem(&inv.profile, &target, operation) {
        return Err(refusal(denied.to_owned(), format!("Agent `{id}` {why} ({reason}).")).await);
    }
    Ok(Selection { profile: target })
}

/// Why `target` refuses `operation` from `caller`: the facts' sub-code and its wording.
fn target_problem(
    caller: &ResolvedAgentProfile,
    target: &ResolvedAgentProfile,
    operation: Operation,
) -> Option<(&'static str, &'static str)> {
    let policy = &target.delegation;
    if !policy.callable {
        return Some((
            "agent.target_not_callable",
            "cannot be called by other agents",
        ));
    }
    match operation {
        Operation::Delegate if !policy.allow_as_subagent => {
            return Some(("agent.target_not_subagent", "does not take delegated tasks"));
        }
        Operation::Handoff if !policy.allow_as_handoff_target => {
            return Some(("agent.target_not_handoff", "does not take handoffs"));
        }
        _ => {}
    }
    if !policy.allows_caller(&caller.id) {
        return Some((
            "agent.target_caller_denied",
            "does not accept calls from your profile",
        ));
    }
    if target.ensure_model_configured().is_err() {
        return Some((
            "agent.profile_model_requires_configuration",
            "has no model configured on this machine",
        ));
    }
    None
}

/// The model `profile`'s invocations call: its own (through the host's binder) or the
/// run's.
async fn bind_model(d: &Driver, profile: &ResolvedAgentProfile) -> Result<RunModel, ToolFailure> {
    if let Some(binder) = &d.facts.models {
        match binder.bind(profile).await {
            Ok(Some(model)) => return Ok(model),
            Ok(None) => {}
            Err(error) => {
                return Err(ToolFailure::recoverable(
                    error.code,
                    format!("Agent `{}` cannot start: {}", profile.id, error.message),
                ));
            }
        }
    }
    Ok(d.facts.run_model())
}
