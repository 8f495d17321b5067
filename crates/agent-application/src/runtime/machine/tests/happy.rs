//! The plain path: write, commit, finish; plus the snapshot of its steps and events.

use agent_domain::event::{LoopEnding, RunEvent};
use agent_domain::model::{ModelRole, check_transcript};
use serde_json::{Value, json};

use super::super::*;
use super::support::*;

/// The write → commit → finish run every other test varies.
fn happy_world() -> World {
    World::turns(vec![
        turn(
            "Writing the scene.",
            vec![write("call_1", "output/main.md")],
        ),
        tools(vec![commit("call_2")]),
        tools(vec![finish("call_3")]),
    ])
}

#[test]
fn write_commit_finish_completes() {
    let mut machine = Fixture::default().machine();
    let mut world = happy_world();
    let outcome = world.run(&mut machine);
    assert_eq!(outcome, Outcome::Completed);
    assert_eq!(
        world.actions,
        [
            "call_model r1 a1",
            "tool r1 workspace.write_file execute",
            "publish r1 output/main.md",
            "call_model r2 a1",
            "tool r2 workspace.commit execute",
            "call_model r3 a1",
            "tool r3 workspace.finish execute",
            "finish completed",
        ]
    );
    assert_eq!(
        world.event_types(),
        [
            "model_request_created",
            "model_call_attempt_started",
            "model_completed",
            "model_request_created",
            "model_call_attempt_started",
            "model_completed",
            "model_request_created",
            "model_call_attempt_started",
            "model_completed",
            "agent_loop_finished",
        ]
    );
    let ledger = machine.ledger();
    assert_eq!((ledger.explicit_count(), ledger.auto_count()), (1, 1));
    assert_eq!(ledger.last_message_id(), Some("7"));
    assert_eq!(machine.round(), 3);
    assert!(machine.is_finished());
    // The history is a transcript any provider accepts: prompt, then each round's assistant
    // turn and one tool message per call.
    check_transcript(machine.history()).unwrap();
    let roles: Vec<ModelRole> = machine.history().iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            ModelRole::System,
            ModelRole::User,
            ModelRole::Assistant,
            ModelRole::Tool,
            ModelRole::Assistant,
            ModelRole::Tool,
            ModelRole::Assistant,
            ModelRole::Tool,
        ]
    );
    // Finishing again is idempotent and journals nothing more.
    let again = machine.next_step().unwrap();
    assert!(again.events.is_empty());
    assert_eq!(again.action, Action::Finish(Outcome::Completed));
}

#[test]
fn requests_carry_the_history_and_the_turn() {
    let mut machine = Fixture::default().machine();
    let mut world = happy_world();
    world.run(&mut machine);
    let Action::CallModel { request, .. } = &world.steps[3].action else {
        panic!("step 3 is the second model call");
    };
    // System, user, assistant of round 1, its tool result.
    assert_eq!(request.messages.len(), 4);
    assert_eq!(request.messages[2].tool_calls()[0].call_id, "call_1");
    assert_eq!(
        request.messages[3].tool_results()[0].content,
        "Wrote output/main.md."
    );
    let aliases: Vec<&str> = request.tools.iter().map(|t| t.alias.as_str()).collect();
    assert_eq!(
        aliases,
        [
            "workspace_read_file",
            "workspace_write_file",
            "workspace_apply_patch",
            "workspace_commit",
            "workspace_finish",
        ]
    );
    assert_eq!(request.tool_choice, agent_domain::tool::ToolChoice::Auto);
    assert_eq!(request.provider_state.session_id(), "run_1:inv_root");
}

#[test]
fn all_in_one_round_completes() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![tools(vec![
        write("c1", "output/main.md"),
        commit("c2"),
        finish("c3"),
    ])]);
    assert_eq!(world.run(&mut machine), Outcome::Completed);
    // The explicit commit in the round rules auto-publish out.
    assert_eq!(
        world.tool_actions(),
        [
            "tool r1 workspace.write_file execute",
            "tool r1 workspace.commit execute",
            "tool r1 workspace.finish execute",
        ]
    );
    assert_eq!(machine.ledger().auto_count(), 0);
    let finished = world
        .events()
        .find_map(|e| match e {
            RunEvent::AgentLoopFinished(p) => Some(p.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(finished.round, 1);
    assert_eq!(finished.commit_count, 1);
    assert_eq!(finished.ended_by, Some(LoopEnding::Finish));
}

#[test]
fn model_completed_counts_and_previews_narration() {
    let long = "word ".repeat(100);
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![
        turn(&long, vec![write("c1", "scratch/notes.json")]),
        tools(vec![commit("c2"), finish("c3")]),
    ]);
    world.run(&mut machine);
    let completed: Vec<_> = world
        .events()
        .filter_map(|e| match e {
            RunEvent::ModelCompleted(p) => Some(p.clone()),
            _ => None,
        })
        .collect();
    let first = &completed[0];
    assert_eq!(first.model_response_path, "model-responses/round-001.json");
    assert_eq!(first.tool_call_count, 1);
    assert_eq!(first.text_chars, 500);
    assert_eq!(first.text_words, 100);
    assert!(first.has_assistant_text);
    assert!(!first.has_reasoning);
    let narration = first.narration.as_ref().unwrap();
    assert_eq!(narration.text.chars().count(), NARRATION_PREVIEW_CHARS);
    assert_eq!(narration.total_chars, 499);
    assert!(narration.truncated);
    assert_eq!(narration.source, "assistantText");
    assert!(completed[1].narration.is_none());
    assert!(!completed[1].has_assistant_text);
}

#[test]
fn snapshot_of_the_happy_path() {
    let mut machine = Fixture::default().machine();
    let mut world = happy_world();
    world.run(&mut machine);
    let steps: Vec<Value> = world.steps.iter().map(render).collect();
    insta::assert_json_snapshot!("happy_path_steps", steps);
}

/// A step with its events in full and a compact action (requests by size and last
/// message, not their whole text and schemas).
fn render(step: &Step) -> Value {
    let action = match &step.action {
        Action::CallModel {
            round,
            attempt,
            request,
        } => json!({
            "action": "call_model",
            "round": round,
            "attempt": attempt,
            "messageCount": request.messages.len(),
            "toolCount": request.tools.len(),
            "lastMessage": request.messages.last(),
        }),
        other => serde_json::to_value(other).unwrap(),
    };
    json!({"events": step.events, "action": action})
}
