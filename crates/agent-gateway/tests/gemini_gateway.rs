//! The Gemini `generateContent` gateway against a mock provider: recorded-style responses (in
//! the provider's documented shapes, with tool names replaced by the default writer's aliases),
//! minted call ids, thought-signature replay, function-response pairing, the error classes
//! Gemini answers with, schema handling, and a whole multi-round conversation whose outbound
//! bodies are pinned and checked against Gemini's transcript rules.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::HashSet;
use std::sync::Arc;

use agent_application::ports::{ModelError, ModelErrorKind, ModelGateway};
use agent_domain::ErrorCode;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelResponse, FinishReason, ModelRole,
    TokenUsage,
};
use agent_domain::tool::{AgentToolResult, ToolChoice, ToolInvocation};
use agent_gateway::gemini::{self, SchemaMode};
use agent_gateway::{HttpConnection, HttpModelGateway};
use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};
use support::*;
use wiremock::{MockServer, ResponseTemplate};

const KEY: &str = "AIzaSy-test-Qv93ZKdistinctive";
const MODEL: &str = "gemini-test";

fn gateway(server: &MockServer) -> HttpModelGateway {
    HttpModelGateway::new(HttpConnection::gemini(server.uri(), MODEL).with_api_key(KEY)).unwrap()
}

fn ok(body: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(body)
}

fn error(status: u16, body: Value) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(body)
}

/// A response with one candidate.
fn response(id: &str, parts: Value, finish: &str) -> Value {
    json!({
        "candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": finish, "index": 0}],
        "usageMetadata": {"promptTokenCount": 29, "candidatesTokenCount": 15, "totalTokenCount": 937, "thoughtsTokenCount": 893},
        "modelVersion": "gemini-3-pro-preview",
        "responseId": id
    })
}

fn function_call(name: &str, args: Value) -> Value {
    json!({"functionCall": {"name": name, "args": args}})
}

/// G-03 with the default writer's tools: only the first call is signed.
fn parallel(id: &str) -> Value {
    let mut first = function_call("workspace_read_file", json!({"path": "output/a.md"}));
    first["thoughtSignature"] = json!("AY89a19YsnFpsyntheticG03");
    response(
        id,
        json!([first, function_call("workspace_list_files", json!({}))]),
        "STOP",
    )
}

async fn answer(server: &MockServer, response: ResponseTemplate) {
    answer_once_at(server, &gemini_path(MODEL), response).await;
}

/// One call against a fresh server answering `response`.
async fn generate_once(
    response: ResponseTemplate,
) -> (Result<AgentModelResponse, ModelError>, Vec<Value>) {
    generate_once_at(&gemini_path(MODEL), gateway, response).await
}

#[tokio::test]
async fn g01_text_with_usage_and_the_request_shape() {
    let body = json!({
        "candidates": [{"content": {"parts": [{"text": "There are **3** r's in strawberry.", "thoughtSignature": "EtoFCtcFAb4+syntheticG01"}], "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 28, "totalTokenCount": 281, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 9}], "thoughtsTokenCount": 244},
        "modelVersion": "gemini-3-pro-preview",
        "responseId": "Un6LacrVMcjUxs0PmJfWoQc"
    });
    let server = MockServer::start().await;
    answer(&server, ok(body)).await;
    let response = gateway(&server).generate(call(opening(), 1)).await.unwrap();
    assert_eq!(response.text(), "There are **3** r's in strawberry.");
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(
        response.usage,
        Some(TokenUsage {
            input_tokens: 9,
            output_tokens: 272,
            cached_input_tokens: None,
            cache_write_tokens: None,
            reasoning_tokens: Some(244),
        })
    );
    assert_eq!(
        response.response_id.as_deref(),
        Some("Un6LacrVMcjUxs0PmJfWoQc")
    );
    assert_eq!(response.model.as_deref(), Some("gemini-3-pro-preview"));
    assert_eq!(
        response.message.native_parts("gemini").collect::<Vec<_>>(),
        [
            &json!({"parts": [{"text": "There are **3** r's in strawberry.", "thoughtSignature": "EtoFCtcFAb4+syntheticG01"}]})
        ]
    );

    let request = &server.received_requests().await.unwrap()[0];
    assert_eq!(
        request.url.path(),
        "/v1beta/models/gemini-test:generateContent"
    );
    assert_eq!(
        request.url.query(),
        None,
        "the key never travels in the URL"
    );
    assert_eq!(request.headers.get("x-goog-api-key").unwrap(), KEY);
    assert!(request.headers.get("authorization").is_none());
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(
        body["systemInstruction"],
        json!({"parts": [{"text": "You are a writer."}]})
    );
    assert_eq!(
        body["contents"],
        json!([{"role": "user", "parts": [{"text": "Continue the story."}]}])
    );
    assert_eq!(
        body["toolConfig"],
        json!({"functionCallingConfig": {"mode": "AUTO"}})
    );
    assert!(body.get("generationConfig").is_none());
    assert!(body.get("model").is_none());
}

#[tokio::test]
async fn g02_single_call_gets_a_minted_id() {
    let mut part = function_call("workspace_read_file", json!({"path": "output/main.md"}));
    part["thoughtSignature"] = json!("EskgCsYgAb4+syntheticG02");
    let mut body = response("m36LaZGyCLz1xs0PtNSB-QU", json!([part]), "STOP");
    body["candidates"][0]["finishMessage"] = json!("Model generated function call(s).");
    let (result, _) = generate_once(ok(body)).await;
    let response = result.unwrap();
    assert_eq!(response.finish_reason, FinishReason::ToolCalls);
    let calls = response.tool_calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].call_id, "gemini_m36LaZGyCLz1xs0PtNSB-QU_0");
    assert_eq!(calls[0].tool_id, read_file());
    assert_eq!(calls[0].arguments, json!({"path": "output/main.md"}));
    assert_eq!(
        response.provider_metadata["finishMessage"],
        json!("Model generated function call(s).")
    );
}

#[tokio::test]
async fn g03_parallel_calls_get_ids_unique_across_responses() {
    let server = MockServer::start().await;
    answer(&server, ok(parallel("G03first"))).await;
    answer(&server, ok(parallel("G03second"))).await;
    // Neither response has a responseId: the ids come from a hash of each body.
    let mut no_id = parallel("x");
    no_id.as_object_mut().unwrap().remove("responseId");
    answer(&server, ok(no_id.clone())).await;
    no_id["candidates"][0]["content"]["parts"][1]["functionCall"]["args"] =
        json!({"dir": "output"});
    answer(&server, ok(no_id)).await;
    let gateway = gateway(&server);
    let mut ids = Vec::new();
    for round in 1..=4 {
        let response = gateway.generate(call(opening(), round)).await.unwrap();
        assert_eq!(response.finish_reason, FinishReason::ToolCalls);
        ids.extend(response.tool_calls().iter().map(|c| c.call_id.clone()));
    }
    assert_eq!(
        ids[..4],
        [
            "gemini_G03first_0",
            "gemini_G03first_1",
            "gemini_G03second_0",
            "gemini_G03second_1"
        ]
    );
    assert!(
        ids[4].starts_with("gemini_h") && ids[4].ends_with("_0"),
        "{}",
        ids[4]
    );
    assert_eq!(
        ids.iter().collect::<HashSet<_>>().len(),
        ids.len(),
        "{ids:?}"
    );
}

#[tokio::test]
async fn provider_call_ids_are_kept_and_echoed() {
    let server = MockServer::start().await;
    let body = response(
        "withIds",
        json!([{"functionCall": {"id": "fc_1", "name": "workspace_read_file", "args": {"path": "a"}}},
               {"functionCall": {"id": "fc_2", "name": "workspace_list_files", "args": {}}}]),
        "STOP",
    );
    answer(&server, ok(body)).await;
    answer(
        &server,
        ok(response("done", json!([{"text": "ok"}]), "STOP")),
    )
    .await;
    let gateway = gateway(&server);
    let first = gateway.generate(call(opening(), 1)).await.unwrap();
    let calls = first.tool_calls();
    assert_eq!(calls[0].call_id, "fc_1");
    let mut messages = opening();
    messages.push(first.message.clone());
    messages.extend(results_for(&calls));
    gateway.generate(call(messages, 2)).await.unwrap();
    let sent = sent_bodies(&server).await;
    check_gemini_transcript(&sent[1]).unwrap();
    let responses = &sent[1]["contents"][2]["parts"];
    assert_eq!(responses[0]["functionResponse"]["id"], json!("fc_1"));
    assert_eq!(responses[1]["functionResponse"]["id"], json!("fc_2"));
}

#[tokio::test]
async fn duplicate_or_unknown_calls_fail_fast() {
    let dup = json!([{"functionCall": {"id": "d", "name": "workspace_read_file", "args": {}}},
                     {"functionCall": {"id": "d", "name": "workspace_list_files", "args": {}}}]);
    let (result, _) = generate_once(ok(response("dup", dup, "STOP"))).await;
    assert_eq!(result.unwrap_err().code(), "model.duplicate_tool_call_id");
    let unknown = json!([function_call("get_weather", json!({}))]);
    let (result, _) = generate_once(ok(response("u", unknown, "STOP"))).await;
    let error = result.unwrap_err();
    assert_eq!(
        (error.kind, error.code()),
        (ModelErrorKind::ContractViolation, "model.unknown_tool_call")
    );
}

/// Round one answers with parallel calls (only the first signed); round two sends the
/// results back in reverse order. The model turn is replayed verbatim — the signature on
/// the first call part, none on the second — and the responses are paired by position.
#[tokio::test]
async fn thought_signatures_are_replayed_verbatim_and_responses_paired() {
    let server = MockServer::start().await;
    answer(&server, ok(parallel("R1"))).await;
    answer(
        &server,
        ok(response("R2", json!([{"text": "Done."}]), "STOP")),
    )
    .await;
    let gateway = gateway(&server);
    let first = gateway.generate(call(opening(), 1)).await.unwrap();
    let mut messages = opening();
    messages.push(first.message.clone());
    let mut results = results_for(&first.tool_calls());
    results.reverse();
    messages.extend(results);
    gateway.generate(call(messages, 2)).await.unwrap();
    let sent = sent_bodies(&server).await;
    check_gemini_transcript(&sent[1]).unwrap();
    let contents = &sent[1]["contents"];
    assert_eq!(
        contents[1],
        json!({"role": "model", "parts": parallel("R1")["candidates"][0]["content"]["parts"]})
    );
    assert_eq!(
        contents[2],
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "workspace_read_file", "response": {"content": "result of gemini_R1_0"}}},
            {"functionResponse": {"name": "workspace_list_files", "response": {"content": "result of gemini_R1_1"}}}
        ]})
    );
}

#[tokio::test]
async fn g04_thought_parts_become_reasoning_and_travel_only_natively() {
    let parts = json!([
        {"text": "**Counting letters**\nI will scan the word for r.", "thought": true},
        {"text": "There are 3 r's.", "thoughtSignature": "EvsFCvgFsyntheticG04"}
    ]);
    let (result, _) = generate_once(ok(response("G04", parts.clone(), "STOP"))).await;
    let response = result.unwrap();
    assert_eq!(
        response.reasoning_text(),
        "**Counting letters**\nI will scan the word for r."
    );
    assert_eq!(response.text(), "There are 3 r's.");
    // A turn without its native part (e.g. from another format) sends text and calls only.
    let mut portable = response.message.clone();
    portable
        .parts
        .retain(|p| !matches!(p, AgentModelContentPart::Native { .. }));
    portable.parts.push(AgentModelContentPart::native(
        "anthropic",
        json!({"type": "thinking"}),
    ));
    let mut messages = opening();
    messages.push(portable);
    messages.push(AgentModelMessage::user("More."));
    let body = gemini::encode(
        &call(messages, 2).request,
        &Map::new(),
        SchemaMode::JsonSchema,
    )
    .unwrap();
    assert_eq!(
        body["contents"][1],
        json!({"role": "model", "parts": [{"text": "There are 3 r's."}]})
    );
    let mut messages = opening();
    messages.push(response.message.clone());
    messages.push(AgentModelMessage::user("More."));
    let body = gemini::encode(
        &call(messages, 2).request,
        &Map::new(),
        SchemaMode::JsonSchema,
    )
    .unwrap();
    assert_eq!(body["contents"][1]["parts"], parts);
}

#[tokio::test]
async fn g05_max_tokens_is_a_length_stop() {
    let (result, _) = generate_once(ok(response(
        "G05",
        json!([{"text": "The first step is to"}]),
        "MAX_TOKENS",
    )))
    .await;
    let response = result.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Length);
    assert_eq!(response.text(), "The first step is to");
}

#[tokio::test]
async fn safety_stops_and_blocked_prompts_are_content_filtered() {
    for reason in ["SAFETY", "RECITATION", "PROHIBITED_CONTENT"] {
        let body = json!({"candidates": [{"finishReason": reason, "index": 0}], "responseId": "s"});
        let (result, _) = generate_once(ok(body)).await;
        let response = result.unwrap();
        assert_eq!(
            response.finish_reason,
            FinishReason::ContentFilter,
            "{reason}"
        );
        assert!(response.message.parts.is_empty());
    }
    let blocked = json!({
        "promptFeedback": {"blockReason": "PROHIBITED_CONTENT", "safetyRatings": [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH"}]},
        "usageMetadata": {"promptTokenCount": 15, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "G07syntheticResponseId"
    });
    let (result, _) = generate_once(ok(blocked)).await;
    let response = result.unwrap();
    assert_eq!(response.finish_reason, FinishReason::ContentFilter);
    assert_eq!(
        response.provider_metadata["blockReason"],
        json!("PROHIBITED_CONTENT")
    );
    assert_eq!(response.usage.unwrap().input_tokens, 15);
}

#[tokio::test]
async fn g06_malformed_function_call_is_an_error() {
    let body = json!({
        "candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL", "finishMessage": "Malformed function call: print(default_api.get_weather(city=Oslo))", "index": 0}],
        "usageMetadata": {"promptTokenCount": 120, "totalTokenCount": 120},
        "responseId": "G06syntheticResponseId"
    });
    let (result, _) = generate_once(ok(body)).await;
    let error = result.unwrap_err();
    assert_eq!(
        (error.kind, error.code()),
        (ModelErrorKind::ContractViolation, "model.invalid_tool_call")
    );
    assert!(
        error.message.contains("print(default_api"),
        "{}",
        error.message
    );
    let (result, _) = generate_once(ok(json!({"responseId": "x"}))).await;
    assert_eq!(
        result.unwrap_err().code(),
        "model.upstream_invalid_response"
    );
}

#[tokio::test]
async fn g10_rate_limit_with_retry_info() {
    let body = json!({"error": {
        "code": 429,
        "message": "You exceeded your current quota, please check your plan.",
        "status": "RESOURCE_EXHAUSTED",
        "details": [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "17s"}
        ]
    }});
    let (result, _) = generate_once(error(429, body)).await;
    let error = result.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::RateLimited);
    assert_eq!(error.code(), "model.rate_limited");
    assert_eq!(error.status, Some(429));
    assert_eq!(error.provider_code.as_deref(), Some("RESOURCE_EXHAUSTED"));
    assert_eq!(error.retry_after_ms, Some(17_000));
    assert!(error.is_retryable());
}

#[tokio::test]
async fn gemini_errors_are_classified() {
    let status = |code: u16, status: &str, message: &str| json!({"error": {"code": code, "message": message, "status": status}});
    let bad_key = json!({"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT",
        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]}});
    let cases: Vec<(&str, ResponseTemplate, ModelErrorKind, &str, bool)> = vec![
        (
            "503",
            error(
                503,
                status(
                    503,
                    "UNAVAILABLE",
                    "The model is overloaded. Please try again later.",
                ),
            ),
            ModelErrorKind::Overloaded,
            "model.overloaded",
            true,
        ),
        (
            "401",
            error(
                401,
                status(
                    401,
                    "UNAUTHENTICATED",
                    "Request had invalid authentication credentials.",
                ),
            ),
            ModelErrorKind::Auth,
            "model.unauthorized",
            false,
        ),
        (
            "403",
            error(
                403,
                status(
                    403,
                    "PERMISSION_DENIED",
                    "The caller does not have permission",
                ),
            ),
            ModelErrorKind::Auth,
            "model.unauthorized",
            false,
        ),
        (
            "400 bad key",
            error(400, bad_key),
            ModelErrorKind::Auth,
            "model.unauthorized",
            false,
        ),
        (
            "400 signature",
            error(
                400,
                status(
                    400,
                    "INVALID_ARGUMENT",
                    "Function call is missing a thought_signature in functionCall parts.",
                ),
            ),
            ModelErrorKind::InvalidRequest,
            "model.invalid_request",
            false,
        ),
        (
            "400 context",
            error(
                400,
                status(
                    400,
                    "INVALID_ARGUMENT",
                    "The input token count (1180345) exceeds the maximum number of tokens allowed (1048576).",
                ),
            ),
            ModelErrorKind::ContextLength,
            "model.context_length_exceeded",
            false,
        ),
        (
            "429 quota",
            error(
                429,
                status(
                    429,
                    "RESOURCE_EXHAUSTED",
                    "You exceeded your current quota. Check your plan and billing details.",
                ),
            ),
            ModelErrorKind::Quota,
            "model.quota_exceeded",
            false,
        ),
        (
            "500",
            error(
                500,
                status(500, "INTERNAL", "An internal error has occurred."),
            ),
            ModelErrorKind::Transient,
            "model.transient",
            true,
        ),
    ];
    for (name, response, kind, code, retryable) in cases {
        let (result, _) = generate_once(response).await;
        let error = result.unwrap_err();
        assert_eq!((error.kind, error.code()), (kind, code), "{name}: {error}");
        assert_eq!(error.is_retryable(), retryable, "{name}");
    }
}

#[tokio::test]
async fn the_api_key_never_leaves_in_errors() {
    let body = json!({"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": format!("API key not valid: {KEY}"),
        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}]}});
    let server = MockServer::start().await;
    answer(&server, error(400, body)).await;
    let gateway = gateway(&server);
    let error = gateway.generate(call(opening(), 1)).await.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Auth);
    assert_secret_hidden(&error, &gateway, KEY, "Qv93ZKdistinctive");
}

#[tokio::test]
async fn no_key_no_header_choice_generation_config_and_schemas() {
    let server = MockServer::start().await;
    answer(&server, ok(response("r", json!([{"text": "hi"}]), "STOP"))).await;
    let mut connection =
        HttpConnection::gemini(format!("{}/", server.uri()), format!("models/{MODEL}"));
    connection.params.insert(
        "generationConfig".into(),
        json!({"topK": 40, "temperature": 0.1}),
    );
    connection
        .params
        .insert("contents".into(), json!("ignored: owned by the adapter"));
    connection.params.insert("safetySettings".into(), json!([]));
    let mut request = call(opening(), 1);
    request.request.tool_choice = ToolChoice::Specific(read_file());
    request.request.parameters.temperature = Some(0.7);
    request.request.parameters.top_p = Some(0.9);
    request.request.parameters.max_output_tokens = Some(2048);
    request.request.parameters.reasoning_budget_tokens = Some(1024);
    let schema = &mut Arc::make_mut(&mut request.request.tools)[0].input_schema;
    schema["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    schema["properties"]["title"] = json!({"type": "string", "title": "Title"});
    let canonical = request.request.tools.clone();
    HttpModelGateway::new(connection)
        .unwrap()
        .generate(request.clone())
        .await
        .unwrap();
    let received = &server.received_requests().await.unwrap()[0];
    assert_eq!(received.url.path(), gemini_path(MODEL));
    assert!(received.headers.get("x-goog-api-key").is_none());
    let body: Value = serde_json::from_slice(&received.body).unwrap();
    check_gemini_transcript(&body).unwrap();
    assert_eq!(
        body["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["workspace_read_file"]}})
    );
    assert_eq!(
        body["generationConfig"],
        json!({"temperature": 0.1, "topP": 0.9, "maxOutputTokens": 2048, "topK": 40,
               "thinkingConfig": {"thinkingBudget": 1024, "includeThoughts": true}})
    );
    assert_eq!(body["safetySettings"], json!([]));
    assert_eq!(body["contents"][0]["role"], json!("user"));
    let declarations = body["tools"][0]["functionDeclarations"].as_array().unwrap();
    assert_declared_schemas(declarations, &canonical, "parametersJsonSchema");
    let first = &declarations[0]["parametersJsonSchema"];
    assert!(first.get("$schema").is_none());
    assert_eq!(
        first["properties"]["title"],
        json!({"type": "string", "title": "Title"})
    );
    assert_eq!(
        request.request.tools, canonical,
        "the canonical schemas are untouched"
    );
    assert!(canonical[0].input_schema.get("$schema").is_some());

    // The OpenAPI subset, on a copy: unsupported keywords go, property names stay.
    Arc::make_mut(&mut request.request.tools)[0].input_schema["additionalProperties"] =
        json!(false);
    let canonical = request.request.tools.clone();
    let body = gemini::encode(&request.request, &Map::new(), SchemaMode::OpenApi).unwrap();
    let parameters = &body["tools"][0]["functionDeclarations"][0]["parameters"];
    assert!(
        parameters.get("additionalProperties").is_none() && parameters.get("$schema").is_none()
    );
    assert_eq!(
        parameters["properties"]["title"],
        json!({"type": "string", "title": "Title"})
    );
    assert_eq!(
        request.request.tools, canonical,
        "the canonical schemas are untouched"
    );
}

#[test]
fn the_default_base_url_is_google() {
    let gateway = HttpModelGateway::new(HttpConnection::gemini("", "gemini-2.5-flash")).unwrap();
    assert!(format!("{gateway:?}").contains(
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    ));
}

#[tokio::test]
async fn history_from_another_format_is_encoded_portably() {
    // An assistant turn from another provider: its own ids are sent, its natives left out.
    let server = MockServer::start().await;
    answer(&server, ok(response("r", json!([{"text": "ok"}]), "STOP"))).await;
    let invocation = ToolInvocation {
        call_id: "toolu_01".into(),
        tool_id: read_file(),
        arguments: json!("{\"path\":"),
        provider_metadata: Value::Null,
    };
    let mut messages = opening();
    messages.push(AgentModelMessage::new(
        ModelRole::Assistant,
        vec![
            AgentModelContentPart::native(
                "anthropic",
                json!({"type": "thinking", "signature": "s"}),
            ),
            AgentModelContentPart::text("Reading."),
            AgentModelContentPart::ToolCall(invocation.clone()),
        ],
    ));
    messages.extend(results_for(&[&invocation]));
    gateway(&server).generate(call(messages, 2)).await.unwrap();
    let body = &sent_bodies(&server).await[0];
    check_gemini_transcript(body).unwrap();
    assert_eq!(
        body["contents"][1]["parts"],
        json!([{"text": "Reading."}, {"functionCall": {"name": "workspace_read_file", "args": {"_raw": "{\"path\":"}, "id": "toolu_01"}}])
    );
}

/// Round 1: the model thinks and calls read_file and list_files in parallel (only the first
/// signed, no ids). Round 2: both results go back; the model writes (signed, with an id).
/// Round 3: an error result goes back with a user note; the model answers with text. Every
/// outbound body is pinned and checked against Gemini's transcript rules.
#[tokio::test]
async fn multi_round_conversation() {
    let server = MockServer::start().await;
    let mut r1 = parallel("R1multi");
    r1["candidates"][0]["content"]["parts"]
        .as_array_mut()
        .unwrap()
        .insert(0, json!({"text": "Read, then list.", "thought": true}));
    answer(&server, ok(r1)).await;
    answer(
        &server,
        ok(response(
            "R2multi",
            json!([{"functionCall": {"id": "fc_write", "name": "workspace_write_file", "args": {"path": "output/main.md", "content": "The night"}}, "thoughtSignature": "SigR2"}]),
            "STOP",
        )),
    )
    .await;
    answer(
        &server,
        ok(response(
            "R3multi",
            json!([{"text": "The chapter is drafted."}, {"text": "", "thoughtSignature": "SigR3"}]),
            "STOP",
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
    assert_eq!(r1.reasoning_text(), "Read, then list.");
    messages.push(r1.message.clone());
    messages.extend(results_for(&r1.tool_calls()));
    let r2 = gateway
        .generate(with_params(call(messages.clone(), 2)))
        .await
        .unwrap();
    let write = r2.tool_calls()[0].clone();
    assert_eq!(write.call_id, "fc_write");
    messages.push(r2.message.clone());
    messages.push(AgentModelMessage::tool_result(AgentToolResult::error(
        &write,
        "tool.invalid_arguments",
        "content is too short",
    )));
    messages.push(AgentModelMessage::user("Make it longer."));
    let r3 = gateway
        .generate(with_params(call(messages, 3)))
        .await
        .unwrap();
    assert_eq!(r3.text(), "The chapter is drafted.");
    assert_eq!(r3.finish_reason, FinishReason::Stop);

    let sent = sent_bodies(&server).await;
    assert_eq!(sent.len(), 3);
    for (round, body) in sent.iter().enumerate() {
        check_gemini_transcript(body).unwrap_or_else(|e| panic!("round {}: {e}", round + 1));
        insta::assert_json_snapshot!(
            format!("gemini_request_{}", round + 1),
            with_gemini_tool_names(body)
        );
    }
    let third = &sent[2]["contents"];
    assert_eq!(
        third[1]["parts"][1]["thoughtSignature"],
        json!("AY89a19YsnFpsyntheticG03")
    );
    assert_eq!(third[3]["parts"][0]["thoughtSignature"], json!("SigR2"));
    let error_response = &third[4]["parts"][0]["functionResponse"];
    assert_eq!(error_response["id"], json!("fc_write"));
    assert!(
        error_response["response"]["content"]
            .as_str()
            .unwrap()
            .starts_with("## Tool error")
    );
    assert_eq!(third[4]["parts"][1], json!({"text": "Make it longer."}));
}

#[test]
fn the_gemini_checker_catches_broken_pairing() {
    let model = json!({"role": "model", "parts": [function_call("a", json!({})), function_call("b", json!({}))]});
    let answer =
        |name: &str| json!({"functionResponse": {"name": name, "response": {"content": "ok"}}});
    let user = |parts: Value| json!({"role": "user", "parts": parts});
    let body = |contents: Vec<Value>| json!({"contents": contents});
    let opening = user(json!([{"text": "hi"}]));
    assert!(
        check_gemini_transcript(&body(vec![
            opening.clone(),
            model.clone(),
            user(json!([answer("a"), answer("b"), {"text": "more"}]))
        ]))
        .is_ok()
    );
    let bad = [
        vec![opening.clone(), model.clone(), user(json!([answer("a")]))],
        vec![opening.clone(), model.clone()],
        vec![
            opening.clone(),
            model.clone(),
            user(json!([answer("b"), answer("a")])),
        ],
        vec![
            opening.clone(),
            model.clone(),
            user(json!([{"text": "x"}, answer("a"), answer("b")])),
        ],
        vec![user(json!([answer("a")]))],
        vec![
            opening.clone(),
            json!({"role": "system", "parts": [{"text": "x"}]}),
        ],
        vec![opening.clone(), opening.clone()],
        vec![
            opening.clone(),
            json!({"role": "model", "parts": [{"text": ""}]}),
        ],
    ];
    for (i, contents) in bad.into_iter().enumerate() {
        assert!(
            check_gemini_transcript(&body(contents)).is_err(),
            "case {i}"
        );
    }
}
