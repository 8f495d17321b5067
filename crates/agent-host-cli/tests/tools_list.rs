//! The binary lists the builtin catalog.

use assert_cmd::Command;
use predicates::str::contains;

#[test]
fn tools_list_prints_every_builtin() {
    let out = Command::cargo_bin("tavern-agent")
        .unwrap()
        .args(["tools", "list", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let tools: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(tools.as_array().unwrap().len(), 19);
    Command::cargo_bin("tavern-agent")
        .unwrap()
        .args(["tools", "list"])
        .assert()
        .success()
        .stdout(contains("builtin:workspace.read_file"));
}

#[test]
fn unknown_subcommands_exit_2() {
    Command::cargo_bin("tavern-agent")
        .unwrap()
        .arg("frobnicate")
        .assert()
        .code(2);
}
