//! The Chat Completions gateway against a mock provider: recorded-style responses (in the
//! provider's documented shapes, with tool names replaced by the default writer's aliases),
//! every error class, reasoning replay per dialect, and a whole multi-round conversation whose
//! outbound bodies are pinned and checked for tool-call pairing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use agent_application::ports::{ModelError, ModelErrorKind, ModelGateway};
use agent_domain::ErrorCode;
use agent_domain::connection::ChatDialect;
use agent_domain::model::{AgentModelMessage, AgentModelResponse, FinishReason, TokenUsage};
use agent_domain::tool::{AgentToolResult, ToolChoice};
use agent_gateway::http::HttpTimeouts;
use agent_gateway::{HttpConnection, HttpModelGateway};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::*;
use wiremock::{MockServer, ResponseTemplate};

const KEY: &str = "sk-test-Zq81PLXvTdistinctive";

fn connection(server: &MockServer, dialect: ChatDialect) -> HttpConnection {
    HttpConnection::openai_chat(format!("{}/v1", server.uri()), "test-model", dialect)
        .with_api_key(KEY)
}

fn gateway(server: &MockServer, dialect: ChatDialect) -> HttpModelGateway {
    HttpModelGateway::new(connection(server, dialect)).unwrap()
}

fn ok(body: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(body)
}

fn completion(id: &str, message: Value, finish: &str) -> Value {
    json!({
        "id": id,
        "object": "chat.completion",
        "created": 1770933900,
        "model": "gpt-4.1-2025-04-14",
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
        "usage": {"prompt_tokens": 82, "completion_tokens": 15, "total_tokens": 97}
    })
}

/// A plain text completion.
fn hello() -> Value {
    completion("c", json!({"role": "assistant", "content": "hi"}), "stop")
}

fn tool_call(id: &str, name: &str, arguments: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}

/// One call against a fresh server answering `response`.
async fn generate_once(
    response: ResponseTemplate,
    dialect: ChatDialect,
) -> (Result<AgentModelResponse, ModelError>, Vec<Value>) {
    generate_once_at(CHAT_PATH, |server| gateway(server, dialect), response).await
}

#[tokio::test]
async fn cc01_plain_text_with_usage() {
    let body = json!({
        "id": "chatcmpl-CC01", "object": "chat.completion", "created": 1770933883,
        "model": "gpt-4.1-nano-2025-04-14",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello! How can I help?", "refusal": null, "annotations": []}, "logprobs": null, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 16, "completion_tokens": 7, "total_tokens": 23,
                  "prompt_tokens_details": {"cached_tokens": 4, "audio_tokens": 0},
                  "completion_tokens_details": {"reasoning_tokens": 2, "audio_tokens": 0}},
        "service_tier": "default", "system_fingerprint": "fp_de604bd877"
    });
    let (result, sent) = generate_once(ok(body), ChatDialect::Openai).await;
    let response = result.unwrap();
    assert_eq!(response.text(), "Hello! How can I help?");
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.response_id.as_deref(), Some("chatcmpl-CC01"));
    assert_eq!(response.model.as_deref(), Some("gpt-4.1-nano-2025-04-14"));
    assert_eq!(
        response.usage,
        Some(TokenUsage {
            input_tokens: 16,
            output_tokens: 7,
            cached_input_tokens: Some(4),
            cache_write_tokens: None,
            reasoning_tokens: Some(2)
        })
    );
    assert_eq!(
        response.provider_metadata["systemFingerprint"],
        json!("fp_de604bd877")
    );
    // The request: OpenAI dialect, no provider state upstream, stream off.
    let body = &sent[0];
    assert_eq!(body["model"], json!("test-model"));
    assert_eq!(body["stream"], json!(false));
    assert_eq!(body["tool_choice"], json!("auto"));
    assert!(!body.to_string().contains("sessionId"));
}

#[tokio::test]
async fn cc02_single_tool_call_decodes_through_the_request_aliases() {
    let message = json!({"role": "assistant", "content": null, "refusal": null, "annotations": [],
        "tool_calls": [tool_call("call_O17Uplv4lJvD6DVdIvFFeRMw", "workspace_read_file", "{\"path\":\"output/main.md\"}")]});
    let (result, _) = generate_once(
        ok(completion("chatcmpl-CC02", message, "tool_calls")),
        ChatDialect::Openai,
    )
    .await;
    let response = result.unwrap();
    assert_eq!(response.finish_reason, FinishReason::ToolCalls);
    let calls = response.tool_calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].call_id, "call_O17Uplv4lJvD6DVdIvFFeRMw");
    assert_eq!(calls[0].tool_id, read_file());
    assert_eq!(calls[0].arguments, json!({"path": "output/main.md"}));
    assert_eq!(response.text(), "");
}

#[tokio::test]
async fn cc03_parallel_tool_calls_keep_their_order() {
    let message = json!({"role": "assistant", "content": null, "tool_calls": [
        tool_call("call_a1", "workspace_read_file", "{\"path\":\"output/a.md\"}"),
        tool_call("call_b2", "workspace_list_files", "{}"),
    ]});
    let (result, _) = generate_once(
        ok(completion("chatcmpl-CC03", message, "tool_calls")),
        ChatDialect::Generic,
    )
    .await;
    let response = result.unwrap();
    let ids: Vec<_> = response
        .tool_calls()
        .iter()
        .map(|c| (c.call_id.clone(), c.tool_id.to_string()))
        .collect();
    assert_eq!(
        ids,
        [
            (
                "call_a1".to_owned(),
                "builtin:workspace.read_file".to_owned()
            ),
            (
                "call_b2".to_owned(),
                "builtin:workspace.list_files".to_owned()
            ),
        ]
    );
}

#[tokio::test]
async fn cc04_tool_calls_with_finish_reason_stop_are_tool_calls() {
    let server = MockServer::start().await;
    let message = json!({"role": "assistant", "content": "",
        "tool_calls": [tool_call("call_forced1", "workspace_read_file", "{\"path\":\"output/main.md\"}")]});
    answer_once(&server, ok(completion("chatcmpl-CC04", message, "stop"))).await;
    let mut forced = call(opening(), 1);
    forced.request.tool_choice = ToolChoice::Specific(read_file());
    let response = gateway(&server, ChatDialect::Openai)
        .generate(forced)
        .await
        .unwrap();
    assert_eq!(response.finish_reason, FinishReason::ToolCalls);
    assert_eq!(response.tool_calls().len(), 1);
    assert!(
        response.message.parts.iter().all(|p| p.as_text().is_none()),
        "empty content adds no text part"
    );
    let sent = sent_bodies(&server).await;
    assert_eq!(
        sent[0]["tool_choice"],
        json!({"type": "function", "function": {"name": "workspace_read_file"}})
    );
}

#[tokio::test]
async fn cc05_length() {
    let message = json!({"role": "assistant", "content": "The three main causes are: first, the"});
    let (result, _) = generate_once(
        ok(completion("chatcmpl-CC05", message, "length")),
        ChatDialect::Openai,
    )
    .await;
    let response = result.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Length);
    assert_eq!(response.text(), "The three main causes are: first, the");
}

#[tokio::test]
async fn cc06_refusal() {
    let message = json!({"role": "assistant", "content": null, "refusal": "I can't help with that.", "annotations": []});
    let (result, _) = generate_once(
        ok(completion("chatcmpl-CC06", message, "stop")),
        ChatDialect::Openai,
    )
    .await;
    let response = result.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Refusal);
    assert_eq!(response.text(), "I can't help with that.");
}

/// Round one answers with `first`; round two sends the calls' results back. Returns the
/// second request body.
async fn replay_round(dialect: ChatDialect, first: Value) -> (AgentModelResponse, Value) {
    let server = MockServer::start().await;
    answer_once(&server, ok(first)).await;
    answer_once(
        &server,
        ok(completion(
            "chatcmpl-done",
            json!({"role": "assistant", "content": "Done."}),
            "stop",
        )),
    )
    .await;
    let gateway = gateway(&server, dialect);
    let response = gateway.generate(call(opening(), 1)).await.unwrap();
    let mut messages = opening();
    messages.push(response.message.clone());
    for invocation in response.tool_calls() {
        messages.push(AgentModelMessage::tool_result(AgentToolResult::success(
            invocation,
            "It was a dark night.",
            Value::Null,
        )));
    }
    gateway.generate(call(messages, 2)).await.unwrap();
    let sent = sent_bodies(&server).await;
    check_wire_transcript(&sent[1]).unwrap();
    (response, sent[1].clone())
}

#[tokio::test]
async fn cc07_deepseek_reasoning_content_is_replayed() {
    let first = json!({
        "id": "ds-CC07", "object": "chat.completion", "created": 1777000000, "model": "deepseek-v4-pro",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "",
            "reasoning_content": "The user wants the story; I should read it.",
            "tool_calls": [tool_call("call_00_ds7", "workspace_read_file", "{\"path\":\"output/main.md\"}")]},
            "logprobs": null, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 60, "total_tokens": 180, "prompt_cache_hit_tokens": 32, "prompt_cache_miss_tokens": 88, "completion_tokens_details": {"reasoning_tokens": 41}}
    });
    let (response, second) = replay_round(ChatDialect::Deepseek, first.clone()).await;
    assert_eq!(
        response.reasoning_text(),
        "The user wants the story; I should read it."
    );
    assert_eq!(response.usage.unwrap().cached_input_tokens, Some(32));
    assert_eq!(response.usage.unwrap().reasoning_tokens, Some(41));
    let assistant = &second["messages"][2];
    assert_eq!(
        assistant["reasoning_content"],
        json!("The user wants the story; I should read it.")
    );
    assert_eq!(assistant["content"], Value::Null);
    assert_eq!(assistant["tool_calls"][0]["id"], json!("call_00_ds7"));
    assert_eq!(
        second["max_tokens"],
        Value::Null,
        "no length set, none sent"
    );

    // An empty reasoning_content still goes back; other dialects never see it.
    let mut empty = first;
    empty["choices"][0]["message"]["reasoning_content"] = json!("");
    let (_, second) = replay_round(ChatDialect::Deepseek, empty.clone()).await;
    assert_eq!(second["messages"][2]["reasoning_content"], json!(""));
    let (_, second) = replay_round(ChatDialect::Generic, empty).await;
    assert!(second["messages"][2].get("reasoning_content").is_none());
}

#[tokio::test]
async fn cc09_openrouter_reasoning_details_round_trip_unchanged() {
    let details = json!([{"type": "reasoning.text", "text": "Need the story.", "signature": "EqQBCkYIsyntheticORSig", "format": "anthropic-claude-v1", "index": 0}]);
    let first = json!({
        "id": "gen-CC09", "object": "chat.completion", "created": 1777000200,
        "model": "anthropic/claude-sonnet-4.5", "provider": "Anthropic",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "",
            "reasoning": "Need the story.", "reasoning_details": details,
            "tool_calls": [tool_call("toolu_01OR", "workspace_read_file", "{\"path\":\"output/main.md\"}")]},
            "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 300, "completion_tokens": 80, "total_tokens": 380}
    });
    let (response, second) = replay_round(ChatDialect::Openrouter, first.clone()).await;
    assert_eq!(response.reasoning_text(), "Need the story.");
    assert_eq!(
        response
            .message
            .native_parts("openrouter")
            .collect::<Vec<_>>(),
        [&details]
    );
    assert_eq!(
        response.provider_metadata["upstreamProvider"],
        json!("Anthropic")
    );
    let assistant = &second["messages"][2];
    assert_eq!(assistant["reasoning_details"], details);
    assert!(assistant.get("reasoning").is_none());
    // Never replayed to a server of another dialect.
    let (_, second) = replay_round(ChatDialect::Openai, first).await;
    assert!(second["messages"][2].get("reasoning_details").is_none());
}

#[tokio::test]
async fn cc11_rate_limit_with_retry_after() {
    let response = ResponseTemplate::new(429)
        .insert_header("retry-after", "2")
        .insert_header("x-ratelimit-reset-tokens", "1.8s")
        .set_body_json(json!({"error": {"message": "Rate limit reached for gpt-4.1 on tokens per min (TPM). Please try again in 1.8s.", "type": "tokens", "param": null, "code": "rate_limit_exceeded"}}));
    let (result, _) = generate_once(response, ChatDialect::Openai).await;
    let error = result.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::RateLimited);
    assert_eq!(error.code(), "model.rate_limited");
    assert_eq!(error.status, Some(429));
    assert_eq!(error.provider_code.as_deref(), Some("rate_limit_exceeded"));
    assert_eq!(error.retry_after_ms, Some(2000));
    assert!(error.is_retryable());
    assert!(
        error.message.contains("Please try again in 1.8s"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn every_error_class() {
    let envelope = |message: &str, kind: &str, code: Value| json!({"error": {"message": message, "type": kind, "param": null, "code": code}});
    let cases: Vec<(&str, ResponseTemplate, ModelErrorKind, &str, bool)> = vec![
        ("401", ResponseTemplate::new(401).set_body_json(envelope("Incorrect API key provided", "invalid_request_error", json!("invalid_api_key"))), ModelErrorKind::Auth, "model.unauthorized", false),
        ("403", ResponseTemplate::new(403).set_body_json(envelope("Country not supported", "invalid_request_error", json!("unsupported_country_region_territory"))), ModelErrorKind::Auth, "model.unauthorized", false),
        ("429 quota", ResponseTemplate::new(429).set_body_json(envelope("You exceeded your current quota, please check your plan and billing details.", "insufficient_quota", json!("insufficient_quota"))), ModelErrorKind::Quota, "model.quota_exceeded", false),
        ("402", ResponseTemplate::new(402).set_body_json(json!({"error": {"message": "Insufficient credits", "code": 402}})), ModelErrorKind::Quota, "model.quota_exceeded", false),
        ("400 context", ResponseTemplate::new(400).set_body_json(envelope("This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens.", "invalid_request_error", json!("context_length_exceeded"))), ModelErrorKind::ContextLength, "model.context_length_exceeded", false),
        ("400 context wording", ResponseTemplate::new(400).set_body_json(json!({"error": {"message": "the request exceeds the available context size, maximum context length is 4096", "type": "invalid_request_error"}})), ModelErrorKind::ContextLength, "model.context_length_exceeded", false),
        ("400 invalid", ResponseTemplate::new(400).set_body_json(envelope("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "invalid_request_error", json!("unsupported_parameter"))), ModelErrorKind::InvalidRequest, "model.invalid_request", false),
        ("404", ResponseTemplate::new(404).set_body_json(envelope("The model does not exist", "invalid_request_error", json!("model_not_found"))), ModelErrorKind::InvalidRequest, "model.invalid_request", false),
        ("500", ResponseTemplate::new(500).set_body_json(envelope("The server had an error", "server_error", Value::Null)), ModelErrorKind::Transient, "model.transient", true),
        ("502 html", ResponseTemplate::new(502).set_body_string("<html>Bad Gateway</html>"), ModelErrorKind::Transient, "model.transient", true),
        ("503", ResponseTemplate::new(503).set_body_json(envelope("The engine is currently overloaded", "server_error", json!("server_is_overloaded"))), ModelErrorKind::Overloaded, "model.overloaded", true),
        ("529", ResponseTemplate::new(529).set_body_json(json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})), ModelErrorKind::Overloaded, "model.overloaded", true),
        ("200 not json", ResponseTemplate::new(200).set_body_string("upstream connect error"), ModelErrorKind::Transient, "model.upstream_invalid_response", true),
        ("200 error body", ResponseTemplate::new(200).set_body_json(json!({"error": {"message": "Provider returned error", "code": 502}})), ModelErrorKind::Transient, "model.transient", true),
        ("200 no choices", ResponseTemplate::new(200).set_body_json(json!({"id": "x", "choices": []})), ModelErrorKind::Transient, "model.upstream_invalid_response", true),
    ];
    for (name, response, kind, code, retryable) in cases {
        let (result, _) = generate_once(response, ChatDialect::Openai).await;
        let error = result.unwrap_err();
        assert_eq!((error.kind, error.code()), (kind, code), "{name}: {error}");
        assert_eq!(error.is_retryable(), retryable, "{name}");
        if name != "200 no choices" {
            assert!(error.status.is_some(), "{name}");
            assert!(
                error.message.contains("body: "),
                "{name}: {}",
                error.message
            );
            assert!(error.message.chars().count() < 600, "{name}");
        }
    }
}

#[tokio::test]
async fn long_bodies_are_cut_to_an_excerpt() {
    let body = json!({"error": {"message": "x".repeat(5000), "type": "invalid_request_error"}});
    let (result, _) = generate_once(
        ResponseTemplate::new(400).set_body_json(body),
        ChatDialect::Openai,
    )
    .await;
    let error = result.unwrap_err();
    let excerpt = error.message.split_once("body: ").unwrap().1;
    assert!(
        excerpt.chars().count() <= 501,
        "{}",
        excerpt.chars().count()
    );
}

#[tokio::test]
async fn connection_refused_is_transient() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let connection = HttpConnection::openai_chat(
        format!("http://127.0.0.1:{port}/v1"),
        "m",
        ChatDialect::Generic,
    )
    .with_api_key(KEY);
    let error = HttpModelGateway::new(connection)
        .unwrap()
        .generate(call(opening(), 1))
        .await
        .unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Transient, "{error}");
    assert_eq!(error.code(), "model.connection_failed");
    assert!(error.is_retryable());
}

#[tokio::test]
async fn a_slow_provider_times_out() {
    let server = MockServer::start().await;
    answer_once(
        &server,
        ok(completion(
            "slow",
            json!({"role": "assistant", "content": "late"}),
            "stop",
        ))
        .set_delay(Duration::from_secs(3)),
    )
    .await;
    let timeouts = HttpTimeouts {
        connect: Duration::from_secs(5),
        request: Duration::from_millis(200),
    };
    let gateway =
        HttpModelGateway::with_timeouts(connection(&server, ChatDialect::Openai), timeouts)
            .unwrap();
    let error = gateway.generate(call(opening(), 1)).await.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Timeout, "{error}");
    assert_eq!(error.code(), "model.timeout");
}

#[tokio::test]
async fn the_api_key_never_leaves_in_errors() {
    // A provider that echoes the Authorization header back in its error body.
    let body = json!({"error": {"message": format!("Incorrect API key provided: Bearer {KEY}. You can find your key at …"), "type": "invalid_request_error", "code": "invalid_api_key"}});
    let server = MockServer::start().await;
    answer_once(&server, ResponseTemplate::new(401).set_body_json(body)).await;
    let gateway = gateway(&server, ChatDialect::Openai);
    let error = gateway.generate(call(opening(), 1)).await.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Auth);
    assert_secret_hidden(&error, &gateway, KEY, "Zq81PLXvTdistinctive");
    // The key did go where it belongs.
    let request = &server.received_requests().await.unwrap()[0];
    assert_eq!(
        request
            .headers
            .get("authorization")
            .unwrap()
            .to_str()
            .unwrap(),
        format!("Bearer {KEY}")
    );
}

#[tokio::test]
async fn no_key_no_authorization_header_and_custom_headers_pass() {
    let server = MockServer::start().await;
    answer_once(&server, ok(hello())).await;
    let mut connection = HttpConnection::openai_chat(
        format!("{}/v1/", server.uri()),
        "local",
        ChatDialect::Generic,
    );
    connection.headers.push(("X-Title".into(), "tavern".into()));
    connection.params.insert("temperature".into(), json!(0.3));
    connection
        .params
        .insert("messages".into(), json!("ignored: owned by the adapter"));
    HttpModelGateway::new(connection)
        .unwrap()
        .generate(call(opening(), 1))
        .await
        .unwrap();
    let request = &server.received_requests().await.unwrap()[0];
    assert!(request.headers.get("authorization").is_none());
    assert_eq!(
        request.headers.get("x-title").unwrap().to_str().unwrap(),
        "tavern"
    );
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(body["temperature"], json!(0.3));
    assert!(body["messages"].is_array());
}

#[tokio::test]
async fn tool_call_contract_violations_fail_fast() {
    let cases = [
        (
            tool_call("", "workspace_read_file", "{}"),
            "model.invalid_tool_call",
        ),
        (
            json!({"type": "function", "function": {"name": "workspace_read_file", "arguments": "{}"}}),
            "model.invalid_tool_call",
        ),
        (
            tool_call("c1", "get_weather", "{}"),
            "model.unknown_tool_call",
        ),
        (
            tool_call("c1", "workspace.read_file", "{}"),
            "model.unknown_tool_call",
        ),
    ];
    for (call_json, code) in cases {
        let message = json!({"role": "assistant", "content": null, "tool_calls": [call_json]});
        let (result, _) = generate_once(
            ok(completion("bad", message, "tool_calls")),
            ChatDialect::Openai,
        )
        .await;
        let error = result.unwrap_err();
        assert_eq!(
            (error.kind, error.code()),
            (ModelErrorKind::ContractViolation, code)
        );
        assert!(!error.is_retryable());
    }
    let message = json!({"role": "assistant", "content": null, "tool_calls": [
        tool_call("dup", "workspace_read_file", "{}"), tool_call("dup", "workspace_list_files", "{}")]});
    let (result, _) = generate_once(
        ok(completion("dup", message, "tool_calls")),
        ChatDialect::Openai,
    )
    .await;
    assert_eq!(result.unwrap_err().code(), "model.duplicate_tool_call_id");
}

#[tokio::test]
async fn a_historical_tool_missing_from_the_request_fails_before_sending() {
    let server = MockServer::start().await;
    let message = json!({"role": "assistant", "content": null, "tool_calls": [tool_call("c1", "workspace_read_file", "{}")]});
    answer_once(&server, ok(completion("r1", message, "tool_calls"))).await;
    let gateway = gateway(&server, ChatDialect::Openai);
    let response = gateway.generate(call(opening(), 1)).await.unwrap();
    let mut messages = opening();
    messages.push(response.message.clone());
    messages.push(AgentModelMessage::tool_result(AgentToolResult::success(
        response.tool_calls()[0],
        "x",
        Value::Null,
    )));
    let mut next = call(messages, 2);
    Arc::make_mut(&mut next.request.tools).retain(|t| t.tool_id != read_file());
    let error = gateway.generate(next).await.unwrap_err();
    assert_eq!(
        (error.kind, error.code()),
        (
            ModelErrorKind::ContractViolation,
            "model.tool_not_in_request"
        )
    );
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        1,
        "nothing sent"
    );

    // An unpaired call is refused the same way, before any request.
    let mut unpaired = opening();
    unpaired.push(response.message.clone());
    let error = gateway.generate(call(unpaired, 2)).await.unwrap_err();
    assert_eq!(error.code(), "model.transcript_unanswered_call");
}

/// Round 1: the model reads a file and lists files in parallel. Round 2: both results go
/// back; the model writes with malformed arguments. Round 3: the error result goes back
/// and the model answers with text. Every outbound body is pinned and pairing-checked.
#[tokio::test]
async fn multi_round_conversation() {
    let server = MockServer::start().await;
    answer_once(
        &server,
        ok(completion(
            "r1",
            json!({"role": "assistant", "content": "Let me look first.", "tool_calls": [
                tool_call("call_r1_read", "workspace_read_file", "{\"path\":\"output/main.md\"}"),
                tool_call("call_r1_list", "workspace_list_files", ""),
            ]}),
            "tool_calls",
        )),
    )
    .await;
    let malformed = "{\"path\":\"output/main.md\",\"content\":\"The night";
    answer_once(
        &server,
        ok(completion(
            "r2",
            json!({"role": "assistant", "content": null, "tool_calls": [
                tool_call("call_r2_write", "workspace_write_file", malformed),
            ]}),
            "tool_calls",
        )),
    )
    .await;
    answer_once(
        &server,
        ok(completion(
            "r3",
            json!({"role": "assistant", "content": "The chapter is drafted."}),
            "stop",
        )),
    )
    .await;

    let gateway = gateway(&server, ChatDialect::Openai);
    let mut messages = opening();
    let mut first = call(messages.clone(), 1);
    first.request.parameters.max_output_tokens = Some(2048);
    first.request.parameters.temperature = Some(0.7);
    let r1 = gateway.generate(first).await.unwrap();
    let calls = r1.tool_calls();
    assert_eq!(
        calls[1].arguments,
        json!(""),
        "an empty argument string is kept verbatim"
    );
    messages.push(r1.message.clone());
    messages.push(AgentModelMessage::tool_result(AgentToolResult::success(
        calls[0],
        "It was a dark night.",
        json!({"bytes": 20}),
    )));
    messages.push(AgentModelMessage::tool_result(AgentToolResult::success(
        calls[1],
        "output/main.md",
        Value::Null,
    )));

    let r2 = gateway.generate(call(messages.clone(), 2)).await.unwrap();
    let write = r2.tool_calls()[0];
    assert_eq!(
        write.arguments,
        json!(malformed),
        "malformed arguments stay a raw string"
    );
    messages.push(r2.message.clone());
    messages.push(AgentModelMessage::tool_result(AgentToolResult::error(
        write,
        "tool.invalid_arguments",
        "arguments are not valid JSON",
    )));

    let r3 = gateway.generate(call(messages, 3)).await.unwrap();
    assert_eq!(r3.text(), "The chapter is drafted.");
    assert_eq!(r3.finish_reason, FinishReason::Stop);

    let sent = sent_bodies(&server).await;
    assert_eq!(sent.len(), 3);
    let canonical = tools();
    for (round, body) in sent.iter().enumerate() {
        check_wire_transcript(body).unwrap_or_else(|e| panic!("round {}: {e}", round + 1));
        for (wire, tool) in body["tools"].as_array().unwrap().iter().zip(&canonical) {
            assert_eq!(wire["function"]["name"], json!(tool.alias));
            assert_eq!(wire["function"]["parameters"], tool.input_schema);
        }
        insta::assert_json_snapshot!(
            format!("multi_round_request_{}", round + 1),
            with_tool_names(body)
        );
    }
    // The raw arguments are replayed byte-exact; the error result leads with its heading.
    assert_eq!(
        sent[2]["messages"][5]["tool_calls"][0]["function"]["arguments"],
        json!(malformed)
    );
    assert!(
        sent[2]["messages"][6]["content"]
            .as_str()
            .unwrap()
            .starts_with("## Tool error")
    );
}

#[test]
fn the_wire_checker_catches_broken_pairing() {
    let assistant = json!({"role": "assistant", "content": null, "tool_calls": [tool_call("a", "x", "{}"), tool_call("b", "x", "{}")]});
    let tool = |id: &str| json!({"role": "tool", "tool_call_id": id, "content": "ok"});
    let body = |messages: Vec<Value>| json!({"messages": messages});
    assert!(check_wire_transcript(&body(vec![assistant.clone(), tool("a"), tool("b")])).is_ok());
    assert!(check_wire_transcript(&body(vec![assistant.clone(), tool("a")])).is_err());
    assert!(
        check_wire_transcript(&body(vec![
            assistant.clone(),
            tool("a"),
            json!({"role": "user", "content": "x"}),
            tool("b")
        ]))
        .is_err()
    );
    assert!(
        check_wire_transcript(&body(vec![
            assistant.clone(),
            tool("a"),
            tool("a"),
            tool("b")
        ]))
        .is_err()
    );
    assert!(check_wire_transcript(&body(vec![tool("a")])).is_err());
    let no_id = json!({"role": "assistant", "tool_calls": [tool_call("", "x", "{}")]});
    assert!(check_wire_transcript(&body(vec![no_id])).is_err());
}

/// The mock provider of every gateway test checks each request it receives: a body whose
/// tool results answer no call is refused with its own status, so no test can pass on one.
#[tokio::test]
async fn the_mock_provider_refuses_a_body_that_breaks_pairing() {
    let server = MockServer::start().await;
    answer_once(&server, ok(hello())).await;
    let orphan = json!({"model": "m", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "call_x", "content": "an answer to nothing"}
    ]});
    let response = reqwest::Client::new()
        .post(format!("{}{CHAT_PATH}", server.uri()))
        .header("content-type", "application/json")
        .body(orphan.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), INVARIANT_BROKEN_STATUS);
    assert!(response.text().await.unwrap().contains("call_x"));
}
