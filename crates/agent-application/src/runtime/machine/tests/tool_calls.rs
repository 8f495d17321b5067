//! Tool calls one by one: position rule, call ids, arguments, budgets, round limit and
//! faults.

use agent_domain::event::RunFailurePayload;
use agent_domain::tool::AgentToolResult;
use serde_json::{Value, json};

use super::super::*;
use super::support::*;

#[test]
fn a_finishing_call_that_is_not_last_is_refused_and_the_others_run() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![
        tools(vec![
            commit("c0"),
            finish("c1"),
            write("c2", "scratch/plan.md"),
        ]),
        tools(vec![finish("c3")]),
    ]);
    assert_eq!(world.run(&mut machine), Outcome::Completed);
    assert_eq!(
        world.tool_actions(),
        [
            "tool r1 workspace.commit execute",
            "tool r1 workspace.finish reject agent.tool_after_finish",
            "tool r1 workspace.write_file execute",
            "tool r2 workspace.finish execute",
        ]
    );
    let results = &machine.history()[3..6];
    assert_eq!(results[1].tool_results()[0].call_id, "c1");
    let refusal = &results[1].tool_results()[0].content;
    assert!(
        refusal.contains("`workspace_finish` must be the last tool call"),
        "{refusal}"
    );
    // The refused call reserved nothing: commit, write, finish.
    assert_eq!(machine.gate().total_calls(), 3);
}

#[test]
fn run_tool_steps_say_where_the_call_stands() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![tools(vec![commit("c1"), finish("c2")])]);
    world.run(&mut machine);
    let positions: Vec<(usize, usize)> = world
        .steps
        .iter()
        .filter_map(|s| match &s.action {
            Action::RunTool { index, count, .. } => Some((*index, *count)),
            _ => None,
        })
        .collect();
    assert_eq!(positions, [(0, 2), (1, 2)]);
}

#[test]
fn duplicate_or_blank_call_ids_fail_fast() {
    let cases = [
        (
            vec![write("a", "output/x.md"), write("a", "output/y.md")],
            "model.duplicate_tool_call_id",
        ),
        (vec![write(" ", "output/x.md")], "model.invalid_tool_call"),
    ];
    for (calls, code) in cases {
        let mut machine = Fixture::default().machine();
        let mut world = World::turns(vec![tools(calls)]);
        let outcome = world.run(&mut machine);
        assert_eq!(outcome.failure().unwrap().code, code);
        assert!(!outcome.failure().unwrap().user_retryable);
        // model_completed is journaled first; no tool ran.
        assert_eq!(world.event_types().last(), Some(&"model_completed"));
        assert!(world.tool_actions().is_empty());
    }
}

#[test]
fn a_call_id_of_an_earlier_round_cannot_come_back() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![
        tools(vec![write("a", "output/x.md")]),
        tools(vec![commit("a")]),
    ]);
    let outcome = world.run(&mut machine);
    assert_eq!(
        outcome.failure().unwrap().code,
        "model.duplicate_tool_call_id"
    );
    // The auto-publish of round 1 was confirmed, so this is a partial success.
    assert!(matches!(outcome, Outcome::PartialSuccess(_)));
}

#[test]
fn malformed_arguments_reach_the_tool_which_answers_recoverably() {
    let mut machine = Fixture::default().machine();
    let broken = call("c1", WorkspaceWriteFile, json!("{\"path\": \"output/ma"));
    let mut world = World::turns(vec![
        tools(vec![broken.clone()]),
        tools(vec![commit("c2"), finish("c3")]),
    ]);
    assert_eq!(world.run(&mut machine), Outcome::Completed);
    let Action::RunTool {
        call: PlannedCall::Execute { call },
        ..
    } = &world.steps[1].action
    else {
        panic!("the broken call is executed");
    };
    assert_eq!(call.arguments, broken.arguments);
    let result = &machine.history()[3].tool_results()[0];
    assert_eq!(result.error_code.as_deref(), Some("tool.invalid_arguments"));
}

#[test]
fn exhausted_budgets_are_recoverable_refusals_without_execution() {
    let mut machine = Fixture {
        max_calls: 3,
        per_tool: vec![(WorkspaceReadFile, 1)],
        ..Fixture::default()
    }
    .machine();
    let read = |id: &str| call(id, WorkspaceReadFile, json!({"path": "output/main.md"}));
    let mut world = World::turns(vec![
        tools(vec![read("r1"), read("r2")]),
        tools(vec![commit("c1"), finish("c2")]),
        tools(vec![finish("c3")]),
        tools(vec![finish("c4")]),
    ]);
    let outcome = world.run(&mut machine);
    assert_eq!(
        world.tool_actions(),
        [
            "tool r1 workspace.read_file execute",
            "tool r1 workspace.read_file reject agent.tool_budget_exhausted",
            "tool r2 workspace.commit execute",
            "tool r2 workspace.finish execute",
        ]
    );
    assert_eq!(outcome, Outcome::Completed);
    let refusal = &machine.history()[3 + 1].tool_results()[0];
    assert!(refusal.is_error);
    assert!(
        refusal.content.contains("workspace_read_file"),
        "{}",
        refusal.content
    );

    // The whole-invocation budget: once spent, only the exit tool still runs, once.
    let mut machine = Fixture {
        max_calls: 1,
        max_rounds: 3,
        ..Fixture::default()
    }
    .machine();
    let mut world = World::turns(vec![
        tools(vec![commit("c1")]),
        tools(vec![read("r3"), finish("c2")]),
    ]);
    let outcome = world.run(&mut machine);
    assert_eq!(
        world.tool_actions()[1..],
        [
            "tool r2 workspace.read_file reject agent.tool_budget_exhausted",
            "tool r2 workspace.finish execute",
        ]
    );
    assert_eq!(outcome, Outcome::Completed);
}

#[test]
fn tools_every_round_without_an_ending_exceeds_the_rounds() {
    let mut machine = Fixture {
        max_rounds: 2,
        ..Fixture::background()
    }
    .machine();
    let mut world = World::turns(vec![
        tools(vec![write("c1", "scratch/a.md")]),
        tools(vec![write("c2", "scratch/b.md")]),
    ]);
    let Outcome::Failed(failure) = world.run(&mut machine) else {
        panic!("failed expected");
    };
    assert_eq!(failure.code, MAX_TOOL_ROUNDS_EXCEEDED);
    assert!(failure.user_retryable);
    assert_eq!(
        failure.message,
        "workspace.finish or agent.handoff was not called within 2 rounds"
    );
    // The last round is still in the history.
    assert_eq!(machine.history().len(), 6);
}

#[test]
fn a_driver_fault_ends_the_invocation_classified_by_the_ledger() {
    let fault = RunFailurePayload::new("agent.chat_commit_failed", "host said no", false);
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![tools(vec![
        write("c1", "output/main.md"),
        commit("c2"),
    ])]);
    // Stop the world when the commit comes up and fail instead of reporting.
    for _ in 0..3 {
        let step = machine.next_step().unwrap();
        world.steps.push(step.clone());
        match step.action {
            Action::CallModel { .. } => machine
                .on_model_response(world.model.pop_front().unwrap().unwrap(), "r.json")
                .unwrap(),
            Action::RunTool {
                call: PlannedCall::Execute { call },
                ..
            } if call.tool_id == WorkspaceCommit.id() => machine.fail(fault.clone()),
            Action::RunTool {
                call: PlannedCall::Execute { call },
                ..
            } => machine.on_tool_result(default_report(&call)).unwrap(),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(
        machine.next_step().unwrap().action,
        Action::Finish(Outcome::Failed(fault.clone()))
    );
    // A later fault or cancellation does not change the ending.
    machine.fail(RunFailurePayload::new("x.y", "z", false));
    machine.cancel();
    assert_eq!(machine.outcome(), Some(&Outcome::Failed(fault)));
}

#[test]
fn reports_must_answer_their_call() {
    // Another call id.
    let mut machine = Fixture::default().machine();
    let mut world =
        World::turns(vec![tools(vec![write("c1", "output/main.md")])]).with_hook(|call| {
            let mut other = call.clone();
            other.call_id = "zzz".into();
            Some(ToolCallReport::new(AgentToolResult::success(
                &other,
                "ok",
                Value::Null,
            )))
        });
    assert_eq!(
        world.run(&mut machine).failure().unwrap().code,
        RESULT_IDENTITY_MISMATCH
    );

    // A control outcome that does not fit the tool, or a success without its control.
    let hooks: Vec<fn(&agent_domain::tool::ToolInvocation) -> Option<ToolCallReport>> = vec![
        |call| {
            Some(
                ToolCallReport::new(AgentToolResult::success(call, "ok", Value::Null))
                    .with_control(ToolControl::Finished),
            )
        },
        |call| {
            (call.tool_id == WorkspaceCommit.id())
                .then(|| ToolCallReport::new(AgentToolResult::success(call, "ok", Value::Null)))
        },
    ];
    for hook in hooks {
        let mut machine = Fixture::default().machine();
        let mut world = World::turns(vec![tools(vec![commit("c1")])]).with_hook(hook);
        assert_eq!(
            world.run(&mut machine).failure().unwrap().code,
            TOOL_CONTROL_MISMATCH
        );
    }
}

#[test]
fn a_rejected_call_reported_with_an_effect_is_a_fault() {
    let mut machine = Fixture::default().machine();
    machine.next_step().unwrap();
    machine
        .on_model_response(tools(vec![finish("c1"), commit("c2")]), "r.json")
        .unwrap();
    let step = machine.next_step().unwrap();
    let Action::RunTool {
        call: PlannedCall::Reject { result, .. },
        ..
    } = step.action
    else {
        panic!("reject expected");
    };
    machine
        .on_tool_result(ToolCallReport::new(result).with_control(ToolControl::Finished))
        .unwrap();
    assert_eq!(
        machine.outcome().unwrap().failure().unwrap().code,
        TOOL_CONTROL_MISMATCH
    );
}
