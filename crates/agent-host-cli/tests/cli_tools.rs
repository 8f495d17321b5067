#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent tools list`.

mod cli_support;

use cli_support::*;
use predicates::str::contains;
use serde_json::Value;

#[test]
fn tools_list_prints_every_builtin() {
    let fx = Fixture::new();
    let out = fx.cmd().args(["tools", "list", "--json"]).assert().code(0);
    let tools: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    let tools = tools.as_array().unwrap();
    assert_eq!(tools.len(), 19);
    assert!(tools.iter().all(|tool| tool["inputSchema"].is_object()));
    fx.cmd()
        .args(["tools", "list"])
        .assert()
        .code(0)
        .stdout(contains("builtin:workspace.read_file"))
        .stdout(contains("workspace_read_file"));
}

#[test]
fn unknown_subcommands_exit_2() {
    let fx = Fixture::new();
    fx.cmd().arg("frobnicate").assert().code(2);
    fx.cmd().args(["runs", "frobnicate"]).assert().code(2);
}
