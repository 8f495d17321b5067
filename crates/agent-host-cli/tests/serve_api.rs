//! `tavern-agent serve` end to end: the real binary on a loopback listener, driven over HTTP
//! with reqwest. Every endpoint, the token, CORS, the event stream and its resumption, runs
//! outliving their clients, bad input, secrets kept out of responses, and a graceful
//! shutdown on SIGTERM.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod cli_support;
mod serve_support;

use std::collections::BTreeSet;
use std::fs;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use cli_support::{CHAT, Fixture, REPLY, completing_script, slow_script};
use serve_support::{Server, TOKEN};

/// The completing script, each model call held back a little so a client can join mid-run.
fn paced_script(delay_ms: u64) -> Value {
    let mut script = completing_script();
    for turn in script["turns"].as_array_mut().unwrap() {
        turn["delay_ms"] = json!(delay_ms);
    }
    script
}

fn seqs(events: &[serve_support::SseEvent]) -> Vec<u64> {
    events.iter().map(|event| event.id.unwrap()).collect()
}

#[tokio::test]
async fn the_page_is_public_and_the_api_needs_the_token() {
    let fixture = Fixture::new();
    let server = Server::start(fixture.path(), &[], &[]);
    for (path, kind) in [
        ("/", "text/html"),
        ("/app.js", "text/javascript"),
        ("/app.css", "text/css"),
    ] {
        let response = server.client.get(server.url(path)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let content_type = response.headers()["content-type"].to_str().unwrap();
        assert!(content_type.starts_with(kind), "{path}: {content_type}");
    }
    let missing = server.client.get(server.url("/api/runs"));
    let wrong = server
        .client
        .get(server.url("/api/runs"))
        .bearer_auth("serve-test-token-0123456788");
    let not_bearer = server
        .client
        .get(server.url("/api/runs"))
        .header("Authorization", TOKEN);
    for request in [missing, wrong, not_bearer] {
        let (status, body) = server.send(request).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(body["code"], "serve.unauthorized");
    }
    // The stream and writes are guarded too.
    let (status, _) = server
        .send(
            server
                .client
                .post(server.url("/api/runs"))
                .json(&json!({"chat": CHAT, "script": completing_script()})),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) = server.get("/api/runs").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({"runs": [], "next": null}));
    let (status, body) = server.get("/api/no-such-thing").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["code"], "serve.not_found");
}

#[tokio::test]
async fn only_listed_origins_get_cors_headers() {
    let fixture = Fixture::new();
    let allowed = "http://localhost:8000";
    let server = Server::start(fixture.path(), &["--allow-origin", allowed], &[]);
    let allow_origin = |response: &reqwest::Response| {
        response
            .headers()
            .get("access-control-allow-origin")
            .map(|value| value.to_str().unwrap().to_owned())
    };
    for (origin, expected) in [
        (allowed, Some(allowed.to_owned())),
        ("http://evil.example", None),
    ] {
        let response = server
            .request(Method::GET, "/api/runs")
            .header("Origin", origin)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(allow_origin(&response), expected, "GET from {origin}");
        let preflight = server
            .client
            .request(Method::OPTIONS, server.url("/api/runs"))
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .header(
                "Access-Control-Request-Headers",
                "authorization,content-type",
            )
            .send()
            .await
            .unwrap();
        assert_eq!(
            allow_origin(&preflight),
            expected,
            "preflight from {origin}"
        );
        if expected.is_some() {
            assert!(preflight.status().is_success());
            let methods = preflight.headers()["access-control-allow-methods"]
                .to_str()
                .unwrap()
                .to_owned();
            assert!(methods.contains("POST"), "{methods}");
            let headers = preflight.headers()["access-control-allow-headers"]
                .to_str()
                .unwrap()
                .to_lowercase();
            assert!(headers.contains("authorization"), "{headers}");
        }
    }
    // Without --allow-origin no origin gets CORS headers.
    let closed = Server::start(fixture.path(), &[], &[]);
    let response = closed
        .request(Method::GET, "/api/runs")
        .header("Origin", allowed)
        .send()
        .await
        .unwrap();
    assert_eq!(allow_origin(&response), None);
}

#[tokio::test]
async fn a_run_started_over_http_is_read_back_through_every_run_endpoint() {
    let fixture = Fixture::new();
    let server = Server::start(fixture.path(), &[], &[]);
    let (status, chats) = server.get("/api/chats").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(chats["chats"].as_array().unwrap().len(), 1, "{chats}");
    assert_eq!(chats["chats"][0]["path"], CHAT);

    let first = server.start_run(completing_script()).await;
    let mut stream = server.stream(&first, None).await;
    let events = stream.run_events().await;
    assert_eq!(seqs(&events), (1..=events.len() as u64).collect::<Vec<_>>());
    assert_eq!(events.last().unwrap().json()["type"], "run_completed");
    let second = server.start_run(completing_script()).await;
    server.wait_terminal(&second).await;

    // The list, newest first, one page at a time.
    let (status, page) = server.get("/api/runs?limit=1").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(page["runs"][0]["id"], second.as_str());
    assert_eq!(page["next"], second.as_str());
    let (_, page) = server
        .get(&format!("/api/runs?limit=1&before={second}"))
        .await;
    assert_eq!(page["runs"][0]["id"], first.as_str());
    assert_eq!(page["next"], Value::Null);
    let (_, page) = server
        .get("/api/runs?status=completed,failed&chat=Alice/chat.jsonl")
        .await;
    assert_eq!(page["runs"].as_array().unwrap().len(), 2);
    let (_, page) = server.get("/api/runs?status=failed").await;
    assert_eq!(page["runs"], json!([]));
    let (status, body) = server.get("/api/runs?status=sleeping").await;
    assert_eq!(
        (status, body["code"].clone()),
        (StatusCode::BAD_REQUEST, json!("serve.bad_request"))
    );
    let (status, body) = server.get("/api/runs?before=run_nope").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["code"], "agent.run_history_cursor_invalid");

    // The summary, the journal in pages, a file, a model turn.
    let (status, shown) = server.get(&format!("/api/runs/{first}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(shown["status"], "completed");
    assert_eq!(shown["invocations"][0]["id"], "inv_root");
    assert_eq!(shown["tasks"], json!([]));
    let total = events.len() as u64;
    let (_, page) = server
        .get(&format!(
            "/api/runs/{first}/events?beforeSeq={total}&limit=2"
        ))
        .await;
    let page_seqs: Vec<u64> = page["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(page_seqs, [total - 2, total - 1]);
    let (_, page) = server
        .get(&format!("/api/runs/{first}/events?afterSeq=2&limit=3"))
        .await;
    assert_eq!(page["events"][0]["seq"], 3);
    assert_eq!(page["events"].as_array().unwrap().len(), 3);
    let (_, page) = server
        .get(&format!(
            "/api/runs/{first}/events?invocation=inv_root&limit=500"
        ))
        .await;
    // The page's lines are the streamed ones, byte for byte once parsed.
    let streamed: Vec<Value> = events.iter().map(serve_support::SseEvent::json).collect();
    let root = page["events"].as_array().unwrap();
    assert!(!root.is_empty());
    for line in root {
        assert!(streamed.contains(line), "{line}");
    }
    let (status, file) = server
        .get(&format!("/api/runs/{first}/files/output/main.md"))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(file["text"], REPLY);
    assert_eq!(file["path"], "output/main.md");
    assert_eq!(file["bytes"], REPLY.len());
    let (status, turn) = server.get(&format!("/api/runs/{first}/turns/2")).await;
    assert_eq!(status, StatusCode::OK, "{turn}");
    assert_eq!(turn["round"], 2);
    assert_eq!(turn["assistantText"], "Committing.");
    let (status, turn) = server
        .get(&format!("/api/runs/{first}/turns/1?invocation=inv_root"))
        .await;
    assert_eq!(status, StatusCode::OK, "{turn}");

    // Steering an ended run: cancel reports its status, guidance is refused, a rollback
    // applies once.
    let (status, cancelled) = server
        .call(Method::POST, &format!("/api/runs/{first}/cancel"), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(cancelled, json!({"runId": first, "status": "completed"}));
    let (status, refused) = server
        .call(
            Method::POST,
            &format!("/api/runs/{first}/guidance"),
            Some(json!({"text": "too late"})),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert!(
        refused["code"]
            .as_str()
            .unwrap()
            .starts_with("agent.guidance_")
    );
    let (status, undone) = server
        .call(Method::POST, &format!("/api/runs/{second}/rollback"), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{undone}");
    assert!(undone["deletedMessages"].is_array(), "{undone}");
    let (status, again) = server
        .call(Method::POST, &format!("/api/runs/{second}/rollback"), None)
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(again["code"], "agent.rollback_already_applied");
}

#[tokio::test]
async fn a_stream_resumed_with_last_event_id_has_no_gap_and_no_repeat() {
    let fixture = Fixture::new();
    let server = Server::start(fixture.path(), &[], &[]);
    let run = server.start_run(paced_script(300)).await;
    // Read a few events, then drop the connection mid-run.
    let mut stream = server.stream(&run, None).await;
    let mut first = Vec::new();
    while first.len() < 5 {
        let event = stream.next().await.expect("the run ended too soon");
        if event.event == "run_event" {
            first.push(event);
        }
    }
    drop(stream);
    let last = first.last().unwrap().id.unwrap();
    let rest = server.stream(&run, Some(last)).await.run_events().await;
    let mut seen = seqs(&first);
    seen.extend(seqs(&rest));
    let (_, all) = server
        .get(&format!("/api/runs/{run}/events?limit=500"))
        .await;
    let journal: Vec<u64> = all["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seen, journal);
    assert_eq!(rest.last().unwrap().json()["type"], "run_completed");
    // `afterSeq` resumes the same way, and a finished run's stream is its backlog.
    let tail = server.stream(&run, None).await;
    drop(tail);
    let response = server
        .request(
            Method::GET,
            &format!("/api/runs/{run}/stream?afterSeq={last}"),
        )
        .send()
        .await
        .unwrap();
    let text = response.text().await.unwrap();
    assert!(text.starts_with(&format!("id: {}\n", last + 1)), "{text}");
    let (status, body) = server
        .send(
            server
                .request(Method::GET, &format!("/api/runs/{run}/stream"))
                .header("Last-Event-ID", "not-a-seq"),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["code"], "serve.bad_request");
}

#[tokio::test]
async fn a_run_keeps_going_when_its_client_disconnects() {
    let fixture = Fixture::new();
    let server = Server::start(fixture.path(), &[], &[]);
    let run = {
        // A client of its own, dropped with its connections once it has seen the run start.
        let client = reqwest::Client::new();
        let body = json!({"chat": CHAT, "script": paced_script(400)});
        let created: Value = client
            .post(server.url("/api/runs"))
            .bearer_auth(TOKEN)
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let run = created["id"].as_str().unwrap().to_owned();
        let mut stream = server.stream(&run, None).await;
        let first = stream.next().await.unwrap();
        assert_eq!(first.id, Some(1));
        run
    };
    let summary = server.wait_terminal(&run).await;
    assert_eq!(summary["status"], "completed");
    let (_, file) = server
        .get(&format!("/api/runs/{run}/files/output/main.md"))
        .await;
    assert_eq!(file["text"], REPLY);
}

#[tokio::test]
async fn a_live_run_takes_guidance_and_cancellation() {
    let fixture = Fixture::new();
    let server = Server::start(fixture.path(), &[], &[]);
    let run = server.start_run(slow_script()).await;
    let mut stream = server.stream(&run, None).await;
    // Wait until the model call is under way.
    while let Some(event) = stream.next().await {
        if event.json()["type"] == "model_call_attempt_started" {
            break;
        }
    }
    let (status, receipt) = server
        .call(
            Method::POST,
            &format!("/api/runs/{run}/guidance"),
            Some(json!({"text": "Keep it short.", "clientId": "note-1"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{receipt}");
    assert!(receipt["guidanceId"].is_string(), "{receipt}");
    let (status, empty) = server
        .call(
            Method::POST,
            &format!("/api/runs/{run}/guidance"),
            Some(json!({"text": ""})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(empty["code"], "agent.guidance_empty");
    let (status, cancelled) = server
        .call(Method::POST, &format!("/api/runs/{run}/cancel"), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(cancelled["status"], "cancelling");
    let rest = stream.run_events().await;
    assert_eq!(rest.last().unwrap().json()["type"], "run_cancelled");
    let (status, active) = server
        .call(Method::POST, &format!("/api/runs/{run}/rollback"), None)
        .await;
    assert!(status.is_client_error(), "{active}");
}

#[tokio::test]
async fn bad_input_is_refused_with_a_code() {
    let fixture = Fixture::new();
    let server = Server::start(fixture.path(), &["--max-body-bytes", "2048"], &[]);
    let run = server.start_run(completing_script()).await;
    server.wait_terminal(&run).await;

    // Oversized bodies.
    let big = json!({"chat": CHAT, "script": {"turns": [{"text": "x".repeat(4096)}]}});
    let (status, body) = server.call(Method::POST, "/api/runs", Some(big)).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(body["code"], "serve.body_too_large");

    // Paths that leave the workspace, or name what a host may not read.
    for path in [
        "output%2F..%2F..%2F..%2Fchats%2FAlice%2Fchat.jsonl",
        "%2Fetc%2Fpasswd",
        "output%5C..%5Csecret",
        "audit/x.json",
    ] {
        let (status, body) = server.get(&format!("/api/runs/{run}/files/{path}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}: {body}");
        let code = body["code"].as_str().unwrap();
        assert!(code.starts_with("workspace."), "{path}: {code}");
    }
    let (status, body) = server
        .get(&format!("/api/runs/{run}/files/output/missing.md"))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");

    // Unknown and malformed run ids.
    let unknown = "run_0123456789abcdef0123456789abcdef";
    for path in [
        format!("/api/runs/{unknown}"),
        format!("/api/runs/{unknown}/events"),
        format!("/api/runs/{unknown}/stream"),
        format!("/api/runs/{unknown}/files/output/main.md"),
        format!("/api/runs/{unknown}/turns/1"),
    ] {
        let (status, body) = server.get(&path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {body}");
        assert_eq!(body["code"], "agent.not_found", "{path}");
    }
    for path in ["cancel", "rollback"] {
        let (status, _) = server
            .call(Method::POST, &format!("/api/runs/{unknown}/{path}"), None)
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
    let (status, body) = server.get("/api/runs/..%2F..%2Fetc").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");

    // Bodies that do not parse, chats outside the data directory, scripts that are not
    // scripts.
    let (status, body) = server
        .send(
            server
                .request(Method::POST, "/api/runs")
                .header("Content-Type", "application/json")
                .body("{not json"),
        )
        .await;
    assert_eq!(
        (status, body["code"].clone()),
        (StatusCode::BAD_REQUEST, json!("serve.bad_request"))
    );
    for chat in [
        "../secrets.jsonl",
        "/etc/passwd.jsonl",
        "Alice/../../x.jsonl",
    ] {
        let body = json!({"chat": chat, "script": completing_script()});
        let (status, body) = server.call(Method::POST, "/api/runs", Some(body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{chat}: {body}");
    }
    let body = json!({"chat": CHAT, "script": {"turns": []}});
    let (status, body) = server.call(Method::POST, "/api/runs", Some(body)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let body = json!({"chat": CHAT, "script": completing_script(), "scriptPath": "/tmp/x"});
    let (status, _) = server.call(Method::POST, "/api/runs", Some(body)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let body = json!({"chat": CHAT, "connection": "nope"});
    let (status, body) = server.call(Method::POST, "/api/runs", Some(body)).await;
    assert_eq!(
        (status, body["code"].clone()),
        (StatusCode::NOT_FOUND, json!("connection.not_found"))
    );
    // Nothing was created by the refusals.
    let (_, page) = server.get("/api/runs").await;
    assert_eq!(page["runs"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn a_file_is_read_as_it_stood_at_an_event() {
    const DRAFT: &str = "A first draft of the keeper.";
    let fixture = Fixture::new();
    let server = Server::start(fixture.path(), &[], &[]);
    let write = |id: &str, text: &str| {
        json!({"tool_calls": [{"id": id, "name": "workspace_write_file",
            "arguments": {"path": "output/main.md", "content": text}}]})
    };
    let script = json!({"turns": [
        write("call_draft", DRAFT),
        write("call_final", REPLY),
        {"tool_calls": [{"name": "workspace_commit", "arguments": {}}]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {"reason": "done"}}]}
    ]});
    let run = server.start_run(script).await;
    let events = server.stream(&run, None).await.run_events().await;
    let lines: Vec<Value> = events.iter().map(serve_support::SseEvent::json).collect();
    let seq = |kind: &str, call: &str| {
        lines
            .iter()
            .find(|line| line["type"] == kind && line["payload"]["callId"] == call)
            .unwrap()["seq"]
            .as_u64()
            .unwrap()
    };
    let at = |seq: u64| format!("/api/runs/{run}/files/output/main.md?atSeq={seq}");

    let (status, file) = server
        .get(&at(seq("tool_call_completed", "call_draft")))
        .await;
    assert_eq!(status, StatusCode::OK, "{file}");
    assert_eq!(file["text"], DRAFT);
    assert_eq!(file["checkpointId"], "cp_000001");
    assert_eq!(file["atSeq"], seq("tool_call_completed", "call_draft"));
    let (_, file) = server
        .get(&at(seq("tool_call_started", "call_final")))
        .await;
    assert_eq!(file["text"], DRAFT, "before the second write");
    let final_done = seq("tool_call_completed", "call_final");
    let (_, file) = server.get(&at(final_done)).await;
    assert_eq!(file["text"], REPLY);
    assert_eq!(
        file["checkpointEventSeq"],
        final_done + 1,
        "the checkpoint of the write journaled right after the call"
    );
    let (_, now) = server
        .get(&format!("/api/runs/{run}/files/output/main.md"))
        .await;
    assert_eq!(now["text"], REPLY);
    assert_eq!(now.get("atSeq"), None, "the current read names no event");

    let (status, body) = server
        .get(&at(seq("tool_call_started", "call_draft")))
        .await;
    assert_eq!(
        (status, body["code"].clone()),
        (StatusCode::NOT_FOUND, json!("workspace.file_not_found"))
    );
    let (status, body) = server
        .get(&format!("/api/runs/{run}/files/output/main.md?atSeq=soon"))
        .await;
    assert_eq!(
        (status, body["code"].clone()),
        (StatusCode::BAD_REQUEST, json!("serve.bad_request"))
    );
    let (status, body) = server
        .get(&format!("/api/runs/{run}/files/input/x.json?atSeq=1"))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["code"], "workspace.path_not_visible");
}

#[tokio::test]
async fn a_method_a_path_does_not_take_is_a_coded_405() {
    let fixture = Fixture::new();
    let server = Server::start(fixture.path(), &[], &[]);
    let run = server.start_run(completing_script()).await;
    server.wait_terminal(&run).await;
    for (method, path) in [
        (Method::DELETE, format!("/api/runs/{run}")),
        (
            Method::POST,
            format!("/api/runs/{run}/files/output/main.md"),
        ),
        (Method::GET, format!("/api/runs/{run}/cancel")),
        (Method::PATCH, "/api/runs".to_owned()),
        (Method::POST, "/app.js".to_owned()),
    ] {
        let response = server.request(method.clone(), &path).send().await.unwrap();
        assert_eq!(
            response.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        let allow = response.headers().get("allow").cloned();
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["code"], "serve.method_not_allowed", "{method} {path}");
        assert!(body["message"].as_str().unwrap().contains(method.as_str()));
        assert!(allow.is_some(), "{method} {path}: the Allow header stays");
    }
    // Without the token the token is still what is refused.
    let response = reqwest::Client::new()
        .delete(server.url(&format!("/api/runs/{run}")))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
}

/// A secret that must never appear in a response.
const CANARY: &str = "sk-serve-canary-7f3a9c1e5b";

#[tokio::test]
async fn configuration_endpoints_answer_and_never_show_a_key() {
    let fixture = Fixture::new();
    let servers = fixture.path().join("_tauritavern/mcp/servers");
    fs::create_dir_all(&servers).unwrap();
    fs::write(
        servers.join("0b9f6c1e-2d4a-4c8e-9f1a-3e5d7c9b1a20.json"),
        json!({
            "schemaVersion": 1,
            "id": "0b9f6c1e-2d4a-4c8e-9f1a-3e5d7c9b1a20",
            "displayName": "notes",
            "transport": {"type": "stdio", "program": "notes-server", "args": [],
                          "env": [{"name": "NOTES_TOKEN", "value": {"literal": CANARY}},
                                  {"name": "HOME", "value": {"fromEnv": "HOME"}}]},
            "status": "active",
            "permissions": {}
        })
        .to_string(),
    )
    .unwrap();
    let server = Server::start(fixture.path(), &[], &[("SERVE_TEST_KEY", CANARY)]);

    let (status, tools) = server.get("/api/tools").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool["id"] == "builtin:workspace.commit")
    );

    // Connections: saved, read back masked, listed, removed.
    let connection = json!({"kind": "tavern-agent.llmConnection", "schemaVersion": 1, "name": "local", "format": "openai-chat", "model": "gpt-test",
        "baseUrl": "http://127.0.0.1:9/v1", "apiKeyEnv": "SERVE_TEST_KEY",
        "headers": [{"name": "Authorization", "value": format!("Bearer {CANARY}")}]});
    let (status, saved) = server
        .call(
            Method::PUT,
            "/api/connections/local",
            Some(connection.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    assert_eq!(saved["apiKeyEnv"], "SERVE_TEST_KEY");
    let (status, shown) = server.get("/api/connections/local").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(shown["model"], "gpt-test");
    let (_, listed) = server.get("/api/connections").await;
    assert_eq!(listed["connections"][0]["name"], "local");
    let (status, mismatch) = server
        .call(Method::PUT, "/api/connections/other", Some(connection))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{mismatch}");
    let (status, bad) = server
        .call(
            Method::PUT,
            "/api/connections/bad",
            Some(
                json!({"kind": "tavern-agent.llmConnection", "schemaVersion": 1, "name": "bad",
                "format": "carrier_pigeon", "model": "x"}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    // A run on the connection starts (its key is read from the server's environment) even
    // though nothing answers at its address; the run then fails on its own.
    let body = json!({"chat": CHAT, "connection": "local"});
    let (status, run) = server.call(Method::POST, "/api/runs", Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{run}");
    let run = run["id"].as_str().unwrap().to_owned();
    let mut stream = server.stream(&run, None).await;
    stream.run_events().await;
    let (_, events) = server
        .get(&format!("/api/runs/{run}/events?limit=500"))
        .await;
    assert!(!events["events"].as_array().unwrap().is_empty());
    let (status, removed) = server
        .call(Method::DELETE, "/api/connections/local", None)
        .await;
    assert_eq!(
        (status, removed),
        (StatusCode::OK, json!({"name": "local", "removed": true}))
    );
    let (status, gone) = server.get("/api/connections/local").await;
    assert_eq!(
        (status, gone["code"].clone()),
        (StatusCode::NOT_FOUND, json!("connection.not_found"))
    );
    let (status, _) = server
        .call(Method::DELETE, "/api/connections/local", None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Profiles: listed, saved, read, diagnosed, deleted.
    let (status, profiles) = server.get("/api/profiles").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        profiles.to_string().contains("default-writer"),
        "{profiles}"
    );
    let (status, builtin) = server.get("/api/profiles/default-writer").await;
    assert_eq!(status, StatusCode::OK);
    let mut document = builtin.clone();
    document["id"] = json!("scribe");
    document["displayName"] = json!("Scribe");
    let (status, saved) = server
        .call(Method::PUT, "/api/profiles/scribe", Some(document.clone()))
        .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    let (status, shown) = server.get("/api/profiles/scribe").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(shown["displayName"], "Scribe");
    let (status, health) = server.get("/api/profiles/scribe/diagnose").await;
    assert_eq!(status, StatusCode::OK, "{health}");
    assert_eq!(health["profileId"], "scribe");
    let (status, storage) = server.get("/api/profiles/health").await;
    assert_eq!(status, StatusCode::OK, "{storage}");
    let (status, repair) = server
        .call(Method::POST, "/api/profiles/scribe/repair", None)
        .await;
    assert!(status.is_client_error(), "{repair}");
    let (status, mismatch) = server
        .call(Method::PUT, "/api/profiles/other", Some(document))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{mismatch}");
    let (status, deleted) = server
        .call(Method::DELETE, "/api/profiles/scribe", None)
        .await;
    assert_eq!(
        (status, deleted),
        (StatusCode::OK, json!({"id": "scribe", "deleted": true}))
    );
    let (status, missing) = server.get("/api/profiles/scribe").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{missing}");

    // Skills, MCP servers (literal values hidden), retention.
    let (status, skills) = server.get("/api/skills").await;
    assert_eq!(status, StatusCode::OK, "{skills}");
    let (status, mcp) = server.get("/api/mcp").await;
    assert_eq!(status, StatusCode::OK, "{mcp}");
    let env = &mcp["registrations"][0]["transport"]["env"];
    assert_eq!(env[0]["value"], json!({"literal": "(hidden)"}));
    assert_eq!(env[1]["value"], json!({"fromEnv": "HOME"}));
    let (status, one) = server.get("/api/mcp/notes").await;
    assert_eq!(status, StatusCode::OK, "{one}");
    assert_eq!(one["catalog"], Value::Null);
    let (status, tools) = server.get("/api/mcp/notes/tools").await;
    assert!(status.is_client_error(), "{tools}");
    let (status, missing) = server.get("/api/mcp/nope").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{missing}");
    let (status, settings) = server.get("/api/retention").await;
    assert_eq!(status, StatusCode::OK, "{settings}");
    let (status, changed) = server
        .call(
            Method::PUT,
            "/api/retention",
            Some(json!({"key": "keep_recent_terminal_runs", "value": 50})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    let (status, refused) = server
        .call(
            Method::PUT,
            "/api/retention",
            Some(json!({"key": "no_such_key", "value": 1})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    let (status, plan) = server
        .call(Method::POST, "/api/retention/plan?detailLimit=10", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{plan}");
    let (status, applied) = server
        .call(Method::POST, "/api/retention/apply", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{applied}");

    let bodies = server.bodies.lock().unwrap();
    assert!(bodies.len() > 30);
    for body in bodies.iter() {
        assert!(!body.contains(CANARY), "the key leaked: {body}");
    }
}

#[tokio::test]
async fn sigterm_cancels_running_runs_and_ends_their_journals() {
    let fixture = Fixture::new();
    let mut server = Server::start(fixture.path(), &[], &[]);
    let run = server.start_run(slow_script()).await;
    let mut stream = server.stream(&run, None).await;
    assert!(stream.next().await.is_some());
    let pid = i32::try_from(server.child.id()).unwrap();
    assert_eq!(send_sigterm(pid), 0);
    // The open stream sees the run end, then ends.
    let rest = stream.run_events().await;
    assert_eq!(rest.last().unwrap().json()["type"], "run_cancelled");
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status}");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tavern-agent"))
        .arg("--data-dir")
        .arg(fixture.path())
        .args(["runs", "show", &run, "--json"])
        .output()
        .unwrap();
    let shown: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(shown["status"], "cancelled");
    assert_eq!(shown["terminal"]["type"], "run_cancelled");
    let seen: BTreeSet<u64> = rest.iter().filter_map(|event| event.id).collect();
    assert_eq!(seen.len(), rest.len());
}

/// Sends SIGTERM through the `kill` command (the workspace forbids `unsafe`).
fn send_sigterm(pid: i32) -> i32 {
    std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap()
        .code()
        .unwrap()
}

/// Round `round` of a provider streaming OpenAI Chat Completions chunks: text in two pieces
/// in round 1, then the round's one tool call (write, commit, finish) and `[DONE]`.
fn provider_stream(round: usize) -> String {
    let (alias, arguments) = match round {
        1 => (
            "workspace_write_file",
            json!({"path": "output/main.md", "content": REPLY}),
        ),
        2 => ("workspace_commit", json!({})),
        _ => ("workspace_finish", json!({"reason": "done"})),
    };
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({"id": format!("chatcmpl-{round}"), "object": "chat.completion.chunk",
               "model": "mock-model",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut chunks = Vec::new();
    if round == 1 {
        for piece in ["Writing the ", "reply now."] {
            chunks.push(chunk(json!({"content": piece}), None));
        }
    }
    chunks.push(chunk(
        json!({"tool_calls": [{"index": 0, "id": format!("call_{round}"), "type": "function",
               "function": {"name": alias, "arguments": arguments.to_string()}}]}),
        None,
    ));
    chunks.push(chunk(json!({}), Some("tool_calls")));
    chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n"))
        .collect::<String>()
        + "data: [DONE]\n\n"
}

#[tokio::test]
async fn the_stream_carries_live_model_deltas_between_journal_events() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    let provider = MockServer::start().await;
    for round in 1..=3 {
        // The first answer is held back so the client is listening when its deltas come.
        let delay = if round == 1 { 2000 } else { 0 };
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_raw(provider_stream(round), "text/event-stream")
                    .set_delay(std::time::Duration::from_millis(delay)),
            )
            .up_to_n_times(1)
            .with_priority(u8::try_from(round).unwrap())
            .mount(&provider)
            .await;
    }
    let fixture = Fixture::new();
    let server = Server::start(fixture.path(), &[], &[("SERVE_TEST_KEY", CANARY)]);
    let connection = json!({"kind": "tavern-agent.llmConnection", "schemaVersion": 1,
        "name": "mock", "format": "openai-chat", "model": "mock-model",
        "baseUrl": format!("{}/v1", provider.uri()), "apiKeyEnv": "SERVE_TEST_KEY"});
    let (status, _) = server
        .call(Method::PUT, "/api/connections/mock", Some(connection))
        .await;
    assert_eq!(status, StatusCode::OK);
    let body = json!({"chat": CHAT, "connection": "mock"});
    let (status, run) = server.call(Method::POST, "/api/runs", Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{run}");
    let run = run["id"].as_str().unwrap().to_owned();
    let mut stream = server.stream(&run, None).await;
    let mut order = Vec::new();
    while let Some(event) = stream.next().await {
        let data = event.json();
        match event.event.as_str() {
            "model_delta" => {
                assert_eq!(event.id, None);
                assert_eq!(data["invocationId"], "inv_root");
                if data["kind"] == "text" {
                    order.push(format!("delta {}", data["text"].as_str().unwrap()));
                }
            }
            "run_event" => {
                if data["type"] == "model_completed" {
                    order.push(format!("completed round {}", data["payload"]["round"]));
                }
            }
            other => panic!("unexpected event {other}"),
        }
    }
    assert_eq!(
        order[..3],
        [
            "delta Writing the ".to_owned(),
            "delta reply now.".to_owned(),
            "completed round 1".to_owned()
        ]
    );
    let summary = server.wait_terminal(&run).await;
    assert_eq!(summary["status"], "completed");
    for body in server.bodies.lock().unwrap().iter() {
        assert!(!body.contains(CANARY));
    }
}
