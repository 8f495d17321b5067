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

/// A zip archive of `entries` (name, bytes), in memory.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        out.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        std::io::Write::write_all(&mut out, bytes).unwrap();
    }
    out.finish().unwrap().into_inner()
}

const POETRY: &[u8] = b"---\nname: poetry\ndescription: Writes poems.\n---\n# Poems\n";

/// Posts `archive` as a skill import with `query`.
async fn import(server: &Server, query: &str, archive: Vec<u8>) -> (StatusCode, Value) {
    let request = server
        .request(Method::POST, &format!("/api/skills{query}"))
        .header("content-type", "application/zip")
        .body(archive);
    server.send(request).await
}

#[tokio::test]
async fn a_skill_is_imported_read_edited_exported_renamed_and_removed() {
    let fixture = Fixture::new();
    let installed = fixture
        .path()
        .join("_tauritavern/skills/installed/global/poetry");
    let server = Server::start(fixture.path(), &[], &[]);
    let archive = zip_of(&[("SKILL.md", POETRY), ("refs/forms.md", b"sonnet\nhaiku\n")]);

    // A preview installs nothing; the import does; a second one needs replace=true.
    let (status, preview) = import(&server, "?preview=true", archive.clone()).await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(preview["installed"], false);
    assert_eq!(preview["preview"]["name"], "poetry");
    assert!(!installed.exists());
    let (status, done) = import(&server, "", archive.clone()).await;
    assert_eq!(
        (status, done["installed"].clone()),
        (StatusCode::OK, true.into()),
        "{done}"
    );
    let (status, taken) = import(&server, "", archive.clone()).await;
    assert_eq!(status, StatusCode::CONFLICT, "{taken}");
    assert_eq!(taken["code"], "skill.already_exists");
    let (status, replaced) = import(&server, "?replace=true", archive).await;
    assert_eq!(status, StatusCode::OK, "{replaced}");
    let (_, catalog) = server.get("/api/skills").await;
    assert!(catalog.to_string().contains("Writes poems."), "{catalog}");

    // Details and files.
    let (status, details) = server.get("/api/skills/poetry").await;
    assert_eq!(status, StatusCode::OK, "{details}");
    assert!(details.to_string().contains("refs/forms.md"), "{details}");
    let (status, read) = server.get("/api/skills/poetry/files/refs/forms.md").await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["text"], "sonnet\nhaiku\n");
    let request = server
        .request(Method::PUT, "/api/skills/poetry/files/refs/forms.md")
        .body("villanelle\n");
    let (status, wrote) = server.send(request).await;
    assert_eq!(status, StatusCode::OK, "{wrote}");
    assert_eq!(wrote["bytes"], 11);
    assert_eq!(
        fs::read_to_string(installed.join("refs/forms.md")).unwrap(),
        "villanelle\n"
    );
    let request = server
        .request(Method::PUT, "/api/skills/poetry/files/SKILL.md")
        .body("no front matter");
    let (status, broken) = server.send(request).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{broken}");
    assert_eq!(broken["code"], "skill.front_matter_missing");
    let (status, outside) = server
        .get("/api/skills/poetry/files/..%2F..%2Fsettings.json")
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{outside}");
    assert_eq!(outside["code"], "skill.invalid_request");

    // The export is the skill as a zip.
    let response = server
        .request(Method::GET, "/api/skills/poetry/export")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "application/zip");
    let bytes = response.bytes().await.unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let mut forms = String::new();
    let mut entry = zip.by_name("poetry/refs/forms.md").unwrap();
    std::io::Read::read_to_string(&mut entry, &mut forms).unwrap();
    assert_eq!(forms, "villanelle\n");

    // Renamed, then removed.
    let (status, moved) = server
        .call(
            Method::POST,
            "/api/skills/poetry/move",
            Some(serde_json::json!({"newName": "verse"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    let (status, gone) = server.get("/api/skills/poetry").await;
    assert_eq!(
        (status, gone["code"].clone()),
        (StatusCode::NOT_FOUND, "skill.not_found".into())
    );
    let (status, removed) = server.call(Method::DELETE, "/api/skills/verse", None).await;
    assert_eq!(status, StatusCode::OK, "{removed}");
    assert_eq!(
        removed,
        serde_json::json!({"name": "verse", "removed": true})
    );
    let (status, again) = server.call(Method::DELETE, "/api/skills/verse", None).await;
    assert_eq!(
        (status, again["code"].clone()),
        (StatusCode::NOT_FOUND, "skill.not_found".into())
    );

    // Hostile archives and unknown scopes are refused with their codes.
    let traversal = zip_of(&[("SKILL.md", POETRY), ("../../evil.md", b"x")]);
    let (status, unsafe_entry) = import(&server, "", traversal).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{unsafe_entry}");
    assert_eq!(unsafe_entry["code"], "skill.archive_unsafe_entry");
    let (status, scope) = server.get("/api/skills/poetry?scope=nowhere").await;
    assert_eq!(
        (status, scope["code"].clone()),
        (StatusCode::BAD_REQUEST, "skill.invalid_scope".into())
    );
}

/// A key the server holds; no response may contain it.
const CANARY: &str = "sk-serve-manage-canary-7c1f";

#[tokio::test]
async fn prompts_are_built_and_prepared_without_a_run_and_never_show_a_key() {
    let fixture = Fixture::new();
    let server = Server::start(fixture.path(), &[], &[("SERVE_TEST_KEY", CANARY)]);
    let connection = serde_json::json!({"kind": "tavern-agent.llmConnection", "schemaVersion": 1,
        "name": "local", "format": "openai-chat", "model": "gpt-test",
        "baseUrl": "http://127.0.0.1:9/v1", "apiKeyEnv": "SERVE_TEST_KEY",
        "headers": [{"name": "X-Secret", "value": CANARY}]});
    let (status, saved) = server
        .call(Method::PUT, "/api/connections/local", Some(connection))
        .await;
    assert_eq!(status, StatusCode::OK, "{saved}");

    // The snapshot a run would start from, in the shape a run takes back.
    let (status, snapshot) = server
        .call(
            Method::POST,
            "/api/prompt/build",
            Some(serde_json::json!({"chat": CHAT})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{snapshot}");
    assert!(
        !snapshot["chatCompletionPayload"]["messages"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{snapshot}"
    );
    let body = serde_json::json!({"chat": CHAT, "script": completing_script(),
        "promptSnapshot": snapshot});
    let (status, run) = server.call(Method::POST, "/api/runs", Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{run}");
    let run = run["id"].as_str().unwrap().to_owned();
    server.wait_terminal(&run).await;

    // The first request, over a script and over the connection; no run is created.
    let (status, scripted) = server
        .call(
            Method::POST,
            "/api/prompt/prepare",
            Some(serde_json::json!({"chat": CHAT, "script": completing_script()})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{scripted}");
    assert!(
        !scripted["request"]["messages"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(!scripted["request"]["tools"].as_array().unwrap().is_empty());
    let (status, connected) = server
        .call(
            Method::POST,
            "/api/prompt/prepare",
            Some(serde_json::json!({"chat": CHAT, "connection": "local"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{connected}");
    assert_eq!(connected["binding"]["connection"], "local");
    let (_, runs) = server.get("/api/runs").await;
    assert_eq!(runs["runs"].as_array().unwrap().len(), 1, "{runs}");

    // Bad input keeps its codes.
    let (status, outside) = server
        .call(
            Method::POST,
            "/api/prompt/build",
            Some(serde_json::json!({"chat": "../elsewhere.jsonl"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{outside}");
    assert_eq!(outside["code"], "agent.invalid_chat_path");
    let (status, both) = server
        .call(
            Method::POST,
            "/api/prompt/prepare",
            Some(serde_json::json!({"chat": CHAT, "connection": "local",
                "script": completing_script()})),
        )
        .await;
    assert_eq!(
        (status, both["code"].clone()),
        (StatusCode::BAD_REQUEST, "serve.bad_request".into())
    );
    let (status, unknown) = server
        .call(
            Method::POST,
            "/api/prompt/prepare",
            Some(serde_json::json!({"chat": CHAT, "connection": "nowhere"})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{unknown}");
    assert_eq!(unknown["code"], "connection.not_found");

    // The profile's system prompt.
    let (status, system) = server
        .get("/api/profiles/default-writer/system-prompt")
        .await;
    assert_eq!(status, StatusCode::OK, "{system}");
    assert_eq!(system["profileId"], "default-writer");
    assert!(!system["systemPrompt"].as_str().unwrap().is_empty());
    let (status, missing) = server.get("/api/profiles/nobody/system-prompt").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{missing}");
    assert_eq!(missing["code"], "agent.profile_not_found");

    let (status, report) = server.get("/api/doctor").await;
    assert_eq!(status, StatusCode::OK, "{report}");

    let bodies = server.bodies.lock().unwrap();
    for body in bodies.iter() {
        assert!(!body.contains(CANARY), "the key leaked: {body}");
    }
}

#[tokio::test]
async fn the_doctor_reports_findings_with_their_codes_and_fixes() {
    let fixture = Fixture::new();
    let server = Server::start(fixture.path(), &[], &[]);
    let (status, healthy) = server.get("/api/doctor").await;
    assert_eq!(status, StatusCode::OK, "{healthy}");
    assert_eq!(healthy["healthy"], true, "{healthy}");

    let profiles = fixture.path().join("_tauritavern/agent-profiles/profiles");
    fs::create_dir_all(&profiles).unwrap();
    fs::write(profiles.join("broken.json"), "{\"schemaVersion\": 3,").unwrap();
    let (status, report) = server.get("/api/doctor").await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(report["healthy"], false);
    let codes: Vec<&Value> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|check| check["findings"].as_array().unwrap())
        .map(|finding| &finding["code"])
        .collect();
    assert_eq!(
        codes,
        [&Value::from("agent.profile_contract_invalid")],
        "{report}"
    );

    let (status, fixed) = server.call(Method::POST, "/api/doctor/fix", None).await;
    assert_eq!(status, StatusCode::OK, "{fixed}");
    assert_eq!(fixed["before"]["healthy"], false);
    assert!(fixed["fixed"].is_object(), "{fixed}");
    // A broken profile is not the doctor's to fix: it is still reported.
    assert_eq!(fixed["after"]["healthy"], false);
}

#[tokio::test]
async fn mcp_servers_are_paused_resumed_permitted_refreshed_and_removed() {
    let fixture = Fixture::new();
    let id = "5d2c7a90-1b3e-4f6a-8c9d-0e1f2a3b4c5d";
    let mcp = fixture.path().join("_tauritavern/mcp");
    fs::create_dir_all(mcp.join("servers")).unwrap();
    fs::create_dir_all(mcp.join("catalogs")).unwrap();
    let registration = serde_json::json!({
        "schemaVersion": 1, "id": id, "displayName": "notes",
        "transport": {"type": "stdio", "program": "/nonexistent/notes-server", "args": [],
                      "env": [{"name": "NOTES_TOKEN", "value": {"literal": CANARY}}]},
        "status": "active", "permissions": {}
    });
    let file = mcp.join(format!("servers/{id}.json"));
    fs::write(&file, registration.to_string()).unwrap();
    let tool = |name: &str| serde_json::json!({"name": name, "description": "d", "inputSchema": {"type": "object"}});
    let catalog = serde_json::json!({"registrationId": id,
        "refreshedAt": "2026-01-01T00:00:00Z", "tools": [tool("search"), tool("read")]});
    fs::write(mcp.join(format!("catalogs/{id}.json")), catalog.to_string()).unwrap();
    let stored = || -> Value { serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap() };
    let server = Server::start(fixture.path(), &[], &[]);

    let (status, paused) = server
        .call(Method::POST, "/api/mcp/notes/pause", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{paused}");
    assert_eq!(
        paused,
        serde_json::json!({"id": id, "name": "notes", "status": "paused"})
    );
    assert_eq!(stored()["status"], "paused");
    let (status, _) = server
        .call(Method::POST, "/api/mcp/notes/resume", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(stored()["status"], "active");

    let permission = |tool: &str, permission: &str| {
        Some(serde_json::json!({"tool": tool, "permission": permission}))
    };
    let (status, allowed) = server
        .call(
            Method::POST,
            "/api/mcp/notes/permission",
            permission("search", "allow"),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{allowed}");
    assert_eq!(
        allowed,
        serde_json::json!({"tools": ["search"], "permission": "allow"})
    );
    assert_eq!(
        stored()["permissions"],
        serde_json::json!({"search": "allow"})
    );
    let (status, all) = server
        .call(
            Method::POST,
            "/api/mcp/notes/permission",
            permission("*", "ask"),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{all}");
    assert_eq!(
        stored()["permissions"],
        serde_json::json!({"search": "ask", "read": "ask"})
    );
    let (status, unknown) = server
        .call(
            Method::POST,
            "/api/mcp/notes/permission",
            permission("write", "ask"),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{unknown}");
    assert_eq!(unknown["code"], "mcp.tool_not_in_cached_catalog");
    let (status, sometimes) = server
        .call(
            Method::POST,
            "/api/mcp/notes/permission",
            permission("read", "sometimes"),
        )
        .await;
    assert_eq!(
        (status, sometimes["code"].clone()),
        (StatusCode::BAD_REQUEST, "serve.bad_request".into())
    );

    // A server that cannot start: the refresh fails with its code and the cache stays.
    let (status, refused) = server
        .call(Method::POST, "/api/mcp/notes/refresh", None)
        .await;
    assert!(status.is_server_error(), "{refused}");
    assert_eq!(refused["code"], "mcp.spawn_failed");

    let (status, removed) = server.call(Method::DELETE, "/api/mcp/notes", None).await;
    assert_eq!(status, StatusCode::OK, "{removed}");
    assert_eq!(removed["removed"], true);
    assert!(!file.exists());
    let (status, gone) = server.call(Method::DELETE, "/api/mcp/notes", None).await;
    assert_eq!(
        (status, gone["code"].clone()),
        (StatusCode::NOT_FOUND, "mcp.registration_not_found".into())
    );

    // A new server is registered even when its first refresh fails.
    let transport = serde_json::json!({"type": "stdio", "program": "/nonexistent/diary",
        "args": ["-q"], "env": [{"name": "DIARY_TOKEN", "value": {"literal": CANARY}}]});
    let (status, added) = server
        .call(
            Method::POST,
            "/api/mcp",
            Some(serde_json::json!({"name": "diary", "transport": transport.clone()})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{added}");
    assert_eq!(added["name"], "diary");
    assert_eq!(added["refreshError"]["code"], "mcp.spawn_failed");
    let (_, listed) = server.get("/api/mcp").await;
    assert_eq!(
        listed["registrations"][0]["displayName"], "diary",
        "{listed}"
    );
    let (status, taken) = server
        .call(
            Method::POST,
            "/api/mcp",
            Some(serde_json::json!({"name": "Diary", "transport": transport})),
        )
        .await;
    assert_eq!(
        (status, taken["code"].clone()),
        (StatusCode::BAD_REQUEST, "mcp.server_name_taken".into())
    );
    let public = serde_json::json!({"type": "streamableHttp", "url": "http://mcp.example.com/mcp"});
    let (status, insecure) = server
        .call(
            Method::POST,
            "/api/mcp",
            Some(serde_json::json!({"name": "public", "transport": public})),
        )
        .await;
    assert_eq!(
        (status, insecure["code"].clone()),
        (StatusCode::BAD_REQUEST, "mcp.insecure_url".into())
    );

    // An mcpServers file: every server checked first, then each added and refreshed.
    let file = serde_json::json!({"mcpServers": {
        "calendar": {"command": "/nonexistent/calendar", "env": {"CAL_KEY": CANARY}},
        "weather": {"url": "https://127.0.0.1:9/mcp", "headers": {"Authorization": "${WEATHER_TOKEN}"}}
    }});
    let request = server.request(Method::POST, "/api/mcp/import").json(&file);
    let (status, imported) = server.send(request).await;
    assert_eq!(status, StatusCode::OK, "{imported}");
    assert_eq!(imported[0]["name"], "calendar");
    assert_eq!(imported[0]["refreshError"]["code"], "mcp.spawn_failed");
    assert_eq!(imported[1]["name"], "weather");
    assert_eq!(imported[1]["refreshError"]["code"], "mcp.env_var_missing");
    let (_, listed) = server.get("/api/mcp").await;
    assert_eq!(
        listed["registrations"].as_array().unwrap().len(),
        3,
        "{listed}"
    );
    let both = serde_json::json!({"mcpServers": {"odd": {"command": "x", "url": "https://a.example/mcp"}}});
    let request = server.request(Method::POST, "/api/mcp/import").json(&both);
    let (status, refused) = server.send(request).await;
    assert_eq!(
        (status, refused["code"].clone()),
        (StatusCode::BAD_REQUEST, "mcp.import_invalid".into())
    );
    let insecure =
        serde_json::json!({"mcpServers": {"plain": {"url": "http://mcp.example.com/mcp"}}});
    let request = server
        .request(Method::POST, "/api/mcp/import")
        .json(&insecure);
    let (status, refused) = server.send(request).await;
    assert_eq!(
        (status, refused["code"].clone()),
        (StatusCode::BAD_REQUEST, "mcp.insecure_url".into())
    );
    let (_, listed) = server.get("/api/mcp").await;
    assert_eq!(
        listed["registrations"].as_array().unwrap().len(),
        3,
        "{listed}"
    );

    let bodies = server.bodies.lock().unwrap();
    for body in bodies.iter() {
        assert!(!body.contains(CANARY), "the key leaked: {body}");
    }
}
