//! Serialization, classification and journal-shape tests of the event vocabulary.

use std::collections::BTreeSet;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::samples::{self, CHILD, HANDOFF, ROOT, RUN};
use super::*;
use crate::tool::ToolId;

/// The events TauriTavern's agent framework lists as implemented, plus the ones this runtime
/// adds from its tool system and newer TauriTavern builds (`docs/spec-map.md`, Run flow and
/// events).
const SPEC_EVENT_TYPES: &[&str] = &[
    "run_created",
    "profile_resolved",
    "generation_intent_recorded",
    "status_changed",
    "workspace_initialized",
    "persistent_projection_initialized",
    "context_assembled",
    "agent_invocation_created",
    "agent_invocation_started",
    "agent_invocation_completed",
    "agent_invocation_failed",
    "agent_invocation_cancelled",
    "agent_invocation_transferred",
    "agent_task_registered",
    "agent_task_queued",
    "agent_task_started",
    "agent_task_completed",
    "agent_task_failed",
    "agent_task_cancelled",
    "agent_delegate_started",
    "agent_await_started",
    "agent_await_completed",
    "task_return_completed",
    "model_request_created",
    "model_call_attempt_started",
    "model_call_attempt_failed",
    "model_call_retry_scheduled",
    "model_completed",
    "direct_output_captured",
    "tool_call_requested",
    "tool_call_started",
    "tool_result_stored",
    "tool_call_completed",
    "tool_call_failed",
    "workspace_file_written",
    "workspace_patch_applied",
    "checkpoint_created",
    "provider_state_updated",
    "model_response_stored",
    "agent_loop_finished",
    "chat_commit_started",
    "chat_commit_requested",
    "chat_commit_completed",
    "chat_commit_failed",
    "chat_commit_recorded",
    "persistent_changes_committed",
    "persistent_changes_commit_failed",
    "persistent_state_metadata_update_requested",
    "persistent_state_metadata_updated",
    "persistent_state_metadata_update_failed",
    "run_completed",
    "run_partial_success",
    "run_cancel_requested",
    "run_cancelled",
    "run_failed",
    // Added beyond the framework's list.
    "drift_recovery_attempted",
    "tool_result_readable_view_stored",
    "mcp_notice_received",
    "skill_scopes_resolved",
    "agent_model_binding_resolved",
    "agent_handoff_requested",
    "agent_handoff_accepted",
    "task_return_recorded",
    "agent_child_invocation_failed",
    "user_guidance_submitted",
    "user_guidance_applied",
    "user_guidance_discarded",
    "run_rolled_back",
];

#[test]
fn every_variant_serialises_under_its_event_type_and_round_trips() {
    let events = samples::one_of_each();
    let mut types = BTreeSet::new();
    for event in &events {
        let value = serde_json::to_value(event).unwrap();
        let object = value.as_object().unwrap();
        assert_eq!(object.len(), 2, "{value}");
        assert_eq!(object["type"], json!(event.event_type()));
        assert!(object.contains_key("payload"), "{value}");
        assert!(
            types.insert(event.event_type()),
            "duplicate {}",
            event.event_type()
        );
        let back: RunEvent = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(&back, event, "{value}");
    }
    let spec: BTreeSet<&str> = SPEC_EVENT_TYPES.iter().copied().collect();
    assert_eq!(spec.len(), SPEC_EVENT_TYPES.len());
    assert_eq!(types, spec);
}

#[test]
fn payload_shapes_of_unit_and_optional_events() {
    let null_payloads = [
        RunEvent::RunCompleted,
        RunEvent::RunCancelRequested,
        RunEvent::RunCancelled(None),
    ];
    for event in null_payloads {
        let value = serde_json::to_value(&event).unwrap();
        assert_eq!(value, json!({"type": event.event_type(), "payload": null}));
        let without_payload: RunEvent =
            serde_json::from_value(json!({"type": event.event_type()})).unwrap();
        assert_eq!(without_payload, event);
    }
    let cancelled = RunEvent::RunCancelled(Some(RunCancelledPayload {
        message: "stop".into(),
    }));
    assert_eq!(
        serde_json::to_value(&cancelled).unwrap(),
        json!({"type": "run_cancelled", "payload": {"message": "stop"}})
    );
    // Other payload-carrying events need their payload.
    assert!(serde_json::from_value::<RunEvent>(json!({"type": "run_failed"})).is_err());
    assert!(
        serde_json::from_value::<RunEvent>(json!({"type": "no_such_event", "payload": {}}))
            .is_err()
    );
}

#[test]
fn levels_follow_the_catalogue() {
    let levels: Vec<(&str, EventLevel)> = samples::one_of_each()
        .iter()
        .filter(|event| event.level() != EventLevel::Info)
        .map(|event| (event.event_type(), event.level()))
        .collect();
    assert_eq!(
        levels,
        [
            ("agent_await_completed", EventLevel::Warn),
            ("agent_child_invocation_failed", EventLevel::Warn),
            ("model_call_attempt_started", EventLevel::Debug),
            ("model_call_attempt_failed", EventLevel::Warn),
            ("model_call_retry_scheduled", EventLevel::Warn),
            ("model_response_stored", EventLevel::Debug),
            ("provider_state_updated", EventLevel::Debug),
            ("drift_recovery_attempted", EventLevel::Warn),
            ("tool_result_stored", EventLevel::Debug),
            ("tool_call_failed", EventLevel::Warn),
            ("chat_commit_failed", EventLevel::Error),
            ("persistent_changes_commit_failed", EventLevel::Error),
            ("persistent_state_metadata_update_failed", EventLevel::Error),
            ("run_partial_success", EventLevel::Warn),
            ("run_failed", EventLevel::Error),
        ]
    );
    let final_attempt = RunEvent::ModelCallAttemptFailed(ModelCallAttemptFailedPayload {
        round: 1,
        invocation_id: ROOT.into(),
        attempt: 4,
        max_retries: 3,
        retryable: true,
        will_retry: false,
        code: None,
        message: "still limited".into(),
    });
    assert_eq!(final_attempt.level(), EventLevel::Error);
    let suppressed = RunEvent::McpNoticeReceived(McpNoticeReceivedPayload {
        round: 1,
        invocation_id: ROOT.into(),
        call_id: "call_mcp".into(),
        tool_id: ToolId::mcp("0f8fad5b-d9cb-469f-a165-70867728950e", "chatty").unwrap(),
        notice: McpNoticeBody::Suppressed { count: 7 },
    });
    assert_eq!(suppressed.level(), EventLevel::Warn);
    assert_eq!(
        serde_json::to_value(&suppressed).unwrap()["payload"]["notice"],
        json!({"kind": "suppressed", "count": 7})
    );
    let fatal = RunEvent::ToolCallFailed(samples::tool_outcome("call_9", true, true));
    assert_eq!(fatal.level(), EventLevel::Error);
    let in_time = RunEvent::AgentAwaitCompleted(AwaitCompletedPayload {
        parent_invocation_id: ROOT.into(),
        mode: AwaitMode::StatusOnly,
        timed_out: false,
        task_count: 0,
    });
    assert_eq!(in_time.level(), EventLevel::Info);
    let unreadable_skill = RunEvent::SkillScopesResolved(SkillScopesResolvedPayload {
        scopes: vec!["global".into()],
        refs: json!({}),
        effective_skills: vec![],
        diagnostics: vec![SkillDiagnostic {
            scope: Some(json!({"kind": "global"})),
            folder: Some("broken".into()),
            code: "skill.front_matter_missing".into(),
            message: "SKILL.md must start with front matter".into(),
        }],
    });
    assert_eq!(unreadable_skill.level(), EventLevel::Warn);
    let stale_copy = RunEvent::PersistentChangesCommitted(PersistentChangesCommittedPayload {
        state_id: RUN.into(),
        base_state_id: None,
        change_count: 0,
        changes: vec![],
        browsable_copy_error: Some("persist/: Directory not empty".into()),
    });
    assert_eq!(stale_copy.level(), EventLevel::Warn);
    assert_eq!(
        serde_json::to_value(&stale_copy).unwrap()["payload"]["browsableCopyError"],
        json!("persist/: Directory not empty")
    );
    assert_eq!(
        serde_json::to_value(&unreadable_skill).unwrap()["payload"]["diagnostics"],
        json!([{"scope": {"kind": "global"}, "folder": "broken",
                "code": "skill.front_matter_missing",
                "message": "SKILL.md must start with front matter"}])
    );
}

#[test]
fn terminal_events() {
    let terminal: Vec<&str> = samples::one_of_each()
        .iter()
        .filter(|event| event.is_terminal())
        .map(RunEvent::event_type)
        .collect();
    assert_eq!(
        terminal,
        [
            "run_completed",
            "run_partial_success",
            "run_cancelled",
            "run_failed"
        ]
    );
    for event in samples::one_of_each() {
        if let Some(outcome) = event.terminal_outcome() {
            assert_eq!(outcome.event_type(), event.event_type());
            assert_eq!(outcome.level(), event.level());
        }
    }
    assert!(!RunEvent::RunCancelRequested.is_terminal());
}

#[test]
fn durability_barriers() {
    let barriers: Vec<(&str, DurabilityBarrier)> = samples::one_of_each()
        .iter()
        .filter_map(|event| Some((event.event_type(), event.durability_barrier()?)))
        .collect();
    let ack = DurabilityBarrier::Acknowledgement;
    assert_eq!(
        barriers,
        [
            ("model_request_created", DurabilityBarrier::RoundStart),
            ("chat_commit_requested", ack),
            ("chat_commit_completed", ack),
            ("persistent_changes_committed", ack),
            ("persistent_state_metadata_updated", ack),
            ("run_completed", ack),
            ("run_partial_success", ack),
            ("run_cancelled", ack),
            ("run_failed", ack),
            ("run_rolled_back", ack),
        ]
    );
}

#[test]
fn tool_events_carry_the_canonical_tool_id_invocation_and_round() {
    for event in samples::one_of_each() {
        if !event.event_type().starts_with("tool_") {
            continue;
        }
        let value = serde_json::to_value(&event).unwrap();
        let payload = &value["payload"];
        assert!(
            payload["toolId"]
                .as_str()
                .is_some_and(|id| id.contains(':')),
            "{value}"
        );
        assert!(payload["invocationId"].is_string(), "{value}");
        assert!(payload["round"].is_u64(), "{value}");
        assert!(payload["callId"].is_string(), "{value}");
    }
}

#[test]
fn context_and_requests_record_the_turn_contract() {
    let events = samples::one_of_each();
    let find = |ty: &str| {
        let event = events.iter().find(|e| e.event_type() == ty).unwrap();
        serde_json::to_value(event).unwrap()["payload"].clone()
    };
    let turn = json!({
        "snapshotId": ROOT,
        "tools": ["builtin:workspace.write_file", "builtin:workspace.commit", "builtin:workspace.finish"],
        "choice": "auto"
    });
    let context = find("context_assembled");
    assert_eq!(context["turn"], turn);
    assert_eq!(
        context["toolSnapshotPath"],
        json!("input/invocations/inv_root/tool_snapshot.json")
    );
    assert_eq!(context["snapshot"]["snapshotId"], json!(ROOT));
    assert_eq!(context["snapshot"]["toolCount"], json!(3));
    assert_eq!(
        context["modelRetry"],
        json!({"maxRetries": 3, "intervalMs": 3000})
    );
    assert!(context.get("contextPolicy").is_none());
    let request = find("model_request_created");
    assert_eq!(request["turn"], turn);
    assert_eq!(request["round"], json!(1));
    assert_eq!(request["request"]["messageCount"], json!(2));
}

#[test]
fn optional_fields_are_omitted_and_nullable_ones_kept() {
    let events = samples::one_of_each();
    let payload = |ty: &str| {
        let event = events.iter().find(|e| e.event_type() == ty).unwrap();
        serde_json::to_value(event).unwrap()["payload"].clone()
    };
    // Nullable: written as null.
    assert_eq!(payload("run_created")["persistBaseStateId"], Value::Null);
    assert!(
        payload("run_created")
            .as_object()
            .unwrap()
            .contains_key("persistBaseStateId")
    );
    assert!(
        payload("tool_call_completed")
            .as_object()
            .unwrap()
            .contains_key("errorCode")
    );
    // Optional: omitted.
    let started = payload("agent_invocation_started");
    assert!(!started.as_object().unwrap().contains_key("message"));
    assert!(
        !payload("tool_call_failed")
            .as_object()
            .unwrap()
            .contains_key("fatal")
    );
    assert!(
        !payload("user_guidance_submitted")
            .as_object()
            .unwrap()
            .contains_key("clientGuidanceId")
    );
    assert!(
        !payload("tool_call_requested")
            .as_object()
            .unwrap()
            .contains_key("providerMetadata")
    );
}

#[test]
fn status_driven_constructors_pick_the_event_type() {
    assert_eq!(
        RunEvent::for_invocation_status(samples::invocation_status(InvocationStatus::Created)),
        None
    );
    let cases = [
        (InvocationStatus::Running, "agent_invocation_started"),
        (InvocationStatus::Completed, "agent_invocation_completed"),
        (InvocationStatus::Failed, "agent_invocation_failed"),
        (InvocationStatus::Cancelled, "agent_invocation_cancelled"),
        (
            InvocationStatus::Transferred,
            "agent_invocation_transferred",
        ),
    ];
    for (status, ty) in cases {
        let event = RunEvent::for_invocation_status(samples::invocation_status(status)).unwrap();
        assert_eq!(event.event_type(), ty);
    }
    let cases = [
        (TaskStatus::Queued, "agent_task_queued"),
        (TaskStatus::Running, "agent_task_started"),
        (TaskStatus::Completed, "agent_task_completed"),
        (TaskStatus::Failed, "agent_task_failed"),
        (TaskStatus::Cancelled, "agent_task_cancelled"),
    ];
    for (status, ty) in cases {
        assert_eq!(
            RunEvent::for_task_status(samples::task_status(status)).event_type(),
            ty
        );
    }
}

#[test]
fn event_scopes() {
    let events = samples::one_of_each();
    let scope = |ty: &str| {
        events
            .iter()
            .find(|e| e.event_type() == ty)
            .unwrap()
            .scope()
    };
    let of = |id: &str, related: &[&str]| {
        Some(EventScope {
            invocation_id: id.to_owned(),
            related_invocation_ids: related.iter().map(|s| (*s).to_owned()).collect(),
        })
    };
    assert_eq!(scope("run_created"), of(ROOT, &[]));
    assert_eq!(scope("run_completed"), of(ROOT, &[]));
    assert_eq!(scope("status_changed"), of(ROOT, &[]));
    assert_eq!(scope("tool_call_started"), of(ROOT, &[]));
    assert_eq!(scope("agent_invocation_started"), of(CHILD, &[ROOT]));
    assert_eq!(scope("agent_delegate_started"), of(ROOT, &[CHILD]));
    assert_eq!(scope("agent_task_completed"), of(ROOT, &[CHILD]));
    assert_eq!(scope("task_return_completed"), of(CHILD, &[ROOT]));
    assert_eq!(scope("agent_handoff_accepted"), of(ROOT, &[HANDOFF]));
    assert_eq!(scope("agent_child_invocation_failed"), of(CHILD, &[]));
    assert_eq!(scope("checkpoint_created"), None);
    assert_eq!(scope("persistent_changes_committed"), None);
}

#[test]
fn journal_lines_are_flat_and_round_trip() {
    let line = JournalLine::new(
        3,
        "evt_00000000000000000000000000000003",
        RUN,
        "2026-06-24T10:00:00.000Z",
        RunEvent::StatusChanged(StatusChangedPayload {
            status: RunStatus::CallingModel,
        }),
    );
    let text = serde_json::to_string(&line).unwrap();
    assert_eq!(
        text,
        format!(
            r#"{{"seq":3,"id":"evt_00000000000000000000000000000003","runId":"{RUN}","timestamp":"2026-06-24T10:00:00.000Z","level":"info","type":"status_changed","payload":{{"status":"calling_model"}}}}"#
        )
    );
    assert_eq!(serde_json::from_str::<JournalLine>(&text).unwrap(), line);
    assert_eq!(line.event_type(), "status_changed");

    for (index, event) in samples::one_of_each().into_iter().enumerate() {
        let line = JournalLine::new(index as u64 + 1, format!("evt_{index}"), RUN, "t", event);
        let value = serde_json::to_value(&line).unwrap();
        let keys: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys.iter().copied().collect::<BTreeSet<_>>(),
            [
                "id",
                "level",
                "payload",
                "runId",
                "seq",
                "timestamp",
                "type"
            ]
            .into()
        );
        let text = serde_json::to_string(&line).unwrap();
        assert!(!text.contains('\n'));
        let back: JournalLine = serde_json::from_str(&text).unwrap();
        assert_eq!(back, line);
    }
}

#[test]
fn journal_lines_read_in_any_key_order_and_without_null_payload() {
    let line: JournalLine = serde_json::from_value(json!({
        "payload": null, "type": "run_cancel_requested", "level": "info",
        "timestamp": "t", "runId": RUN, "id": "evt_1", "seq": 9
    }))
    .unwrap();
    assert_eq!(line.event, RunEvent::RunCancelRequested);
    let line: JournalLine = serde_json::from_value(json!({
        "seq": 10, "id": "evt_2", "runId": RUN, "timestamp": "t", "level": "info", "type": "run_completed"
    }))
    .unwrap();
    assert_eq!(line.event, RunEvent::RunCompleted);
    // Keys from older writers (such as an injected eventScope) are tolerated.
    let line: JournalLine = serde_json::from_value(json!({
        "seq": 11, "id": "evt_3", "runId": RUN, "timestamp": "t", "level": "info",
        "type": "status_changed", "payload": {"status": "awaiting_commit", "eventScope": {"invocationId": ROOT}}
    }))
    .unwrap();
    assert_eq!(
        line.event,
        RunEvent::StatusChanged(StatusChangedPayload {
            status: RunStatus::AwaitingHostCommit
        })
    );
}

/// A short foreground run: write, commit, finish.
fn representative_journal() -> Vec<JournalLine> {
    let events = samples::one_of_each();
    let pick = |ty: &str| {
        events
            .iter()
            .find(|e| e.event_type() == ty)
            .unwrap()
            .clone()
    };
    let status = |status| RunEvent::StatusChanged(StatusChangedPayload { status });
    let sequence = vec![
        pick("run_created"),
        pick("profile_resolved"),
        status(RunStatus::InitializingWorkspace),
        pick("workspace_initialized"),
        pick("agent_model_binding_resolved"),
        status(RunStatus::AssemblingContext),
        pick("context_assembled"),
        status(RunStatus::CallingModel),
        pick("model_request_created"),
        pick("model_call_attempt_started"),
        pick("model_response_stored"),
        pick("model_completed"),
        pick("tool_call_requested"),
        pick("tool_call_started"),
        pick("workspace_file_written"),
        pick("checkpoint_created"),
        pick("tool_result_stored"),
        pick("tool_call_completed"),
        pick("chat_commit_requested"),
        pick("chat_commit_completed"),
        pick("agent_loop_finished"),
        status(RunStatus::Finishing),
        pick("persistent_changes_committed"),
        status(RunStatus::Completed),
        RunEvent::RunCompleted,
    ];
    sequence
        .into_iter()
        .enumerate()
        .map(|(index, event)| {
            let seq = index as u64 + 1;
            JournalLine::new(
                seq,
                format!("evt_{seq:032x}"),
                RUN,
                format!("2026-06-24T10:00:{seq:02}.000Z"),
                event,
            )
        })
        .collect()
}

#[test]
fn representative_journal_snapshot() {
    let journal = representative_journal();
    assert!(journal.last().is_some_and(|line| line.event.is_terminal()));
    insta::assert_json_snapshot!(journal);
}
