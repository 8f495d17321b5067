#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent prompt prepare`: the request it shows is the one a run's first model round
//! sends — compared with the body a mock provider received from a real run — and bad input
//! is refused with its code.

mod cli_support;

use cli_support::*;
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk-prepare-Qw7distinctiveKEYvalue";
const KEY_ENV: &str = "TAVERN_PREPARE_API_KEY";

async fn output(mut cmd: assert_cmd::Command) -> std::process::Output {
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

/// The text of an OpenAI chat message's content: a string, or its text parts joined.
fn wire_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect(),
        other => panic!("unexpected content {other}"),
    }
}

/// The text parts of a prepared message, joined.
fn prepared_text(message: &Value) -> String {
    message["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|part| part["text"].as_str())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_prepared_request_is_what_the_run_sends_first() {
    // The provider refuses every request (400, never retried): the run fails after its
    // first request, which is all this test needs.
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(400).set_body_json(
                json!({"error": {"message": "no", "type": "invalid_request_error"}}),
            ),
        )
        .mount(&server)
        .await;
    let fx = Fixture::new();
    let mut add = fx.cmd();
    add.args(["connections", "add", "mock", "--format", "openai-chat"])
        .args(["--model", "mock-model", "--stream", "false"])
        .args(["--base-url", &format!("{}/v1", server.uri())])
        .args(["--api-key-env", KEY_ENV]);
    assert!(output(add).await.status.success());

    let mut prepare = fx.cmd();
    prepare.env(KEY_ENV, KEY).args([
        "prompt",
        "prepare",
        "--chat",
        CHAT,
        "--connection",
        "mock",
        "--json",
    ]);
    let prepared = output(prepare).await;
    assert_eq!(prepared.status.code(), Some(0), "{prepared:?}");
    let stdout = String::from_utf8(prepared.stdout).unwrap();
    assert!(!stdout.contains(KEY), "the key leaked: {stdout}");
    let prepared: Value = serde_json::from_str(&stdout).unwrap();
    assert!(fx.run_ids().is_empty(), "preparing starts no run");
    assert!(server.received_requests().await.unwrap().is_empty());
    let binding = &prepared["binding"];
    assert_eq!(binding["mode"], "connection");
    assert_eq!(binding["connection"], "mock");
    assert_eq!(binding["providerFormat"], "openai-chat");
    assert_eq!(binding["modelId"], "mock-model");
    assert_eq!(prepared["inputMessageCount"], 3);
    assert_eq!(prepared["request"]["toolChoice"], "auto");

    let mut run = fx.cmd();
    run.env(KEY_ENV, KEY)
        .args(["run", "--chat", CHAT, "--connection", "mock"]);
    let ran = output(run).await;
    assert_eq!(ran.status.code(), Some(4), "a failed run: {ran:?}");
    let requests = server.received_requests().await.unwrap();
    let sent: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(sent["model"], "mock-model");

    let tools = prepared["request"]["tools"].as_array().unwrap();
    let sent_tools = sent["tools"].as_array().unwrap();
    assert!(!tools.is_empty());
    assert_eq!(tools.len(), sent_tools.len());
    for (tool, wire) in tools.iter().zip(sent_tools) {
        assert_eq!(wire["function"]["name"], tool["alias"]);
        assert_eq!(wire["function"]["description"], tool["description"]);
        assert_eq!(wire["function"]["parameters"], tool["inputSchema"]);
    }
    let messages = prepared["request"]["messages"].as_array().unwrap();
    let sent_messages = sent["messages"].as_array().unwrap();
    assert_eq!(messages.len(), sent_messages.len(), "{sent}");
    for (message, wire) in messages.iter().zip(sent_messages) {
        assert_eq!(wire["role"], message["role"]);
        assert_eq!(wire_text(&wire["content"]), prepared_text(message));
    }
    assert_eq!(messages[0]["role"], "system");
    assert!(
        messages
            .iter()
            .any(|m| prepared_text(m).contains("And a bowl of stew."))
    );
}

#[test]
fn the_human_view_names_the_model_tools_and_messages() {
    let fx = Fixture::new();
    let script = fx.write_json("script.json", &completing_script());
    let shown = fx
        .cmd()
        .args(["prompt", "prepare", "--chat", CHAT, "--script"])
        .arg(&script)
        .assert()
        .code(0);
    let text = stdout_of(&shown);
    assert!(
        text.contains("model        script · scripted · scripted"),
        "{text}"
    );
    assert!(text.contains("workspace_commit"), "{text}");
    assert!(text.contains("tool choice  \"auto\""), "{text}");
    assert!(text.contains("--- system"), "{text}");
    assert!(text.contains("And a bowl of stew."), "{text}");
    assert!(fx.run_ids().is_empty());
}

#[test]
fn the_prepared_counts_match_the_scripted_runs_first_request() {
    let fx = Fixture::new();
    let script = fx.write_json("script.json", &completing_script());
    let prepared = fx
        .cmd()
        .args(["prompt", "prepare", "--chat", CHAT, "--json", "--script"])
        .arg(&script)
        .assert()
        .code(0);
    let prepared: Value = serde_json::from_str(&stdout_of(&prepared)).unwrap();
    let ran = fx.run_script(&completing_script(), &[]).code(0);
    let run_id = run_id_of(&ran.get_output().stderr);
    let first = fx
        .events_jsonl(&run_id)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|event| event["type"] == "model_request_created")
        .unwrap();
    let summary = &first["payload"]["request"];
    assert_eq!(
        summary["messageCount"],
        prepared["request"]["messages"].as_array().unwrap().len()
    );
    assert_eq!(
        summary["toolCount"],
        prepared["request"]["tools"].as_array().unwrap().len()
    );
    let aliases: Vec<&Value> = prepared["request"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| &tool["toolId"])
        .collect();
    let turn: Vec<&Value> = first["payload"]["turn"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    assert_eq!(aliases, turn);
}

#[test]
fn prompt_prepare_refuses_bad_input_with_its_code() {
    let fx = Fixture::new();
    let script = fx.write_json("script.json", &completing_script());
    let refused = |args: &[&str], code: &str| {
        let assert = fx.cmd().args(args).assert().code(2);
        let stderr = stderr_of(&assert);
        assert!(
            stderr.starts_with(&format!("error: {code}")),
            "{args:?}: {stderr}"
        );
    };
    let script = script.to_str().unwrap();
    refused(
        &[
            "prompt",
            "prepare",
            "--chat",
            "Alice/missing.jsonl",
            "--script",
            script,
        ],
        "chat.not_found",
    );
    refused(
        &[
            "prompt",
            "prepare",
            "--chat",
            CHAT,
            "--profile",
            "nobody",
            "--script",
            script,
        ],
        "agent.profile_not_found",
    );
    refused(
        &[
            "prompt",
            "prepare",
            "--chat",
            CHAT,
            "--connection",
            "nowhere",
        ],
        "connection.not_found",
    );
    refused(&["prompt", "prepare", "--chat", CHAT], "cli.model_required");
    refused(
        &[
            "prompt",
            "prepare",
            "--chat",
            CHAT,
            "--generation-type",
            "swipe",
            "--script",
            script,
        ],
        "agent.swipe_target_invalid",
    );
    let snapshot = fx.write_json("snapshot.json", &json!({"stream": true}));
    refused(
        &[
            "prompt",
            "prepare",
            "--chat",
            CHAT,
            "--script",
            script,
            "--prompt-snapshot",
            snapshot.to_str().unwrap(),
        ],
        "agent.",
    );
    assert!(fx.run_ids().is_empty());
}
