//! Streamed calls against a mock provider, per format: the assembled response equals the
//! whole response the same content decodes to (recorded-style fixtures in each format's
//! documented event shapes, tool names replaced by the default writer's aliases), deltas
//! arrive in order, every stream fault is classified, and the streamed request bodies are
//! pinned.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::Duration;

use agent_application::ports::{
    ModelDelta, ModelError, ModelErrorKind, ModelGateway, ModelStreamItem,
};
use agent_domain::ErrorCode;
use agent_domain::connection::ChatDialect;
use agent_domain::model::AgentModelResponse;
use agent_gateway::http::HttpTimeouts;
use agent_gateway::{HttpConnection, HttpModelGateway};
use futures::StreamExt;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::{CHAT_PATH, MESSAGES_PATH, answer_once_at, call, opening, sent_bodies};
use tokio::io::AsyncWriteExt;
use wiremock::{MockServer, ResponseTemplate};

const MODEL: &str = "m-test";
const RESPONSES_PATH: &str = "/v1/responses";
const GEMINI_PATH: &str = "/v1beta/models/m-test:generateContent";
const GEMINI_STREAM_PATH: &str = "/v1beta/models/m-test:streamGenerateContent";

/// One way to reach a mock provider in one format.
#[derive(Clone, Copy)]
struct Format {
    connect: fn(&str) -> HttpConnection,
    whole_path: &'static str,
    stream_path: &'static str,
    /// Whether SSE events carry an `event:` line naming their type (Anthropic's do).
    named_events: bool,
}

const CHAT: Format = Format {
    connect: |uri| HttpConnection::openai_chat(format!("{uri}/v1"), MODEL, ChatDialect::Deepseek),
    whole_path: CHAT_PATH,
    stream_path: CHAT_PATH,
    named_events: false,
};
const RESPONSES: Format = Format {
    connect: |uri| HttpConnection::openai_responses(format!("{uri}/v1"), MODEL),
    whole_path: RESPONSES_PATH,
    stream_path: RESPONSES_PATH,
    named_events: false,
};
const ANTHROPIC: Format = Format {
    connect: |uri| HttpConnection::anthropic(uri, MODEL),
    whole_path: MESSAGES_PATH,
    stream_path: MESSAGES_PATH,
    named_events: true,
};
const GEMINI: Format = Format {
    connect: |uri| HttpConnection::gemini(uri, MODEL),
    whole_path: GEMINI_PATH,
    stream_path: GEMINI_STREAM_PATH,
    named_events: false,
};

/// Event data as an SSE body.
fn sse(format: Format, events: &[Value]) -> String {
    let mut body = String::new();
    for event in events {
        if format.named_events {
            body.push_str(&format!("event: {}\n", event["type"].as_str().unwrap()));
        }
        body.push_str(&format!("data: {event}\n\n"));
    }
    body
}

fn event_stream(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
}

/// Everything a streamed call yields: the deltas, then the end.
async fn stream_once(
    gateway: &HttpModelGateway,
) -> (Vec<ModelDelta>, Result<AgentModelResponse, ModelError>) {
    let mut deltas = Vec::new();
    let mut items = gateway.stream(call(opening(), 1));
    while let Some(item) = items.next().await {
        match item {
            Ok(ModelStreamItem::Delta(delta)) => deltas.push(delta),
            Ok(ModelStreamItem::Completed(response)) => {
                assert!(items.next().await.is_none(), "nothing after the response");
                return (deltas, Ok(response));
            }
            Err(error) => {
                assert!(items.next().await.is_none(), "nothing after an error");
                return (deltas, Err(error));
            }
        }
    }
    panic!("the stream ended without a response or an error");
}

/// Streams `body` from a fresh mock provider; returns what the call yielded and the request
/// body it sent.
async fn streamed(
    format: Format,
    body: String,
) -> (
    Vec<ModelDelta>,
    Result<AgentModelResponse, ModelError>,
    Value,
) {
    let server = MockServer::start().await;
    answer_once_at(&server, format.stream_path, event_stream(body)).await;
    let gateway = HttpModelGateway::new((format.connect)(&server.uri()).streaming(true)).unwrap();
    let (deltas, result) = stream_once(&gateway).await;
    let sent = sent_bodies(&server).await.remove(0);
    (deltas, result, sent)
}

/// The response the same content decodes to when answered whole.
async fn whole(format: Format, body: Value) -> AgentModelResponse {
    let server = MockServer::start().await;
    answer_once_at(
        &server,
        format.whole_path,
        ResponseTemplate::new(200).set_body_json(body),
    )
    .await;
    let gateway = HttpModelGateway::new((format.connect)(&server.uri())).unwrap();
    gateway.generate(call(opening(), 1)).await.unwrap()
}

/// Asserts streamed == whole and returns the streamed deltas and request body.
async fn assert_same(format: Format, events: String, body: Value) -> (Vec<ModelDelta>, Value) {
    let (deltas, streamed, sent) = streamed(format, events).await;
    let streamed = streamed.unwrap();
    assert_eq!(streamed, whole(format, body).await);
    (deltas, sent)
}

fn text_of(deltas: &[ModelDelta], reasoning: bool) -> String {
    deltas
        .iter()
        .filter_map(|d| match d {
            ModelDelta::Text(t) if !reasoning => Some(t.as_str()),
            ModelDelta::Reasoning(t) if reasoning => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// The argument text of call `index`, and whether it was started and finished.
fn call_of(deltas: &[ModelDelta], index: usize) -> (String, bool, bool) {
    let mut arguments = String::new();
    let (mut started, mut finished) = (false, false);
    for delta in deltas {
        match delta {
            ModelDelta::ToolCallStarted { index: i, .. } if *i == index => started = true,
            ModelDelta::ToolCallArguments { index: i, fragment } if *i == index => {
                arguments.push_str(fragment)
            }
            ModelDelta::ToolCallFinished { index: i } if *i == index => finished = true,
            _ => {}
        }
    }
    (arguments, started, finished)
}

// ---------------------------------------------------------------------------------------
// Chat Completions

fn chat_chunk(delta: Value, finish: Value) -> Value {
    json!({"id": "chatcmpl-S1", "object": "chat.completion.chunk", "created": 1, "model": MODEL,
           "system_fingerprint": "fp_1",
           "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
           "usage": null, "obfuscation": "pad"})
}

fn chat_events() -> Vec<Value> {
    vec![
        chat_chunk(
            json!({"role": "assistant", "content": null, "reasoning_content": "Read "}),
            Value::Null,
        ),
        chat_chunk(json!({"reasoning_content": "first."}), Value::Null),
        chat_chunk(json!({"content": "Let me "}), Value::Null),
        chat_chunk(json!({"content": "look."}), Value::Null),
        chat_chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_s1", "type": "function",
            "function": {"name": "workspace_read_file", "arguments": ""}}]}),
            Value::Null,
        ),
        chat_chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"path\":"}}]}),
            Value::Null,
        ),
        chat_chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"output/a.md\"}"}}]}),
            Value::Null,
        ),
        chat_chunk(
            json!({"tool_calls": [{"index": 1, "id": "call_s2", "type": "function",
            "function": {"name": "workspace_list_files", "arguments": "{}"}}]}),
            Value::Null,
        ),
        chat_chunk(json!({}), json!("tool_calls")),
        json!({"id": "chatcmpl-S1", "object": "chat.completion.chunk", "created": 1, "model": MODEL,
               "choices": [], "usage": {"prompt_tokens": 82, "completion_tokens": 46, "total_tokens": 128,
               "prompt_tokens_details": {"cached_tokens": 10},
               "completion_tokens_details": {"reasoning_tokens": 5}}}),
    ]
}

fn chat_sse(events: &[Value]) -> String {
    sse(CHAT, events) + "data: [DONE]\n\n"
}

#[tokio::test]
async fn chat_streamed_equals_whole() {
    let whole_body = json!({
        "id": "chatcmpl-S1", "object": "chat.completion", "created": 1, "model": MODEL,
        "system_fingerprint": "fp_1",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "Let me look.", "reasoning_content": "Read first.",
            "tool_calls": [
                {"id": "call_s1", "type": "function", "function": {"name": "workspace_read_file", "arguments": "{\"path\":\"output/a.md\"}"}},
                {"id": "call_s2", "type": "function", "function": {"name": "workspace_list_files", "arguments": "{}"}}
            ]}}],
        "usage": {"prompt_tokens": 82, "completion_tokens": 46, "total_tokens": 128,
                  "prompt_tokens_details": {"cached_tokens": 10},
                  "completion_tokens_details": {"reasoning_tokens": 5}}
    });
    let (deltas, sent) = assert_same(CHAT, chat_sse(&chat_events()), whole_body).await;
    assert_eq!(text_of(&deltas, false), "Let me look.");
    assert_eq!(text_of(&deltas, true), "Read first.");
    assert_eq!(
        call_of(&deltas, 0),
        ("{\"path\":\"output/a.md\"}".into(), true, true)
    );
    assert_eq!(call_of(&deltas, 1), ("{}".into(), true, true));
    assert!(
        deltas
            .iter()
            .any(|d| matches!(d, ModelDelta::Usage(u) if u.input_tokens == 82))
    );
    assert_eq!(sent["stream"], json!(true));
    assert_eq!(sent["stream_options"], json!({"include_usage": true}));
    insta::assert_json_snapshot!("chat_stream_request", support::with_tool_names(&sent));
}

#[tokio::test]
async fn chat_without_done_is_an_interrupted_stream() {
    let events = chat_events();
    let (deltas, result, _) = streamed(CHAT, sse(CHAT, &events)).await;
    let error = result.unwrap_err();
    assert_eq!(error.code(), "model.stream_interrupted");
    assert!(error.is_retryable());
    assert_eq!(
        text_of(&deltas, false),
        "Let me look.",
        "deltas went out live"
    );
}

#[tokio::test]
async fn malformed_event_data_is_an_invalid_response() {
    let body = sse(CHAT, &chat_events()[..2]) + "data: {\"choices\": [\n\n" + "data: [DONE]\n\n";
    let (_, result, _) = streamed(CHAT, body).await;
    let error = result.unwrap_err();
    assert_eq!(error.code(), "model.upstream_invalid_response");
    assert_eq!(error.kind, ModelErrorKind::Transient);
}

#[tokio::test]
async fn an_error_chunk_is_classified_like_http() {
    let body = sse(CHAT, &chat_events()[..3])
        + "data: {\"error\": {\"message\": \"Rate limit reached\", \"type\": \"requests\", \"code\": \"rate_limit_exceeded\"}}\n\n";
    let (_, result, _) = streamed(CHAT, body).await;
    let error = result.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::RateLimited);
    assert!(
        error.message.contains("error event in the stream"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn an_http_error_on_a_streamed_request_is_classified_as_before() {
    let server = MockServer::start().await;
    answer_once_at(
        &server,
        CHAT_PATH,
        ResponseTemplate::new(429).set_body_json(
            json!({"error": {"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"}}),
        ),
    )
    .await;
    let gateway = HttpModelGateway::new((CHAT.connect)(&server.uri()).streaming(true)).unwrap();
    let (deltas, result) = stream_once(&gateway).await;
    assert!(deltas.is_empty());
    let error = result.unwrap_err();
    assert_eq!(
        (error.kind, error.status),
        (ModelErrorKind::RateLimited, Some(429))
    );
}

#[tokio::test]
async fn a_server_that_answers_whole_is_read_whole() {
    let body = json!({"id": "c1", "object": "chat.completion", "model": MODEL,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "Done."}}]});
    let server = MockServer::start().await;
    answer_once_at(
        &server,
        CHAT_PATH,
        ResponseTemplate::new(200).set_body_json(body.clone()),
    )
    .await;
    let gateway = HttpModelGateway::new((CHAT.connect)(&server.uri()).streaming(true)).unwrap();
    let (deltas, result) = stream_once(&gateway).await;
    assert!(deltas.is_empty());
    assert_eq!(result.unwrap(), whole(CHAT, body).await);
}

#[tokio::test]
async fn a_connection_with_streaming_off_answers_whole() {
    let server = MockServer::start().await;
    answer_once_at(
        &server,
        CHAT_PATH,
        ResponseTemplate::new(200).set_body_json(json!({"id": "c1", "model": MODEL,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "Done."}}]})),
    )
    .await;
    let gateway = HttpModelGateway::new((CHAT.connect)(&server.uri())).unwrap();
    assert!(!gateway.streams());
    let (deltas, result) = stream_once(&gateway).await;
    assert!(deltas.is_empty());
    assert_eq!(result.unwrap().message.text(), "Done.");
    assert_eq!(sent_bodies(&server).await[0]["stream"], json!(false));
}

/// A provider that sends its headers and one event, then goes quiet: the gap is longer
/// than the connection's timeout, so the call fails as a timeout (retried), even though a
/// whole-call timeout would not apply to a stream.
#[tokio::test]
async fn an_idle_gap_past_the_timeout_is_a_timeout() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = vec![0_u8; 65_536];
        let _ = tokio::io::AsyncReadExt::read(&mut socket, &mut request).await;
        let event = format!("data: {}\n\n", chat_events()[2]);
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                    transfer-encoding: chunked\r\n\r\n";
        socket.write_all(head.as_bytes()).await.unwrap();
        let chunk = format!("{:x}\r\n{event}\r\n", event.len());
        socket.write_all(chunk.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_secs(5)).await;
    });
    let timeouts = HttpTimeouts {
        connect: Duration::from_secs(5),
        request: Duration::from_millis(300),
    };
    let connection = (CHAT.connect)(&format!("http://{address}")).streaming(true);
    let gateway = HttpModelGateway::with_timeouts(connection, timeouts).unwrap();
    let (deltas, result) = stream_once(&gateway).await;
    assert_eq!(text_of(&deltas, false), "Let me ");
    let error = result.unwrap_err();
    assert_eq!(error.code(), "model.timeout");
    assert!(error.is_retryable());
    server.abort();
}

// ---------------------------------------------------------------------------------------
// OpenAI Responses

fn responses_items() -> Vec<Value> {
    vec![
        json!({"id": "rs_S1", "type": "reasoning", "encrypted_content": "gAAAAfinalCopy",
               "summary": [{"type": "summary_text", "text": "**Plan** it."}]}),
        json!({"id": "msg_S1", "type": "message", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": "Reading.", "annotations": []}]}),
        json!({"id": "fc_S1", "type": "function_call", "status": "completed",
               "arguments": "{\"path\":\"output/a.md\"}", "call_id": "call_S1",
               "name": "workspace_read_file"}),
    ]
}

fn responses_response(output: Vec<Value>) -> Value {
    json!({"id": "resp_S1", "object": "response", "status": "completed", "model": MODEL,
           "output": output,
           "usage": {"input_tokens": 512, "input_tokens_details": {"cached_tokens": 0},
                     "output_tokens": 90, "output_tokens_details": {"reasoning_tokens": 64},
                     "total_tokens": 602}})
}

fn responses_events(completed_output: Vec<Value>) -> Vec<Value> {
    let items = responses_items();
    vec![
        json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_S1", "status": "in_progress", "output": []}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": "rs_S1", "type": "reasoning", "encrypted_content": "gAAAAearlyPartial", "summary": []}}),
        json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 0, "delta": "**Plan**"}),
        json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 0, "delta": " it."}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": items[0]}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": {"id": "msg_S1", "type": "message", "role": "assistant", "content": []}}),
        json!({"type": "response.output_text.delta", "output_index": 1, "content_index": 0, "delta": "Read"}),
        json!({"type": "response.output_text.delta", "output_index": 1, "content_index": 0, "delta": "ing."}),
        json!({"type": "response.output_item.done", "output_index": 1, "item": items[1]}),
        json!({"type": "response.output_item.added", "output_index": 2, "item": {"id": "fc_S1", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_S1", "name": "workspace_read_file"}}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 2, "delta": "{\"path\":"}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 2, "delta": "\"output/a.md\"}"}),
        json!({"type": "response.output_item.done", "output_index": 2, "item": items[2]}),
        json!({"type": "response.completed", "response": responses_response(completed_output)}),
    ]
}

#[tokio::test]
async fn responses_streamed_equals_whole() {
    let body = responses_response(responses_items());
    let events = sse(RESPONSES, &responses_events(responses_items()));
    let (deltas, sent) = assert_same(RESPONSES, events, body.clone()).await;
    assert_eq!(text_of(&deltas, false), "Reading.");
    assert_eq!(text_of(&deltas, true), "**Plan** it.");
    assert_eq!(
        call_of(&deltas, 0),
        ("{\"path\":\"output/a.md\"}".into(), true, true)
    );
    assert_eq!(sent["stream"], json!(true));
    insta::assert_json_snapshot!(
        "responses_stream_request",
        support::with_responses_tool_names(&sent)
    );

    // A terminal event with its output trimmed: the finished items fill it.
    let trimmed = sse(RESPONSES, &responses_events(Vec::new()));
    assert_same(RESPONSES, trimmed, body).await;
}

#[tokio::test]
async fn responses_error_and_failed_events_are_classified() {
    let mut events = responses_events(responses_items());
    events.truncate(3);
    events.push(json!({"type": "error", "sequence_number": 2, "error": {"type": "insufficient_quota", "code": "insufficient_quota", "message": "You exceeded your current quota.", "param": null}}));
    let (_, result, _) = streamed(RESPONSES, sse(RESPONSES, &events)).await;
    let error = result.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Quota);
    assert!(!error.is_retryable());

    let mut events = responses_events(responses_items());
    events.truncate(3);
    events.push(
        json!({"type": "response.failed", "response": {"id": "resp_S1", "status": "failed",
        "error": {"code": "server_is_overloaded", "message": "busy"}, "output": []}}),
    );
    let (_, result, _) = streamed(RESPONSES, sse(RESPONSES, &events)).await;
    assert_eq!(result.unwrap_err().kind, ModelErrorKind::Overloaded);

    let mut events = responses_events(responses_items());
    events.pop();
    let (_, result, _) = streamed(RESPONSES, sse(RESPONSES, &events)).await;
    assert_eq!(result.unwrap_err().code(), "model.stream_interrupted");
}

// ---------------------------------------------------------------------------------------
// Anthropic

fn anthropic_events() -> Vec<Value> {
    vec![
        json!({"type": "message_start", "message": {"model": MODEL, "id": "msg_S1", "type": "message", "role": "assistant", "content": [], "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 69, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 7, "output_tokens": 2}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        json!({"type": "ping"}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Need the "}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "file."}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EvQBsig"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Let me "}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "check."}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_S1", "name": "workspace_read_file", "input": {}}}),
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": ""}}),
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"out"}}),
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "put/a.md\"}"}}),
        json!({"type": "content_block_stop", "index": 2}),
        json!({"type": "content_block_start", "index": 3, "content_block": {"type": "tool_use", "id": "toolu_S2", "name": "workspace_list_files", "input": {}}}),
        json!({"type": "content_block_stop", "index": 3}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"input_tokens": 70, "output_tokens": 74}}),
        json!({"type": "message_stop"}),
    ]
}

#[tokio::test]
async fn anthropic_streamed_equals_whole() {
    let body = json!({"model": MODEL, "id": "msg_S1", "type": "message", "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Need the file.", "signature": "EvQBsig"},
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "toolu_S1", "name": "workspace_read_file", "input": {"path": "output/a.md"}},
            {"type": "tool_use", "id": "toolu_S2", "name": "workspace_list_files", "input": {}}
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 70, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 7, "output_tokens": 74}});
    let (deltas, sent) = assert_same(ANTHROPIC, sse(ANTHROPIC, &anthropic_events()), body).await;
    assert_eq!(text_of(&deltas, false), "Let me check.");
    assert_eq!(text_of(&deltas, true), "Need the file.");
    assert_eq!(
        call_of(&deltas, 0),
        ("{\"path\": \"output/a.md\"}".into(), true, true)
    );
    assert_eq!(call_of(&deltas, 1), (String::new(), true, true));
    assert_eq!(sent["stream"], json!(true));
    insta::assert_json_snapshot!(
        "anthropic_stream_request",
        support::with_anthropic_tool_names(&sent)
    );
}

#[tokio::test]
async fn anthropic_faults_are_classified() {
    let mut events = anthropic_events();
    events.truncate(9);
    events.push(
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    );
    let (deltas, result, _) = streamed(ANTHROPIC, sse(ANTHROPIC, &events)).await;
    let error = result.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Overloaded);
    assert!(error.is_retryable());
    assert_eq!(text_of(&deltas, false), "Let me ");

    let mut events = anthropic_events();
    events.pop();
    let (_, result, _) = streamed(ANTHROPIC, sse(ANTHROPIC, &events)).await;
    assert_eq!(result.unwrap_err().code(), "model.stream_interrupted");

    let mut events = anthropic_events();
    events[14] = json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "put/a.md"}});
    let (_, result, _) = streamed(ANTHROPIC, sse(ANTHROPIC, &events)).await;
    assert_eq!(
        result.unwrap_err().code(),
        "model.upstream_invalid_response"
    );
}

// ---------------------------------------------------------------------------------------
// Gemini

fn gemini_chunk(parts: Value, finish: Option<&str>, output_tokens: u64) -> Value {
    let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    if let Some(finish) = finish {
        candidate["finishReason"] = json!(finish);
    }
    json!({"candidates": [candidate],
           "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": output_tokens,
                             "totalTokenCount": 9 + output_tokens, "thoughtsTokenCount": 4},
           "modelVersion": MODEL, "responseId": "G-S1"})
}

fn gemini_events() -> Vec<Value> {
    vec![
        gemini_chunk(json!([{"text": "Plan ", "thought": true}]), None, 1),
        gemini_chunk(json!([{"text": "more.", "thought": true}]), None, 2),
        gemini_chunk(json!([{"text": "There are **3** "}]), None, 3),
        gemini_chunk(json!([{"text": "files."}]), None, 4),
        gemini_chunk(
            json!([{"text": "", "thoughtSignature": "Eo0Hsig1"}]),
            None,
            5,
        ),
        gemini_chunk(
            json!([{"functionCall": {"id": "fc1", "name": "workspace_read_file", "args": {"path": "output/a.md"}}, "thoughtSignature": "sig2"},
                   {"functionCall": {"id": "fc2", "name": "workspace_list_files", "args": {}}}]),
            Some("STOP"),
            29,
        ),
    ]
}

#[tokio::test]
async fn gemini_streamed_equals_whole() {
    let body = gemini_chunk(
        json!([
            {"text": "Plan more.", "thought": true},
            {"text": "There are **3** files.", "thoughtSignature": "Eo0Hsig1"},
            {"functionCall": {"id": "fc1", "name": "workspace_read_file", "args": {"path": "output/a.md"}}, "thoughtSignature": "sig2"},
            {"functionCall": {"id": "fc2", "name": "workspace_list_files", "args": {}}}
        ]),
        Some("STOP"),
        29,
    );
    let (deltas, sent) = assert_same(GEMINI, sse(GEMINI, &gemini_events()), body).await;
    assert_eq!(text_of(&deltas, false), "There are **3** files.");
    assert_eq!(text_of(&deltas, true), "Plan more.");
    assert_eq!(
        call_of(&deltas, 0),
        ("{\"path\":\"output/a.md\"}".into(), true, true)
    );
    assert_eq!(call_of(&deltas, 1), ("{}".into(), true, true));
    assert!(sent.get("stream").is_none(), "Gemini streams by endpoint");
    insta::assert_json_snapshot!(
        "gemini_stream_request",
        support::with_gemini_tool_names(&sent)
    );
}

#[tokio::test]
async fn gemini_streams_at_its_own_endpoint_with_alt_sse() {
    let server = MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::path(GEMINI_STREAM_PATH))
        .and(wiremock::matchers::query_param("alt", "sse"))
        .respond_with(event_stream(sse(GEMINI, &gemini_events())))
        .mount(&server)
        .await;
    let gateway = HttpModelGateway::new((GEMINI.connect)(&server.uri()).streaming(true)).unwrap();
    let (_, result) = stream_once(&gateway).await;
    assert!(result.is_ok(), "{result:?}");
}

#[tokio::test]
async fn gemini_faults_are_classified() {
    let mut events = gemini_events();
    events.pop();
    let (deltas, result, _) = streamed(GEMINI, sse(GEMINI, &events)).await;
    assert_eq!(result.unwrap_err().code(), "model.stream_interrupted");
    assert_eq!(text_of(&deltas, false), "There are **3** files.");

    let mut events = gemini_events();
    events.truncate(2);
    events.push(json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}));
    let (_, result, _) = streamed(GEMINI, sse(GEMINI, &events)).await;
    assert_eq!(result.unwrap_err().kind, ModelErrorKind::Overloaded);
}

// ---------------------------------------------------------------------------------------
// Gemini Interactions: answered whole, documented fallback

#[tokio::test]
async fn gemini_interactions_answers_whole_even_when_streaming_is_on() {
    let connection =
        HttpConnection::gemini_interactions("http://localhost:1", MODEL).streaming(true);
    assert!(!HttpModelGateway::new(connection).unwrap().streams());
}
