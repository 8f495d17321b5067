#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Audit documents: create-only, pretty JSON, at their documented paths.

mod workspace_support;

use std::fs;

use agent_application::ports::{AuditRef, AuditStore, InputDocument, StoreError};
use agent_domain::ErrorCode;
use agent_domain::run::InvocationId;
use agent_domain::tool::{AgentToolResult, ExitPolicy, InvocationToolSnapshot, ToolId};
use agent_infra_fs::audit::FsAuditStore;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use workspace_support::{TestRun, test_run};

fn store() -> (TestRun, FsAuditStore) {
    let run = test_run();
    let store = FsAuditStore::new(run.locator.clone());
    (run, store)
}

fn read_text(run: &TestRun, audit: &AuditRef) -> String {
    fs::read_to_string(run.run_dir.join(&audit.0)).unwrap()
}

fn tool_result(call_id: &str) -> AgentToolResult {
    AgentToolResult {
        call_id: call_id.to_owned(),
        tool_id: ToolId::parse("builtin:workspace.write_file").unwrap(),
        content: "Wrote 5 chars / 1 words to output/main.md.".to_owned(),
        structured: json!({"path": "output/main.md", "mode": "replace", "chars": 5}),
        is_error: false,
        error_code: None,
        resource_refs: vec!["output/main.md".to_owned()],
    }
}

#[tokio::test]
async fn tool_arguments_are_written_once_per_call_id() {
    let (run, store) = store();
    let args = json!({"path": "output/main.md", "content": "Hello"});
    let first = store
        .write_tool_args(&run.run, "call_1", &args)
        .await
        .unwrap();
    assert_eq!(
        first,
        AuditRef("tool-args/call_74196fe72e4cdc13.json".into())
    );
    assert_eq!(
        read_text(&run, &first),
        format!("{}\n", serde_json::to_string_pretty(&args).unwrap())
    );

    let err = store
        .write_tool_args(&run.run, "call_1", &json!({"other": true}))
        .await
        .unwrap_err();
    assert_eq!(err, StoreError::AlreadyExists(first.0.clone()));
    assert_eq!(err.code(), "agent.already_exists");
    let kept: Value = serde_json::from_str(&read_text(&run, &first)).unwrap();
    assert_eq!(kept, args);

    let other = store
        .write_tool_args(&run.run, "call_2", &json!("raw {not json"))
        .await
        .unwrap();
    assert_ne!(other, first);
    assert_eq!(read_text(&run, &other), "\"raw {not json\"\n");
}

#[tokio::test]
async fn tool_results_keep_their_serde_shape_and_are_create_only() {
    let (run, store) = store();
    let result = tool_result("call_mcp");
    let audit = store.write_tool_result(&run.run, &result).await.unwrap();
    assert_eq!(
        audit,
        AuditRef("tool-results/call_fe79da5f09df9787.json".into())
    );
    let on_disk: Value = serde_json::from_str(&read_text(&run, &audit)).unwrap();
    insta::assert_json_snapshot!("tool_result_audit", on_disk);

    let mut changed = tool_result("call_mcp");
    changed.content = "something else".into();
    let err = store
        .write_tool_result(&run.run, &changed)
        .await
        .unwrap_err();
    assert_eq!(err, StoreError::AlreadyExists(audit.0.clone()));
    let kept: AgentToolResult = serde_json::from_str(&read_text(&run, &audit)).unwrap();
    assert_eq!(kept, result);

    let failed = AgentToolResult {
        is_error: true,
        error_code: Some("workspace.file_not_found".into()),
        ..tool_result("call_2")
    };
    let audit = store.write_tool_result(&run.run, &failed).await.unwrap();
    let on_disk: Value = serde_json::from_str(&read_text(&run, &audit)).unwrap();
    assert_eq!(on_disk["errorCode"], "workspace.file_not_found");
}

#[tokio::test]
async fn model_responses_are_numbered_per_invocation() {
    let (run, store) = store();
    let root = InvocationId::root();
    let child = InvocationId::parse("inv_0123456789abcdef0123456789abcdef").unwrap();
    let doc = |round: u32| json!({"round": round, "response": {"text": "hi"}});

    let a = store
        .write_model_response(&run.run, &root, 1, &doc(1))
        .await
        .unwrap();
    let b = store
        .write_model_response(&run.run, &child, 1, &doc(1))
        .await
        .unwrap();
    let c = store
        .write_model_response(&run.run, &root, 2, &doc(2))
        .await
        .unwrap();
    assert_eq!(a.0, "model-responses/round-001.json");
    assert_eq!(b.0, format!("model-responses/{child}/round-001.json"));
    assert_eq!(c.0, "model-responses/round-002.json");
    assert_eq!(
        store.read_model_response(&run.run, &root, 2).await.unwrap(),
        doc(2)
    );
    assert_eq!(
        store
            .read_model_response(&run.run, &child, 1)
            .await
            .unwrap(),
        doc(1)
    );

    let err = store
        .write_model_response(&run.run, &root, 1, &doc(9))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::AlreadyExists(_)));
    assert_eq!(
        store.read_model_response(&run.run, &root, 1).await.unwrap(),
        doc(1)
    );

    let err = store
        .read_model_response(&run.run, &root, 3)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound(_)), "{err}");
    fs::write(run.run_dir.join("model-responses/round-003.json"), "{torn").unwrap();
    let err = store
        .read_model_response(&run.run, &root, 3)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Integrity(_)), "{err}");
}

#[tokio::test]
async fn tool_snapshots_live_with_their_invocation_inputs() {
    let (run, store) = store();
    let snapshot = InvocationToolSnapshot::new(
        "inv_root".into(),
        ExitPolicy::RunFinishAllowed,
        vec![],
        80,
        50_000,
    )
    .unwrap();
    let audit = store
        .write_tool_snapshot(&run.run, &snapshot)
        .await
        .unwrap();
    assert_eq!(audit.0, "input/invocations/inv_root/tool_snapshot.json");
    let back: InvocationToolSnapshot = serde_json::from_str(&read_text(&run, &audit)).unwrap();
    assert_eq!(back, snapshot);
    let err = store
        .write_tool_snapshot(&run.run, &snapshot)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::AlreadyExists(_)));

    let hostile = InvocationToolSnapshot::new(
        "../x".into(),
        ExitPolicy::RunFinishAllowed,
        vec![],
        80,
        50_000,
    )
    .unwrap();
    let err = store
        .write_tool_snapshot(&run.run, &hostile)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "agent.invalid_storage_id");
}

#[tokio::test]
async fn inputs_are_frozen_per_invocation() {
    let (run, store) = store();
    let root = InvocationId::root();
    let child = InvocationId::parse("inv_child").unwrap();
    let cases = [
        (
            None,
            InputDocument::PromptSnapshot,
            "input/prompt_snapshot.json",
        ),
        (
            None,
            InputDocument::ResolvedProfile,
            "input/resolved_profile.json",
        ),
        (
            Some(&root),
            InputDocument::ResolvedSkills,
            "input/resolved_skills.json",
        ),
        (
            None,
            InputDocument::PersistSnapshot,
            "input/persist_snapshot.json",
        ),
        (
            Some(&child),
            InputDocument::ResolvedSkills,
            "input/invocations/inv_child/resolved_skills.json",
        ),
        (
            Some(&child),
            InputDocument::ResolvedProfile,
            "input/invocations/inv_child/resolved_profile.json",
        ),
    ];
    for (i, (invocation, document, expected)) in cases.into_iter().enumerate() {
        let audit = store
            .write_input(&run.run, invocation, document, &json!({"n": i}))
            .await
            .unwrap();
        assert_eq!(audit.0, expected);
    }
    assert_eq!(
        store
            .read_input(&run.run, InputDocument::ResolvedSkills)
            .await
            .unwrap(),
        json!({"n": 2})
    );
    let err = store
        .write_input(&run.run, None, InputDocument::PromptSnapshot, &json!({}))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::AlreadyExists(_)));
    assert_eq!(
        store
            .read_input(&run.run, InputDocument::PromptSnapshot)
            .await
            .unwrap(),
        json!({"n": 0})
    );

    let (run, store) = self::store();
    let err = store
        .read_input(&run.run, InputDocument::PromptSnapshot)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound(_)), "{err}");
    fs::create_dir_all(run.run_dir.join("input")).unwrap();
    fs::write(run.run_dir.join("input/prompt_snapshot.json"), "[1,").unwrap();
    let err = store
        .read_input(&run.run, InputDocument::PromptSnapshot)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Integrity(_)), "{err}");
}

#[tokio::test]
async fn large_strings_are_stored_once_as_blobs_and_read_back() {
    let (run, store) = store();
    let big = "The lamp is lit at dusk.\n".repeat(8 * 1024);
    let args = json!({"path": "scratch/big.md", "content": big});
    let stored = store
        .write_tool_args(&run.run, "call_1", &args)
        .await
        .unwrap();
    let root = InvocationId::root();
    let response = json!({"round": 1, "response": {"toolCalls": [{"arguments": args}]}});
    store
        .write_model_response(&run.run, &root, 1, &response)
        .await
        .unwrap();
    store
        .write_input(&run.run, None, InputDocument::PromptSnapshot, &args)
        .await
        .unwrap();

    // The documents name the blob instead of holding the text.
    let on_disk: Value = serde_json::from_str(&read_text(&run, &stored)).unwrap();
    let sha = agent_infra_fs::digest::sha256_hex(big.as_bytes());
    assert_eq!(
        on_disk,
        json!({"blobRefs": ["/content"], "document": {
            "path": "scratch/big.md",
            "content": {"sha256": sha, "bytes": big.len()}
        }})
    );
    let blob_dir = run.run_dir.join("blobs/sha256").join(&sha[..2]);
    assert_eq!(fs::read_dir(&blob_dir).unwrap().count(), 1);
    assert_eq!(fs::read(blob_dir.join(&sha)).unwrap(), big.as_bytes());
    assert!(read_text(&run, &stored).len() < 1024);

    // Readers get the documents back whole.
    assert_eq!(
        store.read_model_response(&run.run, &root, 1).await.unwrap(),
        response
    );
    assert_eq!(
        store
            .read_input(&run.run, InputDocument::PromptSnapshot)
            .await
            .unwrap(),
        args
    );
}
