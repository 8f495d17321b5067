#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent runs guide`: notes sent from a second process to a run another process
//! drives, applied at its next round or discarded when it ends first, and every refusal.

mod cli_support;

use std::process::Stdio;
use std::thread::sleep;
use std::time::Duration;

use cli_support::*;
use predicates::str::contains;
use serde_json::{Value, json};

/// Time for the spawned run to reach its slow model call.
const SETTLE: Duration = Duration::from_millis(300);

fn events(fx: &Fixture, run_id: &str) -> Vec<Value> {
    fx.events_jsonl(run_id)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn of_kind<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

fn position(events: &[Value], kind: &str, round: u64) -> usize {
    events
        .iter()
        .position(|e| e["type"] == kind && e["payload"]["round"] == round)
        .unwrap_or_else(|| panic!("no {kind} of round {round}"))
}

fn guide(fx: &Fixture, run_id: &str, args: &[&str]) -> assert_cmd::assert::Assert {
    fx.cmd().args(["runs", "guide", run_id]).args(args).assert()
}

fn json_of(assert: &assert_cmd::assert::Assert) -> Value {
    serde_json::from_str(&stdout_of(assert)).unwrap()
}

#[test]
fn guidance_joins_the_next_round_as_one_user_message() {
    let fx = Fixture::new();
    let mut script = completing_script();
    script["turns"][0]["delay_ms"] = json!(1500);
    let (mut child, _stderr, run_id) = spawn_scripted_run(&fx, &script, Stdio::null());
    sleep(SETTLE);
    let first = guide(
        &fx,
        &run_id,
        &["Make it shorter.", "--client-id", "ui-1", "--json"],
    )
    .code(0);
    let receipt = json_of(&first);
    assert_eq!(receipt["status"], "pending");
    assert_eq!(receipt["clientGuidanceId"], "ui-1");
    assert_eq!(receipt["chars"], 16);
    guide(&fx, &run_id, &["Mention the stew."])
        .code(0)
        .stdout(contains("pending"));
    assert_eq!(child.wait().unwrap().code(), Some(0));

    let events = events(&fx, &run_id);
    let submitted = of_kind(&events, "user_guidance_submitted");
    assert_eq!(submitted.len(), 2);
    assert_eq!(submitted[0]["payload"]["guidanceId"], receipt["guidanceId"]);
    assert_eq!(submitted[0]["payload"]["text"], "Make it shorter.");
    assert_eq!(submitted[1]["payload"]["text"], "Mention the stew.");
    let applied = of_kind(&events, "user_guidance_applied");
    assert_eq!(applied.len(), 1);
    let applied = &applied[0]["payload"];
    let first_request = &events[position(&events, "model_request_created", 1)];
    let second = position(&events, "model_request_created", 2);
    let second_request = &events[second]["payload"]["request"];
    // Round 2 reads round 1's request, its assistant turn, one tool result, then the note.
    let before = first_request["payload"]["request"]["messageCount"]
        .as_u64()
        .unwrap();
    let expected = json!({
        "guidanceIds": [receipt["guidanceId"], submitted[1]["payload"]["guidanceId"]],
        "clientGuidanceIds": ["ui-1"],
        "invocationId": first_request["payload"]["invocationId"],
        "round": 2,
        "count": 2,
        "chars": 35,
        "words": 6,
        "preview": "Make it shorter.\n\nMention the stew.",
        "messageIndex": before + 2,
        "requestMessageCount": before + 3,
        "status": "applied"
    });
    assert_eq!(applied, &expected);
    assert_eq!(second_request["messageCount"], before + 3);
    // The note is journaled before the request it joins, and never discarded.
    let applied_at = events
        .iter()
        .position(|e| e["type"] == "user_guidance_applied")
        .unwrap();
    assert!(applied_at < second);
    assert!(of_kind(&events, "user_guidance_discarded").is_empty());
    // The excerpt, with the ids that change from run to run masked.
    let excerpt: Vec<Value> = events[applied_at - 2..=applied_at]
        .iter()
        .map(|e| {
            let mut payload = e["payload"].clone();
            for key in ["guidanceId", "invocationId"] {
                if payload.get(key).is_some() {
                    payload[key] = json!("[id]");
                }
            }
            if payload.get("guidanceIds").is_some() {
                payload["guidanceIds"] = json!(["[id]", "[id]"]);
            }
            json!({"type": e["type"], "payload": payload})
        })
        .collect();
    insta::assert_json_snapshot!("guidance_journal_excerpt", excerpt);
}

#[test]
fn guidance_pending_when_the_run_ends_is_discarded() {
    let fx = Fixture::new();
    let script = json!({"turns": [
        {"delay_ms": 1500, "error": {"kind": "fatal", "message": "the provider fell over"}}
    ]});
    let (mut child, _stderr, run_id) = spawn_scripted_run(&fx, &script, Stdio::null());
    sleep(SETTLE);
    guide(&fx, &run_id, &["Too late."]).code(0);
    assert_eq!(child.wait().unwrap().code(), Some(4));
    let events = events(&fx, &run_id);
    assert_eq!(of_kind(&events, "user_guidance_submitted").len(), 1);
    assert!(of_kind(&events, "user_guidance_applied").is_empty());
    let discarded = of_kind(&events, "user_guidance_discarded");
    assert_eq!(discarded.len(), 1);
    assert_eq!(
        discarded[0]["payload"]["reason"],
        "run_failed_before_next_model_request"
    );
    assert_eq!(discarded[0]["payload"]["chars"], 9);
    // The run has ended: no more notes.
    guide(&fx, &run_id, &["Again."])
        .code(1)
        .stderr(contains("agent.guidance_run_not_accepting"));
}

#[test]
fn a_full_mailbox_refuses_and_a_cancel_discards_it() {
    let fx = Fixture::new();
    let (mut child, _stderr, run_id) = spawn_slow_run(&fx, Stdio::null());
    sleep(SETTLE);
    for n in 0..8 {
        guide(&fx, &run_id, &[&format!("note {n}")]).code(0);
    }
    guide(&fx, &run_id, &["one too many"])
        .code(1)
        .stderr(contains("agent.guidance_mailbox_full"));
    fx.cmd().args(["runs", "cancel", &run_id]).assert().code(0);
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let events = events(&fx, &run_id);
    let discarded = of_kind(&events, "user_guidance_discarded");
    assert_eq!(discarded.len(), 1);
    assert_eq!(discarded[0]["payload"]["count"], 8);
    assert_eq!(discarded[0]["payload"]["reason"], "run_cancel_requested");
    assert_eq!(of_kind(&events, "user_guidance_submitted").len(), 8);
}

#[test]
fn a_run_nobody_drives_takes_no_guidance() {
    let fx = Fixture::new();
    let (mut child, _stderr, run_id) = spawn_slow_run(&fx, Stdio::null());
    sleep(SETTLE);
    child.kill().unwrap();
    child.wait().unwrap();
    guide(&fx, &run_id, &["Anyone there?"])
        .code(1)
        .stderr(contains("agent.guidance_active_run_missing"));
}

#[test]
fn empty_and_oversized_notes_are_refused() {
    let fx = Fixture::new();
    let assert = fx.run_script(&completing_script(), &[]).code(0);
    let run_id = run_id_of(assert.get_output().stderr.as_slice());
    for empty in ["", "  \n"] {
        guide(&fx, &run_id, &[empty])
            .code(1)
            .stderr(contains("agent.guidance_empty"));
    }
    guide(&fx, &run_id, &[&"x".repeat(16_001)])
        .code(1)
        .stderr(contains("agent.guidance_too_large"));
    // At the limit the text passes and the ended run is what refuses it.
    guide(&fx, &run_id, &[&"x".repeat(16_000)])
        .code(1)
        .stderr(contains("agent.guidance_run_not_accepting"));
}
