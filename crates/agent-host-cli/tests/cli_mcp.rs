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

#[test]
fn tools_list_adds_the_cached_mcp_tools_a_profile_could_use() {
    let fx = Fixture::new();
    let id = "0f8fad5b-d9cb-469f-a165-70867728950e";
    let mcp_dir = fx.path().join("_tauritavern/mcp");
    fs::create_dir_all(mcp_dir.join("servers")).unwrap();
    fs::create_dir_all(mcp_dir.join("catalogs")).unwrap();
    let registration = json!({
        "schemaVersion": 1, "id": id, "displayName": "my server",
        "transport": {"type": "streamableHttp", "url": "https://mcp.example.com/mcp"},
        "status": "active", "permissions": {"issue.create": "allow"}
    });
    fs::write(
        mcp_dir.join(format!("servers/{id}.json")),
        registration.to_string(),
    )
    .unwrap();
    let tool =
        |name: &str| json!({"name": name, "description": "d", "inputSchema": {"type": "object"}});
    let catalog = json!({
        "registrationId": id, "refreshedAt": "2026-01-01T00:00:00Z",
        "tools": [tool("issue.create"), tool("issue.delete")]
    });
    fs::write(
        mcp_dir.join(format!("catalogs/{id}.json")),
        catalog.to_string(),
    )
    .unwrap();

    let listed = fx.cmd().args(["tools", "list"]).assert().success();
    let text = stdout_of(&listed);
    assert!(
        text.contains(&format!("mcp/{id}:issue.create"))
            && text.contains("mcp__my_server__issue_create"),
        "{text}"
    );
    assert!(
        !text.contains("issue.delete"),
        "a tool that is off is not listed: {text}"
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
