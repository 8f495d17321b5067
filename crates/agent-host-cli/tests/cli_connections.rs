#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent connections …`.

mod cli_support;

use std::fs;
use std::path::PathBuf;

use cli_support::*;
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use serde_json::{Value, json};

/// The variable the tests name as a key variable, and a value that must never be printed.
const KEY_VAR: &str = "TAVERN_AGENT_TEST_CONNECTION_KEY";
const KEY_VALUE: &str = "sk-test-0123456789-never-print-me";

fn json_of(assert: &assert_cmd::assert::Assert) -> Value {
    serde_json::from_str(&stdout_of(assert)).unwrap()
}

fn connection_file(fx: &Fixture, name: &str) -> PathBuf {
    fx.path()
        .join("_tauritavern/llm-connections")
        .join(format!("{name}.json"))
}

/// `tavern-agent connections …` with the key variable set to [`KEY_VALUE`].
fn with_key(fx: &Fixture) -> assert_cmd::Command {
    let mut cmd = fx.cmd();
    cmd.env(KEY_VAR, KEY_VALUE).arg("connections");
    cmd
}

/// `tavern-agent connections …` with the key variable unset.
fn without_key(fx: &Fixture) -> assert_cmd::Command {
    let mut cmd = fx.cmd();
    cmd.env_remove(KEY_VAR).arg("connections");
    cmd
}

fn add_openai(fx: &Fixture) -> assert_cmd::assert::Assert {
    without_key(fx)
        .args([
            "add",
            "openai",
            "--format",
            "openai-chat",
            "--model",
            "gpt-4o",
        ])
        .args([
            "--base-url",
            "https://api.openai.com/v1",
            "--api-key-env",
            KEY_VAR,
        ])
        .args(["--header", "OpenAI-Organization=org-123"])
        .args(["--param", "temperature=0.2", "--param", "store=true"])
        .args([
            "--param",
            "reasoning_effort=high",
            "--param",
            "stop=[\"END\"]",
        ])
        .assert()
}

#[test]
fn add_list_show_remove_round_trip() {
    let fx = Fixture::new();
    add_openai(&fx)
        .code(0)
        .stdout("connection openai saved\n")
        .stderr(contains(format!("${KEY_VAR} is not set")));

    // The file lands where `docs/connections.md` says, as the documented record.
    let on_disk: Value =
        serde_json::from_str(&fs::read_to_string(connection_file(&fx, "openai")).unwrap()).unwrap();
    assert_eq!(
        on_disk,
        json!({
            "kind": "tavern-agent.llmConnection",
            "schemaVersion": 1,
            "name": "openai",
            "format": "openai-chat",
            "baseUrl": "https://api.openai.com/v1",
            "model": "gpt-4o",
            "apiKeyEnv": KEY_VAR,
            "headers": [{"name": "OpenAI-Organization", "value": "org-123"}],
            "params": {"reasoning_effort": "high", "stop": ["END"], "store": true,
                       "temperature": 0.2}
        })
    );
    assert!(on_disk["params"]["temperature"].is_f64());
    assert!(on_disk["params"]["store"].is_boolean());

    without_key(&fx)
        .args([
            "add",
            "claude",
            "--format",
            "anthropic",
            "--model",
            "claude-sonnet-4-5",
        ])
        .arg("--json")
        .assert()
        .code(0);

    // Human listing: one row each, sorted, the default base URL and the key state shown.
    let listed = with_key(&fx).arg("list").assert().code(0);
    let table = stdout_of(&listed);
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 3, "{table}");
    assert!(rows[0].starts_with("NAME"), "{table}");
    assert!(
        rows[1].starts_with("claude") && rows[1].contains("(default)"),
        "{table}"
    );
    assert!(rows[2].starts_with("openai"), "{table}");
    assert!(
        rows[2].contains(KEY_VAR) && rows[2].trim_end().ends_with("set"),
        "{table}"
    );
    let table = stdout_of(&without_key(&fx).arg("list").assert().code(0));
    assert!(table.lines().nth(2).unwrap().ends_with("unset"), "{table}");

    // JSON listing: the records plus apiKeySet.
    let list = json_of(&with_key(&fx).args(["list", "--json"]).assert().code(0));
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["claude", "openai"]);
    assert_eq!(list[0]["apiKeySet"], false);
    assert_eq!(list[1]["apiKeySet"], true);
    assert_eq!(list[1]["params"]["store"], true);

    // Show, both ways.
    let shown = stdout_of(&with_key(&fx).args(["show", "openai"]).assert().code(0));
    assert!(
        shown.contains("gpt-4o") && shown.contains("openai-chat"),
        "{shown}"
    );
    assert!(shown.contains(&format!("{KEY_VAR} (set)")), "{shown}");
    assert!(shown.contains("OpenAI-Organization: org-123"), "{shown}");
    assert!(shown.contains("temperature = 0.2"), "{shown}");
    let shown = stdout_of(&without_key(&fx).args(["show", "claude"]).assert().code(0));
    assert!(
        shown.contains("(default: https://api.anthropic.com)"),
        "{shown}"
    );
    let record = json_of(
        &with_key(&fx)
            .args(["show", "openai", "--json"])
            .assert()
            .code(0),
    );
    let mut expected = on_disk.clone();
    expected["apiKeySet"] = json!(true);
    assert_eq!(record, expected);

    // Remove.
    without_key(&fx)
        .args(["remove", "openai"])
        .assert()
        .code(0)
        .stdout("connection openai removed\n");
    assert!(!connection_file(&fx, "openai").exists());
    let removed = json_of(
        &without_key(&fx)
            .args(["remove", "claude", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(removed, json!({"name": "claude", "removed": true}));
    let list = json_of(&without_key(&fx).args(["list", "--json"]).assert().code(0));
    assert_eq!(list, json!([]));
    without_key(&fx)
        .arg("list")
        .assert()
        .code(0)
        .stdout(contains("no LLM connections saved"));
}

#[test]
fn human_output_snapshot() {
    let fx = Fixture::new();
    let connections = |key: Option<&str>| {
        let mut cmd = fx.cmd();
        match key {
            Some(value) => cmd.env("OPENAI_API_KEY", value),
            None => cmd.env_remove("OPENAI_API_KEY"),
        };
        cmd.env_remove("GEMINI_API_KEY_UNSET_IN_TESTS")
            .arg("connections");
        cmd
    };
    connections(None)
        .args([
            "add",
            "openai",
            "--format",
            "openai-chat",
            "--model",
            "gpt-4o",
        ])
        .args([
            "--base-url",
            "https://api.openai.com/v1",
            "--api-key-env",
            "OPENAI_API_KEY",
        ])
        .args([
            "--header",
            "OpenAI-Organization=org-123",
            "--header",
            "Authorization=Bearer x",
        ])
        .args(["--param", "temperature=0.2", "--param", "store=true"])
        .args([
            "--param",
            "reasoning_effort=high",
            "--param",
            "stop=[\"END\"]",
        ])
        .assert()
        .code(0);
    connections(None)
        .args([
            "add",
            "local",
            "--format",
            "openai-chat",
            "--model",
            "qwen3",
        ])
        .args(["--base-url", "http://127.0.0.1:8080/v1"])
        .assert()
        .code(0);
    connections(None)
        .args([
            "add",
            "gemini",
            "--format",
            "gemini",
            "--model",
            "gemini-2.5-pro",
        ])
        .args(["--api-key-env", "GEMINI_API_KEY_UNSET_IN_TESTS"])
        .assert()
        .code(0);
    let list = stdout_of(&connections(Some("x")).arg("list").assert().code(0));
    let show = stdout_of(
        &connections(Some("x"))
            .args(["show", "openai"])
            .assert()
            .code(0),
    );
    let default = stdout_of(&connections(None).args(["show", "gemini"]).assert().code(0));
    insta::assert_snapshot!(
        "connections_list_and_show",
        format!("{list}\n{show}\n{default}")
    );
}

#[test]
fn duplicates_need_force() {
    let fx = Fixture::new();
    add_openai(&fx).code(0);
    add_openai(&fx)
        .code(2)
        .stderr(contains("error: connection.already_exists"))
        .stderr(contains("--force"));
    without_key(&fx)
        .args([
            "add",
            "openai",
            "--format",
            "anthropic",
            "--model",
            "claude-opus-4-1",
        ])
        .arg("--force")
        .assert()
        .code(0)
        .stdout("connection openai saved\n");
    let record = json_of(
        &without_key(&fx)
            .args(["show", "openai", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(record["format"], "anthropic");
    assert_eq!(record["model"], "claude-opus-4-1");
    assert_eq!(record["params"], json!({}));
    // --force also creates.
    without_key(&fx)
        .args([
            "add",
            "fresh",
            "--format",
            "gemini",
            "--model",
            "gemini-2.5-pro",
            "--force",
        ])
        .assert()
        .code(0);
}

#[test]
fn bad_arguments_exit_2_with_their_code_and_write_nothing() {
    let fx = Fixture::new();
    let base = |name: &str, format: &str| -> Vec<String> {
        ["add", name, "--format", format, "--model", "m"]
            .map(str::to_owned)
            .to_vec()
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (base("ok", "openai"), "connection.unknown_format"),
        (base("ok", "OpenAI-Chat"), "connection.unknown_format"),
        (base("../escape", "gemini"), "connection.invalid_name"),
        (base(".hidden", "gemini"), "connection.invalid_name"),
        (base("has space", "gemini"), "connection.invalid_name"),
        (
            [
                base("ok", "gemini"),
                vec!["--api-key-env".into(), "MY-KEY".into()],
            ]
            .concat(),
            "connection.invalid_env_var",
        ),
        (
            [
                base("ok", "gemini"),
                vec!["--header".into(), "Bad Name=x".into()],
            ]
            .concat(),
            "connection.invalid_header",
        ),
        (
            [
                base("ok", "gemini"),
                vec!["--header".into(), "NoEquals".into()],
            ]
            .concat(),
            "connection.invalid_header",
        ),
        (
            [
                base("ok", "gemini"),
                vec![
                    "--header".into(),
                    "X-A=1".into(),
                    "--header".into(),
                    "x-a=2".into(),
                ],
            ]
            .concat(),
            "connection.invalid_header",
        ),
        (
            [
                base("ok", "gemini"),
                vec!["--param".into(), "temperature".into()],
            ]
            .concat(),
            "connection.invalid_param",
        ),
        (
            [
                base("ok", "gemini"),
                vec!["--base-url".into(), "api.example.com".into()],
            ]
            .concat(),
            "connection.invalid_base_url",
        ),
        (
            [
                base("ok", "gemini"),
                vec!["--transport".into(), "websocket".into()],
            ]
            .concat(),
            "connection.invalid_transport",
        ),
        (
            [
                base("ok", "openai-responses"),
                vec!["--base-url".into(), "wss://api.openai.com/v1".into()],
                vec!["--stream".into(), "false".into()],
            ]
            .concat(),
            "connection.invalid_transport",
        ),
        (
            vec!["add", "ok", "--format", "gemini", "--model", " "]
                .into_iter()
                .map(str::to_owned)
                .collect(),
            "connection.model_required",
        ),
    ];
    for (args, code) in cases {
        without_key(&fx)
            .args(&args)
            .assert()
            .code(2)
            .stderr(contains(format!("error: {code}:")));
    }
    assert!(!fx.path().join("_tauritavern").exists());
    without_key(&fx)
        .args(base("ok", "openai-responses"))
        .args(["--transport", "socket"])
        .assert()
        .code(2)
        .stderr(contains("connection.invalid_transport"));
    // Clap's own refusals (a missing flag) are usage errors too.
    without_key(&fx)
        .args(["add", "ok", "--format", "gemini"])
        .assert()
        .code(2);
}

#[test]
fn missing_connections_exit_2() {
    let fx = Fixture::new();
    without_key(&fx)
        .args(["remove", "nobody"])
        .assert()
        .code(2)
        .stderr(contains("error: connection.not_found:"));
    without_key(&fx)
        .args(["show", "nobody", "--json"])
        .assert()
        .code(2)
        .stderr(contains(r#"{"code":"connection.not_found","message":"#))
        .stdout(predicates::str::is_empty());
    without_key(&fx)
        .args(["show", "../nobody"])
        .assert()
        .code(2)
        .stderr(contains("error: connection.invalid_name:"));
}

#[test]
fn broken_files_are_reported_without_breaking_the_list() {
    let fx = Fixture::new();
    add_openai(&fx).code(0);
    fs::write(connection_file(&fx, "broken"), "{\"kind\": ").unwrap();
    let listed = without_key(&fx)
        .args(["list", "--json"])
        .assert()
        .code(0)
        .stderr(contains("broken.json"))
        .stderr(contains("connection.contract_invalid"));
    let list = json_of(&listed);
    assert_eq!(list.as_array().unwrap().len(), 1);
    without_key(&fx)
        .args(["show", "broken"])
        .assert()
        .code(1)
        .stderr(contains("connection.contract_invalid"));
    without_key(&fx).args(["remove", "broken"]).assert().code(0);
}

#[test]
fn key_values_never_appear_in_any_output() {
    let fx = Fixture::new();
    let mut outputs = Vec::new();
    let mut record = |assert: assert_cmd::assert::Assert| {
        outputs.push(stdout_of(&assert) + &stderr_of(&assert));
    };
    record(
        with_key(&fx)
            .args([
                "add",
                "openai",
                "--format",
                "openai-responses",
                "--model",
                "gpt-5",
            ])
            .args(["--api-key-env", KEY_VAR, "--json"])
            .assert()
            .code(0),
    );
    // A literal credential header is allowed, but masked wherever it is shown.
    record(
        with_key(&fx)
            .args(["add", "proxy", "--format", "anthropic", "--model", "claude"])
            .args(["--header", &format!("x-api-key={KEY_VALUE}")])
            .assert()
            .code(0)
            .stderr(contains("clear text")),
    );
    record(
        with_key(&fx)
            .args([
                "add",
                "proxy2",
                "--format",
                "anthropic",
                "--model",
                "claude",
            ])
            .args([
                "--header",
                &format!("Authorization=Bearer {KEY_VALUE}"),
                "--json",
            ])
            .assert()
            .code(0),
    );
    for args in [
        vec!["list"],
        vec!["list", "--json"],
        vec!["show", "openai"],
        vec!["show", "openai", "--json"],
        vec!["show", "proxy"],
        vec!["show", "proxy", "--json"],
        vec!["show", "proxy2", "--json"],
    ] {
        record(with_key(&fx).args(&args).assert().code(0));
    }
    // A header mistyped with a colon is refused without echoing its value.
    record(
        with_key(&fx)
            .args(["add", "oops", "--format", "anthropic", "--model", "claude"])
            .args(["--header", &format!("Authorization: Bearer {KEY_VALUE}")])
            .assert()
            .code(2),
    );
    for output in &outputs {
        assert!(!output.contains(KEY_VALUE), "{output}");
    }
    let joined = outputs.concat();
    assert!(joined.contains("[REDACTED]"), "{joined}");
    assert!(joined.contains("\"apiKeySet\": true"), "{joined}");
    // The key from the environment is never written to disk either.
    let on_disk = fs::read_to_string(connection_file(&fx, "openai")).unwrap();
    assert!(!on_disk.contains(KEY_VALUE), "{on_disk}");
    assert!(on_disk.contains(KEY_VAR));
}

#[test]
fn api_key_set_follows_the_environment() {
    let fx = Fixture::new();
    add_openai(&fx).code(0);
    let show = |cmd: &mut assert_cmd::Command| {
        json_of(&cmd.args(["show", "openai", "--json"]).assert().code(0))["apiKeySet"].clone()
    };
    assert_eq!(show(&mut with_key(&fx)), json!(true));
    assert_eq!(show(&mut without_key(&fx)), json!(false));
    let mut empty = fx.cmd();
    empty.env(KEY_VAR, "").arg("connections");
    assert_eq!(show(&mut empty), json!(false));
    // A connection without a key variable never has a key.
    without_key(&fx)
        .args([
            "add",
            "local",
            "--format",
            "openai-chat",
            "--model",
            "llama",
        ])
        .assert()
        .code(0)
        .stderr(contains("note").not());
    let record = json_of(
        &with_key(&fx)
            .args(["show", "local", "--json"])
            .assert()
            .code(0),
    );
    assert_eq!(record["apiKeySet"], false);
    assert!(record.get("apiKeyEnv").is_none());
}

#[test]
fn a_dialect_and_a_request_timeout_are_saved_and_shown() {
    let fx = Fixture::new();
    without_key(&fx)
        .args([
            "add",
            "local",
            "--format",
            "openai-chat",
            "--model",
            "qwen3",
        ])
        .args(["--base-url", "http://127.0.0.1:8080/v1"])
        .args([
            "--dialect",
            "deepseek",
            "--timeout",
            "1800",
            "--stream",
            "false",
        ])
        .assert()
        .code(0);
    let saved: Value =
        serde_json::from_str(&fs::read_to_string(connection_file(&fx, "local")).unwrap()).unwrap();
    assert_eq!(saved["dialect"], json!("deepseek"));
    assert_eq!(saved["requestTimeoutSecs"], json!(1800));
    assert_eq!(saved["stream"], json!(false));
    without_key(&fx)
        .args(["show", "local"])
        .assert()
        .code(0)
        .stdout(
            contains("dialect:       deepseek")
                .and(contains("timeout:       1800 s"))
                .and(contains("streaming:     no (answers whole)")),
        );
    for (flag, value, code) in [
        ("--timeout", "0", "connection.invalid_timeout"),
        ("--dialect", "klingon", "connection.invalid_dialect"),
    ] {
        without_key(&fx)
            .args([
                "add",
                "other",
                "--format",
                "openai-chat",
                "--model",
                "m",
                flag,
                value,
            ])
            .assert()
            .code(2)
            .stderr(contains(code));
    }
}
