#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent skills list`, `tavern-agent doctor`, and skill problems in a run's journal,
//! over the skill fixtures of `agent-infra-fs` (data directories shaped as TauriTavern and
//! earlier versions of tavern-agent leave them).

mod cli_support;

use std::fs;
use std::path::{Path, PathBuf};

use cli_support::*;
use serde_json::{Value, json};

/// A fixture data directory of `crates/agent-infra-fs/tests/fixtures/skills/`.
fn skills_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../agent-infra-fs/tests/fixtures/skills")
        .join(name)
}

/// Copies the contents of the folder `from` into the folder `to`.
fn copy_dir(from: &Path, to: &Path) {
    let options = fs_extra::dir::CopyOptions::new()
        .content_only(true)
        .overwrite(true);
    fs_extra::dir::copy(from, to, &options).unwrap();
}

/// The chat fixture plus the skills of fixture `name`.
fn with_skills(name: &str) -> Fixture {
    let fx = Fixture::new();
    copy_dir(&skills_fixture(name), fx.path());
    fx
}

fn run(fx: &Fixture, args: &[&str]) -> (i32, String, String) {
    let output = fx.cmd().args(args).output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn skills_list_shows_every_scope() {
    let fx = with_skills("tauritavern-v2");
    let (code, stdout, stderr) = run(&fx, &["skills", "list"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    insta::assert_snapshot!("skills_list_tauritavern", stdout);

    let (code, stdout, _) = run(&fx, &["skills", "list", "--json"]);
    assert_eq!(code, 0);
    let listed: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(listed["problems"], json!([]));
    assert_eq!(
        listed["skills"][1],
        json!({"scope": {"kind": "character", "characterId": "Seraphina"},
               "name": "voice",
               "description": "How Seraphina speaks — soft, warm, a little formal."})
    );
}

#[test]
fn skills_list_prints_problems_and_still_exits_0() {
    let fx = with_skills("tavern-agent-flat");
    let (code, stdout, stderr) = run(&fx, &["skills", "list"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    insta::assert_snapshot!("skills_list_with_problems", stdout);

    let (_, stdout, _) = run(&fx, &["skills", "list", "--json"]);
    insta::assert_snapshot!("skills_list_with_problems_json", stdout);

    let (code, stdout, _) = run(&Fixture::new(), &["skills", "list"]);
    assert_eq!((code, stdout.as_str()), (0, "no skills installed\n"));
}

#[test]
fn doctor_passes_a_healthy_data_directory() {
    let fx = with_skills("tauritavern-v2");
    let (code, stdout, stderr) = run(&fx, &["doctor"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    insta::assert_snapshot!("doctor_healthy", stdout);
}

#[test]
fn the_demo_data_is_healthy() {
    let fx = Fixture::new();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/data"),
        fx.path(),
    );
    let index = fx.path().join("_tauritavern/skills/index/skills.json");
    let shipped = fs::read(&index).unwrap();
    let (code, stdout, _) = run(&fx, &["doctor"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("skills       ok       1 usable"),
        "{stdout}"
    );
    // The shipped index is TauriTavern's: nothing needed rewriting.
    assert_eq!(fs::read(&index).unwrap(), shipped);
}

#[test]
fn doctor_fails_on_anything_wrong() {
    let fx = with_skills("tauritavern-v2");
    let profiles = fx.path().join("_tauritavern/agent-profiles/profiles");
    fs::create_dir_all(&profiles).unwrap();
    fs::write(profiles.join("broken.json"), "{\"schemaVersion\": 3,").unwrap();
    let connections = fx.path().join("_tauritavern/llm-connections");
    fs::create_dir_all(&connections).unwrap();
    fs::write(connections.join("half.json"), "{\"kind\": ").unwrap();
    let misnamed = fx.path().join("_tauritavern/skills/installed/global/poems");
    fs::create_dir_all(&misnamed).unwrap();
    fs::write(
        misnamed.join("SKILL.md"),
        "---\nname: poetry\ndescription: Its folder is not its name.\n---\n",
    )
    .unwrap();
    // An index of a version this build does not know is reported and left alone.
    let index = fx.path().join("_tauritavern/skills/index/skills.json");
    let future =
        fs::read_to_string(&index)
            .unwrap()
            .replacen("\"version\": 2", "\"version\": 3", 1);
    fs::write(&index, &future).unwrap();

    let (code, stdout, stderr) = run(&fx, &["doctor"]);
    assert_eq!((code, stderr.as_str()), (1, ""));
    insta::assert_snapshot!("doctor_unhealthy", stdout);
    assert_eq!(fs::read_to_string(&index).unwrap(), future);

    let (code, stdout, _) = run(&fx, &["doctor", "--json"]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["healthy"], false);
    let codes: Vec<(&str, &str)> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|check| {
            check["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| (check["area"].as_str().unwrap(), f["code"].as_str().unwrap()))
        })
        .collect();
    assert_eq!(
        codes,
        [
            ("profiles", "agent.profile_contract_invalid"),
            ("connections", "connection.contract_invalid"),
            ("skills", "skill.name_mismatch"),
            ("skills", "skill.index_version_unsupported"),
        ]
    );
}

#[test]
fn a_run_journals_the_skills_it_cannot_read() {
    let fx = with_skills("tauritavern-v2");
    let broken = fx
        .path()
        .join("_tauritavern/skills/installed/global/half-written");
    fs::create_dir_all(&broken).unwrap();
    fs::write(
        broken.join("SKILL.md"),
        "---\nname: half-written\ndescription: [unclosed\n---\n",
    )
    .unwrap();

    let assert = fx.run_script(&completing_script(), &[]).code(0);
    let stderr = stderr_of(&assert);
    assert!(
        stderr.contains("skill problem: skill.front_matter_invalid: global/half-written: "),
        "{stderr}"
    );
    let run_id = run_id_of(&assert.get_output().stderr);
    let resolved: Value = fx
        .events_jsonl(&run_id)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|event| event["type"] == "skill_scopes_resolved")
        .unwrap();
    assert_eq!(resolved["level"], "warn");
    let payload = &resolved["payload"];
    assert_eq!(payload["scopes"], json!(["global", "profile", "character"]));
    assert_eq!(payload["effectiveSkills"], json!(["pdf-tools"]));
    let diagnostics = payload["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(
        diagnostics[0]["scope"],
        json!({"kind": "global"}),
        "{diagnostics:?}"
    );
    assert_eq!(diagnostics[0]["folder"], "half-written");
    assert_eq!(diagnostics[0]["code"], "skill.front_matter_invalid");
    // The skill reads as YAML, so the message is the YAML library's.
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("the front matter of SKILL.md is not valid YAML: "),
        "{diagnostics:?}"
    );
}
