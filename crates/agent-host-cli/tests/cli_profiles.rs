#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent profiles …`.

mod cli_support;

use cli_support::*;
use predicates::str::contains;
use serde_json::Value;

fn json_of(assert: &assert_cmd::assert::Assert) -> Value {
    serde_json::from_str(&stdout_of(assert)).unwrap()
}

#[test]
fn profiles_can_be_listed_saved_shown_and_deleted() {
    let fx = Fixture::new();
    let list = json_of(
        &fx.cmd()
            .args(["profiles", "list", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["id"], "default-writer");

    // A new profile: the built-in one under another id.
    let mut doc = json_of(
        &fx.cmd()
            .args(["profiles", "show", "default-writer"])
            .assert()
            .code(0),
    );
    assert_eq!(doc["kind"], "tauritavern.agentProfile");
    doc["id"] = "critic".into();
    doc["displayName"] = "Critic".into();
    let file = fx.write_json("critic.json", &doc);
    fx.cmd()
        .args(["profiles", "save"])
        .arg(&file)
        .assert()
        .code(0)
        .stdout(contains("saved profile critic"));

    let list = json_of(
        &fx.cmd()
            .args(["profiles", "list", "--json"])
            .assert()
            .code(0),
    );
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["default-writer", "critic"]);
    fx.cmd()
        .args(["profiles", "list"])
        .assert()
        .code(0)
        .stdout(contains("critic"))
        .stdout(contains("Critic"));

    let shown = json_of(
        &fx.cmd()
            .args(["profiles", "show", "critic", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(shown["displayName"], "Critic");
    assert_eq!(shown["schemaVersion"], 3);

    let health = json_of(
        &fx.cmd()
            .args(["profiles", "diagnose", "critic", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(health["profileId"], "critic");
    fx.cmd()
        .args(["profiles", "system-prompt", "critic"])
        .assert()
        .code(0)
        .stdout(predicates::str::is_empty().not());

    fx.cmd()
        .args(["profiles", "delete", "critic"])
        .assert()
        .code(0)
        .stdout(contains("deleted profile critic"));
    fx.cmd()
        .args(["profiles", "show", "critic"])
        .assert()
        .code(2);
    fx.cmd()
        .args(["profiles", "delete", "critic"])
        .assert()
        .code(2);
}

#[test]
fn bad_profiles_exit_2() {
    let fx = Fixture::new();
    fx.cmd()
        .args(["profiles", "show", "nobody"])
        .assert()
        .code(2);
    fx.cmd()
        .args(["profiles", "diagnose", "nobody"])
        .assert()
        .code(2);
    fx.cmd()
        .args(["profiles", "delete", "default-writer"])
        .assert()
        .code(2)
        .stderr(contains("built-in"));
    let bad = fx.write_json(
        "bad.json",
        &serde_json::json!({"kind": "tauritavern.agentProfile"}),
    );
    fx.cmd()
        .args(["profiles", "save"])
        .arg(&bad)
        .assert()
        .code(2);
    fx.cmd()
        .args(["profiles", "save", "/nonexistent/profile.json"])
        .assert()
        .code(2);
}

use predicates::prelude::PredicateBooleanExt;
