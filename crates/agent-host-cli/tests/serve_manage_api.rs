//! `tavern-agent serve` end to end for the management endpoints beyond runs: chats with
//! their workspaces and orphans, skills, prompts, the doctor. The real binary on a loopback
//! listener, driven over HTTP with reqwest; every answer is checked against what the
//! services did on disk, and every endpoint refuses one bad input with its code.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod cli_support;
mod serve_support;

use std::fs;

use reqwest::{Method, StatusCode};
use serde_json::Value;

use cli_support::{CHAT, Fixture, completing_script, slow_script};
use serve_support::Server;

/// The listing's record of the fixture's chat.
async fn chat_record(server: &Server) -> Value {
    let (status, chats) = server.get("/api/chats").await;
    assert_eq!(status, StatusCode::OK, "{chats}");
    let chats = chats["chats"].as_array().unwrap();
    assert_eq!(chats.len(), 1, "{chats:?}");
    chats[0].clone()
}

#[tokio::test]
async fn chats_are_listed_deleted_with_their_workspace_and_orphans_swept() {
    let fixture = Fixture::new();
    let chat_file = fixture.path().join("chats").join(CHAT);
    let server = Server::start(fixture.path(), &[], &[]);

    // Before any run the chat's workspace is named (after its stable id) but empty.
    let fresh = chat_record(&server).await;
    assert_eq!(fresh["path"], CHAT);
    assert!(fresh["stableChatId"].is_string(), "{fresh}");
    assert_eq!(fresh["runs"], 0);

    let first = server.start_run(completing_script()).await;
    server.wait_terminal(&first).await;
    let used = chat_record(&server).await;
    assert_eq!(used["workspaceId"], fresh["workspaceId"]);
    assert_eq!(used["runs"], 1);
    assert!(used["disk"]["bytes"].as_u64().unwrap() > 0, "{used}");
    let workspace = used["workspaceId"].as_str().unwrap().to_owned();

    // A chat a run is being driven on is refused, and stays.
    let slow = server.start_run(slow_script()).await;
    let (status, busy) = server
        .call(Method::DELETE, &format!("/api/chats/{CHAT}"), None)
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{busy}");
    assert_eq!(busy["code"], "agent.workspace_in_use");
    assert!(chat_file.is_file());
    server
        .call(Method::POST, &format!("/api/runs/{slow}/cancel"), None)
        .await;
    server.wait_terminal(&slow).await;

    // A preview removes nothing; the deletion removes the chat and its workspace.
    let (status, preview) = server
        .call(
            Method::DELETE,
            &format!("/api/chats/{CHAT}?preview=true"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(preview["workspace"]["workspaceId"], workspace.as_str());
    assert_eq!(preview["workspace"]["runs"].as_array().unwrap().len(), 2);
    assert!(chat_file.is_file());
    let kept = fs::read(&chat_file).unwrap();
    let (status, deleted) = server
        .call(Method::DELETE, &format!("/api/chats/{CHAT}"), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{deleted}");
    assert_eq!(deleted["workspace"]["workspaceId"], workspace.as_str());
    assert!(!chat_file.exists());
    let (_, chats) = server.get("/api/chats").await;
    assert_eq!(chats["chats"], serde_json::json!([]));
    let (_, runs) = server.get("/api/runs").await;
    assert_eq!(runs["runs"], serde_json::json!([]), "{runs}");

    // Bad names: outside the chats, and a chat that is not there.
    let (status, outside) = server
        .call(Method::DELETE, "/api/chats/..%2F..%2Fsecrets.jsonl", None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{outside}");
    assert_eq!(outside["code"], "agent.invalid_chat_path");
    let (status, missing) = server
        .call(Method::DELETE, &format!("/api/chats/{CHAT}"), None)
        .await;
    assert_eq!(
        (status, missing["code"].clone()),
        (StatusCode::NOT_FOUND, Value::from("chat.not_found")),
        "{missing}"
    );

    // A workspace whose chat file went away is an orphan until swept.
    fs::write(&chat_file, &kept).unwrap();
    let again = server.start_run(completing_script()).await;
    server.wait_terminal(&again).await;
    fs::remove_file(&chat_file).unwrap();
    let (status, report) = server.get("/api/chats/orphans").await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(report["orphans"][0]["workspaceId"], workspace.as_str());
    assert_eq!(report["unreadableChats"], serde_json::json!([]));
    let (status, swept) = server
        .call(Method::POST, "/api/chats/orphans/delete", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{swept}");
    assert_eq!(swept["outcomes"][0]["outcome"], "deleted");
    assert_eq!(swept["outcomes"][0]["workspaceId"], workspace.as_str());
    let (_, report) = server.get("/api/chats/orphans").await;
    assert_eq!(report["orphans"], serde_json::json!([]));
}
