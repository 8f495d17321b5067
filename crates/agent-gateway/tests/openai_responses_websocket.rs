//! OpenAI Responses over WebSocket against a local tokio-tungstenite server: chained turns
//! on one socket with incremental input, a dropped socket replaced with a full replay, the
//! 60-minute cap, error frames classified like HTTP errors. Every `response.create` the
//! server reads is checked against the Responses transcript invariants (a chained one
//! carries only new items and is not) and pinned.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// The handshake callbacks return tungstenite's own `Result<Response, ErrorResponse>`.
#![allow(clippy::result_large_err)]

mod support;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use agent_application::ports::{ModelDelta, ModelErrorKind, ModelGateway, ModelStreamItem};
use agent_domain::connection::ConnectionTransport;
use agent_domain::model::{AgentModelMessage, AgentModelResponse, ProviderState};
use agent_domain::tool::AgentToolResult;
use agent_gateway::{HttpConnection, HttpModelGateway};
use futures::{SinkExt, StreamExt};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::*;
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};

const KEY: &str = "sk-proj-ws-Vb37distinctive";

/// What the server does with one `response.create`.
enum Reply {
    /// Sends these events.
    Events(Vec<Value>),
    /// Sends these events, then closes the socket without a closing handshake (a reset).
    Cut(Vec<Value>),
}

/// Closes the socket without answering.
fn dropped() -> Reply {
    Reply::Cut(Vec::new())
}

/// One `response.create` the server read: on which connection (0 = the first accepted),
/// its body, and the `Authorization` header of that connection's upgrade.
#[derive(Debug, Clone)]
struct Received {
    connection: usize,
    body: Value,
    authorization: Option<String>,
}

/// A local Responses WebSocket server playing `replies` in order, across connections.
struct Server {
    base_url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Server {
    async fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("ws://{}/v1", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
        let log = Arc::clone(&received);
        tokio::spawn(async move {
            let mut connection = 0;
            while let Ok((tcp, _)) = listener.accept().await {
                let authorization = Arc::new(Mutex::new(None));
                let seen = Arc::clone(&authorization);
                let callback = move |request: &Request, response: Response| {
                    assert_eq!(request.uri().path(), "/v1/responses");
                    *seen.lock().unwrap() = request
                        .headers()
                        .get("authorization")
                        .map(|v| v.to_str().unwrap().to_owned());
                    Ok(response)
                };
                let mut socket = tokio_tungstenite::accept_hdr_async(tcp, callback)
                    .await
                    .unwrap();
                let authorization = authorization.lock().unwrap().clone();
                while let Some(Ok(message)) = socket.next().await {
                    let Message::Text(text) = message else {
                        continue;
                    };
                    let body: Value = serde_json::from_str(text.as_str()).unwrap();
                    log.lock().unwrap().push(Received {
                        connection,
                        body: body.clone(),
                        authorization: authorization.clone(),
                    });
                    let reply = replies.lock().unwrap().pop_front();
                    let (events, cut) = match (check(&body), reply) {
                        (Err(violation), _) => (
                            vec![json!({
                                "type": "error", "status": 400,
                                "error": {"type": "invalid_request_error",
                                          "message": format!("transcript invariant: {violation}")}
                            })],
                            false,
                        ),
                        (Ok(()), Some(Reply::Events(events))) => (events, false),
                        (Ok(()), Some(Reply::Cut(events))) => (events, true),
                        (Ok(()), None) => (Vec::new(), true),
                    };
                    for event in events {
                        socket.send(Message::text(event.to_string())).await.unwrap();
                    }
                    if cut {
                        break;
                    }
                }
                connection += 1;
            }
        });
        Self { base_url, received }
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    fn gateway(&self) -> HttpModelGateway {
        let connection =
            HttpConnection::openai_responses(&self.base_url, "gpt-test").with_api_key(KEY);
        assert_eq!(connection.transport, ConnectionTransport::Websocket);
        HttpModelGateway::new(connection).unwrap()
    }
}

/// A `response.create` must be one: the Responses body plus its type, never `stream` or
/// `background`; then the transcript rules (a chained request carries only new items).
fn check(body: &Value) -> Result<(), String> {
    if body["type"] != json!("response.create") {
        return Err(format!("not a response.create: {}", body["type"]));
    }
    if body.get("stream").is_some() || body.get("background").is_some() {
        return Err("stream or background on a socket".into());
    }
    check_outbound("/v1/responses", body)
}

/// The events of a response `id` writing `output` (messages stream their text).
fn answer(id: &str, output: Vec<Value>) -> Reply {
    let mut events = vec![
        json!({"type": "response.created", "response": {"id": id, "status": "in_progress", "output": []}}),
    ];
    for (index, item) in output.iter().enumerate() {
        events.push(
            json!({"type": "response.output_item.added", "output_index": index, "item": item}),
        );
        if item["type"] == json!("message") {
            let text = item["content"][0]["text"].as_str().unwrap();
            for piece in text.split_inclusive(' ') {
                events.push(json!({"type": "response.output_text.delta", "output_index": index, "delta": piece}));
            }
        }
        events.push(
            json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        );
    }
    events.push(json!({"type": "response.completed", "response": {
        "id": id, "object": "response", "status": "completed", "model": "gpt-test",
        "output": output,
        "usage": {"input_tokens": 20, "output_tokens": 5, "total_tokens": 25}
    }}));
    Reply::Events(events)
}

fn read_call(call_id: &str) -> Value {
    json!({"type": "function_call", "id": format!("fc_{call_id}"), "call_id": call_id,
           "name": "workspace_read_file", "arguments": "{\"path\":\"output/main.md\"}",
           "status": "completed"})
}

fn text(id: &str, text: &str) -> Value {
    json!({"type": "message", "id": id, "role": "assistant", "status": "completed",
           "content": [{"type": "output_text", "text": text, "annotations": []}]})
}

/// One streamed call: its text deltas and its response or error.
async fn stream(
    gateway: &HttpModelGateway,
    messages: &[AgentModelMessage],
    round: u32,
    state: Option<&ProviderState>,
) -> (
    String,
    Result<AgentModelResponse, agent_application::ports::ModelError>,
) {
    let mut call = call(messages.to_vec(), round);
    if let Some(state) = state {
        call.request.provider_state = state.clone();
    }
    let mut items = gateway.stream(call);
    let mut live = String::new();
    while let Some(item) = items.next().await {
        match item {
            Ok(ModelStreamItem::Delta(ModelDelta::Text(piece))) => live.push_str(&piece),
            Ok(ModelStreamItem::Delta(_)) => {}
            Ok(ModelStreamItem::Completed(response)) => return (live, Ok(response)),
            Err(e) => return (live, Err(e)),
        }
    }
    panic!("the stream ended without a response")
}

/// The first round's transcript after its tool call was answered.
fn after_call(response: &AgentModelResponse) -> Vec<AgentModelMessage> {
    let mut messages = opening();
    messages.push(response.message.clone());
    messages.push(AgentModelMessage::tool_result(AgentToolResult::success(
        response.tool_calls()[0],
        "It was a dark night.",
        Value::Null,
    )));
    messages
}

#[tokio::test]
async fn chained_turns_share_one_socket_and_send_only_new_input() {
    let server = Server::start(vec![
        answer("resp_w1", vec![read_call("call_w1")]),
        answer("resp_w2", vec![text("msg_w2", "The night was dark.")]),
        answer("resp_w3", vec![text("msg_w3", "Longer now.")]),
    ])
    .await;
    let gateway = server.gateway();

    let (_, first) = stream(&gateway, &opening(), 1, None).await;
    let first = first.unwrap();
    let state1 = first.provider_state.clone().unwrap();
    assert_eq!(state1.transport(), Some("responses_websocket"));
    assert_eq!(state1.previous_response_id(), Some("resp_w1"));
    let mut messages = after_call(&first);

    let (live, second) = stream(&gateway, &messages, 2, Some(&state1)).await;
    let second = second.unwrap();
    assert_eq!(live, "The night was dark.", "deltas arrive live");
    assert_eq!(second.text(), live, "and equal the assembled text");
    let state2 = second.provider_state.clone().unwrap();
    assert_eq!(state2.previous_response_id(), Some("resp_w2"));
    assert_eq!(state2.message_cursor(), Some(messages.len() as u64));
    messages.push(second.message.clone());
    messages.push(AgentModelMessage::user("Make it longer."));

    let third = gateway.generate({
        let mut third = call(messages, 3);
        third.request.provider_state = state2;
        third
    });
    assert_eq!(third.await.unwrap().text(), "Longer now.");

    let received = server.received();
    assert_eq!(received.len(), 3);
    for (round, got) in received.iter().enumerate() {
        assert_eq!(got.connection, 0, "round {}: one socket", round + 1);
        assert_eq!(
            got.authorization.as_deref(),
            Some(&*format!("Bearer {KEY}"))
        );
        assert_eq!(got.body["store"], json!(false));
        assert_eq!(got.body["instructions"], json!("You are a writer."));
        insta::assert_json_snapshot!(
            format!("responses_websocket_request_{}", round + 1),
            with_responses_tool_names(&got.body)
        );
    }
    assert!(received[0].body.get("previous_response_id").is_none());
    assert_eq!(received[1].body["previous_response_id"], json!("resp_w1"));
    assert_eq!(
        received[1].body["input"],
        json!([{"type": "function_call_output", "call_id": "call_w1", "output": "It was a dark night."}])
    );
    assert_eq!(received[2].body["previous_response_id"], json!("resp_w2"));
    assert_eq!(
        received[2].body["input"],
        json!([{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Make it longer."}]}])
    );
}

/// The replay after a lost socket carries the whole transcript and no predecessor.
fn assert_full_replay(body: &Value, messages: &[AgentModelMessage]) {
    assert!(body.get("previous_response_id").is_none(), "{body}");
    check_responses_transcript(body).unwrap();
    let input = body["input"].as_array().unwrap();
    assert_eq!(
        input.len(),
        messages.len() - 1,
        "every message but the system one"
    );
    assert_eq!(input[1]["call_id"], json!("call_w1"));
}

#[tokio::test]
async fn a_dropped_socket_reconnects_once_and_replays_the_full_input() {
    let server = Server::start(vec![
        answer("resp_w1", vec![read_call("call_w1")]),
        dropped(),
        answer("resp_w2", vec![text("msg_w2", "Back again.")]),
    ])
    .await;
    let gateway = server.gateway();
    let (_, first) = stream(&gateway, &opening(), 1, None).await;
    let first = first.unwrap();
    let messages = after_call(&first);
    let (_, second) = stream(&gateway, &messages, 2, first.provider_state.as_ref()).await;
    let second = second.unwrap();
    assert_eq!(second.text(), "Back again.");
    assert_eq!(
        second.provider_state.unwrap().previous_response_id(),
        Some("resp_w2"),
        "the new socket chains on from here"
    );

    let received = server.received();
    let connections: Vec<usize> = received.iter().map(|r| r.connection).collect();
    assert_eq!(connections, [0, 0, 1]);
    assert_eq!(received[1].body["previous_response_id"], json!("resp_w1"));
    assert_full_replay(&received[2].body, &messages);
    insta::assert_json_snapshot!(
        "responses_websocket_replay",
        with_responses_tool_names(&received[2].body)
    );
}

#[tokio::test]
async fn an_ended_invocation_closes_its_socket() {
    let server = Server::start(vec![
        answer("resp_w1", vec![read_call("call_w1")]),
        answer("resp_w2", vec![text("msg_w2", "Another invocation.")]),
    ])
    .await;
    let gateway = server.gateway();
    let (_, first) = stream(&gateway, &opening(), 1, None).await;
    let first = first.unwrap();
    let ended = call(opening(), 1);
    gateway.end_invocation(&ended.run_id, &ended.invocation_id);
    let messages = after_call(&first);
    let (_, second) = stream(&gateway, &messages, 2, first.provider_state.as_ref()).await;
    assert_eq!(second.unwrap().text(), "Another invocation.");
    let received = server.received();
    let connections: Vec<usize> = received.iter().map(|r| r.connection).collect();
    assert_eq!(connections, [0, 1], "the ended invocation's socket is gone");
    assert_full_replay(&received[1].body, &messages);
}

#[tokio::test]
async fn the_connection_age_cap_is_met_with_a_new_socket() {
    let cap = json!({"type": "error", "status": 400, "error": {
        "type": "invalid_request_error", "code": "websocket_connection_limit_reached",
        "message": "Responses websocket connection limit reached (60 minutes). Create a new \
                    websocket connection to continue."}});
    let server = Server::start(vec![
        answer("resp_w1", vec![read_call("call_w1")]),
        Reply::Events(vec![cap]),
        answer("resp_w2", vec![text("msg_w2", "Fresh socket.")]),
    ])
    .await;
    let gateway = server.gateway();
    let (_, first) = stream(&gateway, &opening(), 1, None).await;
    let first = first.unwrap();
    let messages = after_call(&first);
    let (_, second) = stream(&gateway, &messages, 2, first.provider_state.as_ref()).await;
    assert_eq!(second.unwrap().text(), "Fresh socket.");
    let received = server.received();
    let connections: Vec<usize> = received.iter().map(|r| r.connection).collect();
    assert_eq!(connections, [0, 0, 1]);
    assert_full_replay(&received[2].body, &messages);
}

#[tokio::test]
async fn error_frames_are_classified_like_http_errors_and_close_the_socket() {
    let limited = json!({"type": "error", "status": 429,
        "error": {"type": "requests", "code": "rate_limit_exceeded",
                  "message": "Rate limit reached. Please try again in 2s."},
        "headers": {"retry-after-ms": "2000"}});
    let quota = json!({"type": "response.failed", "response": {"id": "resp_q", "status": "failed",
        "error": {"code": "insufficient_quota", "message": "You exceeded your current quota."}}});
    let server = Server::start(vec![
        Reply::Events(vec![limited]),
        Reply::Events(vec![quota]),
        answer("resp_ok", vec![text("msg_ok", "Fine.")]),
    ])
    .await;
    let gateway = server.gateway();

    let (_, limited) = stream(&gateway, &opening(), 1, None).await;
    let limited = limited.unwrap_err();
    assert_eq!(limited.kind, ModelErrorKind::RateLimited);
    assert_eq!(limited.code, "model.rate_limited");
    assert_eq!(limited.retry_after_ms, Some(2000));
    assert!(limited.is_retryable());

    let (_, quota) = stream(&gateway, &opening(), 1, None).await;
    let quota = quota.unwrap_err();
    assert_eq!(quota.kind, ModelErrorKind::Quota);
    assert!(!quota.is_retryable());

    let (_, ok) = stream(&gateway, &opening(), 1, None).await;
    assert_eq!(ok.unwrap().text(), "Fine.");
    let connections: Vec<usize> = server.received().iter().map(|r| r.connection).collect();
    assert_eq!(
        connections,
        [0, 1, 2],
        "a failed call leaves its socket behind"
    );
}

#[tokio::test]
async fn a_socket_lost_mid_answer_is_an_interrupted_stream() {
    let Reply::Events(mut partial) = answer("resp_p", vec![text("msg_p", "Half of it")]) else {
        unreachable!("answer sends events")
    };
    partial.truncate(3);
    let server = Server::start(vec![Reply::Cut(partial)]).await;
    let (live, result) = stream(&server.gateway(), &opening(), 1, None).await;
    let error = result.unwrap_err();
    assert_eq!(error.code, "model.stream_interrupted");
    assert!(error.is_retryable());
    assert_eq!(
        live, "Half ",
        "the partial output went out live, nothing more"
    );
}

#[tokio::test]
async fn a_refused_upgrade_is_classified_and_redacted() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let callback = |_: &Request, _: Response| {
            let body =
                format!(r#"{{"error":{{"code":"invalid_api_key","message":"bad key {KEY}"}}}}"#);
            Err(tokio_tungstenite::tungstenite::http::Response::builder()
                .status(401)
                .body(Some(body))
                .unwrap())
        };
        let _ = tokio_tungstenite::accept_hdr_async(tcp, callback).await;
    });
    let connection = HttpConnection::openai_responses(format!("http://{address}/v1"), "gpt-test")
        .with_api_key(KEY)
        .over(ConnectionTransport::Websocket);
    let gateway = HttpModelGateway::new(connection).unwrap();
    let (_, result) = stream(&gateway, &opening(), 1, None).await;
    let error = result.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Auth, "{error}");
    assert!(!error.to_string().contains("Vb37distinctive"), "{error}");
}

#[test]
fn only_responses_has_a_websocket_transport() {
    let anthropic = HttpConnection::anthropic("", "claude").over(ConnectionTransport::Websocket);
    let error = HttpModelGateway::new(anthropic).unwrap_err();
    assert_eq!(error.code, "model.format_unsupported");
}
