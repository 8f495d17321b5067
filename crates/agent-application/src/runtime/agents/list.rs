//! `agent.list`: the agents this invocation may call, read-only.

use agent_domain::tool::{AgentToolResult, ToolInvocation};
use serde_json::json;

use super::{POLICY_DENIED_DELEGATION, refused};
use crate::runtime::candidates::{Candidate, Operation, candidates};
use crate::runtime::driver::Driver;
use crate::runtime::invocation::Invocation;
use crate::runtime::machine::ToolCallReport;
use crate::tools::{Args, ToolFailure};

const DEFAULT_LIMIT: u64 = 8;
const MAX_LIMIT: u64 = 20;

pub(super) async fn list(d: &Driver, inv: &Invocation, call: &ToolInvocation) -> ToolCallReport {
    match run(d, inv, call).await {
        Ok(result) => ToolCallReport::new(result),
        Err(failure) => refused(call, failure),
    }
}

async fn run(
    d: &Driver,
    inv: &Invocation,
    call: &ToolInvocation,
) -> Result<AgentToolResult, ToolFailure> {
    let args = Args::parse(&call.arguments, &["purpose", "query", "limit"])?;
    let purpose = match args.optional_str("purpose")?.as_deref().map(str::trim) {
        None | Some("" | "any") => None,
        Some("delegate") => Some(Operation::Delegate),
        Some("handoff") => Some(Operation::Handoff),
        Some(other) => {
            return Err(crate::tools::invalid(format!(
                "`purpose` must be any, delegate or handoff, not `{other}`"
            )));
        }
    };
    let query = args
        .optional_str("query")?
        .map(|q| q.trim().to_lowercase())
        .filter(|q| !q.is_empty());
    let limit = args
        .optional_u64("limit", 1, MAX_LIMIT)?
        .unwrap_or(DEFAULT_LIMIT);
    let caller = &inv.profile.delegation;
    let allowed = match purpose {
        Some(Operation::Delegate) => caller.can_delegate,
        Some(Operation::Handoff) => caller.can_handoff,
        None => caller.can_delegate || caller.can_handoff,
    };
    if !allowed {
        return Err(ToolFailure::recoverable(
            POLICY_DENIED_DELEGATION,
            format!(
                "Your profile may not {} other agents.",
                purpose.map_or("call", |op| match op {
                    Operation::Delegate => "delegate to",
                    Operation::Handoff => "hand off to",
                })
            ),
        ));
    }
    let mut agents: Vec<Candidate> = candidates(&d.ports().profiles, &inv.profile)
        .await
        .into_iter()
        .filter(|c| purpose.is_none_or(|op| c.can(op)))
        .filter(|c| query.as_deref().is_none_or(|q| matches(c, q)))
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
        .collect();
    agents.sort_by(|a, b| a.profile.id.cmp(&b.profile.id));
    let purpose_name = purpose.map_or("any", Operation::name);
    let content = if agents.is_empty() {
        format!("No callable Agents match purpose {purpose_name}.")
    } else {
        let mut lines: Vec<String> = agents
            .iter()
            .map(|c| {
                let ops: Vec<&str> = c.operations.iter().map(|op| op.name()).collect();
                let mut line = format!("- {} ({})", c.profile.id, ops.join(", "));
                if !c.description().trim().is_empty() {
                    line.push_str(&format!(": {}", c.description().trim()));
                }
                line
            })
            .collect();
        lines.push("This is a read-only list; no Agent was started.".to_owned());
        lines.join("\n")
    };
    let structured = json!({
        "purpose": purpose_name,
        "agents": agents.iter().map(|c| {
            let delegation = &c.profile.delegation;
            json!({
                "profileId": c.profile.id,
                "displayName": c.profile.display_name,
                "description": c.description(),
                "operations": c.operations.iter().map(|op| op.name()).collect::<Vec<_>>(),
                "resultBudgetTokens": delegation.result_budget_tokens,
                "maxInvocationsPerRun": delegation.max_invocations_per_run,
                "maxConcurrentInvocations": delegation.max_concurrent_invocations,
                "maxHandoffDepth": delegation.max_handoff_depth,
            })
        }).collect::<Vec<_>>(),
    });
    Ok(AgentToolResult::success(call, content, structured))
}

/// Case-insensitive substring over id, display name and description.
fn matches(candidate: &Candidate, query: &str) -> bool {
    let profile = &candidate.profile;
    [
        profile.id.as_str(),
        profile.display_name.as_str(),
        profile.description.as_deref().unwrap_or(""),
    ]
    .iter()
    .any(|field| field.to_lowercase().contains(query))
}
