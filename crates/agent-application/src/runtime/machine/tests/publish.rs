//! Auto-publish: foreground, before the first explicit commit, the round's last successful
//! write or patch, text files only, once per round; never enough to finish.

use agent_domain::tool::AgentToolResult;
use serde_json::json;

use super::super::*;
use super::support::*;

fn publishes(world: &World) -> Vec<&str> {
    world
        .actions
        .iter()
        .filter(|a| a.starts_with("publish"))
        .map(String::as_str)
        .collect()
}

#[test]
fn once_per_round_with_the_last_write() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![
        tools(vec![
            write("c1", "output/main.md"),
            call(
                "c2",
                WorkspaceApplyPatch,
                json!({"path": "output/chapter.txt", "old_string": "a", "new_string": "b"}),
            ),
        ]),
        tools(vec![commit("c3"), finish("c4")]),
    ]);
    assert_eq!(world.run(&mut machine), Outcome::Completed);
    assert_eq!(publishes(&world), ["publish r1 output/chapter.txt"]);
    let Some(Action::AutoPublish { sha256, .. }) = world
        .steps
        .iter()
        .map(|s| &s.action)
        .find(|a| matches!(a, Action::AutoPublish { .. }))
    else {
        panic!("publish expected");
    };
    assert_eq!(sha256, "sha-of-output/chapter.txt");
    let auto = &machine.ledger().entries()[0];
    assert!(!auto.explicit);
    assert_eq!(auto.commit.mode, agent_domain::event::WriteMode::Replace);
}

#[test]
fn only_text_extensions_and_only_the_last_write() {
    for (files, expected) in [
        (vec!["output/main.MD"], Some("output/main.MD")),
        (vec!["output/main.markdown"], Some("output/main.markdown")),
        (vec!["output/main.md", "scratch/state.json"], None),
        (vec!["output/main"], None),
        (vec!["output/.md"], None),
    ] {
        let calls = files
            .iter()
            .enumerate()
            .map(|(i, f)| write(&format!("c{i}"), f))
            .collect();
        let mut machine = Fixture::default().machine();
        let mut world = World::turns(vec![tools(calls), tools(vec![commit("x"), finish("y")])]);
        world.run(&mut machine);
        let expected: Vec<String> = expected.iter().map(|p| format!("publish r1 {p}")).collect();
        assert_eq!(publishes(&world), expected, "{files:?}");
    }
}

#[test]
fn a_failed_write_is_not_published() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![
        tools(vec![
            write("c1", "output/main.md"),
            write("c2", "output/other.md"),
        ]),
        tools(vec![commit("c3"), finish("c4")]),
    ])
    .with_hook(|call| {
        (call.call_id == "c2").then(|| {
            ToolCallReport::new(AgentToolResult::error(
                call,
                "workspace.stale_file",
                "stale",
            ))
        })
    });
    world.run(&mut machine);
    assert_eq!(publishes(&world), ["publish r1 output/main.md"]);
}

#[test]
fn never_after_an_explicit_commit_and_never_in_background() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![
        tools(vec![write("c1", "output/main.md")]),
        tools(vec![commit("c2")]),
        tools(vec![write("c3", "output/main.md")]),
        tools(vec![finish("c4")]),
    ]);
    world.run(&mut machine);
    assert_eq!(publishes(&world), ["publish r1 output/main.md"]);

    let mut machine = Fixture::background().machine();
    let mut world = World::turns(vec![
        tools(vec![write("c1", "output/main.md")]),
        tools(vec![finish("c2")]),
    ]);
    world.run(&mut machine);
    assert!(publishes(&world).is_empty());
}

#[test]
fn every_round_until_the_first_commit() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![
        tools(vec![write("c1", "output/main.md")]),
        tools(vec![write("c2", "output/main.md")]),
        tools(vec![commit("c3"), finish("c4")]),
    ]);
    world.run(&mut machine);
    assert_eq!(
        publishes(&world),
        ["publish r1 output/main.md", "publish r2 output/main.md"]
    );
    let ledger = machine.ledger();
    assert_eq!((ledger.auto_count(), ledger.explicit_count()), (2, 1));
}

#[test]
fn an_auto_publish_does_not_permit_finish() {
    let mut machine = Fixture::default().machine();
    let mut world = World::turns(vec![
        tools(vec![write("c1", "output/main.md")]),
        tools(vec![finish("c2")]),
        tools(vec![commit("c3")]),
        tools(vec![finish("c4")]),
    ]);
    assert_eq!(world.run(&mut machine), Outcome::Completed);
    assert_eq!(
        world.tool_actions()[1],
        "tool r2 workspace.finish reject agent.foreground_commit_required"
    );
    let refusal = &machine.history()[5].tool_results()[0].content;
    assert!(
        refusal.contains("Drafts published automatically do not count"),
        "{refusal}"
    );
}

#[test]
fn an_auto_publish_makes_a_later_failure_partial() {
    let mut machine = Fixture {
        max_rounds: 1,
        ..Fixture::default()
    }
    .machine();
    let mut world = World::turns(vec![tools(vec![write("c1", "output/main.md")])]);
    let outcome = world.run(&mut machine);
    // The last round's publish happens before the round limit bites.
    assert_eq!(
        world.actions[2..],
        [
            "publish r1 output/main.md",
            "finish partial_success agent.max_tool_rounds_exceeded",
        ]
    );
    let Outcome::PartialSuccess(partial) = outcome else {
        panic!("partial success expected");
    };
    assert_eq!(partial.preserved_commits[0].path, path("output/main.md"));
}

#[test]
fn a_skipped_publish_records_nothing() {
    let mut machine = Fixture {
        max_rounds: 1,
        ..Fixture::default()
    }
    .machine();
    let mut world = World::turns(vec![tools(vec![write("c1", "output/main.md")])]);
    world.publish.push_back(AutoPublishReport::Skipped {
        reason: "the file is empty".into(),
    });
    assert!(matches!(world.run(&mut machine), Outcome::Failed(_)));
    assert!(!machine.ledger().has_confirmed());
}
