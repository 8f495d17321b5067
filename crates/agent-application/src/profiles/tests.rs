use std::sync::Arc;

use agent_domain::ErrorCode;
use agent_domain::connection::{ConnectionConfig, ProviderFormat};
use agent_domain::profile::{ProfileSource, default_writer};
use serde_json::{Value, json};

use super::{
    HealthStatus, IssueSeverity, ProblemKind, ProfileListing, ProfileService, ProfileServiceError,
};
use crate::ports::StoreError;
use crate::prompt::DEFAULT_AGENT_SYSTEM_PROMPT;
use crate::testing::{MemoryConnections, MemoryProfiles};

fn service() -> (Arc<MemoryProfiles>, ProfileService) {
    let store = Arc::new(MemoryProfiles::new());
    (store.clone(), ProfileService::new(store))
}

/// The default writer under another id, as a schema 3 document.
fn profile_json(id: &str) -> Value {
    let mut value = default_writer().to_json_value().unwrap();
    value["id"] = json!(id);
    value["displayName"] = json!(format!("Profile {id}"));
    value.as_object_mut().unwrap().remove("description");
    value
}

fn put(store: &MemoryProfiles, id: &str, value: &Value) {
    store.put(id, &value.to_string());
}

fn ids(listings: &[ProfileListing]) -> Vec<&str> {
    listings.iter().map(ProfileListing::id).collect()
}

#[tokio::test]
async fn an_empty_store_lists_the_built_in_writer() {
    let (_, service) = service();
    let listings = service.list().await.unwrap();
    assert_eq!(ids(&listings), ["default-writer"]);
    let ProfileListing::Valid(summary) = &listings[0] else {
        panic!("{listings:?}")
    };
    assert_eq!(summary.source, ProfileSource::BuiltIn);
    assert!(summary.direct_runnable);
}

#[tokio::test]
async fn broken_files_are_listed_with_their_problem() {
    let (store, service) = service();
    put(&store, "writer", &profile_json("writer"));
    store.put("broken", "{\"schemaVersion\": 3,");
    put(&store, "moved", &profile_json("elsewhere"));
    let mut future = profile_json("future");
    future["schemaVersion"] = json!(9);
    put(&store, "future", &future);
    let mut wrong_kind = profile_json("wrong-kind");
    wrong_kind["kind"] = json!("somethingElse");
    put(&store, "wrong-kind", &wrong_kind);
    let mut bad_tool = profile_json("bad-tool");
    bad_tool["tools"]["allow"][0] = json!("builtin:chat.teleport");
    put(&store, "bad-tool", &bad_tool);
    let mut typo = profile_json("typo");
    typo["colour"] = json!("red");
    put(&store, "typo", &typo);

    let listings = service.list().await.unwrap();
    assert_eq!(
        ids(&listings),
        [
            "default-writer",
            "bad-tool",
            "broken",
            "future",
            "moved",
            "typo",
            "writer",
            "wrong-kind"
        ]
    );
    let problems: Vec<(&str, ProblemKind, &str)> = listings
        .iter()
        .filter_map(|listing| match listing {
            ProfileListing::Invalid(p) => Some((p.id.as_str(), p.kind, p.code.as_str())),
            ProfileListing::Valid(_) => None,
        })
        .collect();
    assert_eq!(
        problems,
        [
            (
                "bad-tool",
                ProblemKind::InvalidProfile,
                "agent.profile_unknown_tool"
            ),
            (
                "broken",
                ProblemKind::InvalidJson,
                "agent.profile_contract_invalid"
            ),
            (
                "future",
                ProblemKind::InvalidFileIdentity,
                "agent.profile_schema_unsupported"
            ),
            (
                "moved",
                ProblemKind::InvalidFileIdentity,
                "agent.profile_id_mismatch"
            ),
            (
                "typo",
                ProblemKind::InvalidProfile,
                "agent.profile_contract_invalid"
            ),
            (
                "wrong-kind",
                ProblemKind::InvalidFileIdentity,
                "agent.profile_kind_invalid"
            ),
        ]
    );
    insta::assert_json_snapshot!("listing", listings);
}

#[tokio::test]
async fn a_stored_default_writer_replaces_the_built_in_one_at_the_top() {
    let (store, service) = service();
    put(&store, "alpha", &profile_json("alpha"));
    put(&store, "default-writer", &profile_json("default-writer"));
    let listings = service.list().await.unwrap();
    assert_eq!(ids(&listings), ["default-writer", "alpha"]);
    let ProfileListing::Valid(summary) = &listings[0] else {
        panic!("{listings:?}")
    };
    assert_eq!(summary.source, ProfileSource::File);
    assert_eq!(summary.display_name, "Profile default-writer");

    // A broken override is listed (first) with its problem, and loading it fails.
    store.put("default-writer", "not json");
    let listings = service.list().await.unwrap();
    assert_eq!(ids(&listings), ["default-writer", "alpha"]);
    assert!(matches!(&listings[0], ProfileListing::Invalid(_)));
    let err = service.resolve(None).await.unwrap_err();
    assert_eq!(err.code(), "agent.profile_contract_invalid");
    assert!(err.to_string().contains("`default-writer`"), "{err}");
}

#[tokio::test]
async fn load_and_resolve_find_files_the_built_in_or_nothing() {
    let (store, service) = service();
    put(&store, "writer", &profile_json("writer"));

    let built_in = service.load("default-writer").await.unwrap();
    assert_eq!(built_in.source, ProfileSource::BuiltIn);
    assert_eq!(built_in.document, default_writer());
    assert_eq!(
        service.resolve(None).await.unwrap().source,
        ProfileSource::BuiltIn
    );

    let stored = service.load(" writer ").await.unwrap();
    assert_eq!(stored.source, ProfileSource::File);
    assert_eq!(stored.resolved.id.as_str(), "writer");
    assert_eq!(
        service.resolve(Some("writer")).await.unwrap(),
        stored.resolved
    );

    let missing = service.resolve(Some("ghost")).await.unwrap_err();
    assert_eq!(missing.code(), "agent.profile_not_found");
    assert!(missing.is_not_found());
    let bad = service.load("Not An Id").await.unwrap_err();
    assert_eq!(bad.code(), "agent.profile_id_invalid");
    assert!(!bad.is_not_found());
}

#[tokio::test]
async fn saving_validates_and_writes_the_current_schema() {
    let (store, service) = service();
    let legacy = json!({
        "schemaVersion": 1,
        "kind": "tauritavern.agentProfile",
        "id": "  quick-writer ",
        "displayName": "Quick Writer",
        "preset": {"mode": "currentPromptSnapshot"},
        "model": {"mode": "currentPromptSnapshot"},
        "run": {"presentation": "foreground"},
        "tools": {
            "allow": ["chat.search", "workspace.read_file", "workspace.write_file",
                      "workspace.commit", "workspace.finish"],
            "maxRounds": 20
        },
        "skills": {"visible": ["*"]},
        "workspace": {"visibleRoots": ["output"], "writableRoots": ["output"]},
        "plan": {"mode": "none"},
        "output": {"artifacts": [{
            "id": "main", "path": "output/main.md", "kind": "markdown", "target": "messageBody"
        }]}
    });
    let summary = service.save(&legacy.to_string()).await.unwrap();
    assert_eq!(summary.id.as_str(), "quick-writer");
    assert_eq!(summary.source, ProfileSource::File);
    let text = store.text("quick-writer").unwrap();
    assert!(text.ends_with("}\n"), "{text}");
    let written: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(written["schemaVersion"], json!(3));
    assert_eq!(written["id"], json!("quick-writer"));
    assert_eq!(written["tools"]["allow"][0], json!("builtin:chat.search"));
    assert_eq!(
        service
            .load("quick-writer")
            .await
            .unwrap()
            .resolved
            .max_rounds(),
        20
    );

    let mut invalid = profile_json("no-finish");
    invalid["tools"]["deny"] = json!(["builtin:workspace.finish"]);
    let err = service.save(&invalid.to_string()).await.unwrap_err();
    assert_eq!(err.code(), "agent.profile_finish_required");
    assert_eq!(store.text("no-finish"), None);
    let err = service.save("{").await.unwrap_err();
    assert_eq!(err.code(), "agent.profile_contract_invalid");
}

#[tokio::test]
async fn the_built_in_writer_cannot_be_deleted_but_its_override_can() {
    let (store, service) = service();
    let err = service.delete("default-writer").await.unwrap_err();
    assert_eq!(
        err,
        ProfileServiceError::BuiltinReadonly {
            id: "default-writer".into()
        }
    );
    assert_eq!(err.code(), "agent.profile_builtin_readonly");

    put(&store, "default-writer", &profile_json("default-writer"));
    assert!(service.delete("default-writer").await.unwrap());
    assert_eq!(
        service.load("default-writer").await.unwrap().source,
        ProfileSource::BuiltIn
    );

    put(&store, "writer", &profile_json("writer"));
    assert!(service.delete("writer").await.unwrap());
    assert!(!service.delete("writer").await.unwrap());
    assert_eq!(
        service.delete("../x").await.unwrap_err().code(),
        "agent.profile_id_invalid"
    );
}

#[tokio::test]
async fn diagnose_reports_models_presets_and_how_a_profile_starts() {
    let (store, service) = service();
    let health = service.diagnose("default-writer").await.unwrap();
    assert_eq!(health.status, HealthStatus::Healthy);
    assert!(health.loadable);
    assert_eq!(health.source, Some(ProfileSource::BuiltIn));
    let codes: Vec<&str> = health.issues.iter().map(|i| i.code.as_str()).collect();
    assert_eq!(
        codes,
        [
            "agent.profile_model_from_snapshot",
            "agent.profile_preset_from_snapshot"
        ]
    );

    let mut unconfigured = profile_json("imported");
    unconfigured["model"] = json!({"mode": "requiresConfiguration"});
    unconfigured["preset"] =
        json!({"mode": "ref", "ref": {"apiId": "openai", "name": "Story"}, "required": true});
    put(&store, "imported", &unconfigured);
    let health = service.diagnose("imported").await.unwrap();
    assert_eq!(health.status, HealthStatus::Error);
    assert_eq!(
        health
            .issues
            .iter()
            .map(|i| (i.severity, i.code.as_str()))
            .collect::<Vec<_>>(),
        [
            (
                IssueSeverity::Error,
                "agent.profile_model_requires_configuration"
            ),
            (IssueSeverity::Warning, "agent.profile_preset_unsupported"),
        ]
    );
    assert!(
        health.issues[1]
            .message
            .contains("`Story` (apiId `openai`, required)")
    );

    let mut helper = profile_json("helper");
    helper["model"] = json!({"mode": "connectionRef", "connectionRef": "local", "modelId": "m1"});
    helper["preset"] = json!({"mode": "none"});
    helper["run"]["directRunnable"] = json!(false);
    helper["run"]["presentation"] = json!("background");
    helper["delegation"]["callable"] = json!(true);
    helper["delegation"]["allowAsSubagent"] = json!(true);
    put(&store, "helper", &helper);
    let health = service.diagnose("helper").await.unwrap();
    assert_eq!(health.status, HealthStatus::Healthy);
    assert_eq!(health.direct_runnable, Some(false));
    insta::assert_json_snapshot!("diagnose_helper", health);

    store.put("broken", "[]");
    let health = service.diagnose("broken").await.unwrap();
    assert!(!health.loadable);
    assert_eq!(health.status, HealthStatus::Error);
    assert_eq!(health.issues[0].code, "agent.profile_contract_invalid");

    let err = service.diagnose("ghost").await.unwrap_err();
    assert!(err.is_not_found());
}

#[tokio::test]
async fn diagnose_checks_the_connection_a_profile_names() {
    let store = Arc::new(MemoryProfiles::new());
    let connections = Arc::new(MemoryConnections::new());
    let service = ProfileService::new(store.clone()).with_connections(connections.clone());
    let mut bound = profile_json("bound");
    bound["model"] = json!({"mode": "connectionRef", "connectionRef": "local", "modelId": "m1"});
    put(&store, "bound", &bound);
    let model_issue = |health: &super::ProfileHealth| {
        health
            .issues
            .iter()
            .find(|issue| issue.code.contains("connection"))
            .cloned()
            .unwrap()
    };

    let missing = service.diagnose("bound").await.unwrap();
    assert_eq!(missing.status, HealthStatus::Error);
    let issue = model_issue(&missing);
    assert_eq!(issue.code, "agent.profile_model_connection_missing");
    assert!(issue.message.contains("`local`"), "{}", issue.message);

    connections.put_text("local", "{not json");
    let issue = model_issue(&service.diagnose("bound").await.unwrap());
    assert_eq!(issue.code, "agent.profile_model_connection_invalid");

    let config = ConnectionConfig::new("local", ProviderFormat::OpenaiChat, "default");
    connections.put_text("local", &serde_json::to_string(&config).unwrap());
    let found = service.diagnose("bound").await.unwrap();
    assert_eq!(found.status, HealthStatus::Healthy);
    let issue = model_issue(&found);
    assert_eq!(issue.severity, IssueSeverity::Info);
    assert_eq!(issue.code, "agent.profile_model_connection");
    assert!(issue.message.contains("openai-chat"), "{}", issue.message);
}

#[tokio::test]
async fn the_system_prompt_is_the_override_or_the_default() {
    let (store, service) = service();
    assert_eq!(
        service.system_prompt(None).await.unwrap(),
        DEFAULT_AGENT_SYSTEM_PROMPT
    );
    let mut terse = profile_json("terse");
    terse["instructions"] = json!({"agentSystemPrompt": "Be brief."});
    put(&store, "terse", &terse);
    assert_eq!(
        service.system_prompt(Some("terse")).await.unwrap(),
        "Be brief."
    );
    assert_eq!(
        service
            .system_prompt(Some("ghost"))
            .await
            .unwrap_err()
            .code(),
        "agent.profile_not_found"
    );
}

#[tokio::test]
async fn store_failures_surface_with_the_store_code() {
    let (store, service) = service();
    store.fail_with(StoreError::Io("disk on fire".into()));
    assert_eq!(service.list().await.unwrap_err().code(), "agent.storage_io");
    assert_eq!(
        service.diagnose("default-writer").await.unwrap_err().code(),
        "agent.storage_io"
    );
}
