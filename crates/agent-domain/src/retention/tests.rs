#![allow(clippy::unwrap_used)]

use serde_json::json;

use super::*;
use crate::ErrorCode;
use crate::run::AgentRun;

fn record(id: &str, status: &str, created: &str) -> AgentRun {
    serde_json::from_value(json!({
        "id": id, "workspaceId": "chat_1", "stableChatId": "s",
        "chatRef": {"kind": "group", "chatId": "g"}, "generationType": "normal",
        "profileId": "default-writer", "status": status, "presentation": "foreground",
        "createdAt": created, "updatedAt": created
    }))
    .unwrap()
}

fn files() -> Vec<StoredFile> {
    let file = |path: &str, bytes| StoredFile {
        location: FileLocation::RunFolder(path.to_owned()),
        bytes,
    };
    vec![
        file("run.json", 10),
        file("events.jsonl", 100),
        file("manifest.json", 20),
        file("output/answer.md", 300),
        file("tool-results/call_1.json", 40),
        StoredFile {
            location: FileLocation::IndexRecord,
            bytes: 10,
        },
        StoredFile {
            location: FileLocation::Summary,
            bytes: 5,
        },
    ]
}

/// A finished run that ended at minute `ended` of the day.
fn ended(id: &str, ended: u32) -> RunFacts {
    RunFacts {
        run: record(id, "completed", "2026-01-01T00:00:00.000Z"),
        active: false,
        journal: Some(JournalFacts::Terminal {
            at: format!("2026-01-01T00:{ended:02}:00.000Z"),
        }),
        storage: Ok(files()),
    }
}

fn settings(full: u32, recent: u32) -> RetentionSettings {
    RetentionSettings {
        auto_prune_enabled: false,
        keep_recent_terminal_runs: recent,
        keep_full_recent_runs: full,
    }
}

fn actions(plan: &PrunePlan) -> Vec<(String, PruneAction)> {
    plan.candidates
        .iter()
        .map(|c| (c.run_id.to_string(), c.action))
        .collect()
}

#[test]
fn storage_classes_follow_the_run_relative_path() {
    let class = |path: &str| StorageClass::of(&FileLocation::RunFolder(path.to_owned()));
    assert_eq!(class("run.json"), StorageClass::RunJournal);
    assert_eq!(class("events.jsonl"), StorageClass::RunJournal);
    assert_eq!(
        StorageClass::of(&FileLocation::IndexRecord),
        StorageClass::RunJournal
    );
    assert_eq!(
        StorageClass::of(&FileLocation::Summary),
        StorageClass::RunJournal
    );
    assert_eq!(class("manifest.json"), StorageClass::RunContext);
    assert_eq!(
        class("input/prompt_snapshot.json"),
        StorageClass::RunContext
    );
    assert_eq!(class("invocations/inv_root.json"), StorageClass::RunContext);
    for root in ["persist", "summaries", "plan"] {
        assert_eq!(
            class(&format!("{root}/a.md")),
            StorageClass::RunWorkspaceProjection
        );
    }
    for root in ["tool-args", "tool-results", "agent-results"] {
        assert_eq!(class(&format!("{root}/x.json")), StorageClass::RunToolIo);
    }
    assert_eq!(class("output/a.md"), StorageClass::WorkspaceOutputs);
    assert_eq!(class("scratch/a.md"), StorageClass::WorkspaceScratch);
    assert_eq!(class("tasks/t.json"), StorageClass::Tasks);
    assert_eq!(
        class("model-responses/round-001.json"),
        StorageClass::ModelResponses
    );
    assert_eq!(
        class("checkpoints/cp_000001/checkpoint.json"),
        StorageClass::Checkpoints
    );
    assert_eq!(
        class("blobs/sha256/ab/abcd"),
        StorageClass::OtherRunArtifact
    );
    assert_eq!(class("cancel-requested"), StorageClass::OtherRunArtifact);
    assert!(StorageClass::RunJournal.is_core());
    assert!(!StorageClass::RunContext.is_core());
}

#[test]
fn settings_default_and_validate_with_their_codes() {
    let defaults = RetentionSettings::from_document(&json!({})).unwrap();
    assert_eq!(defaults, settings(20, 100));
    assert!(!defaults.auto_prune_enabled);
    let doc = json!({"agent": {"retention": {"keep_recent_terminal_runs": 5, "keep_full_recent_runs": 0, "auto_prune_enabled": true}}});
    let read = RetentionSettings::from_document(&doc).unwrap();
    assert_eq!(
        (read.keep_recent_terminal_runs, read.keep_full_recent_runs),
        (5, 0)
    );
    assert!(read.auto_prune_enabled);
    let code = |doc: serde_json::Value| RetentionSettings::from_document(&doc).unwrap_err().code();
    assert_eq!(
        code(json!({"agent": {"retention": {"keep_recent_terminal_runs": 10001}}})),
        "agent.retention_keep_recent_terminal_runs_invalid"
    );
    assert_eq!(
        code(json!({"agent": {"retention": {"keep_recent_terminal_runs": -1}}})),
        "agent.retention_keep_recent_terminal_runs_invalid"
    );
    assert_eq!(
        code(
            json!({"agent": {"retention": {"keep_recent_terminal_runs": 5, "keep_full_recent_runs": 6}}})
        ),
        "agent.retention_keep_full_recent_runs_invalid"
    );
    assert_eq!(
        code(json!({"agent": {"retention": {"keep_full_recent_runs": "3"}}})),
        "agent.retention_keep_full_recent_runs_invalid"
    );
    assert_eq!(
        code(json!({"agent": {"retention": {"auto_prune_enabled": "yes"}}})),
        "agent.retention_auto_prune_enabled_invalid"
    );
    assert_eq!(
        code(json!({"agent": {"retention": 3}})),
        "agent.retention_settings_invalid"
    );
    assert_eq!(code(json!([])), "agent.retention_settings_invalid");
}

#[test]
fn setting_one_key_validates_the_whole_policy() {
    let base = RetentionSettings::default();
    let key = |raw: &str| raw.parse::<RetentionKey>().unwrap();
    assert_eq!(
        base.with(key("keep_full_recent_runs"), "100")
            .unwrap()
            .keep_full_recent_runs,
        100
    );
    let code = |k: &str, v: &str| base.with(key(k), v).unwrap_err().code();
    assert_eq!(
        code("keep_full_recent_runs", "101"),
        "agent.retention_keep_full_recent_runs_invalid"
    );
    assert_eq!(
        code("keep_recent_terminal_runs", "10"),
        "agent.retention_keep_full_recent_runs_invalid"
    );
    assert_eq!(
        code("keep_recent_terminal_runs", "10001"),
        "agent.retention_keep_recent_terminal_runs_invalid"
    );
    assert_eq!(
        code("keep_recent_terminal_runs", "many"),
        "agent.retention_keep_recent_terminal_runs_invalid"
    );
    assert_eq!(
        code("auto_prune_enabled", "1"),
        "agent.retention_auto_prune_enabled_invalid"
    );
    assert!(
        base.with(key("auto_prune_enabled"), "true")
            .unwrap()
            .auto_prune_enabled
    );
    assert_eq!(
        "keep_all".parse::<RetentionKey>().unwrap_err().code(),
        "agent.retention_setting_unknown"
    );
}

#[test]
fn writing_the_policy_keeps_every_other_setting() {
    let mut doc = json!({"theme": "dark", "agent": {"other": 1}});
    settings(1, 2).write_into(&mut doc).unwrap();
    assert_eq!(doc["theme"], "dark");
    assert_eq!(doc["agent"]["other"], 1);
    assert_eq!(
        doc["agent"]["retention"],
        json!({"auto_prune_enabled": false, "keep_recent_terminal_runs": 2, "keep_full_recent_runs": 1})
    );
    assert_eq!(
        RetentionSettings::from_document(&doc).unwrap(),
        settings(1, 2)
    );
    let mut bad = json!({"agent": "x"});
    assert_eq!(
        settings(1, 2).write_into(&mut bad).unwrap_err().code(),
        "agent.retention_settings_invalid"
    );
}

#[test]
fn runs_are_ranked_by_their_last_terminal_event_then_kept_slimmed_or_deleted() {
    // Created in the order a, b, c, d, but ended d, c, b, a (a ended last).
    let mut runs = vec![
        ended("run_a", 40),
        ended("run_b", 30),
        ended("run_c", 20),
        ended("run_d", 10),
    ];
    runs[3].run.created_at = "2026-01-01T00:09:00.000Z".into();
    let plan = plan_prune(&runs, settings(1, 3)).unwrap();
    assert_eq!(
        actions(&plan),
        [
            ("run_b".to_owned(), PruneAction::SlimHeavyArtifacts),
            ("run_c".to_owned(), PruneAction::SlimHeavyArtifacts),
            ("run_d".to_owned(), PruneAction::DeleteRun),
        ]
    );
    let slim = &plan.candidates[0];
    assert_eq!(slim.rank, 1);
    assert_eq!(slim.files, 3, "manifest, output, tool result");
    assert_eq!(slim.bytes, 360);
    assert_eq!(
        slim.paths,
        [
            "manifest.json",
            "output/answer.md",
            "tool-results/call_1.json"
        ]
    );
    let delete = &plan.candidates[2];
    assert_eq!(
        (delete.files, delete.bytes),
        (7, 485),
        "every file, the index documents too"
    );
    assert_eq!(plan.totals.kept_runs, 1);
    assert_eq!(
        (
            plan.totals.slim_runs,
            plan.totals.slim_files,
            plan.totals.slim_bytes
        ),
        (2, 6, 720)
    );
    assert_eq!(
        (
            plan.totals.delete_runs,
            plan.totals.delete_files,
            plan.totals.delete_bytes
        ),
        (1, 7, 485)
    );
}

#[test]
fn ties_fall_back_to_creation_time_then_id_and_an_untimed_end_to_updated_at() {
    let mut runs = vec![ended("run_a", 10), ended("run_b", 10), ended("run_c", 10)];
    runs[0].run.created_at = "2026-01-01T00:05:00.000Z".into();
    runs[2].journal = Some(JournalFacts::Terminal { at: String::new() });
    runs[2].run.updated_at = "2026-01-01T00:50:00.000Z".into();
    let plan = plan_prune(&runs, settings(0, 0)).unwrap();
    let order: Vec<_> = plan
        .candidates
        .iter()
        .map(|c| c.run_id.to_string())
        .collect();
    assert_eq!(order, ["run_c", "run_a", "run_b"]);
    assert_eq!(plan.candidates[0].ended_at, "2026-01-01T00:50:00.000Z");
}

#[test]
fn a_run_holding_only_its_core_history_is_kept_not_slimmed_again() {
    let mut run = ended("run_a", 10);
    run.storage = Ok(files()
        .into_iter()
        .filter(|f| StorageClass::of(&f.location).is_core())
        .collect());
    let plan = plan_prune(&[ended("run_b", 20), run], settings(1, 5)).unwrap();
    assert!(plan.candidates.is_empty());
    assert_eq!(plan.totals.kept_runs, 2);
}

#[test]
fn blocked_runs_are_reported_never_planned_and_take_no_rank() {
    let mut active = ended("run_active", 50);
    active.active = true;
    let mut running = ended("run_running", 45);
    running.run.status = crate::event::RunStatus::CallingModel;
    running.active = true;
    let mut killed = ended("run_killed", 44);
    killed.run.status = crate::event::RunStatus::CallingModel;
    killed.journal = None;
    let mut unreadable = ended("run_unreadable", 40);
    unreadable.journal = Some(JournalFacts::Unreadable("line 3: bad json".into()));
    let mut open = ended("run_open", 35);
    open.journal = Some(JournalFacts::NoTerminalEvent);
    let mut broken = ended("run_broken", 30);
    broken.storage = Err("a symlink".into());
    let runs = vec![
        active,
        running,
        killed,
        unreadable,
        open,
        broken,
        ended("run_new", 20),
        ended("run_old", 10),
    ];
    let plan = plan_prune(&runs, settings(0, 1)).unwrap();
    assert_eq!(
        actions(&plan),
        [
            ("run_new".to_owned(), PruneAction::SlimHeavyArtifacts),
            ("run_old".to_owned(), PruneAction::DeleteRun),
        ]
    );
    assert_eq!(
        plan.candidates[0].rank, 0,
        "blocked runs take no place in the ranking"
    );
    let reasons: Vec<_> = plan
        .blocked
        .iter()
        .map(|b| (b.run_id.to_string(), b.reason))
        .collect();
    assert_eq!(
        reasons,
        [
            ("run_unreadable".to_owned(), BlockReason::InvalidJournal),
            ("run_running".to_owned(), BlockReason::ActiveRun),
            ("run_open".to_owned(), BlockReason::MissingTerminalEvent),
            ("run_broken".to_owned(), BlockReason::InvalidStorage),
            ("run_active".to_owned(), BlockReason::ActiveRun),
        ]
    );
    assert_eq!(plan.totals.blocked_runs, 5);
    assert_eq!(plan.totals.non_terminal_runs, 1);
    assert_eq!(plan.totals.scanned_runs, 8);
    assert_eq!(plan.totals.ranked_runs, 2);
}

#[test]
fn reports_cap_details_but_never_totals() {
    let runs: Vec<_> = (0..30).map(|i| ended(&format!("run_{i:02}"), i)).collect();
    let plan = plan_prune(&runs, settings(0, 10)).unwrap();
    let report = plan.report(DetailLimit::new(Some(4)).unwrap());
    assert_eq!(report.candidates.len(), 4);
    assert_eq!(report.omitted_candidates, 26);
    assert_eq!(report.totals.slim_runs + report.totals.delete_runs, 30);
    assert_eq!(
        plan.report(DetailLimit::new(Some(0)).unwrap())
            .candidates
            .len(),
        0
    );
    assert_eq!(plan.report(DetailLimit::default()).candidates.len(), 30);
    assert_eq!(
        DetailLimit::new(Some(1001)).unwrap_err().code(),
        "agent.run_prune_detail_limit_invalid"
    );
    assert!(DetailLimit::new(Some(1000)).is_ok());
}

#[test]
fn sums_that_overflow_are_refused_with_their_code() {
    let mut huge = ended("run_a", 10);
    huge.storage = Ok(vec![
        StoredFile {
            location: FileLocation::RunFolder("output/a".into()),
            bytes: u64::MAX,
        },
        StoredFile {
            location: FileLocation::RunFolder("output/b".into()),
            bytes: 1,
        },
    ]);
    assert_eq!(
        plan_prune(&[huge], settings(0, 0)).unwrap_err().code(),
        "agent.run_prune_byte_count_overflow"
    );
}

#[test]
fn an_inconsistent_policy_is_refused_before_planning() {
    assert_eq!(
        plan_prune(&[], settings(5, 4)).unwrap_err().code(),
        "agent.retention_keep_full_recent_runs_invalid"
    );
}
