//! The agents an invocation may call (TauriTavern's delegation policy): a target must be
//! callable, accept the caller (`allowedCallers`), have a model, and allow the operation
//! (`allowAsSubagent` for delegate, `allowAsHandoffTarget` for handoff) that the caller
//! itself may perform (`canDelegate`, `canHandoff`). Profiles that do not resolve are
//! skipped. The list feeds `agent.list`, the "Available agents:" lines of the system prompt
//! and every selection error.

use std::sync::Arc;

use agent_domain::profile::ResolvedAgentProfile;

use crate::ports::ProfileStore;
use crate::profiles::ProfileService;

/// What the caller may do with a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Operation {
    Delegate,
    Handoff,
}

impl Operation {
    pub fn name(self) -> &'static str {
        match self {
            Self::Delegate => "delegate",
            Self::Handoff => "handoff",
        }
    }
}

/// One callable agent.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    pub profile: ResolvedAgentProfile,
    pub operations: Vec<Operation>,
}

impl Candidate {
    /// `descriptionForAgents`, else the description, else nothing.
    pub fn description(&self) -> &str {
        self.profile
            .delegation
            .description_for_agents
            .as_deref()
            .or(self.profile.description.as_deref())
            .unwrap_or("")
    }

    pub fn can(&self, operation: Operation) -> bool {
        self.operations.contains(&operation)
    }
}

/// The operations `caller` may perform on `target`.
pub(super) fn operations(
    caller: &ResolvedAgentProfile,
    target: &ResolvedAgentProfile,
) -> Vec<Operation> {
    let mut operations = Vec::new();
    if caller.delegation.can_delegate && target.accepts_subagent_call_from(&caller.id) {
        operations.push(Operation::Delegate);
    }
    if caller.delegation.can_handoff && target.accepts_handoff_from(&caller.id) {
        operations.push(Operation::Handoff);
    }
    operations
}

/// Every agent `caller` may call, in the profile listing's order (`default-writer`
/// first, then by id). The caller itself is not excluded.
pub(super) async fn candidates(
    profiles: &Arc<dyn ProfileStore>,
    caller: &ResolvedAgentProfile,
) -> Vec<Candidate> {
    if !caller.delegation.can_delegate && !caller.delegation.can_handoff {
        return Vec::new();
    }
    let service = ProfileService::new(Arc::clone(profiles));
    let Ok(listings) = service.list().await else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for listing in listings {
        let Ok(profile) = service.resolve(Some(listing.id())).await else {
            continue;
        };
        let operations = operations(caller, &profile);
        if !operations.is_empty() {
            found.push(Candidate {
                profile,
                operations,
            });
        }
    }
    found
}

/// The "Available agents:" block: one line per candidate that allows one of `only` (all
/// operations when empty), or `None.`.
pub(super) fn available_agents(candidates: &[Candidate], only: &[Operation]) -> String {
    let mut text = String::from("Available agents:");
    let mut any = false;
    for candidate in candidates {
        let operations: Vec<&str> = candidate
            .operations
            .iter()
            .filter(|op| only.is_empty() || only.contains(op))
            .map(|op| op.name())
            .collect();
        if operations.is_empty() {
            continue;
        }
        any = true;
        text.push_str(&format!(
            "\n- {} [{}]",
            candidate.profile.id,
            operations.join(", ")
        ));
        let description = candidate.description().trim();
        if !description.is_empty() {
            text.push_str(&format!(": {description}"));
        }
    }
    if !any {
        text.push_str("\nNone.");
    }
    text
}
