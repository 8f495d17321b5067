//! Return-mode children: they end only with `task.return` and never see finish or commit.

use agent_domain::event::{LoopEnding, RunEvent};
use agent_domain::tool::ExitPolicy;
use serde_json::json;

use super::super::*;
use super::support::*;

fn task_return(id: &str) -> agent_domain::tool::ToolInvocation {
    call(id, TaskReturn, json!({"summary": "Found three scenes."}))
}

#[test]
fn a_child_ends_with_task_return() {
    let mut machine = Fixture::child().machine();
    assert_eq!(machine.exit_policy(), ExitPolicy::TaskReturnRequired);
    assert_eq!(
        machine.finish_allowed().unwrap_err().code,
        CHILD_FINISH_DENIED
    );
    let mut world = World::turns(vec![
        tools(vec![write("c1", "summaries/notes.md")]),
        tools(vec![task_return("c2")]),
    ]);
    assert_eq!(world.run(&mut machine), Outcome::TaskReturned);
    // Children never auto-publish.
    assert_eq!(
        world.tool_actions(),
        [
            "tool r1 workspace.write_file execute",
            "tool r2 task.return execute",
        ]
    );
    let finished = world
        .events()
        .find_map(|e| match e {
            RunEvent::AgentLoopFinished(p) => Some(p.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(finished.invocation_id, "inv_child");
    assert_eq!(finished.ended_by, Some(LoopEnding::TaskReturn));
    assert_eq!(finished.commit_count, 0);
}

#[test]
fn a_child_never_sees_finish_or_commit() {
    let machine = Fixture::child().machine();
    let Action::CallModel { request, .. } = machine.clone().next_step().unwrap().action else {
        panic!("call expected");
    };
    let aliases: Vec<&str> = request.tools.iter().map(|t| t.alias.as_str()).collect();
    assert_eq!(
        aliases,
        ["workspace_read_file", "workspace_write_file", "task_return"]
    );
}

#[test]
fn a_child_return_must_be_last_too() {
    let mut machine = Fixture::child().machine();
    let mut world = World::turns(vec![
        tools(vec![task_return("c1"), write("c2", "scratch/x.md")]),
        tools(vec![task_return("c3")]),
    ]);
    assert_eq!(world.run(&mut machine), Outcome::TaskReturned);
    assert_eq!(
        world.tool_actions(),
        [
            "tool r1 task.return reject agent.tool_after_finish",
            "tool r1 workspace.write_file execute",
            "tool r2 task.return execute",
        ]
    );
    let refusal = &machine.history()[3].tool_results()[0].content;
    assert!(refusal.contains("`task_return`"), "{refusal}");
}

#[test]
fn child_drift_and_round_limit_name_task_return() {
    let mut machine = Fixture {
        max_rounds: 2,
        ..Fixture::child()
    }
    .machine();
    let mut world = World::turns(vec![turn("My findings…", vec![]), turn("Again.", vec![])]);
    let outcome = world.run(&mut machine);
    let reminder = machine.history()[3].text();
    assert!(reminder.contains("`task_return`"), "{reminder}");
    assert!(!reminder.contains("workspace_finish"), "{reminder}");
    assert_eq!(
        outcome.failure().unwrap().message,
        "model must use Agent tools and complete through task_return"
    );

    let mut machine = Fixture {
        max_rounds: 1,
        ..Fixture::child()
    }
    .machine();
    let mut world = World::turns(vec![tools(vec![write("c1", "scratch/x.md")])]);
    assert_eq!(
        world.run(&mut machine).failure().unwrap().message,
        "task.return was not called within 1 rounds"
    );
}
