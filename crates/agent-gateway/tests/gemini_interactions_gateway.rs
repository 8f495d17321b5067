//! The Gemini Interactions gateway (stateless and chained) against a mock provider:
//! recorded-style interactions (in the provider's documented shapes, with tool names replaced by the
//! default writer's aliases), thought-signature replay on the exact steps, `function_result`
//! pairing, minted ids, the status mapping, the error classes, and whole multi-round
//! conversations whose outbound bodies are pinned and checked against the step rules.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::HashSet;
use std::sync::Arc;

use agent_application::ports::{ModelCall, ModelError, ModelErrorKind, ModelGateway};
use agent_domain::ErrorCode;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelResponse, FinishReason, ModelRole,
    ReasoningEffort, TokenUsage,
};
use agent_domain::tool::{AgentToolResult, ToolChoice, ToolInvocation};
use agent_gateway::continuation::Continuation;
use agent_gateway::gemini_interactions::{self, NATIVE};
use agent_gateway::{HttpConnection, HttpModelGateway};
use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};
use support::*;
use wiremock::{MockServer, ResponseTemplate};

const KEY: &str = "AIzaSy-test-Ix42PLdistinctive";
const MODEL: &str = "gemini-test";

fn connection(server: &MockServer) -> HttpConnection {
    HttpConnection::gemini_interactions(server.uri(), MODEL).with_api_key(KEY)
}

fn gateway(server: &MockServer) -> HttpModelGateway {
    HttpModelGateway::new(connection(server)).unwrap()
}

fn stateful_gateway(server: &MockServer) -> HttpModelGateway {
    let mut connection = connection(server);
    connection.params.insert("store".into(), json!(true));
    HttpModelGateway::new(connection).unwrap()
}

fn ok(body: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(body)
}

fn error(status: u16, body: Value) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(body)
}

/// An interaction in the `steps[]` shape; no `id` when `id` is `None` (`store: false`).
fn interaction(id: Option<&str>, status: &str, steps: Value) -> Value {
    let mut body = json!({
        "status": status,
        "usage": {"total_tokens": 140, "total_input_tokens": 80, "total_cached_tokens": 16, "total_output_tokens": 20, "total_tool_use_tokens": 0, "total_thought_tokens": 40},
        "created": "2026-05-15T18:52:00Z",
        "updated": "2026-05-15T18:52:00Z",
        "service_tier": "standard",
        "steps": steps,
        "object": "interaction",
        "model": "gemini-2.5-flash"
    });
    if let Some(id) = id {
        body["id"] = json!(id);
    }
    body
}

fn thought(signature: &str) -> Value {
    json!({"signature": signature, "type": "thought"})
}

fn function_call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"id": id, "type": "function_call", "name": name, "arguments": arguments})
}

fn model_output(text: &str) -> Value {
    json!({"content": [{"text": text, "type": "text"}], "type": "model_output"})
}

/// I-01 with the default writer's tools.
fn i01() -> Value {
    json!({
        "id": "v1_I01synthetic",
        "status": "requires_action",
        "usage": {"total_tokens": 109, "total_input_tokens": 53, "input_tokens_by_modality": [{"modality": "text", "tokens": 53}], "total_cached_tokens": 0, "total_output_tokens": 15, "total_tool_use_tokens": 0, "total_thought_tokens": 41},
        "created": "2026-05-15T18:52:00Z",
        "updated": "2026-05-15T18:52:00Z",
        "service_tier": "standard",
        "steps": [
            {"signature": "CtkBAQw51syntheticI01", "type": "thought"},
            {"id": "zggxzq8r", "type": "function_call", "name": "workspace_read_file", "arguments": {"path": "output/main.md"}}
        ],
        "object": "interaction",
        "model": "gemini-2.5-flash"
    })
}

/// I-02: completed after the function result.
fn i02() -> Value {
    json!({
        "id": "v1_I02synthetic",
        "status": "completed",
        "usage": {"total_tokens": 111, "total_input_tokens": 95, "input_tokens_by_modality": [{"modality": "text", "tokens": 95}], "total_cached_tokens": 0, "total_output_tokens": 16, "total_tool_use_tokens": 0, "total_thought_tokens": 0},
        "created": "2026-05-15T18:52:02Z",
        "updated": "2026-05-15T18:52:02Z",
        "service_tier": "standard",
        "steps": [
            {"signature": "CiRlMjQ4syntheticI02", "type": "thought"},
            {"content": [{"text": "The weather in San Francisco is sunny, 8 °C.", "type": "text"}], "type": "model_output"}
        ],
        "object": "interaction",
        "model": "gemini-2.5-flash"
    })
}

async fn answer(server: &MockServer, response: ResponseTemplate) {
    answer_once_at(server, INTERACTIONS_PATH, response).await;
}

/// One call against a fresh server answering `response`.
async fn generate_once(
    response: ResponseTemplate,
) -> (Result<AgentModelResponse, ModelError>, Vec<Value>) {
    generate_once_at(INTERACTIONS_PATH, gateway, response).await
}

/// The `input` steps of a request body.
fn input_of(body: &Value) -> &[Value] {
    body["input"].as_array().unwrap()
}

fn user_text(text: &str) -> Value {
    json!({"type": "user_input", "content": [{"type": "text", "text": text}]})
}

fn result_block(call_id: &str, name: &str, result: &str, is_error: bool) -> Value {
    json!({"type": "function_result", "call_id": call_id, "name": name, "result": result, "is_error": is_error})
}

#[tokio::test]
async fn i01_requires_action_decodes_the_call_and_the_request_shape() {
    let server = MockServer::start().await;
    answer(&server, ok(i01())).await;
    let mut first = call(opening(), 1);
    first.request.parameters.max_output_tokens = Some(1024);
    first.request.parameters.reasoning_effort = Some(ReasoningEffort::Low);
    let response = gateway(&server).generate(first).await.unwrap();

    assert_eq!(response.finish_reason, FinishReason::ToolCalls);
    let calls = response.tool_calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].call_id, "zggxzq8r");
    assert_eq!(calls[0].tool_id, read_file());
    assert_eq!(calls[0].arguments, json!({"path": "output/main.md"}));
    assert_eq!(calls[0].provider_metadata, Value::Null);
    assert_eq!(
        response.message.native_parts(NATIVE).collect::<Vec<_>>(),
        [&json!({"steps": i01()["steps"]})]
    );
    assert!(response.message.parts.iter().any(|p| matches!(p,
        AgentModelContentPart::Reasoning { text, signature, producer, .. }
            if text.is_empty() && signature.as_deref() == Some("CtkBAQw51syntheticI01")
                && producer.as_deref() == Some(NATIVE))));
    assert_eq!(
        response.usage,
        Some(TokenUsage {
            input_tokens: 53,
            output_tokens: 56,
            cached_input_tokens: Some(0),
            cache_write_tokens: None,
            reasoning_tokens: Some(41),
        })
    );
    assert_eq!(response.response_id.as_deref(), Some("v1_I01synthetic"));
    assert_eq!(response.model.as_deref(), Some("gemini-2.5-flash"));
    assert_eq!(
        response.provider_metadata,
        json!({"format": "gemini-interactions", "status": "requires_action", "serviceTier": "standard"})
    );
    let state = response.provider_state.unwrap();
    assert_eq!(state.provider_format(), Some("gemini-interactions"));
    assert_eq!(
        state.get("chatCompletionSource"),
        Some(&json!("makersuite"))
    );
    assert_eq!(state.native_continuation().unwrap().provider, NATIVE);
    assert_eq!(state.previous_response_id(), None, "stateless");

    let request = &server.received_requests().await.unwrap()[0];
    assert_eq!(request.url.path(), "/v1beta/interactions");
    assert_eq!(
        request.url.query(),
        None,
        "the key never travels in the URL"
    );
    assert_eq!(request.headers.get("x-goog-api-key").unwrap(), KEY);
    assert!(request.headers.get("authorization").is_none());
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    check_interactions_transcript(&body).unwrap();
    assert_eq!(body["model"], json!(MODEL));
    assert_eq!(body["system_instruction"], json!("You are a writer."));
    assert_eq!(body["input"], json!([user_text("Continue the story.")]));
    assert_eq!(
        body["store"],
        json!(false),
        "the server stores unless told not to"
    );
    assert!(body.get("previous_interaction_id").is_none());
    assert!(body.get("stream").is_none());
    assert_eq!(
        body["generation_config"],
        json!({"max_output_tokens": 1024, "thinking_level": "low", "thinking_summaries": "auto", "tool_choice": "auto"})
    );
    let wire_tools = body["tools"].as_array().unwrap();
    assert_eq!(wire_tools.len(), tools().len());
    for (wire, tool) in wire_tools.iter().zip(tools()) {
        assert_eq!(wire["type"], json!("function"));
        assert_eq!(wire["name"], json!(tool.alias));
        assert_eq!(wire["description"], json!(tool.description));
        assert_eq!(
            wire.get("parameters").cloned(),
            agent_gateway::gemini::openapi_schema(&tool.input_schema),
            "{}",
            tool.alias
        );
    }
}

/// I-01 then I-02: the model turn goes back verbatim (the thought with its signature right
/// before its call), the result as a `function_result` in the next `user_input` step.
#[tokio::test]
async fn i02_completed_after_the_function_result() {
    let server = MockServer::start().await;
    answer(&server, ok(i01())).await;
    answer(&server, ok(i02())).await;
    let gateway = gateway(&server);
    let first = gateway.generate(call(opening(), 1)).await.unwrap();
    let mut messages = opening();
    messages.push(first.message.clone());
    messages.extend(results_for(&first.tool_calls()));
    let second = gateway.generate(call(messages, 2)).await.unwrap();
    assert_eq!(second.finish_reason, FinishReason::Stop);
    assert_eq!(
        second.text(),
        "The weather in San Francisco is sunny, 8 °C."
    );
    assert_eq!(second.usage.unwrap().output_tokens, 16);
    assert_eq!(second.tool_calls().len(), 0);

    let sent = sent_bodies(&server).await;
    check_interactions_transcript(&sent[1]).unwrap();
    assert_eq!(
        sent[1]["input"],
        json!([
            user_text("Continue the story."),
            i01()["steps"][0],
            i01()["steps"][1],
            {"type": "user_input", "content": [result_block("zggxzq8r", "workspace_read_file", "result of zggxzq8r", false)]}
        ])
    );
    assert_eq!(sent[1]["store"], json!(false));
    assert!(sent[1].get("previous_interaction_id").is_none());
}

#[tokio::test]
async fn i03_a_stateless_interaction_has_no_id() {
    let body = json!({
        "status": "completed",
        "usage": {"total_tokens": 319, "total_input_tokens": 10, "input_tokens_by_modality": [{"modality": "text", "tokens": 10}], "total_cached_tokens": 0, "total_output_tokens": 33, "total_tool_use_tokens": 0, "total_thought_tokens": 276},
        "created": "2026-05-15T18:52:20Z",
        "updated": "2026-05-15T18:52:20Z",
        "service_tier": "standard",
        "steps": [
            {"signature": "CsEKAQw51syntheticI03", "type": "thought"},
            {"content": [{"text": "Madrid, Barcelona and Valencia.", "type": "text"}], "type": "model_output"}
        ],
        "object": "interaction",
        "model": "gemini-2.5-flash"
    });
    let (result, _) = generate_once(ok(body)).await;
    let response = result.unwrap();
    assert_eq!(response.text(), "Madrid, Barcelona and Valencia.");
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.response_id, None);
    assert_eq!(
        response.usage,
        Some(TokenUsage {
            input_tokens: 10,
            output_tokens: 309,
            cached_input_tokens: Some(0),
            cache_write_tokens: None,
            reasoning_tokens: Some(276),
        })
    );
    let state = response.provider_state.unwrap();
    assert_eq!(state.last_response_id(), None);
    assert_eq!(state.message_cursor(), Some(opening().len() as u64));
}

/// I-05: the pre-May-2026 `outputs[]` shape decodes alike and replays as steps.
#[tokio::test]
async fn i05_the_legacy_outputs_shape() {
    let body = json!({
        "id": "v1_I05synthetic",
        "object": "interaction",
        "status": "requires_action",
        "model": "gemini-2.5-flash",
        "created": "2026-01-10T10:00:00Z",
        "updated": "2026-01-10T10:00:00Z",
        "outputs": [
            {"type": "thought", "signature": "CtkBsyntheticI05"},
            {"type": "text", "text": "Reading it."},
            {"type": "function_call", "id": "abc123", "name": "workspace_read_file", "arguments": {"path": "output/a.md"}}
        ],
        "usage": {"total_input_tokens": 50, "total_output_tokens": 12, "total_thought_tokens": 30, "total_tokens": 92}
    });
    let server = MockServer::start().await;
    answer(&server, ok(body.clone())).await;
    answer(&server, ok(i02())).await;
    let gateway = gateway(&server);
    let first = gateway.generate(call(opening(), 1)).await.unwrap();
    assert_eq!(first.finish_reason, FinishReason::ToolCalls);
    assert_eq!(first.text(), "Reading it.");
    assert_eq!(first.tool_calls()[0].call_id, "abc123");
    assert_eq!(first.provider_metadata["legacyOutputs"], json!(true));
    assert_eq!(
        first.usage.unwrap(),
        TokenUsage {
            input_tokens: 50,
            output_tokens: 42,
            cached_input_tokens: None,
            cache_write_tokens: None,
            reasoning_tokens: Some(30),
        }
    );
    assert_eq!(
        first.message.native_parts(NATIVE).collect::<Vec<_>>(),
        [&json!({"steps": body["outputs"]})]
    );
    let mut messages = opening();
    messages.push(first.message.clone());
    messages.extend(results_for(&first.tool_calls()));
    gateway.generate(call(messages, 2)).await.unwrap();
    let second = &sent_bodies(&server).await[1];
    check_interactions_transcript(second).unwrap();
    assert_eq!(
        input_of(second)[1..4],
        [
            body["outputs"][0].clone(),
            json!({"type": "model_output", "content": [{"type": "text", "text": "Reading it."}]}),
            body["outputs"][2].clone(),
        ]
    );
}

/// Two calls in one turn (only the first signed); the results come back in reverse order
/// and are sent in call order, each with its own call id.
#[tokio::test]
async fn parallel_calls_pair_by_call_id_in_call_order() {
    let mut signed = function_call(
        "fc_a",
        "workspace_read_file",
        json!({"path": "output/a.md"}),
    );
    signed["signature"] = json!("SigParallel");
    let steps = json!([
        thought("SigThought"),
        signed,
        function_call("fc_b", "workspace_list_files", json!({}))
    ]);
    let server = MockServer::start().await;
    answer(
        &server,
        ok(interaction(
            Some("v1_par"),
            "requires_action",
            steps.clone(),
        )),
    )
    .await;
    answer(
        &server,
        ok(interaction(
            None,
            "completed",
            json!([model_output("Done.")]),
        )),
    )
    .await;
    let gateway = gateway(&server);
    let first = gateway.generate(call(opening(), 1)).await.unwrap();
    let ids: Vec<_> = first
        .tool_calls()
        .iter()
        .map(|c| c.call_id.clone())
        .collect();
    assert_eq!(ids, ["fc_a", "fc_b"]);
    let mut messages = opening();
    messages.push(first.message.clone());
    let mut results = results_for(&first.tool_calls());
    results.reverse();
    messages.extend(results);
    gateway.generate(call(messages, 2)).await.unwrap();
    let second = &sent_bodies(&server).await[1];
    check_interactions_transcript(second).unwrap();
    let input = second["input"].as_array().unwrap();
    assert_eq!(input[1..4], steps.as_array().unwrap()[..]);
    assert_eq!(
        input[4],
        json!({"type": "user_input", "content": [
            result_block("fc_a", "workspace_read_file", "result of fc_a", false),
            result_block("fc_b", "workspace_list_files", "result of fc_b", false)
        ]})
    );
    assert_eq!(input.len(), 5);
}

/// Thoughts interleaved with calls, and built-in tool steps this adapter does not know:
/// decoded into reasoning and calls, and replayed exactly as they came — except each call's
/// name, which follows the alias the *current* request gives its tool (also on its result).
#[tokio::test]
async fn thoughts_and_unknown_steps_are_replayed_on_their_exact_steps() {
    let mut read = function_call(
        "fc_r",
        "workspace_read_file",
        json!({"path": "output/a.md"}),
    );
    read["signature"] = json!("SigOnTheCall");
    let steps = json!([
        {"type": "thought", "signature": "SigA", "summary": [{"type": "text", "text": "Search first."}]},
        {"type": "google_search_call", "id": "gs_1", "arguments": {"queries": ["night"]}},
        {"type": "google_search_result", "call_id": "gs_1", "result": [{"title": "Night", "url": "https://example.com"}]},
        read,
        {"type": "thought", "signature": "SigB"},
        function_call("fc_l", "workspace_list_files", json!({"dir": "output"}))
    ]);
    let server = MockServer::start().await;
    answer(
        &server,
        ok(interaction(Some("v1_t"), "requires_action", steps.clone())),
    )
    .await;
    answer(
        &server,
        ok(interaction(
            Some("v1_t2"),
            "completed",
            json!([model_output("Ok.")]),
        )),
    )
    .await;
    let gateway = gateway(&server);
    let first = gateway.generate(call(opening(), 1)).await.unwrap();
    assert_eq!(first.reasoning_text(), "Search first.");
    let signatures: Vec<_> = first
        .message
        .parts
        .iter()
        .filter_map(|p| match p {
            AgentModelContentPart::Reasoning { signature, .. } => signature.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(signatures, ["SigA", "SigB"]);
    assert_eq!(first.tool_calls().len(), 2);
    assert_eq!(first.text(), "");

    let mut messages = opening();
    messages.push(first.message.clone());
    messages.extend(results_for(&first.tool_calls()));
    let mut second = call(messages, 2);
    let renamed = Arc::make_mut(&mut second.request.tools)
        .iter_mut()
        .find(|t| t.tool_id == read_file())
        .unwrap();
    renamed.alias = "read_file_v2".into();
    gateway.generate(second).await.unwrap();
    let body = &sent_bodies(&server).await[1];
    check_interactions_transcript(body).unwrap();
    let mut expected = steps.as_array().unwrap().clone();
    expected[3]["name"] = json!("read_file_v2");
    assert_eq!(input_of(body)[1..7], expected[..]);
    assert_eq!(
        body["input"][7]["content"][0]["name"],
        json!("read_file_v2")
    );
}

#[tokio::test]
async fn history_from_another_format_is_encoded_portably() {
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
            AgentModelContentPart::Reasoning {
                text: "Let me read.".into(),
                summary: None,
                signature: Some("s".into()),
                opaque: None,
                producer: Some("anthropic".into()),
            },
            AgentModelContentPart::text("Reading"),
            AgentModelContentPart::text(" now."),
            AgentModelContentPart::ToolCall(invocation.clone()),
        ],
    ));
    messages.extend(results_for(&[&invocation]));
    let body = gemini_interactions::encode(
        &call(messages, 2).request,
        MODEL,
        &Map::new(),
        false,
        Continuation::Full,
    )
    .unwrap();
    check_interactions_transcript(&body).unwrap();
    assert_eq!(
        input_of(&body)[1..3],
        [
            json!({"type": "model_output", "content": [{"type": "text", "text": "Reading"}, {"type": "text", "text": " now."}]}),
            json!({"type": "function_call", "id": "toolu_01", "name": "workspace_read_file", "arguments": {"_raw": "{\"path\":"}}),
        ]
    );
    assert!(!body.to_string().contains("thinking"));
}

#[tokio::test]
async fn a_historical_call_whose_tool_left_the_request_fails_fast() {
    let server = MockServer::start().await;
    answer(&server, ok(i01())).await;
    let gateway = gateway(&server);
    let first = gateway.generate(call(opening(), 1)).await.unwrap();
    let mut messages = opening();
    messages.push(first.message.clone());
    messages.extend(results_for(&first.tool_calls()));
    let mut second = call(messages, 2);
    Arc::make_mut(&mut second.request.tools).retain(|t| t.tool_id != read_file());
    let error = gateway.generate(second).await.unwrap_err();
    assert_eq!(
        (error.kind, error.code()),
        (
            ModelErrorKind::ContractViolation,
            "model.tool_not_in_request"
        )
    );
    assert_eq!(sent_bodies(&server).await.len(), 1, "nothing more was sent");
}

#[tokio::test]
async fn calls_without_ids_get_minted_ids_unique_across_interactions() {
    let server = MockServer::start().await;
    let no_id = |path: &str| {
        interaction(
            None,
            "requires_action",
            json!([{"type": "function_call", "name": "workspace_read_file", "arguments": {"path": path}}]),
        )
    };
    answer(&server, ok(no_id("a.md"))).await;
    answer(&server, ok(no_id("b.md"))).await;
    answer(
        &server,
        ok(interaction(
            Some("v1_m"),
            "requires_action",
            json!([{"type": "function_call", "id": "", "name": "workspace_list_files"}]),
        )),
    )
    .await;
    answer(
        &server,
        ok(interaction(None, "completed", json!([model_output("ok")]))),
    )
    .await;
    let gateway = gateway(&server);
    let mut ids = Vec::new();
    let mut last = None;
    for round in 1..=3 {
        let response = gateway.generate(call(opening(), round)).await.unwrap();
        assert_eq!(response.finish_reason, FinishReason::ToolCalls);
        let call = response.tool_calls()[0].clone();
        assert_eq!(
            call.provider_metadata,
            json!({"interactionsMintedId": true})
        );
        ids.push(call.call_id.clone());
        last = Some(response);
    }
    assert!(
        ids[0].starts_with("interactions_h") && ids[0].ends_with("_0"),
        "{}",
        ids[0]
    );
    assert_eq!(ids[2], "interactions_v1_m_0");
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 3, "{ids:?}");

    // The minted id is written onto the replayed step so its result pairs with it; a call
    // without arguments replays as the step came.
    let last = last.unwrap();
    let mut messages = opening();
    messages.push(last.message.clone());
    messages.extend(results_for(&last.tool_calls()));
    gateway.generate(call(messages, 4)).await.unwrap();
    let body = &sent_bodies(&server).await[3];
    assert_eq!(
        body["input"][1],
        json!({"type": "function_call", "id": "interactions_v1_m_0", "name": "workspace_list_files"})
    );
    assert_eq!(
        body["input"][2]["content"][0]["call_id"],
        json!("interactions_v1_m_0")
    );
}

#[tokio::test]
async fn duplicate_or_unknown_calls_fail_fast() {
    let dup = json!([
        function_call("d", "workspace_read_file", json!({})),
        function_call("d", "workspace_list_files", json!({}))
    ]);
    let (result, _) = generate_once(ok(interaction(Some("x"), "requires_action", dup))).await;
    assert_eq!(result.unwrap_err().code(), "model.duplicate_tool_call_id");
    let unknown = json!([function_call(
        "u",
        "getWeather",
        json!({"location": "Oslo"})
    )]);
    let (result, _) = generate_once(ok(interaction(Some("x"), "requires_action", unknown))).await;
    let error = result.unwrap_err();
    assert_eq!(
        (error.kind, error.code()),
        (ModelErrorKind::ContractViolation, "model.unknown_tool_call")
    );
}

#[tokio::test]
async fn statuses_map_to_finish_reasons() {
    // Truncated: whatever text came is kept.
    let (result, _) = generate_once(ok(interaction(
        Some("v1_inc"),
        "incomplete",
        json!([thought("SigInc"), model_output("The first step is to")]),
    )))
    .await;
    let response = result.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Length);
    assert_eq!(response.text(), "The first step is to");
    assert_eq!(response.provider_metadata["status"], json!("incomplete"));

    // A call under `completed` is still a tool-call turn.
    let (result, _) = generate_once(ok(interaction(
        Some("v1_c"),
        "completed",
        json!([function_call("c1", "workspace_list_files", json!({}))]),
    )))
    .await;
    assert_eq!(result.unwrap().finish_reason, FinishReason::ToolCalls);

    let (result, _) = generate_once(ok(interaction(Some("v1_x"), "cancelled", json!([])))).await;
    let response = result.unwrap();
    assert_eq!(
        response.finish_reason,
        FinishReason::Other("cancelled".into())
    );
    assert!(
        response.message.parts.is_empty(),
        "no steps, no native part"
    );

    // `failed` without an error object: nothing to classify, a transient failure.
    let (result, _) = generate_once(ok(interaction(Some("v1_f"), "failed", json!([])))).await;
    let error = result.unwrap_err();
    assert_eq!(
        (error.kind, error.code()),
        (ModelErrorKind::Transient, "model.transient")
    );
    assert!(error.is_retryable());

    // Not an interaction at all.
    let (result, _) = generate_once(ok(json!({"object": "response", "status": "completed"}))).await;
    assert_eq!(
        result.unwrap_err().code(),
        "model.upstream_invalid_response"
    );
    let (result, _) = generate_once(ok(json!({"candidates": []}))).await;
    assert_eq!(
        result.unwrap_err().code(),
        "model.upstream_invalid_response"
    );
}

/// HTTP 200 is not success: a `failed` interaction carrying an `error` is classified by the
/// shared transport before decoding.
#[tokio::test]
async fn an_error_inside_a_200_body_is_classified() {
    let mut failed = interaction(Some("v1_err"), "failed", json!([]));
    failed["error"] = json!({"code": "internal", "message": "An internal error occurred."});
    let error = generate_once(ok(failed)).await.0.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Transient);
    assert_eq!(error.status, Some(200));
    assert_eq!(error.provider_code.as_deref(), Some("internal"));

    let limited = json!({"error": {"code": "resource_exhausted", "message": "Too many requests, please retry."}});
    let error = generate_once(ok(limited)).await.0.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::RateLimited);
}

#[tokio::test]
async fn rate_limit_429_with_retry_info_or_retry_after() {
    let body = json!({"error": {
        "code": 429,
        "message": "You exceeded your current quota, please check your plan.",
        "status": "RESOURCE_EXHAUSTED",
        "details": [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "17s"}
        ]
    }});
    let error = generate_once(error(429, body)).await.0.unwrap_err();
    assert_eq!(
        (error.kind, error.code()),
        (ModelErrorKind::RateLimited, "model.rate_limited")
    );
    assert_eq!(error.status, Some(429));
    assert_eq!(error.provider_code.as_deref(), Some("RESOURCE_EXHAUSTED"));
    assert_eq!(error.retry_after_ms, Some(17_000));
    assert!(error.is_retryable());

    // The Interactions envelope: a lowercase string code, the delay in a header.
    let response = ResponseTemplate::new(429)
        .insert_header("retry-after", "7")
        .set_body_json(json!({"error": {"code": "resource_exhausted", "message": "Too many requests, please retry."}}));
    let error = generate_once(response).await.0.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::RateLimited);
    assert_eq!(error.provider_code.as_deref(), Some("resource_exhausted"));
    assert_eq!(error.retry_after_ms, Some(7_000));
}

#[tokio::test]
async fn interactions_errors_are_classified() {
    let err = |code: &str, message: &str| json!({"error": {"code": code, "message": message}});
    let cases: Vec<(&str, ResponseTemplate, ModelErrorKind, &str, bool)> = vec![
        (
            "I-06 400",
            error(
                400,
                err(
                    "invalid_request",
                    "The value 'invalid_tool_type_xyz' is not supported for 'type' at 'tools[0]'.",
                ),
            ),
            ModelErrorKind::InvalidRequest,
            "model.invalid_request",
            false,
        ),
        (
            "400 signature",
            error(
                400,
                err(
                    "missing_thought_signature",
                    "Function call is missing a thought signature.",
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
                err(
                    "invalid_request",
                    "The input token count (1180345) exceeds the maximum number of tokens allowed (1048576).",
                ),
            ),
            ModelErrorKind::ContextLength,
            "model.context_length_exceeded",
            false,
        ),
        (
            "404",
            error(404, err("not_found", "Interaction v1_gone was not found.")),
            ModelErrorKind::InvalidRequest,
            "model.invalid_request",
            false,
        ),
        (
            "401",
            error(
                401,
                err(
                    "unauthenticated",
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
                err("permission_denied", "The caller does not have permission."),
            ),
            ModelErrorKind::Auth,
            "model.unauthorized",
            false,
        ),
        (
            "400 bad key",
            error(
                400,
                json!({"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT",
                    "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]}}),
            ),
            ModelErrorKind::Auth,
            "model.unauthorized",
            false,
        ),
        (
            "500",
            error(500, err("internal", "An internal error has occurred.")),
            ModelErrorKind::Transient,
            "model.transient",
            true,
        ),
        (
            "503",
            error(
                503,
                err(
                    "unavailable",
                    "The model is overloaded. Please try again later.",
                ),
            ),
            ModelErrorKind::Overloaded,
            "model.overloaded",
            true,
        ),
    ];
    for (name, response, kind, code, retryable) in cases {
        let error = generate_once(response).await.0.unwrap_err();
        assert_eq!((error.kind, error.code()), (kind, code), "{name}: {error}");
        assert_eq!(error.is_retryable(), retryable, "{name}");
        assert!(error.status.is_some(), "{name}");
    }
}

#[tokio::test]
async fn the_api_key_never_leaves_in_errors() {
    let body = json!({"error": {"code": "unauthenticated", "message": format!("API key {KEY} is not valid.")}});
    let server = MockServer::start().await;
    answer(&server, error(401, body)).await;
    let gateway = gateway(&server);
    let error = gateway.generate(call(opening(), 1)).await.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Auth);
    assert_secret_hidden(&error, &gateway, KEY, "Ix42PLdistinctive");
}

#[tokio::test]
async fn no_key_no_header_params_choice_and_sanitised_schemas() {
    let server = MockServer::start().await;
    answer(
        &server,
        ok(interaction(None, "completed", json!([model_output("hi")]))),
    )
    .await;
    let mut connection = HttpConnection::gemini_interactions(format!("{}/", server.uri()), MODEL);
    connection.params.insert(
        "generation_config".into(),
        json!({"top_k": 40, "temperature": 0.1, "tool_choice": "none"}),
    );
    connection
        .params
        .insert("input".into(), json!("ignored: owned by the adapter"));
    connection.params.insert("stream".into(), json!(true));
    connection
        .params
        .insert("response_modalities".into(), json!(["text"]));
    let mut request = call(opening(), 1);
    request.request.tool_choice = ToolChoice::Specific(read_file());
    request.request.parameters.temperature = Some(0.7);
    request.request.parameters.top_p = Some(0.9);
    request.request.parameters.max_output_tokens = Some(2048);
    request.request.parameters.stop = vec!["THE END".into()];
    request.request.parameters.reasoning_effort = Some(ReasoningEffort::High);
    request.request.parameters.reasoning_budget_tokens = Some(1024);
    request
        .request
        .parameters
        .extra
        .insert("service_tier".into(), json!("flex"));
    let schema = &mut Arc::make_mut(&mut request.request.tools)[0].input_schema;
    schema["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    schema["additionalProperties"] = json!(false);
    schema["properties"]["title"] = json!({"type": "string", "title": "Title"});
    let canonical = request.request.tools.clone();
    HttpModelGateway::new(connection)
        .unwrap()
        .generate(request.clone())
        .await
        .unwrap();
    let received = &server.received_requests().await.unwrap()[0];
    assert_eq!(received.url.path(), INTERACTIONS_PATH);
    assert!(received.headers.get("x-goog-api-key").is_none());
    let body: Value = serde_json::from_slice(&received.body).unwrap();
    check_interactions_transcript(&body).unwrap();
    assert_eq!(
        body["generation_config"],
        json!({
            "temperature": 0.1, "top_p": 0.9, "max_output_tokens": 2048, "top_k": 40,
            "stop_sequences": ["THE END"], "thinking_level": "high", "thinking_summaries": "auto",
            "tool_choice": {"allowed_tools": {"mode": "validated", "tools": ["workspace_read_file"]}}
        })
    );
    assert_eq!(body["input"], json!([user_text("Continue the story.")]));
    assert!(body.get("stream").is_none(), "owned: never switched on");
    assert_eq!(body["response_modalities"], json!(["text"]));
    assert_eq!(body["service_tier"], json!("flex"));
    let first = &body["tools"][0]["parameters"];
    assert!(first.get("$schema").is_none() && first.get("additionalProperties").is_none());
    assert_eq!(
        first["properties"]["title"],
        json!({"type": "string", "title": "Title"}),
        "property names are data, not keywords"
    );
    assert_declared_schemas(body["tools"].as_array().unwrap(), &canonical, "parameters");
    assert_eq!(
        request.request.tools, canonical,
        "the canonical schemas are untouched"
    );

    // Without tools there is no tool choice to send.
    let mut bare = call(opening(), 1).request;
    Arc::make_mut(&mut bare.tools).clear();
    let body =
        gemini_interactions::encode(&bare, MODEL, &Map::new(), false, Continuation::Full).unwrap();
    assert!(body.get("tools").is_none() && body.get("generation_config").is_none());
    for (choice, wire) in [
        (ToolChoice::None, json!("none")),
        (ToolChoice::Required, json!("any")),
    ] {
        let mut request = call(opening(), 1).request;
        request.tool_choice = choice;
        let body =
            gemini_interactions::encode(&request, MODEL, &Map::new(), false, Continuation::Full)
                .unwrap();
        assert_eq!(body["generation_config"]["tool_choice"], wire);
    }
}

#[test]
fn the_default_base_url_is_google() {
    let gateway =
        HttpModelGateway::new(HttpConnection::gemini_interactions("", "gemini-2.5-flash")).unwrap();
    assert!(
        format!("{gateway:?}")
            .contains("https://generativelanguage.googleapis.com/v1beta/interactions")
    );
}

#[test]
fn session_fields_are_refused_clearly_and_unknown_formats_list_all_five() {
    let with = |field: &str, value: Value| {
        let mut c = HttpConnection::gemini_interactions("http://localhost:1", "m");
        c.params.insert(field.into(), value);
        c
    };
    for connection in [
        with("previous_interaction_id", json!("v1_1")),
        with("background", json!(true)),
        with("store", json!("yes")),
    ] {
        let error = HttpModelGateway::new(connection).unwrap_err();
        assert_eq!(error.code(), "model.format_unsupported");
        assert!(
            error.message.starts_with("gemini-interactions: "),
            "{}",
            error.message
        );
    }
    assert!(HttpModelGateway::new(with("store", json!(true))).is_ok());
}

#[tokio::test]
async fn a_chained_predecessor_in_request_extras_is_refused_before_sending() {
    let server = MockServer::start().await;
    let mut request = call(opening(), 1);
    request
        .request
        .parameters
        .extra
        .insert("previous_interaction_id".into(), json!("v1_0"));
    let error = gateway(&server).generate(request).await.unwrap_err();
    assert_eq!(error.code(), "model.format_unsupported");
    assert!(sent_bodies(&server).await.is_empty());

    // A chained request without storage is incoherent and refused by the encoder itself.
    let chained = Continuation::Chained {
        previous_id: "v1_0",
        start: 2,
    };
    let error = gemini_interactions::encode(
        &call(opening(), 1).request,
        MODEL,
        &Map::new(),
        false,
        chained,
    )
    .unwrap_err();
    assert_eq!(error.code(), "model.format_unsupported");
}

/// `store=true`: round 1 carries everything; round 2 names the stored interaction and
/// carries only the new `function_result`; round 3 only the user's follow-up. The system
/// instruction and tools are resent every time.
#[tokio::test]
async fn the_stateful_mode_chains_interactions_and_sends_only_new_steps() {
    let server = MockServer::start().await;
    answer(&server, ok(i01())).await;
    answer(&server, ok(i02())).await;
    answer(
        &server,
        ok(interaction(
            Some("v1_c3"),
            "completed",
            json!([model_output("Longer now.")]),
        )),
    )
    .await;
    let gateway = stateful_gateway(&server);

    let mut messages = opening();
    let r1 = gateway.generate(call(messages.clone(), 1)).await.unwrap();
    let state1 = r1.provider_state.clone().unwrap();
    assert_eq!(state1.previous_response_id(), Some("v1_I01synthetic"));
    assert_eq!(state1.message_cursor(), Some(messages.len() as u64));
    messages.push(r1.message.clone());
    messages.extend(results_for(&r1.tool_calls()));

    let mut second = call(messages.clone(), 2);
    second.request.provider_state = state1;
    let r2 = gateway.generate(second).await.unwrap();
    assert_eq!(r2.text(), "The weather in San Francisco is sunny, 8 °C.");
    let state2 = r2.provider_state.clone().unwrap();
    assert_eq!(state2.previous_response_id(), Some("v1_I02synthetic"));
    messages.push(r2.message.clone());
    messages.push(AgentModelMessage::user("Make it longer."));

    let mut third = call(messages, 3);
    third.request.provider_state = state2;
    gateway.generate(third).await.unwrap();

    let sent = sent_bodies(&server).await;
    assert_eq!(sent.len(), 3);
    assert!(sent[0].get("previous_interaction_id").is_none());
    assert_eq!(sent[0]["input"], json!([user_text("Continue the story.")]));
    assert_eq!(sent[1]["previous_interaction_id"], json!("v1_I01synthetic"));
    assert_eq!(
        sent[1]["input"],
        json!([{"type": "user_input", "content": [result_block("zggxzq8r", "workspace_read_file", "result of zggxzq8r", false)]}])
    );
    assert_eq!(sent[2]["previous_interaction_id"], json!("v1_I02synthetic"));
    assert_eq!(sent[2]["input"], json!([user_text("Make it longer.")]));
    for body in &sent {
        check_interactions_transcript(body).unwrap();
        assert_eq!(body["store"], json!(true));
        assert_eq!(body["system_instruction"], json!("You are a writer."));
        assert_eq!(body["tools"].as_array().unwrap().len(), tools().len());
    }
}

#[tokio::test]
async fn a_stateful_interaction_without_an_id_cannot_be_continued() {
    let server = MockServer::start().await;
    answer(
        &server,
        ok(interaction(None, "completed", json!([model_output("Hi.")]))),
    )
    .await;
    let error = stateful_gateway(&server)
        .generate(call(opening(), 1))
        .await
        .unwrap_err();
    assert_eq!(error.code(), "agent.provider_state_invalid");
}

/// Round 1: the model thinks (with a summary) and calls read_file and list_files in
/// parallel. Round 2: both results go back (list_files failed); the model thinks, says a
/// word and calls write_file. Round 3: that call failed; the error result and a user
/// follow-up go back with write_file forced; the model writes again. Round 4: the success
/// goes back; the model answers with text. Every outbound body is pinned and checked
/// against the step rules.
#[tokio::test]
async fn multi_round_conversation() {
    let server = MockServer::start().await;
    let t1 = json!({"type": "thought", "signature": "SigR1", "summary": [{"type": "text", "text": "Read, then list."}]});
    let mut read = function_call(
        "r1_read",
        "workspace_read_file",
        json!({"path": "output/main.md"}),
    );
    read["signature"] = json!("SigR1call");
    answer(
        &server,
        ok(interaction(
            Some("v1_r1"),
            "requires_action",
            json!([
                t1,
                read,
                function_call("r1_list", "workspace_list_files", json!({}))
            ]),
        )),
    )
    .await;
    let t2 = thought("SigR2");
    answer(
        &server,
        ok(interaction(
            Some("v1_r2"),
            "requires_action",
            json!([
                t2,
                model_output("Drafting now."),
                function_call(
                    "r2_write",
                    "workspace_write_file",
                    json!({"path": "output/main.md", "content": "The night"})
                )
            ]),
        )),
    )
    .await;
    let t3 = thought("SigR3");
    answer(
        &server,
        ok(interaction(
            Some("v1_r3"),
            "requires_action",
            json!([
                t3,
                function_call(
                    "r3_write",
                    "workspace_write_file",
                    json!({"path": "output/main.md", "content": "The night was long and dark."})
                )
            ]),
        )),
    )
    .await;
    answer(
        &server,
        ok(interaction(
            Some("v1_r4"),
            "completed",
            json!([thought("SigR4"), model_output("The chapter is drafted.")]),
        )),
    )
    .await;

    let gateway = gateway(&server);
    let with_params = |mut c: ModelCall| {
        c.request.parameters.max_output_tokens = Some(8000);
        c.request.parameters.reasoning_effort = Some(ReasoningEffort::Medium);
        c
    };
    let mut messages = opening();
    let r1 = gateway
        .generate(with_params(call(messages.clone(), 1)))
        .await
        .unwrap();
    assert_eq!(r1.reasoning_text(), "Read, then list.");
    let calls = r1.tool_calls();
    messages.push(r1.message.clone());
    messages.push(AgentModelMessage::tool_result(AgentToolResult::success(
        calls[0],
        "It was a dark night.",
        json!({"bytes": 20}),
    )));
    messages.push(AgentModelMessage::tool_result(AgentToolResult::error(
        calls[1],
        "tool.failed",
        "listing is unavailable",
    )));

    let r2 = gateway
        .generate(with_params(call(messages.clone(), 2)))
        .await
        .unwrap();
    assert_eq!(r2.text(), "Drafting now.");
    let write = r2.tool_calls()[0].clone();
    messages.push(r2.message.clone());
    messages.push(AgentModelMessage::tool_result(AgentToolResult::error(
        &write,
        "tool.invalid_arguments",
        "content is too short",
    )));
    messages.push(AgentModelMessage::user("Make it longer."));

    let mut third = with_params(call(messages.clone(), 3));
    third.request.tool_choice = ToolChoice::Specific(write_file());
    let r3 = gateway.generate(third).await.unwrap();
    let rewrite = r3.tool_calls()[0].clone();
    assert_eq!(rewrite.call_id, "r3_write");
    messages.push(r3.message.clone());
    messages.push(AgentModelMessage::tool_result(AgentToolResult::success(
        &rewrite,
        "written",
        Value::Null,
    )));

    let r4 = gateway
        .generate(with_params(call(messages, 4)))
        .await
        .unwrap();
    assert_eq!(r4.text(), "The chapter is drafted.");
    assert_eq!(r4.finish_reason, FinishReason::Stop);

    let sent = sent_bodies(&server).await;
    assert_eq!(sent.len(), 4);
    for (round, body) in sent.iter().enumerate() {
        check_interactions_transcript(body).unwrap_or_else(|e| panic!("round {}: {e}", round + 1));
        assert_eq!(body["store"], json!(false));
        assert_eq!(body["system_instruction"], json!("You are a writer."));
        insta::assert_json_snapshot!(
            format!("gemini_interactions_request_{}", round + 1),
            with_interactions_tool_names(body)
        );
    }
    let input = sent[3]["input"].as_array().unwrap();
    let kinds: Vec<&str> = input.iter().map(|s| s["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "user_input",
            "thought",
            "function_call",
            "function_call",
            "user_input",
            "thought",
            "model_output",
            "function_call",
            "user_input",
            "user_input",
            "thought",
            "function_call",
            "user_input"
        ]
    );
    assert_eq!(
        input[1]["signature"],
        json!("SigR1"),
        "round-1 thought in place"
    );
    assert_eq!(
        input[2]["signature"],
        json!("SigR1call"),
        "signature on its own call"
    );
    assert_eq!(input[5], thought("SigR2"), "round-2 thought in place");
    assert_eq!(input[10], thought("SigR3"), "round-3 thought in place");
    assert_eq!(
        input[4]["content"][1],
        result_block(
            "r1_list",
            "workspace_list_files",
            "## Tool error\n\nlisting is unavailable",
            true
        )
    );
    assert_eq!(input[8]["content"][0]["is_error"], json!(true));
    assert_eq!(input[9], user_text("Make it longer."));
    assert_eq!(
        sent[2]["generation_config"]["tool_choice"],
        json!({"allowed_tools": {"mode": "validated", "tools": ["workspace_write_file"]}})
    );
}

#[test]
fn the_interactions_checker_catches_broken_pairing() {
    let call_step = |id: &str| function_call(id, "t", json!({}));
    let results = |ids: &[&str]| json!({"type": "user_input", "content": ids.iter().map(|id| result_block(id, "t", "ok", false)).collect::<Vec<_>>()});
    let body = |input: Vec<Value>| json!({"input": input});
    let opening = user_text("hi");
    let good = vec![
        opening.clone(),
        thought("s"),
        call_step("a"),
        call_step("b"),
        results(&["b", "a"]),
        user_text("more"),
    ];
    assert_eq!(check_interactions_transcript(&body(good)), Ok(()));
    let chained = json!({"previous_interaction_id": "v1", "input": [results(&["x"]), thought("s"), model_output("ok")]});
    assert_eq!(check_interactions_transcript(&chained), Ok(()));
    let bad = [
        vec![
            opening.clone(),
            call_step("a"),
            call_step("b"),
            results(&["a"]),
        ],
        vec![opening.clone(), call_step("a")],
        vec![opening.clone(), call_step("a"), results(&["a", "b"])],
        vec![
            opening.clone(),
            call_step("a"),
            user_text("x"),
            results(&["a"]),
        ],
        vec![results(&["a"])],
        vec![
            opening.clone(),
            call_step("a"),
            results(&["a"]),
            call_step("a"),
            results(&["a"]),
        ],
        vec![opening.clone(), call_step(""), results(&[""])],
        vec![opening.clone(), thought("s"), results(&[])],
        vec![
            opening.clone(),
            json!({"type": "thought"}),
            model_output("x"),
        ],
        vec![opening.clone(), model_output("x"), thought("s")],
        vec![opening.clone(), model_output("")],
        vec![json!({"role": "system", "content": "x"})],
        vec![user_text("")],
    ];
    for (i, input) in bad.into_iter().enumerate() {
        assert!(
            check_interactions_transcript(&body(input)).is_err(),
            "case {i}"
        );
    }
    assert!(
        check_interactions_transcript(&json!({"system_instruction": {"parts": []}, "input": []}))
            .is_err()
    );
}

/// In a chained session the next request carries the results without the model turn, so
/// a call id the adapter had to mint could never be matched: such a response fails fast.
#[tokio::test]
async fn a_stored_interaction_whose_call_has_no_id_cannot_be_chained() {
    let server = MockServer::start().await;
    let unnamed =
        json!([{"type": "function_call", "name": "workspace_list_files", "arguments": {}}]);
    answer(
        &server,
        ok(interaction(
            Some("v1_chain"),
            "requires_action",
            unnamed.clone(),
        )),
    )
    .await;
    let error = stateful_gateway(&server)
        .generate(call(opening(), 1))
        .await
        .unwrap_err();
    assert_eq!(error.code, "model.invalid_tool_call");
    // Stateless, the minted id is replayed on its step and pairs: no error.
    let server = MockServer::start().await;
    answer(&server, ok(interaction(None, "requires_action", unnamed))).await;
    assert!(gateway(&server).generate(call(opening(), 1)).await.is_ok());
}
