#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent mcp …` end to end against the reference servers
//! `@modelcontextprotocol/server-everything` and `@modelcontextprotocol/server-filesystem`,
//! run with node: add (which refreshes), tools, permission, and `tools list`.
//!
//! The servers are the ones `.ci/run` installs into `.ci/mcp-servers/node_modules` (or the
//! folder `TAVERN_MCP_REFERENCE_SERVERS` names). Without node or the servers these tests
//! fail with a message saying how to install them; they never skip.

mod cli_support;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use cli_support::*;
use serde_json::Value;

/// Where the reference servers are installed, checked once per test.
struct Reference {
    modules: PathBuf,
}

impl Reference {
    fn locate() -> Self {
        let node = Command::new("node").arg("--version").output();
        assert!(
            node.as_ref().is_ok_and(|out| out.status.success()),
            "the MCP reference tests need `node` on the PATH (.ci/run installs it with \
             apt-get): {node:?}"
        );
        let modules = std::env::var_os("TAVERN_MCP_REFERENCE_SERVERS")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.ci/mcp-servers/node_modules")
            });
        let reference = Self { modules };
        for server in ["everything", "filesystem"] {
            let entry = reference.entry(server);
            assert!(
                entry.is_file(),
                "the MCP reference server `{server}` is not installed at {}; run \
                 `npm ci --prefix .ci/mcp-servers` (as .ci/run does)",
                entry.display()
            );
        }
        reference
    }

    /// The script node runs for `@modelcontextprotocol/server-<server>`.
    fn entry(&self, server: &str) -> PathBuf {
        self.modules
            .join("@modelcontextprotocol")
            .join(format!("server-{server}"))
            .join("dist/index.js")
    }
}

fn json_of(assert: &assert_cmd::assert::Assert) -> Value {
    serde_json::from_str(&stdout_of(assert)).unwrap()
}

/// `mcp add NAME --command node --arg <entry> --arg <args…>`; returns the new id.
fn add_stdio(fx: &Fixture, name: &str, entry: &std::path::Path, args: &[&str]) -> String {
    let mut command = fx.cmd();
    command
        .args(["mcp", "add", name, "--command", "node", "--arg"])
        .arg(entry);
    for arg in args {
        command.args(["--arg", arg]);
    }
    let added = command.assert().success();
    stdout_of(&added).lines().next().unwrap().trim().to_owned()
}

/// `mcp tools NAME --json`: each tool's toolId, alias, permission and description.
fn tools_of(fx: &Fixture, name: &str) -> Vec<Value> {
    let listed = fx.cmd().args(["mcp", "tools", name, "--json"]).assert();
    json_of(&listed.success()).as_array().unwrap().clone()
}

fn tool_ids_in_tools_list(fx: &Fixture) -> Vec<String> {
    let listed = fx
        .cmd()
        .args(["tools", "list", "--json"])
        .assert()
        .success();
    json_of(&listed)
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn server_everything_over_stdio_is_added_listed_and_allowed() {
    let reference = Reference::locate();
    let fx = Fixture::new();
    let id = add_stdio(
        &fx,
        "everything",
        &reference.entry("everything"),
        &["stdio"],
    );

    let tools = tools_of(&fx, "everything");
    let echo = tools
        .iter()
        .find(|tool| tool["toolId"] == format!("mcp/{id}:echo"))
        .unwrap_or_else(|| panic!("no echo tool in {tools:?}"));
    assert_eq!(echo["alias"], "mcp__everything__echo");
    assert!(
        tools.iter().all(|tool| tool["permission"] == "off"),
        "discovery grants nothing: {tools:?}"
    );
    assert!(
        !tool_ids_in_tools_list(&fx)
            .iter()
            .any(|t| t.starts_with("mcp/")),
        "tools that are off are not usable"
    );

    fx.cmd()
        .args(["mcp", "permission", "everything", "echo", "allow"])
        .assert()
        .success();
    let usable = tool_ids_in_tools_list(&fx);
    let mcp: Vec<&String> = usable.iter().filter(|t| t.starts_with("mcp/")).collect();
    assert_eq!(mcp, vec![&format!("mcp/{id}:echo")]);

    // An explicit refresh lists the server again and keeps the permission.
    fx.cmd()
        .args(["mcp", "refresh", "everything"])
        .assert()
        .success();
    let echo = tools_of(&fx, "everything")
        .into_iter()
        .find(|tool| tool["toolId"] == format!("mcp/{id}:echo"))
        .unwrap();
    assert_eq!(echo["permission"], "allow");
}

#[test]
fn server_filesystem_over_stdio_is_added_and_every_tool_allowed() {
    let reference = Reference::locate();
    let fx = Fixture::new();
    let root = fx.path().join("shared");
    std::fs::create_dir_all(&root).unwrap();
    let id = add_stdio(
        &fx,
        "files",
        &reference.entry("filesystem"),
        &[root.to_str().unwrap()],
    );
    let names: Vec<String> = tools_of(&fx, "files")
        .iter()
        .map(|tool| tool["toolId"].as_str().unwrap().to_owned())
        .collect();
    for tool in ["read_text_file", "list_directory", "write_file"] {
        assert!(
            names.contains(&format!("mcp/{id}:{tool}")),
            "{tool} missing from {names:?}"
        );
    }

    fx.cmd()
        .args(["mcp", "permission", "files", "*", "allow"])
        .assert()
        .success();
    let usable = tool_ids_in_tools_list(&fx);
    let mcp = usable.iter().filter(|t| t.starts_with("mcp/")).count();
    assert_eq!(mcp, names.len(), "{usable:?}");
    let text = stdout_of(&fx.cmd().args(["tools", "list"]).assert().success());
    assert!(text.contains("mcp__files__read_text_file"), "{text}");
}

/// server-everything serving Streamable HTTP on a free loopback port; killed on drop.
struct HttpEverything {
    child: Child,
    port: u16,
}

impl HttpEverything {
    fn start(reference: &Reference) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("node")
            .arg(reference.entry("everything"))
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "server-everything did not listen on port {port} within 30 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        Self { child, port }
    }
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn server_everything_over_streamable_http_with_a_header_from_the_environment() {
    let reference = Reference::locate();
    let server = HttpEverything::start(&reference);
    let fx = Fixture::new();
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let added = fx
        .cmd()
        .env("EVERYTHING_TOKEN", "Bearer local")
        .args(["mcp", "add", "everything http", "--url", &url])
        .args(["--header-env", "Authorization=EVERYTHING_TOKEN", "--json"])
        .assert()
        .success();
    let report = json_of(&added);
    let id = report["id"].as_str().unwrap();
    let stored = std::fs::read_to_string(
        fx.path()
            .join(format!("_tauritavern/mcp/servers/{id}.json")),
    )
    .unwrap();
    assert!(
        !stored.contains("Bearer local"),
        "the secret stays out: {stored}"
    );
    let tools = tools_of(&fx, "everything http");
    assert!(
        tools
            .iter()
            .any(|tool| tool["toolId"] == format!("mcp/{id}:get-sum")),
        "{tools:?}"
    );

    fx.cmd()
        .env_remove("EVERYTHING_TOKEN")
        .args(["mcp", "refresh", "everything http"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("error: mcp.env_var_missing"));
}

/// Saves `default-writer` as `mcp-writer`, allowing `tools` too and inlining at most
/// `inline_limit` chars of an MCP result.
fn save_profile_with(fx: &Fixture, tools: &[String], inline_limit: u32) {
    let shown = fx
        .cmd()
        .args(["profiles", "show", "default-writer", "--json"])
        .assert()
        .success();
    let mut profile = json_of(&shown);
    profile["id"] = "mcp-writer".into();
    let allow = profile["tools"]["allow"].as_array_mut().unwrap();
    allow.extend(tools.iter().map(|tool| Value::from(tool.as_str())));
    profile["tools"]["mcpResultInlineCharLimit"] = inline_limit.into();
    let file = fx.write_json("mcp-writer.json", &profile);
    fx.cmd()
        .args(["profiles", "save"])
        .arg(file)
        .assert()
        .success();
}

/// Every tool result audit of the run, by its tool id's native name.
fn results_by_tool(fx: &Fixture, run_id: &str) -> Vec<Value> {
    let dir = fx.run_dir(run_id).join("tool-results");
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|path| serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap())
        .collect()
}

#[test]
fn a_scripted_run_calls_tools_of_both_reference_servers() {
    let reference = Reference::locate();
    let fx = Fixture::new();
    let everything = add_stdio(
        &fx,
        "everything",
        &reference.entry("everything"),
        &["stdio"],
    );
    for tool in ["echo", "trigger-long-running-operation"] {
        fx.cmd()
            .args(["mcp", "permission", "everything", tool, "allow"])
            .assert()
            .success();
    }
    let root = fx.path().join("shared");
    std::fs::create_dir_all(&root).unwrap();
    let long = "The lantern swings in the wind.\n".repeat(200);
    std::fs::write(root.join("notes.txt"), &long).unwrap();
    let files = add_stdio(
        &fx,
        "files",
        &reference.entry("filesystem"),
        &[root.to_str().unwrap()],
    );
    fx.cmd()
        .args(["mcp", "permission", "files", "read_text_file", "allow"])
        .assert()
        .success();
    let echo_id = format!("mcp/{everything}:echo");
    let read_id = format!("mcp/{files}:read_text_file");
    let long_id = format!("mcp/{everything}:trigger-long-running-operation");
    save_profile_with(
        &fx,
        &[echo_id.clone(), read_id.clone(), long_id.clone()],
        1_000,
    );

    let notes = root.join("notes.txt");
    let mut script = completing_script();
    script["turns"].as_array_mut().unwrap().insert(
        0,
        serde_json::json!({"tool_calls": [
            {"name": "mcp__everything__echo", "arguments": {"message": "ping"}},
            {"name": "mcp__files__read_text_file", "arguments": {"path": notes.to_str().unwrap()}},
            {"name": "mcp__everything__trigger-long-running-operation",
             "arguments": {"duration": 0.3, "steps": 3}}
        ]}),
    );
    let ran = fx.run_script(&script, &["--profile", "mcp-writer"]).code(0);
    let run_id = run_id_of(&ran.get_output().stderr);

    let results = results_by_tool(&fx, &run_id);
    let result_of = |id: &str| {
        results
            .iter()
            .find(|result| result["toolId"] == id)
            .unwrap_or_else(|| panic!("no result for {id} in {results:?}"))
    };
    let echo = result_of(&echo_id);
    assert_eq!(echo["isError"], false, "{echo}");
    assert_eq!(echo["content"], "Echo: ping", "{echo}");

    // The file is longer than the profile's inline limit: a readable view, a preview, and
    // the full raw result in the audit.
    let read = result_of(&read_id);
    assert_eq!(read["isError"], false, "{read}");
    assert_eq!(read["structured"]["externalized"], true, "{read}");
    let view = read["structured"]["path"].as_str().unwrap();
    assert!(
        view.starts_with("tool-results/") && view.ends_with(".txt"),
        "{view}"
    );
    let content = read["content"].as_str().unwrap();
    assert!(
        content.contains("workspace_read_file") && content.contains("## Prefix preview"),
        "{content}"
    );
    let raw = read["structured"]["outcome"]["result"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert_eq!(raw.chars().count(), long.chars().count());
    let stored = std::fs::read_to_string(fx.run_dir(&run_id).join(view)).unwrap();
    assert!(
        stored.starts_with(long.trim_end()),
        "the view starts with the file's text"
    );

    let events = fx.events_jsonl(&run_id);
    assert!(
        events.contains("\"tool_result_readable_view_stored\""),
        "{events}"
    );
    let completed = events
        .lines()
        .filter(|line| line.contains("\"tool_call_completed\"") && line.contains("mcp/"))
        .count();
    assert_eq!(completed, 3, "{events}");

    // The long operation's progress notifications, journaled with its call.
    let progress: Vec<Value> = events
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| {
            line["type"] == "mcp_notice_received" && line["payload"]["notice"]["kind"] == "progress"
        })
        .map(|line| {
            assert_eq!(line["payload"]["toolId"], long_id.as_str(), "{line}");
            line["payload"]["notice"].clone()
        })
        .collect();
    // Steps come 100 ms apart; the last one is sent right before the answer and may be
    // handled after it (then it belongs to the server's next call, here none).
    let expected: Vec<Value> = (1..=3)
        .map(|step| serde_json::json!({"kind": "progress", "progress": f64::from(step), "total": 3.0}))
        .collect();
    assert!(
        progress.len() >= 2 && expected.starts_with(&progress),
        "{progress:?}"
    );
}

#[test]
fn a_call_refused_at_send_time_is_a_recoverable_error() {
    let reference = Reference::locate();
    let fx = Fixture::new();
    let everything = add_stdio(
        &fx,
        "everything",
        &reference.entry("everything"),
        &["stdio"],
    );
    fx.cmd()
        .args(["mcp", "permission", "everything", "echo", "allow"])
        .assert()
        .success();
    let echo_id = format!("mcp/{everything}:echo");
    save_profile_with(&fx, std::slice::from_ref(&echo_id), 50_000);
    // The arguments are over 256 KiB: refused before anything is sent, and the run goes on.
    let mut script = completing_script();
    script["turns"].as_array_mut().unwrap().insert(
        0,
        serde_json::json!({"tool_calls": [
            {"name": "mcp__everything__echo", "arguments": {"message": "x".repeat(300 * 1024)}}
        ]}),
    );
    let ran = fx.run_script(&script, &["--profile", "mcp-writer"]).code(0);
    let run_id = run_id_of(&ran.get_output().stderr);
    let results = results_by_tool(&fx, &run_id);
    let echo = results
        .iter()
        .find(|result| result["toolId"] == echo_id.as_str())
        .unwrap();
    assert_eq!(echo["errorCode"], "mcp.call_arguments_size_limit");
}
