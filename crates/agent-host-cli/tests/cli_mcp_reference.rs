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
