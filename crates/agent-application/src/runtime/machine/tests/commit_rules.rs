//! Commits and the finish rule: foreground needs an explicit commit, background does not,
//! and a handoff target inherits the run's ledger.

use agent_domain::event::{PreservedCommit, WriteMode};
use serde_json::json;

use super::super::*;
use super::support::*;

#[test]
fn commit_then_append_targets_one_message() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![
        tools(vec![write("c1", "output/main.md"), commit("c2")]),
        tools(vec![
            call(
                "c3",
                WorkspaceWriteFile,
                json!({"path": "output/main.md", "content": "\nMore.", "mode": "append"}),
            ),
            call("c4", WorkspaceCommit, json!({"mode": "append"})),
        ]),
        tools(vec![finish("c5")]),
    ]);
    assert_eq!(world.run(&mut machine), Outcome::Completed);
    assert!(!world.actions.iter().any(|a| a.starts_with("publish")));
    let commits = machine.ledger().preserved_commits();
    assert_eq!(
        commits,
        [
            PreservedCommit {
                path: path("output/main.md"),
                mode: WriteMode::Replace,
                message_id: "7".into(),
                round: 1,
            },
            PreservedCommit {
                path: path("output/main.md"),
                mode: WriteMode::Append,
                message_id: "7".into(),
                round: 2,
            },
        ]
    );
    assert_eq!(machine.ledger().explicit_count(), 2);
}

#[test]
fn foreground_finish_without_commit_is_refused_then_succeeds_after_a_commit() {
    let mut machine = Fixture::default().machine();
    assert_eq!(
        machine.finish_allowed().unwrap_err().code,
        FOREGROUND_COMMIT_REQUIRED
    );
    let mut world = World::turns(vec![
        tools(vec![finish("c1")]),
        tools(vec![commit("c2")]),
        tools(vec![finish("c3")]),
    ]);
    assert_eq!(world.run(&mut machine), Outcome::Completed);
    assert_eq!(
        world.tool_actions(),
        [
            "tool r1 workspace.finish reject agent.foreground_commit_required",
            "tool r2 workspace.commit execute",
            "tool r3 workspace.finish execute",
        ]
    );
    // The model read why, under the error heading.
    let refused = machine.history()[3].tool_results()[0].clone();
    assert!(refused.is_error);
    assert!(
        refused.content.contains("`workspace_commit`"),
        "{}",
        refused.content
    );
    assert!(!refused.content.contains("automatically"));
    // The refusal reserved no budget: two executed calls.
    assert_eq!(machine.gate().total_calls(), 2);
    assert!(machine.finish_allowed().is_ok());
}

#[test]
fn background_runs_finish_without_committing() {
    let mut machine = Fixture::background().machine();
    assert!(machine.finish_allowed().is_ok());
    let mut world = World::turns(vec![
        tools(vec![write("c1", "output/main.md")]),
        tools(vec![finish("c2")]),
    ]);
    assert_eq!(world.run(&mut machine), Outcome::Completed);
    // No auto-publish in background runs.
    assert_eq!(
        world.tool_actions(),
        [
            "tool r1 workspace.write_file execute",
            "tool r2 workspace.finish execute",
        ]
    );
    assert!(!machine.ledger().has_confirmed());
}

#[test]
fn a_handoff_target_inherits_the_commit_of_its_predecessor() {
    let mut first = Fixture {
        allow: vec![WorkspaceWriteFile, WorkspaceCommit, AgentHandoff],
        ..Fixture::default()
    }
    .machine();
    let mut world = World::turns(vec![
        tools(vec![write("c1", "output/main.md"), commit("c2")]),
        tools(vec![call("c3", AgentHandoff, json!({"agentId": "editor"}))]),
    ]);
    assert_eq!(world.run(&mut first), Outcome::HandedOff);
    assert!(world.events().any(|e| matches!(
        e,
        agent_domain::event::RunEvent::AgentLoopFinished(p)
            if p.ended_by == Some(agent_domain::event::LoopEnding::Handoff)
    )));
    let ledger = first.into_ledger();

    let mut target = Fixture {
        ledger,
        ..Fixture::default()
    }
    .machine();
    assert!(target.finish_allowed().is_ok());
    let mut world = World::turns(vec![tools(vec![finish("t1")])]);
    assert_eq!(world.run(&mut target), Outcome::Completed);
}

#[test]
fn a_failed_commit_result_does_not_count() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![
        tools(vec![commit("c1"), finish("c2")]),
        tools(vec![commit("c3"), finish("c4")]),
    ])
    .with_hook(|call| {
        (call.call_id == "c1").then(|| {
            ToolCallReport::new(agent_domain::tool::AgentToolResult::error(
                call,
                "workspace.commit_empty",
                "output/main.md is empty.",
            ))
        })
    });
    assert_eq!(world.run(&mut machine), Outcome::Completed);
    assert_eq!(
        world.tool_actions(),
        [
            "tool r1 workspace.commit execute",
            "tool r1 workspace.finish reject agent.foreground_commit_required",
            "tool r2 workspace.commit execute",
            "tool r2 workspace.finish execute",
        ]
    );
}
