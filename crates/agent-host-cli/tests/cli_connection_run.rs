#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent run --connection NAME` end to end, once per wire format: a saved connection
//! points at a local mock provider that answers write → commit → finish in that format's
//! JSON; the run must complete, commit the reply into the chat, journal the provider state
//! after every call, and leave the API key nowhere under the data directory. Connections
//! stream by default, so the mock answers in each format's server-sent events (Gemini
//! Interactions answers whole); `--stream false` runs get the same answers whole.

mod cli_support;

use cli_support::*;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// The key the connection names by variable; it must never be written anywhere.
const KEY: &str = "sk-e2e-Zx9distinctiveKEYvalue";
const KEY_ENV: &str = "TAVERN_E2E_API_KEY";
const MODEL: &str = "mock-model";

/// One tool call the mock provider answers with.
struct Call {
    id: &'static str,
    alias: &'static str,
    arguments: Value,
}

/// The three calls of a run: write the reply, commit it, finish.
fn calls() -> [Call; 3] {
    [
        Call {
            id: "call_write",
            alias: "workspace_write_file",
            arguments: json!({"path": "output/main.md", "content": REPLY}),
        },
        Call {
            id: "call_commit",
            alias: "workspace_commit",
            arguments: json!({}),
        },
        Call {
            id: "call_finish",
            alias: "workspace_finish",
            arguments: json!({"reason": "done"}),
        },
    ]
}

/// A wire format under test: where it posts, how the base URL is given, how it answers
/// one tool call, and which header carries the key.
struct Format {
    name: &'static str,
    endpoint: String,
    /// Where a streamed call goes, when the format streams.
    stream_endpoint: Option<String>,
    /// Appended to the mock server's URI for `--base-url`.
    base_suffix: &'static str,
    key_header: &'static str,
    key_value: String,
    answer: fn(usize, &Call) -> Value,
}

fn openai_chat() -> Format {
    Format {
        name: "openai-chat",
        endpoint: "/v1/chat/completions".into(),
        stream_endpoint: Some("/v1/chat/completions".into()),
        base_suffix: "/v1",
        key_header: "authorization",
        key_value: format!("Bearer {KEY}"),
        answer: |round, call| {
            json!({
                "id": format!("chatcmpl-{round}"), "object": "chat.completion", "model": MODEL,
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                    "role": "assistant", "content": null,
                    "reasoning_content": format!("Step {round}."),
                    "tool_calls": [{"id": call.id, "type": "function", "function": {
                        "name": call.alias, "arguments": call.arguments.to_string()}}]}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
            })
        },
    }
}

fn openai_responses() -> Format {
    Format {
        name: "openai-responses",
        endpoint: "/v1/responses".into(),
        stream_endpoint: Some("/v1/responses".into()),
        base_suffix: "/v1",
        key_header: "authorization",
        key_value: format!("Bearer {KEY}"),
        answer: |round, call| {
            json!({
                "id": format!("resp_{round}"), "object": "response", "status": "completed",
                "model": MODEL, "error": null, "incomplete_details": null,
                "output": [
                    {"id": format!("rs_{round}"), "type": "reasoning", "summary": [],
                     "encrypted_content": format!("gAAAAB-round-{round}")},
                    {"id": format!("fc_{round}"), "type": "function_call", "status": "completed",
                     "call_id": call.id, "name": call.alias,
                     "arguments": call.arguments.to_string()}
                ],
                "usage": {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}
            })
        },
    }
}

fn anthropic() -> Format {
    Format {
        name: "anthropic",
        endpoint: "/v1/messages".into(),
        stream_endpoint: Some("/v1/messages".into()),
        base_suffix: "",
        key_header: "x-api-key",
        key_value: KEY.into(),
        answer: |round, call| {
            json!({
                "id": format!("msg_{round}"), "type": "message", "role": "assistant",
                "model": MODEL, "stop_reason": "tool_use", "stop_sequence": null,
                "content": [
                    {"type": "thinking", "thinking": "Next step.",
                     "signature": format!("sig-round-{round}")},
                    {"type": "tool_use", "id": call.id, "name": call.alias,
                     "input": call.arguments}
                ],
                "usage": {"input_tokens": 100, "output_tokens": 20}
            })
        },
    }
}

fn gemini() -> Format {
    Format {
        name: "gemini",
        endpoint: format!("/v1beta/models/{MODEL}:generateContent"),
        stream_endpoint: Some(format!("/v1beta/models/{MODEL}:streamGenerateContent")),
        base_suffix: "",
        key_header: "x-goog-api-key",
        key_value: KEY.into(),
        answer: |round, call| {
            json!({
                "candidates": [{"index": 0, "finishReason": "STOP", "content": {"role": "model",
                    "parts": [{"functionCall": {"name": call.alias, "args": call.arguments},
                               "thoughtSignature": format!("c2lnLXJvdW5kLXs{round}")}]}}],
                "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20,
                                  "totalTokenCount": 120},
                "modelVersion": MODEL, "responseId": format!("gem-{round}")
            })
        },
    }
}

fn gemini_interactions() -> Format {
    Format {
        name: "gemini-interactions",
        endpoint: "/v1beta/interactions".into(),
        stream_endpoint: None,
        base_suffix: "",
        key_header: "x-goog-api-key",
        key_value: KEY.into(),
        answer: |_, call| {
            json!({
                "object": "interaction", "status": "requires_action", "model": MODEL,
                "steps": [
                    {"type": "thought", "signature": "c2lnbmF0dXJl"},
                    {"type": "function_call", "id": call.id, "name": call.alias,
                     "arguments": call.arguments}
                ],
                "usage": {"total_input_tokens": 100, "total_output_tokens": 20,
                          "total_tokens": 120}
            })
        },
    }
}

/// `body`, a whole answer in `format`, as the events of the same answer streamed.
fn as_events(format: &str, body: &Value) -> String {
    let data = |events: Vec<Value>| -> String {
        events.iter().map(|e| format!("data: {e}\n\n")).collect()
    };
    match format {
        "openai-chat" => {
            let choice = &body["choices"][0];
            let mut delta = choice["message"].clone();
            for (index, call) in delta["tool_calls"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .enumerate()
            {
                call["index"] = json!(index);
            }
            let mut chunk = body.clone();
            chunk["object"] = json!("chat.completion.chunk");
            chunk["choices"] =
                json!([{"index": 0, "delta": delta, "finish_reason": choice["finish_reason"]}]);
            chunk["usage"] = Value::Null;
            let mut usage = body.clone();
            usage["choices"] = json!([]);
            data(vec![chunk, usage]) + "data: [DONE]\n\n"
        }
        "openai-responses" => {
            let mut events = vec![
                json!({"type": "response.created", "response": {"id": body["id"], "output": []}}),
            ];
            for (index, item) in body["output"].as_array().unwrap().iter().enumerate() {
                events.push(json!({"type": "response.output_item.done", "output_index": index, "item": item}));
            }
            events.push(json!({"type": "response.completed", "response": body}));
            data(events)
        }
        "anthropic" => {
            let mut message = body.clone();
            message["content"] = json!([]);
            let mut events = vec![json!({"type": "message_start", "message": message})];
            for (index, block) in body["content"].as_array().unwrap().iter().enumerate() {
                let mut start = block.clone();
                let delta = match block["type"].as_str().unwrap() {
                    "thinking" => {
                        start["thinking"] = json!("");
                        start["signature"] = json!("");
                        events.push(json!({"type": "content_block_start", "index": index, "content_block": start}));
                        events.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": block["thinking"]}}));
                        json!({"type": "signature_delta", "signature": block["signature"]})
                    }
                    _ => {
                        start["input"] = json!({});
                        events.push(json!({"type": "content_block_start", "index": index, "content_block": start}));
                        json!({"type": "input_json_delta", "partial_json": block["input"].to_string()})
                    }
                };
                events.push(json!({"type": "content_block_delta", "index": index, "delta": delta}));
                events.push(json!({"type": "content_block_stop", "index": index}));
            }
            events.push(json!({"type": "message_delta", "delta": {"stop_reason": body["stop_reason"]}, "usage": body["usage"]}));
            events.push(json!({"type": "message_stop"}));
            data(events)
        }
        // One chunk holds the whole answer, finish reason included.
        "gemini" => data(vec![body.clone()]),
        other => panic!("{other} does not stream"),
    }
}

/// Answers the `calls` in order, one per request, in `format`'s JSON, or in its events
/// when `stream` (and the format streams).
async fn mock_provider(format: &Format, stream: bool) -> MockServer {
    let server = MockServer::start().await;
    for (index, call) in calls().iter().enumerate() {
        let answer = (format.answer)(index + 1, call);
        let (endpoint, response) = match &format.stream_endpoint {
            Some(endpoint) if stream => (
                endpoint.as_str(),
                ResponseTemplate::new(200)
                    .set_body_raw(as_events(format.name, &answer), "text/event-stream"),
            ),
            _ => (
                format.endpoint.as_str(),
                ResponseTemplate::new(200).set_body_json(answer),
            ),
        };
        Mock::given(method("POST"))
            .and(path(endpoint))
            .respond_with(response)
            .up_to_n_times(1)
            .with_priority(u8::try_from(index + 1).unwrap())
            .mount(&server)
            .await;
    }
    server
}

/// Runs the `tavern-agent` command on a blocking thread (the mock server lives on this
/// test's runtime).
async fn run_cmd(mut cmd: assert_cmd::Command) -> std::process::Output {
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

/// Starts `run` on the fixture's chat with `connection` in a child process, and reads the
/// run id from the first line of its stderr.
async fn spawn_run(fx: &Fixture, connection: &str) -> (std::process::Child, String) {
    let mut child = std::process::Command::new(bin())
        .env_remove("TAVERN_AGENT_DATA_DIR")
        .arg("--data-dir")
        .arg(fx.path())
        .args(["run", "--chat", CHAT, "--connection", connection])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let run_id = tokio::task::spawn_blocking(move || {
        use std::io::BufRead;
        let mut first = String::new();
        std::io::BufReader::new(stderr)
            .read_line(&mut first)
            .unwrap();
        first.strip_prefix("run: ").unwrap().trim().to_owned()
    })
    .await
    .unwrap();
    (child, run_id)
}

/// Cancels the run from another process (`runs cancel`) and checks the run's own process
/// then exits 130.
async fn cancel_from_outside(fx: &Fixture, run_id: &str, mut child: std::process::Child) {
    let mut cancel = fx.cmd();
    cancel.args(["runs", "cancel", run_id]);
    let cancelled = run_cmd(cancel).await;
    assert!(cancelled.status.success(), "{cancelled:?}");
    let status = tokio::task::spawn_blocking(move || child.wait().unwrap())
        .await
        .unwrap();
    assert_eq!(status.code(), Some(130));
}

/// Saves connection `name` (`--model` and `--base-url` given, plus `extra` arguments) and
/// checks it was saved.
async fn add_connection(
    fx: &Fixture,
    name: &str,
    format: &str,
    model: &str,
    base_url: &str,
    extra: &[&str],
) {
    let mut add = fx.cmd();
    add.args(["connections", "add", name, "--format", format])
        .args(["--model", model, "--base-url", base_url])
        .args(extra);
    let added = run_cmd(add).await;
    assert!(added.status.success(), "{added:?}");
}

/// The whole scenario for one format; `extra` are more `connections add` arguments.
async fn completes_a_run(format: Format, extra: &[&str]) -> Vec<Request> {
    let stream = !extra.windows(2).any(|pair| pair == ["--stream", "false"]);
    let server = mock_provider(&format, stream).await;
    let fx = Fixture::new();
    let base_url = format!("{}{}", server.uri(), format.base_suffix);
    let mut args = vec!["--api-key-env", KEY_ENV];
    args.extend_from_slice(extra);
    add_connection(&fx, "mock", format.name, MODEL, &base_url, &args).await;

    let mut run = fx.cmd();
    run.env(KEY_ENV, KEY)
        .args(["run", "--chat", CHAT, "--connection", "mock", "--json"]);
    let output = run_cmd(run).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{}: {stderr}", format.name);
    assert!(fx.chat_text().contains("Room three"), "{}", format.name);

    let run_id = run_id_of(&output.stderr);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        fx.events_jsonl(&run_id),
        "{}: --json prints exactly the journal",
        format.name
    );
    let events: Vec<Value> = fx
        .events_jsonl(&run_id)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let binding = events
        .iter()
        .find(|e| e["type"] == "agent_model_binding_resolved")
        .unwrap();
    assert_eq!(binding["payload"]["connection"], "mock", "{binding}");
    assert_eq!(binding["payload"]["providerFormat"], format.name);
    assert_eq!(binding["payload"]["modelId"], MODEL);
    let states: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "provider_state_updated")
        .map(|e| &e["payload"]["providerState"])
        .collect();
    assert_eq!(states.len(), 3, "{}", format.name);
    let mut last_cursor = 0;
    for state in &states {
        assert_eq!(state["providerFormat"], format.name, "{state}");
        let cursor = state["messageCursor"].as_u64().unwrap();
        assert!(cursor > last_cursor, "the cursor moves on: {states:?}");
        last_cursor = cursor;
    }

    // Every mock answer reports 100 tokens in and 20 out; the run adds them up.
    for completed in events.iter().filter(|e| e["type"] == "model_completed") {
        let usage = &completed["payload"]["usage"];
        assert_eq!(usage["inputTokens"], 100, "{}: {usage}", format.name);
        assert_eq!(usage["outputTokens"], 20, "{}: {usage}", format.name);
    }
    let mut show = fx.cmd();
    show.args(["runs", "show", &run_id]);
    let shown = String::from_utf8(run_cmd(show).await.stdout).unwrap();
    assert!(shown.contains("tokens        300 in"), "{shown}");
    assert!(shown.contains("· 60 out"), "{shown}");

    let leaks = files_containing(fx.path(), KEY);
    assert!(
        leaks.is_empty(),
        "{}: the key leaked into {leaks:?}",
        format.name
    );
    assert!(!String::from_utf8_lossy(&output.stdout).contains(KEY));
    assert!(!stderr.contains(KEY));

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 3, "{}", format.name);
    let streamed = stream && format.stream_endpoint.is_some();
    for request in &requests {
        let sent = request.headers.get(format.key_header).unwrap();
        assert_eq!(sent.to_str().unwrap(), format.key_value, "{}", format.name);
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        if format.name != "gemini" {
            assert_eq!(
                body["stream"] == json!(true),
                streamed,
                "{}: {body}",
                format.name
            );
        }
    }
    requests
}

/// The body of a request, as JSON.
fn body(request: &Request) -> Value {
    serde_json::from_slice(&request.body).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_chat_completes_a_run() {
    let requests = completes_a_run(
        openai_chat(),
        &["--param", "temperature=0.3", "--dialect", "deepseek"],
    )
    .await;
    let last = body(&requests[2]);
    assert_eq!(last["temperature"], json!(0.3), "params reach the body");
    let tool_messages = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .count();
    assert_eq!(tool_messages, 2, "both earlier results go back");
    let calling_turns: Vec<&Value> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant" && m.get("tool_calls").is_some())
        .collect();
    assert_eq!(calling_turns.len(), 2);
    for (round, turn) in calling_turns.iter().enumerate() {
        let expected = format!("Step {}.", round + 1);
        assert_eq!(
            turn["reasoning_content"],
            expected.as_str(),
            "DeepSeek: {turn}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_with_streaming_off_answers_whole() {
    for format in [openai_chat(), anthropic(), gemini()] {
        completes_a_run(format, &["--stream", "false"]).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_responses_completes_a_run() {
    let requests = completes_a_run(openai_responses(), &[]).await;
    let last = body(&requests[2]);
    assert_eq!(last["store"], json!(false));
    let reasoning: Vec<&Value> = last["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "reasoning")
        .collect();
    assert_eq!(reasoning.len(), 2, "encrypted reasoning is replayed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_responses_with_store_chains_onto_the_previous_response() {
    let requests = completes_a_run(openai_responses(), &["--param", "store=true"]).await;
    let first = body(&requests[0]);
    assert_eq!(first["store"], json!(true));
    assert!(first.get("previous_response_id").is_none());
    for (index, request) in requests.iter().enumerate().skip(1) {
        let sent = body(request);
        assert_eq!(sent["previous_response_id"], json!(format!("resp_{index}")));
        let input = sent["input"].as_array().unwrap();
        assert_eq!(input.len(), 1, "only the new result: {input:?}");
        assert_eq!(input[0]["type"], "function_call_output");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_completes_a_run() {
    let requests = completes_a_run(anthropic(), &[]).await;
    assert_eq!(
        requests[0].headers.get("anthropic-version").unwrap(),
        "2023-06-01"
    );
    let last = body(&requests[2]);
    let replayed: Vec<&Value> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant" && m["content"][0]["type"] == "thinking")
        .collect();
    assert_eq!(replayed.len(), 2, "both thinking turns come back first");
    assert_eq!(replayed[0]["content"][0]["signature"], "sig-round-1");
    assert_eq!(replayed[0]["content"][1]["type"], "tool_use");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_completes_a_run() {
    let requests = completes_a_run(gemini(), &[]).await;
    let last = body(&requests[2]);
    let contents = last["contents"].as_array().unwrap();
    let signed = contents
        .iter()
        .filter(|c| c["role"] == "model" && c["parts"][0]["thoughtSignature"].is_string())
        .count();
    assert_eq!(signed, 2, "each call's part keeps its thought signature");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_interactions_completes_a_run() {
    let requests = completes_a_run(gemini_interactions(), &[]).await;
    let last = body(&requests[2]);
    let thoughts = last["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|step| step["type"] == "thought")
        .count();
    assert_eq!(thoughts, 2, "thought signatures are replayed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unset_key_variable_is_refused_before_any_run() {
    let server = mock_provider(&anthropic(), true).await;
    let fx = Fixture::new();
    let with_key = ["--api-key-env", KEY_ENV];
    add_connection(&fx, "mock", "anthropic", MODEL, &server.uri(), &with_key).await;
    let mut run = fx.cmd();
    run.env_remove(KEY_ENV)
        .args(["run", "--chat", CHAT, "--connection", "mock"]);
    let output = run_cmd(run).await;
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(KEY_ENV), "{stderr}");
    assert!(fx.run_ids().is_empty(), "no run was created");
    assert!(server.received_requests().await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_connection_is_a_usage_error() {
    let fx = Fixture::new();
    let mut run = fx.cmd();
    run.args(["run", "--chat", CHAT, "--connection", "nowhere"]);
    let output = run_cmd(run).await;
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("nowhere"), "{stderr}");
    assert!(fx.run_ids().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_bound_to_a_connection_uses_it_and_its_model_id() {
    let format = anthropic();
    let server = mock_provider(&format, true).await;
    let fx = Fixture::new();
    let with_key = ["--api-key-env", KEY_ENV];
    let default_model = "connection-default-model";
    add_connection(
        &fx,
        "main",
        "anthropic",
        default_model,
        &server.uri(),
        &with_key,
    )
    .await;
    let mut show = fx.cmd();
    show.args(["profiles", "show", "default-writer", "--json"]);
    let mut profile: Value = serde_json::from_slice(&run_cmd(show).await.stdout).unwrap();
    profile["id"] = json!("bound-writer");
    profile["displayName"] = json!("Bound writer");
    profile["model"]["mode"] = json!("connectionRef");
    profile["model"]["connectionRef"] = json!("main");
    profile["model"]["modelId"] = json!(MODEL);
    let file = fx.write_json("bound.json", &profile);
    let mut import = fx.cmd();
    import.args(["profiles", "save"]).arg(file);
    let imported = run_cmd(import).await;
    assert!(imported.status.success(), "{imported:?}");

    let mut run = fx.cmd();
    run.env(KEY_ENV, KEY)
        .args(["run", "--chat", CHAT, "--profile", "bound-writer"]);
    let output = run_cmd(run).await;
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let requests = server.received_requests().await.unwrap();
    assert_eq!(
        body(&requests[0])["model"],
        MODEL,
        "the profile's modelId wins"
    );
}

/// A key with characters JSON escapes (`"`, `\`, and `/` for PHP) and form encoding changes.
const ESCAPED_KEY: &str = r#"sk-e2e/Zx9+dis"tinct\ive=KEY"#;

/// The ways `key` can sit in a file or a stream when it leaks: raw, JSON-escaped (the
/// journal's own escaping), and JSON-escaped with `\/` (the echo of a PHP server).
fn leak_forms(key: &str) -> Vec<String> {
    let quoted = serde_json::to_string(key).unwrap();
    let escaped = quoted[1..quoted.len() - 1].to_owned();
    vec![key.to_owned(), escaped.replace('/', "\\/"), escaped]
}

/// A run whose provider answers every call with a 401 carrying `body` (which echoes `key`):
/// the run fails (exit 4), the failure is journaled with its class, the echo is masked, and
/// no form of the key is anywhere under the data directory, on stdout or on stderr.
async fn echoing_provider_fails_the_run_without_leaking(key: &str, body: String) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_raw(body, "application/json"))
        .mount(&server)
        .await;
    let fx = Fixture::new();
    let base_url = format!("{}/v1", server.uri());
    let with_key = ["--api-key-env", KEY_ENV];
    add_connection(&fx, "mock", "openai-chat", MODEL, &base_url, &with_key).await;
    let mut run = fx.cmd();
    run.env(KEY_ENV, key)
        .args(["run", "--chat", CHAT, "--connection", "mock", "--json"]);
    let output = run_cmd(run).await;
    assert_eq!(output.status.code(), Some(4));
    let run_id = run_id_of(&output.stderr);
    let journal = fx.events_jsonl(&run_id);
    let failed: Value = serde_json::from_str(journal.lines().last().unwrap()).unwrap();
    assert_eq!(failed["type"], "run_failed");
    assert_eq!(failed["payload"]["code"], "model.unauthorized", "{failed}");
    assert!(
        journal.contains("[REDACTED]"),
        "the echo is masked, not dropped"
    );
    for form in leak_forms(key) {
        let leaks = files_containing(fx.path(), &form);
        assert!(leaks.is_empty(), "`{form}` leaked into {leaks:?}");
        assert!(!String::from_utf8_lossy(&output.stdout).contains(&form));
        assert!(!String::from_utf8_lossy(&output.stderr).contains(&form));
    }
}

/// A provider that echoes the key back in its error, byte for byte.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_error_echoing_the_key_fails_the_run_without_leaking_it() {
    let echo = json!({"error": {"type": "invalid_request_error", "code": "invalid_api_key",
                                "message": format!("Incorrect API key provided: {KEY}")}});
    echoing_provider_fails_the_run_without_leaking(KEY, echo.to_string()).await;
}

/// A provider that echoes a key holding `/ + = " \` the way PHP writes JSON (`\/`), and again
/// percent-encoded in its error code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_error_echoing_the_escaped_key_fails_the_run_without_leaking_it() {
    let php = leak_forms(ESCAPED_KEY)[1].clone();
    let percent: String = ESCAPED_KEY
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' => char::from(b).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    let body = format!(
        r#"{{"error":{{"type":"invalid_request_error","code":"{percent}","message":"Incorrect API key provided: {php}"}}}}"#
    );
    echoing_provider_fails_the_run_without_leaking(ESCAPED_KEY, body).await;
}

/// An overloaded provider (Anthropic's 529) is retried by the runtime's policy, journaled
/// as a failed attempt and a scheduled retry, and the run then completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overloaded_provider_is_retried_and_the_run_completes() {
    let format = anthropic();
    let server = MockServer::start().await;
    let overloaded =
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    Mock::given(method("POST"))
        .and(path(format.endpoint.as_str()))
        .respond_with(ResponseTemplate::new(529).set_body_json(overloaded))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    for (index, call) in calls().iter().enumerate() {
        Mock::given(method("POST"))
            .and(path(format.endpoint.as_str()))
            .respond_with(
                ResponseTemplate::new(200).set_body_json((format.answer)(index + 1, call)),
            )
            .up_to_n_times(1)
            .with_priority(u8::try_from(index + 2).unwrap())
            .mount(&server)
            .await;
    }
    let fx = Fixture::new();
    add_connection(&fx, "mock", format.name, MODEL, &server.uri(), &[]).await;
    let mut run = fx.cmd();
    run.args(["run", "--chat", CHAT, "--connection", "mock", "--json"]);
    let output = run_cmd(run).await;
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let journal = fx.events_jsonl(&run_id_of(&output.stderr));
    let failed: Value = journal
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|e| e["type"] == "model_call_attempt_failed")
        .unwrap();
    assert_eq!(failed["payload"]["code"], "model.overloaded", "{failed}");
    assert_eq!(failed["payload"]["willRetry"], true);
    assert!(journal.contains("\"model_call_retry_scheduled\""));
    assert_eq!(server.received_requests().await.unwrap().len(), 4);
}

/// A provider that takes a minute to answer: `runs cancel` from another process stops the
/// run at once (the HTTP request is dropped), the run exits 130 and journals its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_during_a_slow_provider_call_aborts_it() {
    let server = MockServer::start().await;
    let format = anthropic();
    Mock::given(method("POST"))
        .and(path(format.endpoint.as_str()))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json((format.answer)(1, &calls()[0]))
                .set_delay(std::time::Duration::from_secs(60)),
        )
        .mount(&server)
        .await;
    let fx = Fixture::new();
    add_connection(&fx, "slow", format.name, MODEL, &server.uri(), &[]).await;

    let (child, run_id) = spawn_run(&fx, "slow").await;
    // Wait until the request is in flight.
    let started = std::time::Instant::now();
    while server.received_requests().await.unwrap().is_empty() {
        assert!(
            started.elapsed().as_secs() < 20,
            "the provider was never called"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    cancel_from_outside(&fx, &run_id, child).await;
    let journal = fx.events_jsonl(&run_id);
    let last: Value = serde_json::from_str(journal.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "run_cancelled");
    // The call was dropped, not waited out: its answer (a minute away) never arrived.
    assert!(!journal.contains("\"model_response_stored\""), "{journal}");
}

/// A provider that starts streaming an answer and then holds the stream open: cancelling
/// the run mid-stream must close the connection (the provider sees it drop), end the run
/// `run_cancelled` with exit 130, and store no response.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_during_a_stream_drops_the_connection() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (dropped_tx, dropped_rx) = tokio::sync::oneshot::channel();
    let provider = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut buffer = vec![0_u8; 1 << 20];
        let _ = socket.read(&mut buffer).await.unwrap();
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                    transfer-encoding: chunked\r\n\r\n";
        socket.write_all(head.as_bytes()).await.unwrap();
        let start = json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
            "role": "assistant", "model": MODEL, "content": [], "usage": {"input_tokens": 1}}});
        let block = json!({"type": "content_block_start", "index": 0,
                           "content_block": {"type": "text", "text": ""}});
        let delta = json!({"type": "content_block_delta", "index": 0,
                           "delta": {"type": "text_delta", "text": "Once upon"}});
        for event in [start, block, delta] {
            let event = format!("data: {event}\n\n");
            let chunk = format!("{:x}\r\n{event}\r\n", event.len());
            socket.write_all(chunk.as_bytes()).await.unwrap();
        }
        // Hold the stream open until the client goes away.
        while socket.read(&mut buffer).await.is_ok_and(|n| n > 0) {}
        let _ = dropped_tx.send(());
    });
    let fx = Fixture::new();
    let base_url = format!("http://{address}");
    add_connection(&fx, "streaming", "anthropic", MODEL, &base_url, &[]).await;

    let (child, run_id) = spawn_run(&fx, "streaming").await;
    // Wait until the stream has begun.
    let started = std::time::Instant::now();
    while !fx
        .events_jsonl(&run_id)
        .contains("\"model_call_attempt_started\"")
    {
        assert!(
            started.elapsed().as_secs() < 20,
            "the model was never called"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;

    cancel_from_outside(&fx, &run_id, child).await;
    tokio::time::timeout(std::time::Duration::from_secs(10), dropped_rx)
        .await
        .expect("the provider's stream was never closed")
        .unwrap();
    provider.await.unwrap();
    let journal = fx.events_jsonl(&run_id);
    let last: Value = serde_json::from_str(journal.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "run_cancelled");
    assert!(!journal.contains("\"model_response_stored\""), "{journal}");
    assert!(
        !journal.contains("Once upon"),
        "no delta is journaled: {journal}"
    );
}
