//! The Anthropic Messages gateway against a mock provider: recorded-style responses (in the
//! provider's documented shapes, with tool names replaced by the default writer's aliases),
//! thinking replay, the error classes Anthropic answers with, and a whole multi-round
//! conversation whose outbound bodies are pinned and checked against Anthropic's transcript
//! rules.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::sync::Arc;

use agent_application::ports::{ModelError, ModelErrorKind, ModelGateway};
use agent_domain::ErrorCode;
use agent_domain::connection::ChatDialect;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelResponse, FinishReason, TokenUsage,
};
use agent_domain::tool::{AgentToolResult, ToolChoice, ToolId};
use agent_gateway::openai_chat;
use agent_gateway::{HttpConnection, HttpModelGateway};
use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};
use support::*;
use wiremock::{MockServer, ResponseTemplate};

const KEY: &str = "sk-ant-test-Yw42QMdistinctive";

fn connection(server: &MockServer) -> HttpConnection {
    HttpConnection::anthropic(server.uri(), "claude-test").with_api_key(KEY)
}

fn gateway(server: &MockServer) -> HttpModelGateway {
    HttpModelGateway::new(connection(server)).unwrap()
}

fn ok(body: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(body)
}

fn message(id: &str, content: Value, stop: &str) -> Value {
    json!({
        "model": "claude-sonnet-4-5-20250929",
        "id": id,
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": null,
        "usage": {"input_tokens": 69, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 120, "service_tier": "standard"}
    })
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

async fn answer(server: &MockServer, response: ResponseTemplate) {
    answer_once_at(server, MESSAGES_PATH, response).await;
}

/// One call against a fresh server answering `response`.
async fn generate_once(
    response: ResponseTemplate,
) -> (Result<AgentModelResponse, ModelError>, Vec<Value>) {
    generate_once_at(MESSAGES_PATH, gateway, response).await
}

/// Round one answers with `first`; round two sends the calls' results (or, without
/// calls, a user follow-up) back. Returns the first response and the second request body.
async fn replay_round(first: Value, budget: Option<u32>) -> (AgentModelResponse, Value) {
    let server = MockServer::start().await;
    answer(&server, ok(first)).await;
    answer(
        &server,
        ok(message(
            "msg_done",
            json!([{"type": "text", "text": "Done."}]),
            "end_turn",
        )),
    )
    .await;
    let gateway = gateway(&server);
    let mut round_one = call(opening(), 1);
    round_one.request.parameters.reasoning_budget_tokens = budget;
    let response = gateway.generate(round_one).await.unwrap();
    let mut messages = opening();
    messages.push(response.message.clone());
    for invocation in response.tool_calls() {
        messages.push(AgentModelMessage::tool_result(AgentToolResult::success(
            invocation,
            "It was a dark night.",
            Value::Null,
        )));
    }
    if response.tool_calls().is_empty() {
        messages.push(AgentModelMessage::user("Go on."));
    }
    let mut round_two = call(messages, 2);
    round_two.request.parameters.reasoning_budget_tokens = budget;
    gateway.generate(round_two).await.unwrap();
    let sent = sent_bodies(&server).await;
    check_anthropic_transcript(&sent[1]).unwrap();
    (response, sent[1].clone())
}

#[tokio::test]
async fn a01_plain_text_with_usage_and_the_request_shape() {
    let body = json!({
        "model": "claude-sonnet-4-5-20250929", "id": "msg_01A01synthetic", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": "Hello! How can I help today?"}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 12, "cache_creation_input_tokens": 3, "cache_read_input_tokens": 100,
                  "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
                  "output_tokens": 29, "service_tier": "standard", "inference_geo": "not_available"}
    });
    let server = MockServer::start().await;
    answer(&server, ok(body)).await;
    let response = gateway(&server).generate(call(opening(), 1)).await.unwrap();
    assert_eq!(response.text(), "Hello! How can I help today?");
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.response_id.as_deref(), Some("msg_01A01synthetic"));
    assert_eq!(
        response.usage,
        Some(TokenUsage {
            input_tokens: 115,
            output_tokens: 29,
            cached_input_tokens: Some(100),
            cache_write_tokens: Some(3),
            reasoning_tokens: None,
        })
    );
    assert_eq!(response.provider_metadata["format"], json!("anthropic"));
    assert_eq!(response.provider_metadata["serviceTier"], json!("standard"));

    let request = &server.received_requests().await.unwrap()[0];
    assert_eq!(request.url.path(), "/v1/messages");
    let header = |name: &str| request.headers.get(name).map(|v| v.to_str().unwrap());
    assert_eq!(header("x-api-key"), Some(KEY));
    assert_eq!(header("anthropic-version"), Some("2023-06-01"));
    assert!(header("authorization").is_none());
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(body["model"], json!("claude-test"));
    assert_eq!(body["max_tokens"], json!(4096), "required; defaulted");
    assert_eq!(body["system"], json!("You are a writer."));
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "Continue the story."}]}])
    );
    assert_eq!(body["tool_choice"], json!({"type": "auto"}));
    assert!(body.get("thinking").is_none());
    for (wire, tool) in body["tools"].as_array().unwrap().iter().zip(tools()) {
        assert_eq!(wire["name"], json!(tool.alias));
        assert_eq!(wire["description"], json!(tool.description));
        assert_eq!(wire["input_schema"]["type"], json!("object"));
    }
}

#[tokio::test]
async fn a02_single_tool_use_without_arguments() {
    let content = json!([
        {"type": "text", "text": "Okay, I will look at the files:"},
        tool_use("toolu_01LRmxn9vGM1d2DZSDBowdZ1", "workspace_list_files", json!({})),
    ]);
    let (result, _) = generate_once(ok(message("msg_01A02", content, "tool_use"))).await;
    let response = result.unwrap();
    assert_eq!(response.finish_reason, FinishReason::ToolCalls);
    assert_eq!(response.text(), "Okay, I will look at the files:");
    let calls = response.tool_calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].call_id, "toolu_01LRmxn9vGM1d2DZSDBowdZ1");
    assert_eq!(
        calls[0].tool_id,
        ToolId::builtin("workspace.list_files").unwrap()
    );
    assert_eq!(calls[0].arguments, json!({}));
}

#[tokio::test]
async fn a03_parallel_tool_use_keeps_order_and_pairs_results() {
    let mut first = message(
        "msg_01A03",
        json!([
            {"type": "text", "text": "Checking both."},
            tool_use("toolu_01A", "workspace_read_file", json!({"path": "output/a.md"})),
            tool_use("toolu_01B", "workspace_read_file", json!({"path": "output/b.md"})),
        ]),
        "tool_use",
    );
    first["usage"]["cache_read_input_tokens"] = json!(2100);
    let (response, second) = replay_round(first, None).await;
    let ids: Vec<_> = response
        .tool_calls()
        .iter()
        .map(|c| (c.call_id.as_str(), c.arguments["path"].clone()))
        .collect();
    assert_eq!(
        ids,
        [
            ("toolu_01A", json!("output/a.md")),
            ("toolu_01B", json!("output/b.md"))
        ]
    );
    assert_eq!(response.usage.unwrap().cached_input_tokens, Some(2100));
    // Both results in the one next user message, with their error flag.
    let results = &second["messages"][2];
    assert_eq!(results["role"], json!("user"));
    assert_eq!(
        results["content"],
        json!([
            {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "It was a dark night.", "is_error": false},
            {"type": "tool_result", "tool_use_id": "toolu_01B", "content": "It was a dark night.", "is_error": false},
        ])
    );
}

#[tokio::test]
async fn a04_signed_thinking_is_replayed_verbatim_first() {
    let thinking = json!({"type": "thinking", "thinking": "I should read the story first.", "signature": "Er4BCkYICxgCKkCsyntheticSignatureA04"});
    let first = message(
        "msg_01A04",
        json!([
            thinking,
            {"type": "text", "text": "Reading."},
            tool_use("toolu_01A04", "workspace_read_file", json!({"path": "output/main.md"})),
        ]),
        "tool_use",
    );
    let (response, second) = replay_round(first, Some(2048)).await;
    assert_eq!(response.reasoning_text(), "I should read the story first.");
    assert_eq!(
        response
            .message
            .native_parts("anthropic")
            .collect::<Vec<_>>(),
        [&thinking]
    );
    assert_eq!(
        second["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    assert_eq!(
        second["max_tokens"],
        json!(2048 + 4096),
        "the limit must exceed the budget: the default room on top of it"
    );
    let assistant = &second["messages"][1];
    assert_eq!(assistant["role"], json!("assistant"));
    assert_eq!(
        assistant["content"],
        json!([
            thinking,
            {"type": "text", "text": "Reading."},
            tool_use("toolu_01A04", "workspace_read_file", json!({"path": "output/main.md"})),
        ])
    );

    // Never replayed to another format: Chat Completions leaves the block out.
    let mut messages = opening();
    messages.push(response.message.clone());
    messages.push(AgentModelMessage::tool_result(AgentToolResult::success(
        response.tool_calls()[0],
        "x",
        Value::Null,
    )));
    let other = openai_chat::encode(
        &call(messages, 2).request,
        "m",
        ChatDialect::Openrouter,
        &Map::new(),
    )
    .unwrap();
    assert!(!other.to_string().contains("syntheticSignatureA04"));
}

#[tokio::test]
async fn a05_redacted_thinking_is_replayed() {
    let redacted = json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/syntheticRedactedPayload=="});
    let first = message(
        "msg_01A05",
        json!([redacted, {"type": "text", "text": "Here is the summary you asked for."}]),
        "end_turn",
    );
    let (response, second) = replay_round(first, Some(1024)).await;
    assert_eq!(response.text(), "Here is the summary you asked for.");
    assert_eq!(response.reasoning_text(), "", "nothing readable");
    assert_eq!(
        second["messages"][1]["content"],
        json!([redacted, {"type": "text", "text": "Here is the summary you asked for."}])
    );
    assert_eq!(
        second["messages"][2],
        json!({"role": "user", "content": [{"type": "text", "text": "Go on."}]})
    );
}

#[tokio::test]
async fn a06_omitted_thinking_is_kept_with_its_signature() {
    let thinking = json!({"type": "thinking", "thinking": "", "signature": "CAISqwQKhwEIEBgCsyntheticOmittedThinking"});
    let mut first = message(
        "msg_01A06",
        json!([
            thinking,
            tool_use(
                "toolu_01A06",
                "workspace_read_file",
                json!({"path": "src/lib.rs"})
            )
        ]),
        "tool_use",
    );
    first["usage"]["output_tokens_details"] = json!({"thinking_tokens": 260});
    let (response, second) = replay_round(first, Some(1024)).await;
    assert_eq!(response.usage.unwrap().reasoning_tokens, Some(260));
    assert_eq!(second["messages"][1]["content"][0], thinking);
}

#[tokio::test]
async fn a07_max_tokens_is_length() {
    let content = json!([{"type": "text", "text": "The migration has four stages. First, the"}]);
    let (result, _) = generate_once(ok(message("msg_01A07", content, "max_tokens"))).await;
    let response = result.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Length);
    assert_eq!(response.text(), "The migration has four stages. First, the");
}

#[tokio::test]
async fn a08_refusal_reads_its_explanation() {
    let mut body = message("msg_01A08", json!([]), "refusal");
    body["stop_details"] = json!({"type": "refusal", "category": "cyber", "explanation": "This request was blocked under the usage policy."});
    let (result, _) = generate_once(ok(body)).await;
    let response = result.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Refusal);
    assert_eq!(
        response.text(),
        "This request was blocked under the usage policy."
    );
    assert_eq!(
        response.provider_metadata["stopDetails"]["category"],
        json!("cyber")
    );
}

#[tokio::test]
async fn a09_pause_turn_keeps_server_blocks_for_replay() {
    let server_use = json!({"type": "server_tool_use", "id": "srvtoolu_01A09", "name": "web_search", "input": {"query": "oslo"}});
    let server_result = json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01A09", "content": [{"type": "web_search_result", "url": "https://example.org/oslo", "title": "Oslo", "encrypted_content": "EqgfCiosyntheticResult", "page_age": null}]});
    let first = message(
        "msg_01A09",
        json!([server_use, server_result]),
        "pause_turn",
    );
    let (response, second) = replay_round(first, None).await;
    assert_eq!(
        response.finish_reason,
        FinishReason::Other("pause_turn".into())
    );
    assert_eq!(
        second["messages"][1]["content"],
        json!([server_use, server_result])
    );
}

#[tokio::test]
async fn anthropic_errors_are_classified() {
    let envelope = |kind: &str, message: &str| json!({"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_011synthetic"});
    let cases: Vec<(&str, ResponseTemplate, ModelErrorKind, &str, bool)> = vec![
        ("529", ResponseTemplate::new(529).set_body_json(envelope("overloaded_error", "Overloaded")), ModelErrorKind::Overloaded, "model.overloaded", true),
        ("401", ResponseTemplate::new(401).set_body_json(envelope("authentication_error", "invalid x-api-key")), ModelErrorKind::Auth, "model.unauthorized", false),
        ("403", ResponseTemplate::new(403).set_body_json(envelope("permission_error", "no access to this model")), ModelErrorKind::Auth, "model.unauthorized", false),
        ("400 prompt too long", ResponseTemplate::new(400).set_body_json(envelope("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum")), ModelErrorKind::ContextLength, "model.context_length_exceeded", false),
        ("400 pairing", ResponseTemplate::new(400).set_body_json(envelope("invalid_request_error", "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01B.")), ModelErrorKind::InvalidRequest, "model.invalid_request", false),
        ("402", ResponseTemplate::new(402).set_body_json(envelope("billing_error", "credit balance too low")), ModelErrorKind::Quota, "model.quota_exceeded", false),
        ("500", ResponseTemplate::new(500).set_body_json(envelope("api_error", "Internal server error")), ModelErrorKind::Transient, "model.transient", true),
        ("200 error body", ResponseTemplate::new(200).set_body_json(envelope("overloaded_error", "Overloaded")), ModelErrorKind::Overloaded, "model.overloaded", true),
        ("200 not a message", ResponseTemplate::new(200).set_body_json(json!({"id": "x"})), ModelErrorKind::Transient, "model.upstream_invalid_response", true),
    ];
    for (name, response, kind, code, retryable) in cases {
        let (result, _) = generate_once(response).await;
        let error = result.unwrap_err();
        assert_eq!((error.kind, error.code()), (kind, code), "{name}: {error}");
        assert_eq!(error.is_retryable(), retryable, "{name}");
    }
}

#[tokio::test]
async fn a12_rate_limit_with_retry_after() {
    let response = ResponseTemplate::new(429)
        .insert_header("retry-after", "17")
        .insert_header("anthropic-ratelimit-input-tokens-remaining", "0")
        .set_body_json(json!({"type": "error", "error": {"type": "rate_limit_error", "message": "This request would exceed the rate limit for your organization of 400,000 input tokens per minute."}, "request_id": "req_011A12synthetic"}));
    let (result, _) = generate_once(response).await;
    let error = result.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::RateLimited);
    assert_eq!(error.code(), "model.rate_limited");
    assert_eq!(error.status, Some(429));
    assert_eq!(error.provider_code.as_deref(), Some("rate_limit_error"));
    assert_eq!(error.retry_after_ms, Some(17_000));
    assert!(error.is_retryable());
}

#[tokio::test]
async fn a11_overloaded_529_is_retryable() {
    let response = ResponseTemplate::new(529)
        .insert_header("request-id", "req_011A11synthetic")
        .set_body_json(json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_011A11synthetic"}));
    let (result, _) = generate_once(response).await;
    let error = result.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Overloaded);
    assert_eq!(error.status, Some(529));
    assert_eq!(error.provider_code.as_deref(), Some("overloaded_error"));
    assert!(error.is_retryable());
}

#[tokio::test]
async fn the_api_key_never_leaves_in_errors() {
    let body = json!({"type": "error", "error": {"type": "authentication_error", "message": format!("invalid x-api-key: {KEY}")}});
    let server = MockServer::start().await;
    answer(&server, ResponseTemplate::new(401).set_body_json(body)).await;
    let gateway = gateway(&server);
    let error = gateway.generate(call(opening(), 1)).await.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Auth);
    assert_eq!(error.code(), "model.unauthorized");
    assert_secret_hidden(&error, &gateway, KEY, "Yw42QMdistinctive");
}

#[tokio::test]
async fn no_key_no_key_header_params_and_version_override() {
    let server = MockServer::start().await;
    answer(
        &server,
        ok(message(
            "m",
            json!([{"type": "text", "text": "hi"}]),
            "end_turn",
        )),
    )
    .await;
    let mut connection = HttpConnection::anthropic(format!("{}/", server.uri()), "local");
    connection
        .headers
        .push(("anthropic-version".into(), "2099-01-01".into()));
    connection.params.insert("max_tokens".into(), json!(1000));
    connection
        .params
        .insert("system".into(), json!("ignored: owned by the adapter"));
    let mut request = call(opening(), 1);
    request.request.tool_choice = ToolChoice::Specific(read_file());
    Arc::make_mut(&mut request.request.tools)[0].input_schema["$schema"] =
        json!("https://json-schema.org/draft/2020-12/schema");
    let canonical = request.request.tools[0].input_schema.clone();
    HttpModelGateway::new(connection)
        .unwrap()
        .generate(request)
        .await
        .unwrap();
    let request = &server.received_requests().await.unwrap()[0];
    assert_eq!(request.url.path(), "/v1/messages");
    assert!(request.headers.get("x-api-key").is_none());
    let versions: Vec<_> = request
        .headers
        .get_all("anthropic-version")
        .iter()
        .collect();
    assert_eq!(versions, ["2099-01-01"]);
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(body["max_tokens"], json!(1000));
    assert_eq!(body["system"], json!("You are a writer."));
    assert_eq!(
        body["tool_choice"],
        json!({"type": "tool", "name": "workspace_read_file"})
    );
    assert!(body["tools"][0]["input_schema"].get("$schema").is_none());
    assert!(
        canonical.get("$schema").is_some(),
        "the canonical schema is untouched"
    );
}

#[test]
fn the_default_base_url_is_anthropic() {
    let gateway = HttpModelGateway::new(HttpConnection::anthropic("", "m")).unwrap();
    assert!(format!("{gateway:?}").contains("https://api.anthropic.com/v1/messages"));
}

#[tokio::test]
async fn tool_use_contract_violations_fail_fast() {
    let cases = [
        (
            tool_use("", "workspace_read_file", json!({})),
            "model.invalid_tool_call",
        ),
        (
            tool_use("t1", "get_weather", json!({})),
            "model.unknown_tool_call",
        ),
        (
            tool_use("t1", "workspace.read_file", json!({})),
            "model.unknown_tool_call",
        ),
    ];
    for (block, code) in cases {
        let (result, _) = generate_once(ok(message("bad", json!([block]), "tool_use"))).await;
        let error = result.unwrap_err();
        assert_eq!(
            (error.kind, error.code()),
            (ModelErrorKind::ContractViolation, code)
        );
    }
    let dup = json!([
        tool_use("dup", "workspace_read_file", json!({})),
        tool_use("dup", "workspace_list_files", json!({}))
    ]);
    let (result, _) = generate_once(ok(message("dup", dup, "tool_use"))).await;
    assert_eq!(result.unwrap_err().code(), "model.duplicate_tool_call_id");
}

/// Round 1: the model thinks, then reads a file and lists files in parallel. Round 2: both
/// results go back (thinking replayed first); the model writes. Round 3: an error result
/// goes back together with a user note, and a history call from another format with
/// malformed raw arguments is replayed as `{"_raw": …}`; the model answers with text.
/// Every outbound body is pinned and checked against Anthropic's transcript rules.
#[tokio::test]
async fn multi_round_conversation() {
    let server = MockServer::start().await;
    let thinking = json!({"type": "thinking", "thinking": "Read, then list.", "signature": "EqQBCkYIsyntheticR1"});
    answer(
        &server,
        ok(message(
            "msg_r1",
            json!([
                thinking,
                {"type": "text", "text": "Let me look first."},
                tool_use("toolu_r1_read", "workspace_read_file", json!({"path": "output/main.md"})),
                tool_use("toolu_r1_list", "workspace_list_files", json!({})),
            ]),
            "tool_use",
        )),
    )
    .await;
    answer(
        &server,
        ok(message(
            "msg_r2",
            json!([
                {"type": "thinking", "thinking": "Write it.", "signature": "EqQBCkYIsyntheticR2"},
                tool_use("toolu_r2_write", "workspace_write_file", json!({"path": "output/main.md", "content": "The night"})),
            ]),
            "tool_use",
        )),
    )
    .await;
    answer(
        &server,
        ok(message(
            "msg_r3",
            json!([{"type": "text", "text": "The chapter is drafted."}]),
            "end_turn",
        )),
    )
    .await;

    let gateway = gateway(&server);
    let with_params = |mut c: agent_application::ports::ModelCall| {
        c.request.parameters.max_output_tokens = Some(8000);
        c.request.parameters.reasoning_budget_tokens = Some(2048);
        c
    };
    let mut messages = opening();
    let r1 = gateway
        .generate(with_params(call(messages.clone(), 1)))
        .await
        .unwrap();
    let calls = r1.tool_calls();
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

    let r2 = gateway
        .generate(with_params(call(messages.clone(), 2)))
        .await
        .unwrap();
    let mut write = r2.tool_calls()[0].clone();
    messages.push(r2.message.clone());
    messages.push(AgentModelMessage::tool_result(AgentToolResult::error(
        &write,
        "tool.invalid_arguments",
        "content is too short",
    )));
    messages.push(AgentModelMessage::user("Make it longer."));
    // An earlier turn from another format whose arguments were not valid JSON.
    write.call_id = "call_other_format".into();
    write.arguments = json!("{\"path\":\"output/main.md\",\"content\":\"The night");
    messages.push(AgentModelMessage::new(
        agent_domain::model::ModelRole::Assistant,
        vec![agent_domain::model::AgentModelContentPart::ToolCall(
            write.clone(),
        )],
    ));
    messages.push(AgentModelMessage::tool_result(AgentToolResult::error(
        &write,
        "tool.invalid_arguments",
        "arguments are not valid JSON",
    )));

    let r3 = gateway
        .generate(with_params(call(messages, 3)))
        .await
        .unwrap();
    assert_eq!(r3.text(), "The chapter is drafted.");
    assert_eq!(r3.finish_reason, FinishReason::Stop);

    let sent = sent_bodies(&server).await;
    assert_eq!(sent.len(), 3);
    for (round, body) in sent.iter().enumerate() {
        check_anthropic_transcript(body).unwrap_or_else(|e| panic!("round {}: {e}", round + 1));
        for (wire, tool) in body["tools"].as_array().unwrap().iter().zip(tools()) {
            assert_eq!(wire["name"], json!(tool.alias));
        }
        insta::assert_json_snapshot!(
            format!("anthropic_request_{}", round + 1),
            with_anthropic_tool_names(body)
        );
    }
    let third = &sent[2]["messages"];
    assert_eq!(third[1]["content"][0], thinking, "round-1 thinking first");
    assert_eq!(
        third[3]["content"][0]["signature"],
        json!("EqQBCkYIsyntheticR2")
    );
    let error_result = &third[4]["content"][0];
    assert_eq!(error_result["is_error"], json!(true));
    assert!(
        error_result["content"]
            .as_str()
            .unwrap()
            .starts_with("## Tool error")
    );
    assert_eq!(
        third[4]["content"][1],
        json!({"type": "text", "text": "Make it longer."})
    );
    assert_eq!(
        third[5]["content"][0]["input"],
        json!({"_raw": "{\"path\":\"output/main.md\",\"content\":\"The night"})
    );
}

#[test]
fn the_anthropic_checker_catches_broken_pairing() {
    let assistant = json!({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "t", "signature": "s"},
        tool_use("a", "x", json!({})), tool_use("b", "x", json!({}))]});
    let result = |id: &str| json!({"type": "tool_result", "tool_use_id": id, "content": "ok"});
    let user = |content: Value| json!({"role": "user", "content": content});
    let body = |messages: Vec<Value>| json!({"messages": messages});
    let opening = user(json!("hi"));
    assert!(
        check_anthropic_transcript(&body(vec![
            opening.clone(),
            assistant.clone(),
            user(json!([result("a"), result("b"), {"type": "text", "text": "more"}]))
        ]))
        .is_ok()
    );
    // Unanswered, answered late, text before results, duplicate, orphan, thinking late.
    let bad = [
        vec![
            opening.clone(),
            assistant.clone(),
            user(json!([result("a")])),
        ],
        vec![opening.clone(), assistant.clone()],
        vec![
            opening.clone(),
            assistant.clone(),
            user(json!([{"type": "text", "text": "x"}, result("a"), result("b")])),
        ],
        vec![
            opening.clone(),
            assistant.clone(),
            user(json!([result("a"), result("a"), result("b")])),
        ],
        vec![user(json!([result("a")]))],
        vec![
            opening.clone(),
            json!({"role": "assistant", "content": [{"type": "text", "text": "x"}, {"type": "thinking", "thinking": "t", "signature": "s"}]}),
        ],
        vec![opening.clone(), json!({"role": "system", "content": "x"})],
        vec![opening.clone(), opening.clone()],
    ];
    for (i, messages) in bad.into_iter().enumerate() {
        assert!(
            check_anthropic_transcript(&body(messages)).is_err(),
            "case {i}"
        );
    }
}

/// Native blocks go back only to the model that produced them: the gateway stamps each
/// with its model, and a request to another model leaves them out (the turn is rebuilt
/// from its portable parts), while the same model gets them verbatim.
#[tokio::test]
async fn thinking_goes_back_only_to_the_model_that_wrote_it() {
    let server = MockServer::start().await;
    let thinking = json!({"type": "thinking", "thinking": "Read first.", "signature": "EqQBsyntheticModelBound"});
    answer(
        &server,
        ok(message(
            "msg_m1",
            json!([
                thinking,
                tool_use(
                    "toolu_m1",
                    "workspace_read_file",
                    json!({"path": "output/main.md"})
                )
            ]),
            "tool_use",
        )),
    )
    .await;
    for id in ["msg_same", "msg_other"] {
        answer(
            &server,
            ok(message(
                id,
                json!([{"type": "text", "text": "Done."}]),
                "end_turn",
            )),
        )
        .await;
    }
    let first = gateway(&server).generate(call(opening(), 1)).await.unwrap();
    let stamped = first
        .message
        .parts
        .iter()
        .find(|p| matches!(p, AgentModelContentPart::Native { .. }))
        .unwrap();
    assert!(
        matches!(stamped, AgentModelContentPart::Native { model: Some(m), .. } if m == "claude-test")
    );
    let mut messages = opening();
    messages.push(first.message.clone());
    messages.push(AgentModelMessage::tool_result(AgentToolResult::success(
        first.tool_calls()[0],
        "It was a dark night.",
        Value::Null,
    )));

    gateway(&server)
        .generate(call(messages.clone(), 2))
        .await
        .unwrap();
    let other = HttpModelGateway::new(
        HttpConnection::anthropic(server.uri(), "claude-other").with_api_key(KEY),
    )
    .unwrap();
    other.generate(call(messages, 2)).await.unwrap();

    let sent = sent_bodies(&server).await;
    let replayed = |body: &Value| body["messages"][1]["content"].clone();
    assert_eq!(
        replayed(&sent[1])[0],
        thinking,
        "same model: verbatim, first"
    );
    assert_eq!(
        replayed(&sent[2]),
        json!([{"type": "tool_use", "id": "toolu_m1", "name": "workspace_read_file", "input": {"path": "output/main.md"}}]),
        "another model: the thinking block is left out"
    );
}

/// With thinking on, Anthropic refuses a tool loop whose assistant turn lost its thinking
/// block; a response whose calls arrive without one fails fast instead of one round later.
/// Without thinking, calls stand on their own.
#[tokio::test]
async fn tool_calls_without_thinking_fail_fast_only_when_thinking_was_asked_for() {
    let bare = message(
        "msg_bare",
        json!([tool_use(
            "toolu_b",
            "workspace_read_file",
            json!({"path": "output/main.md"})
        )]),
        "tool_use",
    );
    for (budget, expected) in [
        (Some(2048), Err("model.native_metadata_lost")),
        (None, Ok(())),
    ] {
        let server = MockServer::start().await;
        answer(&server, ok(bare.clone())).await;
        let mut request = call(opening(), 1);
        request.request.parameters.reasoning_budget_tokens = budget;
        let result = gateway(&server).generate(request).await;
        assert_eq!(
            result.map(|_| ()).map_err(|e| e.code),
            expected,
            "budget {budget:?}"
        );
    }
    let mut thinking_param = connection(&MockServer::start().await);
    thinking_param.params.insert(
        "thinking".into(),
        json!({"type": "enabled", "budget_tokens": 1024}),
    );
    let server = MockServer::start().await;
    answer(&server, ok(bare)).await;
    thinking_param.base_url = server.uri();
    let error = HttpModelGateway::new(thinking_param)
        .unwrap()
        .generate(call(opening(), 1))
        .await
        .unwrap_err();
    assert_eq!(error.code, "model.native_metadata_lost");
}
