//! The per-invocation request gate: checks a decoded call against the snapshot and the
//! turn, then reserves budget, in one step.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{InvocationToolSnapshot, ToolErrorClass, ToolId, ToolTurnContract};
use crate::error::ErrorCode;

/// Calls made so far by one invocation. Serialisable so a run can later resume with its
/// budgets intact. Rejected calls reserve nothing.
///
/// A spent total budget never strands an invocation: its exit tool (`workspace.finish`,
/// or `task.return` for a child) is admitted once more after the budget is spent, and the
/// exhaustion message names it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRequestGate {
    total_calls: u32,
    calls_per_tool: BTreeMap<ToolId, u32>,
    /// The exit tool's one call past the spent total budget was made.
    #[serde(default)]
    exit_grace_used: bool,
}

impl ToolRequestGate {
    pub fn new() -> Self {
        Self::default()
    }

    /// Calls reserved so far, across all tools.
    pub fn total_calls(&self) -> u32 {
        self.total_calls
    }

    /// Calls reserved so far for one tool.
    pub fn calls_of(&self, id: &ToolId) -> u32 {
        self.calls_per_tool.get(id).copied().unwrap_or(0)
    }

    /// Admits one call of `tool` in `turn`, reserving one unit of the total and per-tool
    /// budgets, or says why not. Exclusive `&mut` access makes check-and-reserve atomic.
    pub fn admit(
        &mut self,
        snapshot: &InvocationToolSnapshot,
        turn: &ToolTurnContract,
        tool: &ToolId,
    ) -> Result<(), GateRejection> {
        if turn.snapshot_id() != snapshot.id() {
            return Err(GateRejection::SnapshotMismatch {
                turn: turn.snapshot_id().to_owned(),
                snapshot: snapshot.id().to_owned(),
            });
        }
        let Some(binding) = snapshot.binding(tool) else {
            return Err(GateRejection::NotInSnapshot(tool.clone()));
        };
        let choice_allows = match turn.choice() {
            super::ToolChoice::None => false,
            super::ToolChoice::Specific(only) => only == tool,
            super::ToolChoice::Auto | super::ToolChoice::Required => true,
        };
        if !turn.contains(tool) || !choice_allows {
            return Err(GateRejection::NotInTurn(tool.clone()));
        }
        let max_total = snapshot.max_calls_per_invocation();
        let exit = snapshot.exit_policy().exit_tool().id();
        let grace = self.total_calls >= max_total;
        if grace && (*tool != exit || self.exit_grace_used) {
            let exit_alias = (!self.exit_grace_used)
                .then(|| snapshot.binding(&exit))
                .flatten()
                .map(|binding| binding.model_alias.clone());
            return Err(GateRejection::InvocationBudgetExhausted {
                max: max_total,
                exit_alias,
            });
        }
        let used = self.calls_of(tool);
        if let Some(max) = binding.max_calls.filter(|max| used >= *max) {
            return Err(GateRejection::ToolBudgetExhausted {
                alias: binding.model_alias.clone(),
                max,
            });
        }
        self.total_calls += 1;
        self.calls_per_tool.insert(tool.clone(), used + 1);
        self.exit_grace_used |= grace;
        Ok(())
    }
}

/// Why the gate refused a call. The message is written for the model; the class says
/// whether the run goes on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GateRejection {
    #[error("internal error: the turn belongs to snapshot `{turn}`, not `{snapshot}`")]
    SnapshotMismatch { turn: String, snapshot: String },
    #[error("Tool `{0}` is not available to you in this task.")]
    NotInSnapshot(ToolId),
    #[error("Tool `{0}` may not be called in this turn.")]
    NotInTurn(ToolId),
    #[error("{}", budget_message(*max, exit_alias.as_deref()))]
    InvocationBudgetExhausted {
        max: u32,
        /// The exit tool, while its one call past the budget is still open.
        exit_alias: Option<String>,
    },
    #[error(
        "You have used all {max} calls of `{alias}` this task allows. Use another tool or finish."
    )]
    ToolBudgetExhausted { alias: String, max: u32 },
}

/// What the model can still do once every call of the task is spent.
fn budget_message(max: u32, exit_alias: Option<&str>) -> String {
    match exit_alias {
        Some(alias) => format!(
            "You have used all {max} tool calls this task allows. Only `{alias}` can still \
             run, once: call it now to end your part with what you have."
        ),
        None => format!(
            "You have used all {max} tool calls this task allows, including the one call \
             allowed after that to end it. No tool can run any more; reply with text only."
        ),
    }
}

impl GateRejection {
    /// Budget exhaustion is recoverable, visibility is a policy denial the model can read,
    /// and a snapshot mismatch is a runtime fault.
    pub fn class(&self) -> ToolErrorClass {
        match self {
            Self::SnapshotMismatch { .. } => ToolErrorClass::SystemFailure,
            Self::NotInSnapshot(_) | Self::NotInTurn(_) => ToolErrorClass::PolicyDenied,
            Self::InvocationBudgetExhausted { .. } | Self::ToolBudgetExhausted { .. } => {
                ToolErrorClass::Recoverable
            }
        }
    }
}

impl ErrorCode for GateRejection {
    fn code(&self) -> &'static str {
        match self {
            Self::SnapshotMismatch { .. } => "tool.turn_snapshot_mismatch",
            Self::NotInSnapshot(_) => "agent.tool_policy_denied",
            Self::NotInTurn(_) => "model.tool_choice_violation",
            Self::InvocationBudgetExhausted { .. } | Self::ToolBudgetExhausted { .. } => {
                "agent.tool_budget_exhausted"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::tool::test_support::{compile, id, policy, snapshot};
    use crate::tool::{ExitPolicy, ToolChoice};

    #[test]
    fn reserves_total_and_per_tool_budgets() {
        let mut p = policy(&[
            "workspace.read_file",
            "workspace.write_file",
            "workspace.finish",
        ]);
        p.max_calls_per_invocation = 3;
        p.max_calls_per_tool = BTreeMap::from([(id("workspace.read_file"), 2)]);
        let snap = compile(&p, ExitPolicy::RunFinishAllowed, &BTreeMap::new())
            .unwrap()
            .snapshot;
        let turn = ToolTurnContract::all(&snap, ToolChoice::Auto).unwrap();
        let mut gate = ToolRequestGate::new();
        let read = id("workspace.read_file");
        gate.admit(&snap, &turn, &read).unwrap();
        gate.admit(&snap, &turn, &read).unwrap();
        let err = gate.admit(&snap, &turn, &read).unwrap_err();
        assert_eq!(err.code(), "agent.tool_budget_exhausted");
        assert_eq!(err.class(), ToolErrorClass::Recoverable);
        assert!(err.to_string().contains("workspace_read_file"));
        assert_eq!(gate.calls_of(&read), 2);
        gate.admit(&snap, &turn, &id("workspace.write_file"))
            .unwrap();
        let total = gate.admit(&snap, &turn, &read).unwrap_err();
        assert_eq!(
            total,
            GateRejection::InvocationBudgetExhausted {
                max: 3,
                exit_alias: Some("workspace_finish".into())
            }
        );
        assert!(
            total
                .to_string()
                .contains("Only `workspace_finish` can still run")
        );
        assert_eq!(total.class(), ToolErrorClass::Recoverable);
        assert_eq!(gate.total_calls(), 3);
    }

    #[test]
    fn the_exit_tool_runs_once_after_the_budget_is_spent() {
        let mut p = policy(&["workspace.read_file", "workspace.finish"]);
        p.max_calls_per_invocation = 1;
        let snap = compile(&p, ExitPolicy::RunFinishAllowed, &BTreeMap::new())
            .unwrap()
            .snapshot;
        let turn = ToolTurnContract::all(&snap, ToolChoice::Auto).unwrap();
        let mut gate = ToolRequestGate::new();
        let finish = id("workspace.finish");
        gate.admit(&snap, &turn, &id("workspace.read_file"))
            .unwrap();
        gate.admit(&snap, &turn, &finish).unwrap();
        let again = gate.admit(&snap, &turn, &finish).unwrap_err();
        assert_eq!(
            again,
            GateRejection::InvocationBudgetExhausted {
                max: 1,
                exit_alias: None
            }
        );
        assert!(again.to_string().contains("No tool can run any more"));
        assert_eq!(gate.total_calls(), 2);
    }

    #[test]
    fn a_child_keeps_task_return_after_its_budget() {
        let mut p = policy(&["workspace.read_file"]);
        p.max_calls_per_invocation = 1;
        let snap = compile(&p, ExitPolicy::TaskReturnRequired, &BTreeMap::new())
            .unwrap()
            .snapshot;
        let turn = ToolTurnContract::all(&snap, ToolChoice::Auto).unwrap();
        let mut gate = ToolRequestGate::new();
        let read = id("workspace.read_file");
        gate.admit(&snap, &turn, &read).unwrap();
        let refused = gate.admit(&snap, &turn, &read).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("Only `task_return` can still run")
        );
        gate.admit(&snap, &turn, &id("task.return")).unwrap();
    }

    #[test]
    fn rejections_reserve_nothing() {
        let snap = snapshot(&["workspace.read_file"]);
        let turn = ToolTurnContract::all(&snap, ToolChoice::Auto).unwrap();
        let mut gate = ToolRequestGate::new();
        let err = gate
            .admit(&snap, &turn, &id("workspace.write_file"))
            .unwrap_err();
        assert_eq!(err.code(), "agent.tool_policy_denied");
        assert_eq!(err.class(), ToolErrorClass::PolicyDenied);
        assert_eq!(gate, ToolRequestGate::new());
    }

    #[test]
    fn choice_and_turn_membership() {
        let snap = snapshot(&["workspace.read_file", "workspace.finish"]);
        let read = id("workspace.read_file");
        let mut gate = ToolRequestGate::new();
        let none = ToolTurnContract::all(&snap, ToolChoice::None).unwrap();
        assert_eq!(
            gate.admit(&snap, &none, &read).unwrap_err().code(),
            "model.tool_choice_violation"
        );
        let only_finish =
            ToolTurnContract::all(&snap, ToolChoice::Specific(id("workspace.finish"))).unwrap();
        assert_eq!(
            gate.admit(&snap, &only_finish, &read).unwrap_err().code(),
            "model.tool_choice_violation"
        );
        gate.admit(&snap, &only_finish, &id("workspace.finish"))
            .unwrap();
        let required = ToolTurnContract::all(&snap, ToolChoice::Required).unwrap();
        gate.admit(&snap, &required, &read).unwrap();
    }

    #[test]
    fn a_turn_of_another_snapshot_is_a_system_failure() {
        let a = snapshot(&["workspace.read_file"]);
        let turn = ToolTurnContract::all(&a, ToolChoice::Auto).unwrap();
        let b = crate::tool::InvocationToolSnapshot::new(
            "inv_b".into(),
            ExitPolicy::RunFinishAllowed,
            a.bindings().to_vec(),
            5,
            1,
        )
        .unwrap();
        let err = ToolRequestGate::new()
            .admit(&b, &turn, &id("workspace.read_file"))
            .unwrap_err();
        assert_eq!(err.code(), "tool.turn_snapshot_mismatch");
        assert_eq!(err.class(), ToolErrorClass::SystemFailure);
    }

    #[test]
    fn gate_state_round_trips() {
        let snap = snapshot(&["workspace.read_file"]);
        let turn = ToolTurnContract::all(&snap, ToolChoice::Auto).unwrap();
        let mut gate = ToolRequestGate::new();
        gate.admit(&snap, &turn, &id("workspace.read_file"))
            .unwrap();
        let json = serde_json::to_value(&gate).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "totalCalls": 1,
                "callsPerTool": {"builtin:workspace.read_file": 1},
                "exitGraceUsed": false
            })
        );
        let back: ToolRequestGate = serde_json::from_value(json).unwrap();
        assert_eq!(back, gate);
        // A state saved before the exit grace existed still reads.
        let old = serde_json::json!({"totalCalls": 1, "callsPerTool": {}});
        assert!(serde_json::from_value::<ToolRequestGate>(old).is_ok());
    }
}
