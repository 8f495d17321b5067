#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// The handshake callbacks return tungstenite's own `Result<Response, ErrorResponse>`.
#![allow(clippy::result_large_err)]
//! `tavern-agent run --connection NAME` end to end over the OpenAI Responses WebSocket
//! transport: a saved `openai-responses` connection with a `ws://` base URL points at a local
//! tokio-tungstenite server that answers write → commit → finish as Responses events. The
//! run must complete on one socket, chain every later call onto the previous response with
//! only the new input, journal the WebSocket provider state, print exactly the journal with
//! `--json`, and leave the key nowhere under the data directory.

mod cli_support;

use std::sync::{Arc, Mutex};

use cli_support::*;
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};

const KEY: &str = "sk-e2e-ws-Kq4distinctiveKEY";
const KEY_ENV: &str = "TAVERN_E2E_WS_API_KEY";
const MODEL: &str = "mock-model";

/// The tool call of each round: write the reply, commit it, finish.
fn call_of(round: usize) -> (&'static str, &'static str, Value) {
    match round {
        1 => (
            "call_write",
            "workspace_write_file",
            json!({"path": "output/main.md", "content": REPLY}),
        ),
        2 => ("call_commit", "workspace_commit", json!({})),
        _ => ("call_finish", "workspace_finish", json!({"reason": "done"})),
    }
}

/// The events of round `round`'s answer: reasoning, then the call, its arguments streamed.
fn events(round: usize) -> Vec<Value> {
    let (id, alias, arguments) = call_of(round);
    let reasoning = json!({"id": format!("rs_{round}"), "type": "reasoning", "summary": [],
                           "encrypted_content": format!("gAAAAB-round-{round}")});
    let call = json!({"id": format!("fc_{round}"), "type": "function_call", "status": "completed",
                      "call_id": id, "name": alias, "arguments": arguments.to_string()});
    let response = json!({
        "id": format!("resp_{round}"), "object": "response", "status": "completed",
        "model": MODEL, "output": [reasoning, call],
        "usage": {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}
    });
    vec![
        json!({"type": "response.created", "response": {"id": format!("resp_{round}"), "output": []}}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": reasoning}),
        json!({"type": "response.output_item.added", "output_index": 1,
               "item": {"type": "function_call", "name": alias, "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 1,
               "delta": arguments.to_string()}),
        json!({"type": "response.output_item.done", "output_index": 1, "item": call}),
        json!({"type": "response.completed", "response": response}),
    ]
}

/// What the server read: per `response.create`, the connection it came on and its body; per
/// connection, the `Authorization` of its upgrade.
#[derive(Default)]
struct Log {
    creates: Vec<(usize, Value)>,
    authorizations: Vec<Option<String>>,
}

/// Serves the three rounds in order, on whatever connections arrive.
async fn serve() -> (String, Arc<Mutex<Log>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("ws://{}/v1", listener.local_addr().unwrap());
    let log = Arc::new(Mutex::new(Log::default()));
    let shared = Arc::clone(&log);
    tokio::spawn(async move {
        let mut round = 0;
        let mut connection = 0;
        while let Ok((tcp, _)) = listener.accept().await {
            let seen = Arc::clone(&shared);
            let callback = move |request: &Request, response: Response| {
                let authorization = request
                    .headers()
                    .get("authorization")
                    .map(|v| v.to_str().unwrap().to_owned());
                seen.lock().unwrap().authorizations.push(authorization);
                Ok(response)
            };
            let Ok(mut socket) = tokio_tungstenite::accept_hdr_async(tcp, callback).await else {
                continue;
            };
            while let Some(Ok(message)) = socket.next().await {
                let Message::Text(text) = message else {
                    continue;
                };
                let body: Value = serde_json::from_str(text.as_str()).unwrap();
                shared.lock().unwrap().creates.push((connection, body));
                round += 1;
                for event in events(round) {
                    socket.send(Message::text(event.to_string())).await.unwrap();
                }
            }
            connection += 1;
        }
    });
    (base_url, log)
}

/// Runs the `tavern-agent` command on a blocking thread (the server lives on this test's
/// runtime).
async fn run_cmd(mut cmd: assert_cmd::Command) -> std::process::Output {
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_over_a_responses_websocket_chains_its_calls_on_one_socket() {
    let (base_url, log) = serve().await;
    let fx = Fixture::new();
    let mut add = fx.cmd();
    add.args(["connections", "add", "ws", "--format", "openai-responses"])
        .args([
            "--model",
            MODEL,
            "--base-url",
            &base_url,
            "--api-key-env",
            KEY_ENV,
        ]);
    let added = run_cmd(add).await;
    assert!(added.status.success(), "{added:?}");
    let mut show = fx.cmd();
    show.args(["connections", "show", "ws"]);
    let shown = String::from_utf8(run_cmd(show).await.stdout).unwrap();
    assert!(
        shown.contains("transport:     websocket (one socket per invocation)"),
        "{shown}"
    );

    let mut run = fx.cmd();
    run.env(KEY_ENV, KEY)
        .args(["run", "--chat", CHAT, "--connection", "ws", "--json"]);
    let output = run_cmd(run).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(fx.chat_text().contains("Room three"));
    let run_id = run_id_of(&output.stderr);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        fx.events_jsonl(&run_id),
        "--json prints exactly the journal"
    );

    let events: Vec<Value> = fx
        .events_jsonl(&run_id)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let states: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "provider_state_updated")
        .map(|e| &e["payload"]["providerState"])
        .collect();
    assert_eq!(states.len(), 3);
    for (index, state) in states.iter().enumerate() {
        assert_eq!(state["transport"], "responses_websocket", "{state}");
        assert_eq!(
            state["previousResponseId"],
            json!(format!("resp_{}", index + 1))
        );
    }

    let log = log.lock().unwrap();
    assert_eq!(
        log.authorizations,
        [Some(format!("Bearer {KEY}"))],
        "one socket, the key on its upgrade"
    );
    assert_eq!(log.creates.len(), 3);
    let (_, first) = &log.creates[0];
    assert_eq!(first["type"], "response.create");
    assert!(first.get("previous_response_id").is_none());
    assert!(first.get("stream").is_none());
    assert_eq!(first["store"], json!(false));
    for (index, (connection, sent)) in log.creates.iter().enumerate().skip(1) {
        assert_eq!(*connection, 0, "the same socket");
        assert_eq!(sent["previous_response_id"], json!(format!("resp_{index}")));
        let input = sent["input"].as_array().unwrap();
        assert_eq!(input.len(), 1, "only the new result: {input:?}");
        assert_eq!(input[0]["type"], "function_call_output");
    }

    let leaks = files_containing(fx.path(), KEY);
    assert!(leaks.is_empty(), "the key leaked into {leaks:?}");
    assert!(!String::from_utf8_lossy(&output.stdout).contains(KEY));
    assert!(!stderr.contains(KEY));
}
