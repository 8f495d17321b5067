#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Multi-agent runs through the binary: delegation with every await mode, parallel
//! children, results delivered without an await, failing children, every refusal code of
//! the agent tools, handoff (after a commit, and its depth), and cancellation during a
//! child's model call and during an await.

mod cli_support;

use std::io::BufRead;
use std::process::Stdio;
use std::time::{Duration, Instant};

use cli_support::*;
use serde_json::{Value, json};

/// The writer may delegate and hand off; the researcher takes delegated tasks; the editor
/// takes handoffs.
fn with_agents() -> Fixture {
    let fx = Fixture::new();
    let base: Value = serde_json::from_str(&stdout_of(
        &fx.cmd()
            .args(["profiles", "show", "default-writer"])
            .assert()
            .code(0),
    ))
    .unwrap();
    let profile = |id: &str, change: &dyn Fn(&mut Value)| {
        let mut doc = base.clone();
        doc["id"] = json!(id);
        doc["displayName"] = json!(id.to_uppercase());
        change(&mut doc);
        let file = fx.write_json(&format!("{id}.json"), &doc);
        fx.cmd()
            .args(["profiles", "save"])
            .arg(file)
            .assert()
            .code(0);
    };
    profile("writer", &|doc| {
        doc["delegation"]["canDelegate"] = json!(true);
        doc["delegation"]["canHandoff"] = json!(true);
        doc["delegation"]["maxConcurrentInvocations"] = json!(2);
        doc["delegation"]["maxInvocationsPerRun"] = json!(3);
        doc["delegation"]["maxHandoffDepth"] = json!(1);
        for tool in [
            "agent.list",
            "agent.delegate",
            "agent.await",
            "agent.handoff",
        ] {
            doc["tools"]["allow"]
                .as_array_mut()
                .unwrap()
                .push(json!(format!("builtin:{tool}")));
        }
    });
    profile("researcher", &|doc| {
        doc["description"] = json!("Finds facts in the chat.");
        doc["run"]["presentation"] = json!("background");
        doc["run"]["directRunnable"] = json!(false);
        doc["delegation"]["callable"] = json!(true);
        doc["delegation"]["allowAsSubagent"] = json!(true);
        doc["tools"]["allow"] = json!([
            "builtin:chat.search",
            "builtin:workspace.read_file",
            "builtin:workspace.write_file"
        ]);
        doc["tools"]["maxRounds"] = json!(3);
    });
    profile("editor", &|doc| {
        doc["delegation"]["callable"] = json!(true);
        doc["delegation"]["allowAsHandoffTarget"] = json!(true);
        doc["delegation"]["canHandoff"] = json!(true);
        doc["delegation"]["maxHandoffDepth"] = json!(1);
        doc["tools"]["allow"]
            .as_array_mut()
            .unwrap()
            .push(json!("builtin:agent.handoff"));
    });
    profile("loner", &|doc| {
        doc["delegation"]["callable"] = json!(false);
    });
    fx
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

fn tools(calls: Vec<Value>) -> Value {
    json!({"tool_calls": calls})
}

fn delegate(objective: &str) -> Value {
    call(
        "agent_delegate",
        json!({"agentId": "researcher", "task": {"objective": objective}}),
    )
}

fn write_commit_finish() -> Vec<Value> {
    vec![
        tools(vec![
            call(
                "workspace_write_file",
                json!({"path": "output/main.md", "content": REPLY}),
            ),
            call("workspace_commit", json!({})),
        ]),
        tools(vec![call("workspace_finish", json!({}))]),
    ]
}

fn returning(summary: &str) -> Value {
    tools(vec![call("task_return", json!({"summary": summary}))])
}

fn script(turns: Vec<Value>, agents: Value) -> Value {
    json!({"turns": turns, "agents": agents})
}

/// Runs `script` as the writer; returns the run id and every journal line.
fn run_writer(fx: &Fixture, script: &Value, code: i32) -> (String, Vec<Value>) {
    let assert = fx.run_script(script, &["--profile", "writer"]).code(code);
    let run = run_id_of(&assert.get_output().stderr);
    let events = fx
        .events_jsonl(&run)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    (run, events)
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

fn seq_of(events: &[Value], kind: &str) -> Vec<u64> {
    of_type(events, kind)
        .iter()
        .map(|e| e["seq"].as_u64().unwrap())
        .collect()
}

/// The structured result of every call of `tool` (its audit file), in call order.
fn results_of(fx: &Fixture, run: &str, events: &[Value], tool: &str) -> Vec<Value> {
    of_type(events, "tool_result_stored")
        .into_iter()
        .filter(|e| e["payload"]["toolId"] == format!("builtin:{tool}"))
        .map(|e| {
            let path = fx.run_dir(run).join(e["payload"]["path"].as_str().unwrap());
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
        })
        .collect()
}

/// The error codes of the failed calls of `tool`.
fn refusals(events: &[Value], tool: &str) -> Vec<String> {
    of_type(events, "tool_call_failed")
        .into_iter()
        .filter(|e| e["payload"]["toolId"] == format!("builtin:{tool}"))
        .map(|e| e["payload"]["errorCode"].as_str().unwrap().to_owned())
        .collect()
}

/// The event types of one invocation's own timeline (`runs events --invocation`), for
/// snapshots: what other invocations did, which interleaves with it in real time, is left
/// out; what this invocation did to start them (registering and queueing a task) stays.
fn timeline(fx: &Fixture, run: &str, invocation: &str) -> String {
    const STARTING: [&str; 4] = [
        "agent_task_registered",
        "agent_task_queued",
        "agent_delegate_started",
        "agent_invocation_created",
    ];
    let out = stdout_of(
        &fx.cmd()
            .args([
                "runs",
                "events",
                run,
                "--invocation",
                invocation,
                "--limit",
                "500",
            ])
            .arg("--json")
            .assert()
            .code(0),
    );
    out.lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| {
            let payload = &event["payload"];
            let kind = event["type"].as_str().unwrap();
            let names = |field: &str| payload[field].as_str().is_some_and(|id| id != invocation);
            let other_child = names("childInvocationId") && !STARTING.contains(&kind);
            let other_subject = names("invocationId")
                && !(kind == "agent_invocation_created"
                    && payload["parentInvocationId"] == invocation);
            !other_child && !other_subject
        })
        .map(|event| {
            let kind = event["type"].as_str().unwrap().to_owned();
            let tool = event["payload"]["toolId"]
                .as_str()
                .map(|t| format!(" {t}"))
                .unwrap_or_default();
            let status = event["payload"]["status"]
                .as_str()
                .map(|s| format!(" {s}"))
                .unwrap_or_default();
            format!("{kind}{tool}{status}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn delegate_and_await_all_completed_returns_both_results() {
    let fx = with_agents();
    let mut turns = vec![
        tools(vec![
            delegate("Find the inn's name"),
            delegate("Find Bob's wish"),
        ]),
        tools(vec![call(
            "agent_await",
            json!({"mode": "allCompleted", "timeoutMs": 10000}),
        )]),
    ];
    turns.extend(write_commit_finish());
    let agents = json!({"researcher": [
        {"delay_ms": 300, "tool_calls": [{"name": "task_return", "arguments": {"summary": "one"}}]},
        {"delay_ms": 300, "tool_calls": [{"name": "task_return", "arguments": {"summary": "two"}}]}
    ]});
    let started = Instant::now();
    let (run, events) = run_writer(&fx, &script(turns, agents), 0);
    // The two children ran side by side: both started before either returned, and the
    // run took far less than the two 300 ms model calls one after the other would.
    let returned = seq_of(&events, "task_return_completed");
    let started_tasks = seq_of(&events, "agent_task_started");
    assert_eq!((returned.len(), started_tasks.len()), (2, 2));
    assert!(
        started_tasks.iter().all(|s| s < &returned[0]),
        "{started_tasks:?} {returned:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));

    let awaited = &results_of(&fx, &run, &events, "agent.await")[0];
    assert_eq!(awaited["structured"]["timedOut"], false);
    let mut summaries: Vec<&str> = awaited["structured"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["summary"].as_str().unwrap())
        .collect();
    summaries.sort_unstable();
    assert_eq!(summaries, ["one", "two"]);
    assert!(
        awaited["content"]
            .as_str()
            .unwrap()
            .starts_with("## Delegated Task Results")
    );

    // Records on disk: tasks, invocations, results, readable summaries.
    let dir = fx.run_dir(&run);
    assert_eq!(std::fs::read_dir(dir.join("tasks")).unwrap().count(), 2);
    assert_eq!(
        std::fs::read_dir(dir.join("invocations")).unwrap().count(),
        3
    );
    assert_eq!(
        std::fs::read_dir(dir.join("agent-results"))
            .unwrap()
            .count(),
        2
    );
    let summary = std::fs::read_to_string(dir.join("summaries/researcher-result.md")).unwrap();
    assert!(
        summary.starts_with("# Delegated Task Result\n\nTask: task_"),
        "{summary}"
    );
    assert!(dir.join("summaries/researcher-002-result.md").is_file());
    let child = of_type(&events, "agent_delegate_started")[0]["payload"]["childInvocationId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        dir.join(format!("model-responses/{child}/round-001.json"))
            .is_file()
    );
    let result: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("agent-results/{child}.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(result["kind"], "tauritavern.agentTaskResult");
    assert_eq!(result["runtime"]["parentInvocationId"], "inv_root");

    insta::assert_snapshot!("writer_root_timeline", timeline(&fx, &run, "inv_root"));
    insta::assert_snapshot!("researcher_timeline", timeline(&fx, &run, &child));

    // `runs show` lists the invocations and tasks.
    let shown = stdout_of(&fx.cmd().args(["runs", "show", &run]).assert().code(0));
    assert!(
        shown.contains("invocations") && shown.contains("subagent"),
        "{shown}"
    );
    assert!(shown.matches("researcher").count() >= 4, "{shown}");
}

#[test]
fn next_completed_waits_for_one_status_only_waits_for_none_and_a_timeout_succeeds() {
    let fx = with_agents();
    let mut turns = vec![
        tools(vec![delegate("slow"), delegate("fast")]),
        tools(vec![call("agent_await", json!({"mode": "statusOnly"}))]),
        tools(vec![call("agent_await", json!({"timeoutMs": 10000}))]),
        tools(vec![call(
            "agent_await",
            json!({"mode": "allCompleted", "timeoutMs": 1}),
        )]),
        tools(vec![call(
            "agent_await",
            json!({"mode": "allCompleted", "timeoutMs": 10000}),
        )]),
    ];
    turns.extend(write_commit_finish());
    // The first child's call takes long; the second's returns soon.
    let agents = json!({"researcher": [
        {"delay_ms": 4000, "tool_calls": [{"name": "task_return", "arguments": {"summary": "slow one"}}]},
        {"delay_ms": 1000, "tool_calls": [{"name": "task_return", "arguments": {"summary": "fast one"}}]}
    ]});
    let (run, events) = run_writer(&fx, &script(turns, agents), 0);
    let awaits = results_of(&fx, &run, &events, "agent.await");
    let statuses = |i: usize| -> Vec<String> {
        awaits[i]["structured"]["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["status"].as_str().unwrap().to_owned())
            .collect()
    };
    // statusOnly: nothing has ended yet (the fast child has not even been polled).
    assert_eq!(awaits[0]["structured"]["timedOut"], false);
    assert!(
        statuses(0).iter().all(|s| s != "completed"),
        "{:?}",
        statuses(0)
    );
    // nextCompleted: returns when the fast one ends, the slow one still running.
    assert_eq!(awaits[1]["structured"]["timedOut"], false);
    let mut second = statuses(1);
    second.sort();
    assert_eq!(second, ["completed", "running"]);
    // A timeout is a successful result that says so.
    assert_eq!(awaits[2]["structured"]["timedOut"], true);
    assert!(awaits[2]["content"].as_str().unwrap().contains("Timed out"));
    assert_eq!(statuses(3), ["completed", "completed"]);
    let completed = of_type(&events, "agent_await_completed");
    assert_eq!(completed.len(), 4);
    assert_eq!(completed[2]["level"], "warn");
}

#[test]
fn results_not_awaited_join_the_next_request_once() {
    let fx = with_agents();
    let read = || {
        tools(vec![call(
            "chat_read_messages",
            json!({"start": 0, "count": 1}),
        )])
    };
    let mut turns = vec![
        tools(vec![delegate("anything")]),
        json!({"delay_ms": 2000, "tool_calls": [call("chat_read_messages", json!({"start": 0, "count": 1}))]}),
        read(),
        read(),
    ];
    turns.extend(write_commit_finish());
    let agents = json!({"researcher": [returning("found it")]});
    let (_run, events) = run_writer(&fx, &script(turns, agents), 0);
    // Each round adds the assistant turn and one result per tool call; the round after the
    // child's result arrived adds one message more, once.
    let counts: Vec<u64> = of_type(&events, "model_request_created")
        .iter()
        .filter(|e| e["payload"]["invocationId"] == "inv_root")
        .map(|e| e["payload"]["request"]["messageCount"].as_u64().unwrap())
        .collect();
    let steps: Vec<u64> = counts.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(steps, [2, 3, 2, 2, 3], "{counts:?}");
}

#[test]
fn a_failing_child_and_a_child_that_never_returns_fail_their_tasks_not_the_run() {
    let fx = with_agents();
    let mut turns = vec![
        tools(vec![delegate("fails")]),
        tools(vec![call(
            "agent_await",
            json!({"mode": "allCompleted", "timeoutMs": 10000}),
        )]),
        tools(vec![delegate("never returns")]),
        tools(vec![call(
            "agent_await",
            json!({"mode": "allCompleted", "timeoutMs": 10000}),
        )]),
    ];
    turns.extend(write_commit_finish());
    let write = |path: &str| {
        tools(vec![call(
            "workspace_write_file",
            json!({"path": path, "content": "notes"}),
        )])
    };
    // The researcher has 3 rounds: the second child spends them all without returning.
    let agents = json!({"researcher": [
        {"error": {"kind": "fatal", "message": "the provider fell over"}},
        write("scratch/a.md"), write("scratch/b.md"), write("scratch/c.md")
    ]});
    let (run, events) = run_writer(&fx, &script(turns, agents), 0);
    let failed = of_type(&events, "agent_task_failed");
    assert_eq!(failed.len(), 2);
    let errors: Vec<&str> = failed
        .iter()
        .map(|e| e["payload"]["error"].as_str().unwrap())
        .collect();
    assert!(errors[0].starts_with("model."), "{errors:?}");
    assert!(
        errors[1].starts_with("agent.child_invocation_missing_return"),
        "{errors:?}"
    );
    assert_eq!(of_type(&events, "agent_child_invocation_failed").len(), 2);
    let awaits = results_of(&fx, &run, &events, "agent.await");
    assert_eq!(awaits[0]["structured"]["tasks"][0]["status"], "failed");
    assert!(
        awaits[0]["content"]
            .as_str()
            .unwrap()
            .contains("Error: model.")
    );
    assert_eq!(events.last().unwrap()["type"], "run_completed");
}

#[test]
fn every_delegation_refusal_has_its_code() {
    let fx = with_agents();
    let turns = vec![
        tools(vec![
            call(
                "agent_delegate",
                json!({"agentId": "researcher", "task": {"title": "x"}}),
            ),
            call(
                "agent_delegate",
                json!({"agentId": "researcher", "task": {"objective": "x"}, "budget": {}}),
            ),
            call(
                "agent_delegate",
                json!({"agentId": "nobody", "task": {"objective": "x"}}),
            ),
            call(
                "agent_delegate",
                json!({"agentId": "loner", "task": {"objective": "x"}}),
            ),
            call(
                "agent_delegate",
                json!({"agentId": "editor", "task": {"objective": "x"}}),
            ),
        ]),
        tools(vec![
            call("agent_await", json!({})),
            call("agent_list", json!({"purpose": "sideways"})),
        ]),
        tools(vec![delegate("a"), delegate("b"), delegate("c")]),
        tools(vec![
            call("agent_await", json!({"taskIds": ["task_0000"]})),
            call(
                "agent_await",
                json!({"mode": "allCompleted", "timeoutMs": 10000}),
            ),
        ]),
        tools(vec![delegate("d"), delegate("e")]),
        tools(vec![call("agent_list", json!({"purpose": "delegate"}))]),
    ]
    .into_iter()
    .chain(write_commit_finish())
    .collect();
    // Slow enough that `c` meets two running children.
    let slow = |summary: &str| json!({"delay_ms": 1000, "tool_calls": [call("task_return", json!({"summary": summary}))]});
    let agents = json!({"researcher": [slow("a"), slow("b"), slow("d")]});
    let (run, events) = run_writer(&fx, &script(turns, agents), 0);
    assert_eq!(
        refusals(&events, "agent.delegate"),
        [
            "tool.invalid_arguments",
            "tool.invalid_arguments",
            "agent.target_profile_not_found",
            "agent.delegation_policy_denied",
            "agent.delegation_policy_denied",
            "agent.delegation_budget_exhausted",
            "agent.delegation_budget_exhausted",
        ]
    );
    assert_eq!(
        refusals(&events, "agent.await"),
        ["agent.no_child_tasks", "agent.await_task_not_found"]
    );
    assert_eq!(refusals(&events, "agent.list"), ["tool.invalid_arguments"]);
    let failures: Vec<&str> = of_type(&events, "tool_call_failed")
        .into_iter()
        .filter(|e| e["payload"]["toolId"] == "builtin:agent.delegate")
        .map(|e| e["payload"]["message"].as_str().unwrap())
        .collect();
    // Selection errors end with the caller's candidates.
    assert!(failures[2].contains("Available agents:\n- researcher [delegate]: Finds facts"));
    assert!(
        failures[3].contains("agent.target_not_callable"),
        "{}",
        failures[3]
    );
    assert!(
        failures[4].contains("agent.target_not_subagent"),
        "{}",
        failures[4]
    );
    assert!(
        failures[5].contains("maxConcurrentInvocations"),
        "{}",
        failures[5]
    );
    assert!(
        failures[6].contains("maxInvocationsPerRun"),
        "{}",
        failures[6]
    );
    let listed = results_of(&fx, &run, &events, "agent.list");
    assert_eq!(
        listed[1]["structured"]["agents"][0]["profileId"],
        "researcher"
    );
}

#[test]
fn task_return_checks_its_arguments() {
    let fx = with_agents();
    let mut turns = vec![
        tools(vec![delegate("return badly")]),
        tools(vec![call(
            "agent_await",
            json!({"mode": "allCompleted", "timeoutMs": 10000}),
        )]),
    ];
    turns.extend(write_commit_finish());
    let agents = json!({"researcher": [
        tools(vec![call("task_return", json!({"summary": "x", "status": "maybe"}))]),
        tools(vec![call("task_return", json!({"summary": "x", "artifacts": [{"path": "../x"}]}))]),
        tools(vec![call("task_return", json!({"summary": "x", "status": "failed",
            "artifacts": [{"path": "scratch/n.md", "kind": "markdown", "role": "notes"}]}))]),
    ]});
    let (_run, events) = run_writer(&fx, &script(turns, agents), 0);
    assert_eq!(
        refusals(&events, "task.return"),
        ["tool.invalid_arguments", "workspace.invalid_path"]
    );
    assert_eq!(
        of_type(&events, "task_return_completed")[0]["payload"]["status"],
        "failed"
    );
    assert_eq!(of_type(&events, "agent_task_failed").len(), 1);
    assert!(of_type(&events, "agent_child_invocation_failed").is_empty());
}

#[test]
fn a_handoff_after_a_commit_lets_the_target_revise_and_finish() {
    let fx = with_agents();
    let turns = vec![
        tools(vec![
            call(
                "workspace_write_file",
                json!({"path": "output/main.md", "content": "A first draft."}),
            ),
            call("workspace_commit", json!({})),
        ]),
        tools(vec![call(
            "agent_handoff",
            json!({"agentId": "editor", "handoff": {"objective": "Polish it"}}),
        )]),
    ];
    let agents = json!({"editor": [
        tools(vec![
            call("workspace_read_file", json!({"path": "output/main.md"})),
            call("workspace_write_file", json!({"path": "output/main.md", "content": REPLY})),
            call("workspace_commit", json!({})),
        ]),
        tools(vec![call("workspace_finish", json!({}))]),
    ]});
    let (run, events) = run_writer(&fx, &script(turns, agents), 0);
    // One message, revised by the target.
    let chat = fx.chat_text();
    assert_eq!(chat.lines().count(), 5);
    assert!(chat.contains("Room three"));
    let completed = of_type(&events, "chat_commit_completed");
    assert_eq!(completed.len(), 2);
    assert_eq!(
        completed[0]["payload"]["messageId"],
        completed[1]["payload"]["messageId"]
    );
    let target = of_type(&events, "agent_handoff_accepted")[0]["payload"]["newInvocationId"]
        .as_str()
        .unwrap()
        .to_owned();
    let transferred = of_type(&events, "agent_invocation_transferred");
    assert_eq!(transferred[0]["payload"]["invocationId"], "inv_root");
    insta::assert_snapshot!("handoff_target_timeline", timeline(&fx, &run, &target));
    assert_eq!(events.last().unwrap()["type"], "run_completed");
}

#[test]
fn handoff_refusals_have_their_codes() {
    let fx = with_agents();
    let handoff = |to: &str| {
        call(
            "agent_handoff",
            json!({"agentId": to, "handoff": {"objective": "take over"}}),
        )
    };
    let turns = vec![
        tools(vec![delegate("busy")]),
        tools(vec![handoff("editor")]),
        tools(vec![call(
            "agent_await",
            json!({"mode": "allCompleted", "timeoutMs": 10000}),
        )]),
        tools(vec![handoff("researcher")]),
        tools(vec![call(
            "agent_handoff",
            json!({"agentId": "editor", "handoff": {"objective": "x"}, "pendingTaskPolicy": "cancel"}),
        )]),
        tools(vec![handoff("editor")]),
    ];
    let agents = json!({
        "researcher": [{"delay_ms": 1500, "tool_calls": [{"name": "task_return", "arguments": {"summary": "ok"}}]}],
        "editor": [
            tools(vec![handoff("editor")]),
            tools(vec![
                call("workspace_write_file", json!({"path": "output/main.md", "content": REPLY})),
                call("workspace_commit", json!({})),
            ]),
            tools(vec![call("workspace_finish", json!({}))]),
        ]
    });
    let (_run, events) = run_writer(&fx, &script(turns, agents), 0);
    assert_eq!(
        refusals(&events, "agent.handoff"),
        [
            "agent.handoff_pending_tasks",
            "agent.handoff_policy_denied",
            "tool.invalid_arguments",
            "agent.handoff_depth_exhausted",
        ]
    );
    // Requested is journaled before the checks, so refused handoffs show too (the
    // malformed one stops before it).
    assert_eq!(of_type(&events, "agent_handoff_requested").len(), 4);
    assert_eq!(of_type(&events, "agent_handoff_accepted").len(), 1);
    assert_eq!(events.last().unwrap()["type"], "run_completed");
}

/// Starts the writer on `script` in a child process and waits until `ready` appears in
/// its journal.
fn spawn_until(fx: &Fixture, script: &Value, ready: &str) -> (std::process::Child, String) {
    let path = fx.write_json("script.json", script);
    let mut child = std::process::Command::new(bin())
        .env_remove("TAVERN_AGENT_DATA_DIR")
        .arg("--data-dir")
        .arg(fx.path())
        .args(["run", "--chat", CHAT, "--profile", "writer", "--script"])
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    let run = first.strip_prefix("run: ").expect(&first).trim().to_owned();
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let deadline = Instant::now() + Duration::from_secs(20);
    while !fx.events_jsonl(&run).contains(ready) {
        assert!(Instant::now() < deadline, "`{ready}` never appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, run)
}

fn cancel_and_check(fx: &Fixture, mut child: std::process::Child, run: &str) -> Vec<Value> {
    fx.cmd().args(["runs", "cancel", run]).assert().code(0);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let events: Vec<Value> = fx
        .events_jsonl(run)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(events.last().unwrap()["type"], "run_cancelled");
    assert_eq!(of_type(&events, "agent_task_cancelled").len(), 1);
    assert_eq!(of_type(&events, "agent_invocation_cancelled").len(), 2);
    assert!(of_type(&events, "agent_child_invocation_failed").is_empty());
    events
}

#[test]
fn cancelling_during_a_child_model_call_cancels_the_child_and_the_run() {
    let fx = with_agents();
    let turns = vec![
        tools(vec![delegate("slow")]),
        json!({"delay_ms": 60000, "tool_calls": [call("workspace_finish", json!({}))]}),
    ];
    let agents = json!({"researcher": [
        {"delay_ms": 60000, "tool_calls": [{"name": "task_return", "arguments": {"summary": "late"}}]}
    ]});
    let (child, run) = spawn_until(&fx, &script(turns, agents), "agent_task_started");
    let started = Instant::now();
    cancel_and_check(&fx, child, &run);
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn cancelling_during_an_await_ends_the_wait() {
    let fx = with_agents();
    let turns = vec![
        tools(vec![delegate("slow")]),
        tools(vec![call(
            "agent_await",
            json!({"mode": "allCompleted", "timeoutMs": 300000}),
        )]),
    ];
    let agents = json!({"researcher": [
        {"delay_ms": 60000, "tool_calls": [{"name": "task_return", "arguments": {"summary": "late"}}]}
    ]});
    let (child, run) = spawn_until(&fx, &script(turns, agents), "agent_await_started");
    let events = cancel_and_check(&fx, child, &run);
    assert!(of_type(&events, "agent_await_completed").is_empty());
}

#[test]
fn finishing_cancels_children_nobody_awaited() {
    let fx = with_agents();
    let mut turns = vec![tools(vec![delegate("slow")])];
    turns.extend(write_commit_finish());
    let agents = json!({"researcher": [
        {"delay_ms": 60000, "tool_calls": [{"name": "task_return", "arguments": {"summary": "late"}}]}
    ]});
    let started = Instant::now();
    let (_run, events) = run_writer(&fx, &script(turns, agents), 0);
    assert!(started.elapsed() < Duration::from_secs(30));
    let cancelled = seq_of(&events, "agent_task_cancelled");
    assert_eq!(cancelled.len(), 1);
    // The child's ending is journaled before the run's.
    assert!(cancelled[0] < seq_of(&events, "run_completed")[0]);
    assert_eq!(events.last().unwrap()["type"], "run_completed");
}

/// One chat-completions answer calling `alias` with `arguments`.
fn chat_answer(id: &str, alias: &str, arguments: &Value) -> Value {
    json!({
        "id": format!("chatcmpl-{id}"), "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": id, "type": "function", "function": {
                "name": alias, "arguments": arguments.to_string()}}]}}]
    })
}

/// Plays the writer (by how many tool results its request carries) and the researcher
/// (every request for the researcher's model), recording every request.
struct TwoModels {
    seen: std::sync::Arc<std::sync::Mutex<Vec<Value>>>,
}

impl wiremock::Respond for TwoModels {
    fn respond(&self, request: &wiremock::Request) -> wiremock::ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        self.seen.lock().unwrap().push(body.clone());
        let answered = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .count();
        let (id, alias, arguments) = if body["model"] == "cheap-model" {
            (
                "call_return",
                "task_return",
                json!({"summary": "The inn is the Warm Hearth."}),
            )
        } else {
            match answered {
                0 => (
                    "call_delegate",
                    "agent_delegate",
                    json!({"agentId": "researcher", "task": {"objective": "Name the inn"}}),
                ),
                1 => ("call_await", "agent_await", json!({"mode": "allCompleted"})),
                2 => (
                    "call_write",
                    "workspace_write_file",
                    json!({"path": "output/main.md", "content": REPLY}),
                ),
                3 => ("call_commit", "workspace_commit", json!({})),
                _ => ("call_finish", "workspace_finish", json!({})),
            }
        };
        wiremock::ResponseTemplate::new(200).set_body_json(chat_answer(id, alias, &arguments))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_calls_its_own_profiles_model_and_the_writer_sees_its_candidates() {
    use wiremock::matchers::{method, path};
    let fx = with_agents();
    let server = wiremock::MockServer::start().await;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    wiremock::Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(TwoModels {
            seen: std::sync::Arc::clone(&seen),
        })
        .mount(&server)
        .await;
    let base = format!("{}/v1", server.uri());
    for (name, model) in [("main", "main-model"), ("cheap", "cheap-model")] {
        fx.cmd()
            .args(["connections", "add", name, "--format", "openai-chat"])
            .args(["--model", model, "--base-url", &base, "--stream", "false"])
            .assert()
            .code(0);
    }
    // The researcher names its own connection and model.
    let mut researcher: Value = serde_json::from_str(&stdout_of(
        &fx.cmd()
            .args(["profiles", "show", "researcher"])
            .assert()
            .code(0),
    ))
    .unwrap();
    researcher["model"] =
        json!({"mode": "connectionRef", "connectionRef": "cheap", "modelId": "cheap-model"});
    let file = fx.write_json("researcher.json", &researcher);
    fx.cmd()
        .args(["profiles", "save"])
        .arg(file)
        .assert()
        .code(0);

    let mut cmd = fx.cmd();
    cmd.args([
        "run",
        "--chat",
        CHAT,
        "--profile",
        "writer",
        "--connection",
        "main",
    ]);
    let output = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");

    let seen = seen.lock().unwrap();
    let models: Vec<&str> = seen.iter().map(|b| b["model"].as_str().unwrap()).collect();
    assert_eq!(
        models.iter().filter(|m| **m == "cheap-model").count(),
        1,
        "{models:?}"
    );
    assert_eq!(
        models.iter().filter(|m| **m == "main-model").count(),
        5,
        "{models:?}"
    );
    // The writer's system prompt lists whom it may call; the child's request carries its
    // task brief and only its own tools.
    let writer = seen.iter().find(|b| b["model"] == "main-model").unwrap();
    let system = writer["messages"][0]["content"].as_str().unwrap();
    let listed = system.split_once("\n\nAvailable agents:\n").unwrap().1;
    assert_eq!(
        listed.lines().collect::<Vec<_>>(),
        [
            "- editor [handoff]: Built-in writer: drafts the reply in output/main.md, commits it to the chat and finishes.",
            "- researcher [delegate]: Finds facts in the chat.",
        ]
    );
    let child = seen.iter().find(|b| b["model"] == "cheap-model").unwrap();
    let child_text = child["messages"].to_string();
    assert!(child_text.contains("## Task Brief") && child_text.contains("Name the inn"));
    let tools: Vec<&str> = child["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools.last(), Some(&"task_return"));
    assert!(!tools.contains(&"workspace_commit") && !tools.contains(&"agent_delegate"));
    // The await's result reached the writer's next request.
    let after_await = seen
        .iter()
        .filter(|b| b["model"] == "main-model")
        .nth(2)
        .unwrap();
    assert!(
        after_await["messages"]
            .to_string()
            .contains("The inn is the Warm Hearth.")
    );
}
