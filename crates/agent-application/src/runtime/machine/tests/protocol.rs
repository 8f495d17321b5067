//! Construction, misuse, cancellation, queued messages and resuming from saved state.

use agent_domain::ErrorCode;
use agent_domain::model::AgentModelMessage;
use agent_domain::run::InvocationId;
use agent_domain::tool::AgentToolResult;
use serde_json::Value;

use super::super::*;
use super::support::*;

#[test]
fn construction_checks_its_inputs() {
    let mut setup = Fixture::default().setup();
    setup.max_rounds = 0;
    assert_eq!(
        InvocationMachine::new(setup).unwrap_err(),
        MachineError::MaxRoundsInvalid
    );
    let mut setup = Fixture::default().setup();
    setup.invocation_id = InvocationId::parse("inv_other").unwrap();
    let err = InvocationMachine::new(setup).unwrap_err();
    assert_eq!(err.code(), "tool.turn_snapshot_mismatch");

    let machine = Fixture::default().machine();
    assert_eq!(machine.round(), 0);
    assert_eq!(
        machine.direct_output_path(),
        &path("output/direct_output.md")
    );
    assert_eq!(machine.turn().snapshot_id(), "inv_root");
    assert_eq!(machine.history().len(), 2);
    assert!(machine.outcome().is_none());
}

#[test]
fn direct_output_goes_to_the_root_of_the_message_body() {
    assert_eq!(
        direct_output_path(&path("output/chapters/one.md")),
        path("output/direct_output.md")
    );
    assert_eq!(
        direct_output_path(&path("main.md")),
        path("main.md/direct_output.md")
    );
}

#[test]
fn reports_out_of_turn_are_refused_without_harm() {
    let mut machine = Fixture::default().machine();
    let result = AgentToolResult::success(&commit("c1"), "ok", Value::Null);
    let err = machine
        .on_tool_result(ToolCallReport::new(result.clone()))
        .unwrap_err();
    assert_eq!(err.code(), "agent.runtime_protocol_violation");
    assert!(
        machine
            .on_model_error(&model_error(crate::ports::ModelErrorKind::Transient, None))
            .is_err()
    );
    assert!(
        machine
            .on_auto_publish(AutoPublishReport::Published {
                message_id: "1".into()
            })
            .is_err()
    );

    machine.next_step().unwrap();
    let before = machine.clone();
    let err = machine.next_step().unwrap_err();
    assert_eq!(
        err,
        MachineError::UnexpectedInput {
            phase: "awaiting a model response",
            input: "a step request"
        }
    );
    assert_eq!(machine, before);
    assert!(machine.on_tool_result(ToolCallReport::new(result)).is_err());

    machine
        .on_model_response(tools(vec![commit("c1")]), "r.json")
        .unwrap();
    machine.next_step().unwrap();
    assert!(machine.next_step().is_err());
    assert!(machine.on_model_response(tools(vec![]), "r.json").is_err());
}

#[test]
fn cancel_mid_run() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![
        tools(vec![write("c1", "output/main.md"), commit("c2")]),
        tools(vec![finish("c3")]),
    ]);
    // Cancel right after the first tool call is handed out.
    world.cancel_after = Some(2);
    assert_eq!(world.run(&mut machine), Outcome::Cancelled);
    assert_eq!(
        world.actions,
        [
            "call_model r1 a1",
            "tool r1 workspace.write_file execute",
            "finish cancelled",
        ]
    );
    assert!(!world.event_types().contains(&"agent_loop_finished"));
    // A cancellation after the end changes nothing.
    let mut done = Fixture::default().machine();
    World::turns(vec![tools(vec![commit("c1"), finish("c2")])]).run(&mut done);
    done.cancel();
    assert_eq!(done.outcome(), Some(&Outcome::Completed));
}

#[test]
fn cancel_while_waiting_for_the_model() {
    let mut machine = Fixture::default().machine();
    machine.next_step().unwrap();
    machine.cancel();
    let step = machine.next_step().unwrap();
    assert_eq!(step.action, Action::Finish(Outcome::Cancelled));
}

#[test]
fn queued_messages_join_the_next_request() {
    let mut machine = Fixture::default().machine();
    machine.next_step().unwrap();
    machine.queue_user_message(AgentModelMessage::user(
        "<user_guidance>Shorter.</user_guidance>",
    ));
    machine
        .on_model_response(tools(vec![write("c1", "scratch/a.json")]), "r.json")
        .unwrap();
    let step = machine.next_step().unwrap();
    machine
        .on_tool_result(default_report(step.action_call()))
        .unwrap();
    let Action::CallModel { request, .. } = machine.next_step().unwrap().action else {
        panic!("call expected");
    };
    assert_eq!(
        request
            .messages
            .last()
            .map(AgentModelMessage::text)
            .as_deref(),
        Some("<user_guidance>Shorter.</user_guidance>")
    );
    assert_eq!(
        last_user_text(&machine),
        "<user_guidance>Shorter.</user_guidance>"
    );
}

#[test]
fn a_round_start_is_seen_before_its_request_is_built() {
    let mut machine = Fixture::default().machine();
    assert!(machine.round_starts_next());
    machine.next_step().unwrap();
    machine
        .on_model_response(tools(vec![write("c1", "scratch/a.json")]), "r.json")
        .unwrap();
    // A tool call is due: it is kept and handed out by the next step.
    assert!(!machine.round_starts_next());
    assert!(!machine.round_starts_next());
    let step = machine.next_step().unwrap();
    machine
        .on_tool_result(default_report(step.action_call()))
        .unwrap();
    // Closing the round needs nothing from the driver: the next step starts round 2.
    assert!(machine.round_starts_next());
    let index = machine.next_message_index();
    machine.queue_user_message(AgentModelMessage::user(
        "<user_guidance>\nHi\n</user_guidance>",
    ));
    let Action::CallModel { round, request, .. } = machine.next_step().unwrap().action else {
        panic!("call expected");
    };
    assert_eq!(round, 2);
    assert_eq!(request.messages.len(), index + 1);
    assert_eq!(
        request.messages[index].text(),
        "<user_guidance>\nHi\n</user_guidance>"
    );
}

#[test]
fn a_saved_machine_resumes_where_it_stood() {
    let turns = || {
        vec![
            tools(vec![write("c1", "output/main.md"), commit("c2")]),
            turn("narrating", vec![]),
            tools(vec![finish("c3")]),
        ]
    };
    let mut straight = Fixture::default().machine();
    let mut world = World::turns(turns());
    let expected = world.run(&mut straight);

    // Stop after the second tool call is handed out, save, restore, carry on.
    let mut machine = Fixture::default().machine();
    let mut first = World::turns(turns());
    first.cancel_after = None;
    let mut model = first.model.clone();
    let mut actions = Vec::new();
    loop {
        let step = machine.next_step().unwrap();
        actions.push(summary(&step.action));
        match step.action {
            Action::CallModel { .. } => machine
                .on_model_response(model.pop_front().unwrap().unwrap(), "r.json")
                .unwrap(),
            Action::RunTool {
                call: PlannedCall::Execute { call },
                index: 1,
                ..
            } => {
                let saved = serde_json::to_string(&machine).unwrap();
                machine = serde_json::from_str(&saved).unwrap();
                machine.on_tool_result(default_report(&call)).unwrap();
                break;
            }
            Action::RunTool {
                call: PlannedCall::Execute { call },
                ..
            } => machine.on_tool_result(default_report(&call)).unwrap(),
            other => panic!("unexpected {other:?}"),
        }
    }
    let mut rest = World::new(model.into_iter().collect());
    assert_eq!(rest.run(&mut machine), expected);
    actions.extend(rest.actions);
    assert_eq!(actions, world.actions);
    assert_eq!(machine.history(), straight.history());
    assert_eq!(machine.ledger(), straight.ledger());
}

impl Step {
    /// The call of a `RunTool` step (tests only).
    fn action_call(&self) -> &agent_domain::tool::ToolInvocation {
        match &self.action {
            Action::RunTool { call, .. } => call.call(),
            other => panic!("not a tool step: {other:?}"),
        }
    }
}
