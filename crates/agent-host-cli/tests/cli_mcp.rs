#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent mcp …` without a live server: registrations, their files, refused
//! requests and their exit codes. (Sessions with real servers are tested in agent-mcp.)

mod cli_support;

use std::fs;

use cli_support::*;
use predicates::str::contains;
use serde_json::{Value, json};

fn mcp(fx: &Fixture, args: &[&str]) -> assert_cmd::assert::Assert {
    fx.cmd().env_remove("TOKEN").arg("mcp").args(args).assert()
}

fn json_of(assert: &assert_cmd::assert::Assert) -> Value {
    serde_json::from_str(&stdout_of(assert)).unwrap()
}

fn registrations(fx: &Fixture) -> Vec<Value> {
    let assert = mcp(fx, &["list", "--json"]).success();
    json_of(&assert)["servers"].as_array().unwrap().clone()
}

#[test]
fn a_server_that_cannot_start_is_still_registered_and_managed() {
    let fx = Fixture::new();
    let added = mcp(
        &fx,
        &[
            "add",
            "Broken Server",
            "--command",
            "/nonexistent/mcp-server",
            "--arg",
            "-y",
            "--env",
            "TOKEN",
            "--env",
            "MODE=fast",
        ],
    )
    .code(1)
    .stderr(contains("error: mcp.env_var_missing"))
    .stderr(contains("registration was saved"));
    let id = stdout_of(&added).trim().to_owned();
    let file = fx
        .path()
        .join(format!("_tauritavern/mcp/servers/{id}.json"));
    let stored: Value = serde_json::from_str(&fs::read_to_string(file).unwrap()).unwrap();
    assert_eq!(stored["transport"]["args"], json!(["-y"]));
    assert_eq!(
        stored["transport"]["env"],
        json!([
            {"name": "TOKEN", "value": {"fromEnv": "TOKEN"}},
            {"name": "MODE", "value": {"literal": "fast"}}
        ])
    );
    assert_eq!(stored["status"], "active");

    mcp(&fx, &["tools", "broken server"])
        .code(2)
        .stderr(contains("error: mcp.catalog_not_cached"));
    mcp(&fx, &["permission", &id, "*", "allow"])
        .code(2)
        .stderr(contains("error: mcp.catalog_not_cached"));
    mcp(&fx, &["permission", &id, "*", "sometimes"])
        .code(2)
        .stderr(contains("error: cli.usage"));
    fx.cmd()
        .env("TOKEN", "secret")
        .args(["mcp", "refresh", "Broken Server"])
        .assert()
        .code(1)
        .stderr(contains("error: mcp.spawn_failed"));

    let paused = mcp(&fx, &["pause", "Broken Server", "--json"]).success();
    assert_eq!(json_of(&paused)["status"], "paused");
    assert_eq!(registrations(&fx)[0]["status"], "paused");
    mcp(&fx, &["resume", "Broken Server"]).success();
    assert_eq!(registrations(&fx)[0]["status"], "active");

    mcp(&fx, &["add", "broken server", "--command", "x"])
        .code(2)
        .stderr(contains("error: mcp.server_name_taken"));

    mcp(&fx, &["remove", "Broken Server"]).success();
    assert!(registrations(&fx).is_empty());
    mcp(&fx, &["show", "Broken Server"])
        .code(2)
        .stderr(contains("error: mcp.registration_not_found"));
}

#[test]
fn refused_additions_store_nothing() {
    let fx = Fixture::new();
    mcp(
        &fx,
        &["add", "public", "--url", "http://mcp.example.com/mcp"],
    )
    .code(2)
    .stderr(contains("error: mcp.insecure_url"));
    mcp(&fx, &["add", "nothing"])
        .code(2)
        .stderr(contains("error: cli.usage"));
    mcp(&fx, &["add", " spaced", "--command", "x"])
        .code(2)
        .stderr(contains("error: mcp.server_name_invalid"));
    assert!(registrations(&fx).is_empty());
}

#[test]
fn import_adds_every_server_and_keeps_secrets_out_of_the_files() {
    let fx = Fixture::new();
    let file = fx.write_json(
        "servers.json",
        &json!({"mcpServers": {
            "local": {"command": "/nonexistent/server", "args": ["--stdio"],
                      "env": {"API_KEY": "${MY_API_KEY}"}},
            "remote": {"url": "http://127.0.0.1:9/mcp",
                       "headers": {"Authorization": "${REMOTE_TOKEN}", "X-Team": "blue"}}
        }}),
    );
    let imported = fx
        .cmd()
        .env_remove("MY_API_KEY")
        .env("REMOTE_TOKEN", "Bearer t")
        .args(["mcp", "import", file.to_str().unwrap(), "--json"])
        .assert()
        .code(1);
    let report = json_of(&imported);
    assert_eq!(report[0]["name"], "local");
    assert_eq!(report[0]["refreshError"]["code"], "mcp.env_var_missing");
    assert_eq!(report[1]["refreshError"]["code"], "mcp.connect_failed");

    let servers = registrations(&fx);
    assert_eq!(servers.len(), 2);
    assert_eq!(
        servers[0]["transport"]["env"],
        json!([{"name": "API_KEY", "value": {"fromEnv": "MY_API_KEY"}}])
    );
    assert_eq!(
        servers[1]["transport"]["headers"],
        json!([
            {"name": "Authorization", "value": {"fromEnv": "REMOTE_TOKEN"}},
            {"name": "X-Team", "value": {"literal": "blue"}}
        ])
    );

    let broken = fx.write_json("broken.json", &json!({"mcpServers": {"x": {}}}));
    fx.cmd()
        .args(["mcp", "import", broken.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(contains("error: mcp.import_invalid"));
}

/// Writes the registration file of server `name` (`status`, `permissions`) under `id`.
fn write_registration(fx: &Fixture, id: &str, name: &str, status: &str, permissions: Value) {
    let dir = fx.path().join("_tauritavern/mcp/servers");
    fs::create_dir_all(&dir).unwrap();
    let registration = json!({
        "schemaVersion": 1, "id": id, "displayName": name,
        "transport": {"type": "streamableHttp", "url": "https://mcp.example.com/mcp"},
        "status": status, "permissions": permissions
    });
    fs::write(dir.join(format!("{id}.json")), registration.to_string()).unwrap();
}

/// Writes the cached catalog file `file_id`, listed for `listed_for`, with `tools`.
fn write_catalog(fx: &Fixture, file_id: &str, listed_for: &str, tools: Vec<Value>) {
    let dir = fx.path().join("_tauritavern/mcp/catalogs");
    fs::create_dir_all(&dir).unwrap();
    let catalog = json!({
        "registrationId": listed_for, "refreshedAt": "2026-01-01T00:00:00Z", "tools": tools
    });
    fs::write(dir.join(format!("{file_id}.json")), catalog.to_string()).unwrap();
}

fn tool(name: &str) -> Value {
    json!({"name": name, "description": "d", "inputSchema": {"type": "object"}})
}

#[test]
fn tools_list_adds_the_cached_mcp_tools_a_profile_could_use() {
    let fx = Fixture::new();
    let id = "0f8fad5b-d9cb-469f-a165-70867728950e";
    write_registration(
        &fx,
        id,
        "my server",
        "active",
        json!({"issue.create": "allow"}),
    );
    write_catalog(
        &fx,
        id,
        id,
        vec![tool("issue.create"), tool("issue.delete")],
    );
    // A catalog listed for another registration offers nothing, as in runs.
    let copy = "11111111-2222-4333-8444-555555555555";
    write_registration(
        &fx,
        copy,
        "copy",
        "active",
        json!({"issue.create": "allow"}),
    );
    write_catalog(&fx, copy, id, vec![tool("issue.create")]);

    let listed = fx.cmd().args(["tools", "list"]).assert().success();
    let text = stdout_of(&listed);
    assert!(
        text.contains(&format!("mcp/{id}:issue.create"))
            && text.contains("mcp__my_server__issue_create"),
        "{text}"
    );
    assert!(
        !text.contains("issue.delete") && !text.contains(copy),
        "a tool that is off, or cached for another server, is not listed: {text}"
    );
    let as_json = fx
        .cmd()
        .args(["tools", "list", "--json"])
        .assert()
        .success();
    let ids: Vec<String> = json_of(&as_json)
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.last().unwrap(), &format!("mcp/{id}:issue.create"));
}

/// Saves the built-in profile as `id`, allowing `mcp` tools as well.
fn save_profile_with(fx: &Fixture, id: &str, mcp: &[String]) {
    let shown = fx
        .cmd()
        .args(["profiles", "show", "default-writer", "--json"])
        .assert()
        .success();
    let mut doc = json_of(&shown);
    doc["id"] = id.into();
    let allow = doc["tools"]["allow"].as_array_mut().unwrap();
    allow.extend(mcp.iter().map(|tool| json!(tool)));
    let file = fx.write_json(&format!("{id}.json"), &doc);
    fx.cmd()
        .args(["profiles", "save"])
        .arg(&file)
        .assert()
        .success();
}

fn diagnose(fx: &Fixture, id: &str) -> Value {
    let assert = fx
        .cmd()
        .args(["profiles", "diagnose", id, "--json"])
        .assert()
        .success();
    json_of(&assert)
}

#[test]
fn profiles_diagnose_reports_every_mcp_tool_a_run_would_leave_out() {
    let fx = Fixture::new();
    let ready = "0f8fad5b-d9cb-469f-a165-70867728950e";
    let paused = "11111111-2222-4333-8444-555555555551";
    let uncached = "11111111-2222-4333-8444-555555555552";
    let copied = "11111111-2222-4333-8444-555555555553";
    let broken = "11111111-2222-4333-8444-555555555554";
    let unknown = "11111111-2222-4333-8444-555555555555";
    let allow = json!({"echo": "allow", "raw": "allow"});
    write_registration(&fx, ready, "ready", "active", allow.clone());
    let raw =
        json!({"name": "raw", "description": "d", "inputSchema": {"type": ["object", "null"]}});
    write_catalog(&fx, ready, ready, vec![tool("echo"), tool("locked"), raw]);
    write_registration(&fx, paused, "paused", "paused", allow.clone());
    write_catalog(&fx, paused, paused, vec![tool("echo")]);
    write_registration(&fx, uncached, "uncached", "active", allow.clone());
    write_registration(&fx, copied, "copied", "active", allow);
    write_catalog(&fx, copied, ready, vec![tool("echo")]);
    let servers = fx.path().join("_tauritavern/mcp/servers");
    fs::write(servers.join(format!("{broken}.json")), "{ not json").unwrap();

    let tool_id = |server: &str, name: &str| format!("mcp/{server}:{name}");
    let omitted = [
        (tool_id(ready, "locked"), "mcp.tool_permission_off"),
        (tool_id(ready, "missing"), "mcp.tool_not_in_cached_catalog"),
        (tool_id(ready, "raw"), "mcp.agent_input_schema_unsupported"),
        (tool_id(paused, "echo"), "mcp.server_paused"),
        (tool_id(uncached, "echo"), "mcp.catalog_not_cached"),
        (tool_id(copied, "echo"), "mcp.tool_provider_invalid"),
        (tool_id(broken, "echo"), "mcp.registration_storage_issue"),
        (tool_id(unknown, "echo"), "mcp.registration_not_found"),
    ];
    let names: Vec<String> = omitted.iter().map(|(id, _)| id.clone()).collect();
    save_profile_with(&fx, "all-omitted", &names);
    let health = diagnose(&fx, "all-omitted");
    assert_eq!(health["status"], "warning", "{health:#}");
    let found: Vec<(String, String)> = health["issues"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|issue| issue["code"].as_str().unwrap().starts_with("mcp."))
        .map(|issue| {
            assert_eq!(issue["severity"], "warning", "{issue}");
            let message = issue["message"].as_str().unwrap();
            let tool = names.iter().find(|id| message.contains(id.as_str()));
            let tool = tool.unwrap_or_else(|| panic!("no tool named in {message}"));
            (tool.clone(), issue["code"].as_str().unwrap().to_owned())
        })
        .collect();
    let expected: Vec<(String, String)> = omitted
        .iter()
        .map(|(id, code)| (id.clone(), (*code).to_owned()))
        .collect();
    assert_eq!(found, expected);

    let text = fx
        .cmd()
        .args(["profiles", "diagnose", "all-omitted"])
        .assert()
        .success();
    let text = stdout_of(&text);
    assert!(text.starts_with("all-omitted: warning"), "{text}");
    assert!(
        text.contains(&format!("mcp.server_paused: `{}`", tool_id(paused, "echo"))),
        "{text}"
    );

    // A profile whose MCP tool is offered has nothing to report about it.
    save_profile_with(&fx, "offered", &[tool_id(ready, "echo")]);
    let health = diagnose(&fx, "offered");
    assert_eq!(health["status"], "healthy", "{health:#}");
}
