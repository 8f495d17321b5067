//! `delegation` and `run` rules: who this profile may call, who may call it, and how it
//! may be started.

use super::super::schema::{DelegationPolicy, RunBlock};
use super::super::{ProfileError, ProfileId};
use super::CheckedTools;
use super::header::is_blank;
use crate::event::Presentation;
use crate::tool::BuiltinTool;

pub(super) fn check_delegation(
    delegation: &DelegationPolicy,
    tools: &CheckedTools,
) -> Result<(), ProfileError> {
    if delegation.max_concurrent_invocations == 0 {
        return Err(ProfileError::DelegationConcurrencyInvalid);
    }
    if delegation.max_invocations_per_run == 0 {
        return Err(ProfileError::DelegationRunBudgetInvalid);
    }
    if delegation.result_budget_tokens == 0 {
        return Err(ProfileError::DelegationResultBudgetInvalid);
    }
    if delegation.max_handoff_depth == 0 {
        return Err(ProfileError::HandoffDepthInvalid);
    }
    if delegation.allowed_callers.is_empty() {
        return Err(ProfileError::DelegationCallersEmpty);
    }
    for (index, caller) in delegation.allowed_callers.iter().enumerate() {
        if caller != "*" {
            ProfileId::parse_field(caller, &format!("delegation.allowedCallers[{index}]"))?;
        }
    }
    if delegation
        .description_for_agents
        .as_deref()
        .is_some_and(is_blank)
    {
        return Err(ProfileError::DelegationDescriptionEmpty);
    }
    if !delegation.callable {
        if delegation.allow_as_subagent {
            return Err(ProfileError::DelegationCallableRequired {
                field: "allowAsSubagent",
            });
        }
        if delegation.allow_as_handoff_target {
            return Err(ProfileError::DelegationCallableRequired {
                field: "allowAsHandoffTarget",
            });
        }
    } else if !delegation.allow_as_subagent && !delegation.allow_as_handoff_target {
        return Err(ProfileError::DelegationTargetModeRequired);
    }
    if tools.is_builtin_visible(BuiltinTool::AgentList)
        && !delegation.can_delegate
        && !delegation.can_handoff
    {
        return Err(ProfileError::AgentListRequiresDelegation);
    }
    for tool in [BuiltinTool::AgentDelegate, BuiltinTool::AgentAwait] {
        if tools.is_builtin_visible(tool) && !delegation.can_delegate {
            return Err(ProfileError::AgentDelegateRequiresDelegation {
                tool: tool.native_name(),
            });
        }
    }
    if tools.is_builtin_visible(BuiltinTool::AgentHandoff) && !delegation.can_handoff {
        return Err(ProfileError::AgentHandoffRequiresHandoff);
    }
    if tools.allow.contains(&BuiltinTool::TaskReturn.id()) {
        return Err(ProfileError::TaskReturnRuntimeOnly);
    }
    Ok(())
}

/// A directly runnable profile must be able to end its run (and, in the foreground,
/// publish its reply); any other profile must be reachable from another agent.
pub(super) fn check_run(
    run: &RunBlock,
    delegation: &DelegationPolicy,
    tools: &CheckedTools,
) -> Result<(), ProfileError> {
    let retry = run.model_retry;
    if retry.max_retries > 0 && retry.interval_ms == 0 {
        return Err(ProfileError::ModelRetryInvalid {
            max_retries: retry.max_retries,
        });
    }
    let foreground = run.presentation == Presentation::Foreground;
    if !run.direct_runnable {
        if foreground && !delegation.allow_as_handoff_target {
            return Err(ProfileError::SubagentOnlyBackgroundRequired);
        }
        let reachable = delegation.callable
            && (delegation.allow_as_subagent || delegation.allow_as_handoff_target);
        if !reachable {
            return Err(ProfileError::DirectRunnableDisabledRequiresDelegationTarget);
        }
        return Ok(());
    }
    if !tools.is_builtin_visible(BuiltinTool::WorkspaceFinish) {
        return Err(ProfileError::FinishRequired);
    }
    if foreground && !tools.is_builtin_visible(BuiltinTool::WorkspaceCommit) {
        return Err(ProfileError::CommitRequired);
    }
    Ok(())
}
