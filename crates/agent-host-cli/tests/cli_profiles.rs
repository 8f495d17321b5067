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

#[test]
fn profiles_health_suggests_repairs_and_repair_applies_them() {
    let fx = Fixture::new();
    let mut doc = json_of(
        &fx.cmd()
            .args(["profiles", "show", "default-writer"])
            .assert()
            .code(0),
    );
    let dir = fx.path().join("_tauritavern/agent-profiles/profiles");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("garbled.json"), "{\"schemaVersion\": 3,").unwrap();
    // A good profile under the wrong id: its header needs the file's id.
    doc["id"] = "someone-else".into();
    doc["schemaVersion"] = 99.into();
    std::fs::write(dir.join("renamed.json"), doc.to_string()).unwrap();
    // A profile breaking a rule only a person can fix.
    let mut broken = doc.clone();
    broken["id"] = "broken".into();
    broken["schemaVersion"] = 3.into();
    broken["tools"]["maxRounds"] = 0.into();
    std::fs::write(dir.join("broken.json"), broken.to_string()).unwrap();

    let health = json_of(
        &fx.cmd()
            .args(["profiles", "health", "--json"])
            .assert()
            .code(1),
    );
    let issues: Vec<(String, String, Option<String>)> = health["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|issue| {
            (
                issue["id"].as_str().unwrap().to_owned(),
                issue["kind"].as_str().unwrap().to_owned(),
                issue["repair"].as_str().map(str::to_owned),
            )
        })
        .collect();
    let owned = |id: &str, kind: &str, repair: Option<&str>| {
        (id.to_owned(), kind.to_owned(), repair.map(str::to_owned))
    };
    assert_eq!(
        issues,
        [
            owned("broken", "invalidProfile", None),
            owned("garbled", "invalidJson", Some("delete")),
            owned("renamed", "invalidFileIdentity", Some("normalizeIdentity")),
        ]
    );
    fx.cmd()
        .args(["profiles", "health"])
        .assert()
        .code(1)
        .stdout(contains("repair: delete (profiles repair garbled)"))
        .stdout(contains("0 usable, 3 with problems"));

    fx.cmd()
        .args(["profiles", "repair", "garbled"])
        .assert()
        .code(0)
        .stdout("garbled: delete\n");
    assert!(!dir.join("garbled.json").exists());
    let renamed = json_of(
        &fx.cmd()
            .args(["profiles", "repair", "renamed", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(renamed["repair"], "normalizeIdentity");
    assert!(renamed.get("remaining").is_none(), "{renamed}");
    let shown = json_of(
        &fx.cmd()
            .args(["profiles", "show", "renamed"])
            .assert()
            .code(0),
    );
    assert_eq!(
        (shown["id"].as_str(), shown["schemaVersion"].as_u64()),
        (Some("renamed"), Some(3))
    );
    fx.cmd()
        .args(["profiles", "repair", "broken"])
        .assert()
        .code(2)
        .stderr(contains("agent.profile_repair_unavailable"));
    fx.cmd()
        .args(["profiles", "repair", "renamed"])
        .assert()
        .code(2)
        .stderr(contains("agent.profile_repair_not_needed"));
    fx.cmd()
        .args(["profiles", "repair", "nobody"])
        .assert()
        .code(2)
        .stderr(contains("agent.profile_not_found"));
    let health = json_of(
        &fx.cmd()
            .args(["profiles", "health", "--json"])
            .assert()
            .code(1),
    );
    assert_eq!(health["usable"], 1);
}
