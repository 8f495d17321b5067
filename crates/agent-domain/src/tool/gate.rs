//! The per-invocation request gate: checks a decoded call against the snapshot and the
//! turn, then reserves budget, in one step.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{InvocationToolSnapshot, ToolErrorClass, ToolId, ToolTurnContract};
use crate::error::ErrorCode;

/// Calls made so far by one invocation. Serialisable so a run can later resume with its
/// budgets intact. Rejected calls reserve nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRequestGate {
    total_calls: u32,
    calls_per_tool: BTreeMap<ToolId, u32>,
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
        if self.total_calls >= max_total {
            return Err(GateRejection::InvocationBudgetExhausted { max: max_total });
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
    #[error("You have used all {max} tool calls this task allows. Finish with what you have.")]
    InvocationBudgetExhausted { max: u32 },
    #[error(
        "You have used all {max} calls of `{alias}` this task allows. Use another tool or finish."
    )]
    ToolBudgetExhausted { alias: String, max: u32 },
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
    use crate::tool::fixtures::{compile, id, policy, snapshot};
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
        let total = gate
            .admit(&snap, &turn, &id("workspace.finish"))
            .unwrap_err();
        assert!(matches!(
            total,
            GateRejection::InvocationBudgetExhausted { max: 3 }
        ));
        assert_eq!(total.class(), ToolErrorClass::Recoverable);
        assert_eq!(gate.total_calls(), 3);
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
            serde_json::json!({"totalCalls": 1, "callsPerTool": {"builtin:workspace.read_file": 1}})
        );
        let back: ToolRequestGate = serde_json::from_value(json).unwrap();
        assert_eq!(back, gate);
    }
}
