//! Text-only turns: capture, remind, and fail at the round limit.

use agent_domain::event::RunEvent;
use serde_json::json;

use super::super::*;
use super::support::*;

#[test]
fn drift_is_captured_reminded_and_recovered() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![
        turn("Here is the reply, as plain text.", vec![]),
        tools(vec![
            write("c1", "output/main.md"),
            commit("c2"),
            finish("c3"),
        ]),
    ]);
    assert_eq!(world.run(&mut machine), Outcome::Completed);
    assert_eq!(
        world.actions[..3],
        [
            "call_model r1 a1",
            "capture r1 output/direct_output.md",
            "call_model r2 a1",
        ]
    );
    let Action::CaptureDirectOutput { text, .. } = &world.steps[1].action else {
        panic!("capture expected");
    };
    assert_eq!(text, "Here is the reply, as plain text.");
    // model_completed comes with the capture; drift_recovery_attempted after it, before
    // the next request.
    let types: Vec<_> = world.steps[2]
        .events
        .iter()
        .map(RunEvent::event_type)
        .collect();
    assert_eq!(
        types,
        [
            "drift_recovery_attempted",
            "model_request_created",
            "model_call_attempt_started",
        ]
    );
    let RunEvent::DriftRecoveryAttempted(drift) = &world.steps[2].events[0] else {
        panic!("drift event expected");
    };
    assert_eq!(
        serde_json::to_value(drift).unwrap(),
        json!({
            "round": 1, "invocationId": "inv_root", "attempt": 1, "maxAttempts": 7,
            "maxRounds": 8, "limitReason": "max_rounds", "committedCount": 0,
            "reasonCode": "model.tool_call_required"
        })
    );
    // The history keeps the text turn and a reminder naming this invocation's tools.
    let history = machine.history();
    assert_eq!(history[2].text(), "Here is the reply, as plain text.");
    let reminder = history[3].text();
    assert!(reminder.contains("`output/direct_output.md`"), "{reminder}");
    assert!(reminder.contains("`workspace_commit`"), "{reminder}");
    assert!(reminder.contains("`workspace_finish`"), "{reminder}");
}

#[test]
fn a_blank_turn_is_not_captured() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![
        turn("   ", vec![]),
        tools(vec![commit("c1"), finish("c2")]),
    ]);
    assert_eq!(world.run(&mut machine), Outcome::Completed);
    assert!(!world.actions.iter().any(|a| a.starts_with("capture")));
    // No empty assistant message in the history, only the reminder.
    let reminder = &machine.history()[2];
    assert_eq!(reminder.role, agent_domain::model::ModelRole::User);
    assert!(!reminder.text().contains("saved"), "{}", reminder.text());
}

#[test]
fn the_reminder_knows_about_an_earlier_commit() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![
        tools(vec![write("c1", "output/main.md"), commit("c2")]),
        turn("Done!", vec![]),
        tools(vec![finish("c3")]),
    ]);
    assert_eq!(world.run(&mut machine), Outcome::Completed);
    let reminder = machine.history()[6].text();
    assert!(reminder.contains("already in the chat"), "{reminder}");
    let committed = world
        .events()
        .find_map(|e| match e {
            RunEvent::DriftRecoveryAttempted(p) => Some(p.committed_count),
            _ => None,
        })
        .unwrap();
    assert_eq!(committed, 1);
}

#[test]
fn drift_until_the_last_round_fails_user_retryable() {
    let mut machine = Fixture {
        max_rounds: 3,
        ..Fixture::default()
    }
    .machine();
    let mut world = World::turns(vec![
        turn("one", vec![]),
        turn("two", vec![]),
        turn("three", vec![]),
    ]);
    let outcome = world.run(&mut machine);
    let Outcome::Failed(failure) = &outcome else {
        panic!("failed expected, got {outcome:?}");
    };
    assert_eq!(failure.code, TOOL_CALL_REQUIRED);
    assert!(failure.user_retryable);
    assert!(!failure.retryable);
    assert_eq!(
        failure.message,
        "model must use Agent tools and complete through workspace_finish"
    );
    // Every turn was captured, the last one too; two reminders.
    assert_eq!(
        world
            .actions
            .iter()
            .filter(|a| a.starts_with("capture"))
            .count(),
        3
    );
    let attempts: Vec<u32> = world
        .events()
        .filter_map(|e| match e {
            RunEvent::DriftRecoveryAttempted(p) => Some(p.attempt),
            _ => None,
        })
        .collect();
    assert_eq!(attempts, [1, 2]);
    assert!(!world.event_types().contains(&"agent_loop_finished"));
}

#[test]
fn drift_at_the_limit_after_a_commit_is_a_partial_success() {
    let mut machine = Fixture {
        max_rounds: 2,
        ..Fixture::default()
    }
    .machine();
    let mut world = World::turns(vec![
        tools(vec![write("c1", "output/main.md"), commit("c2")]),
        turn("bye", vec![]),
    ]);
    let Outcome::PartialSuccess(partial) = world.run(&mut machine) else {
        panic!("partial success expected");
    };
    assert_eq!(partial.failure.code, TOOL_CALL_REQUIRED);
    assert!(!partial.failure.user_retryable);
    assert_eq!(partial.preserved_commit_count, 1);
    assert_eq!(partial.preserved_commits[0].round, 1);
}

#[test]
fn one_round_leaves_no_room_for_recovery() {
    let mut machine = Fixture {
        max_rounds: 1,
        ..Fixture::default()
    }
    .machine();
    let mut world = World::turns(vec![turn("", vec![])]);
    assert_eq!(
        world.run(&mut machine).failure().unwrap().code,
        TOOL_CALL_REQUIRED
    );
    assert_eq!(
        world.actions,
        ["call_model r1 a1", "finish failed model.tool_call_required"]
    );
}

#[test]
fn background_and_handoff_only_reminders() {
    let mut machine = Fixture::background().machine();
    let mut world = World::turns(vec![turn("x", vec![]), tools(vec![finish("c1")])]);
    world.run(&mut machine);
    let reminder = machine.history()[3].text();
    assert!(reminder.contains("optional"), "{reminder}");
    assert!(reminder.contains("`workspace_finish`"), "{reminder}");

    let mut machine = Fixture {
        allow: vec![WorkspaceWriteFile, WorkspaceCommit, AgentHandoff],
        max_rounds: 2,
        ..Fixture::default()
    }
    .machine();
    let mut world = World::turns(vec![turn("x", vec![]), turn("y", vec![])]);
    let outcome = world.run(&mut machine);
    assert!(machine.history()[3].text().contains("`agent_handoff`"));
    assert_eq!(
        outcome.failure().unwrap().message,
        "model must use Agent tools and complete through agent_handoff"
    );
}
