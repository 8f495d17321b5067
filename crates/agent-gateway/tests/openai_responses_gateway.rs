//! The OpenAI Responses gateway (stateless and chained) against a mock provider: recorded-style
//! responses (in the provider's documented shapes, with tool names replaced by the default
//! writer's aliases), encrypted reasoning replay, the errors Responses answers with, and a
//! whole multi-round conversation whose outbound bodies are pinned and checked against the item
//! rules.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use agent_application::ports::{ModelError, ModelErrorKind, ModelGateway};
use agent_domain::ErrorCode;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelResponse, FinishReason, ReasoningEffort,
    TokenUsage,
};
use agent_domain::tool::{AgentToolResult, ToolChoice, ToolId};
use agent_gateway::openai_responses::{NATIVE, is_strict_compatible};
use agent_gateway::{HttpConnection, HttpModelGateway};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::*;
use wiremock::{MockServer, ResponseTemplate};

const KEY: &str = "sk-proj-test-Qz81RRdistinctive";

fn connection(server: &MockServer) -> HttpConnection {
    HttpConnection::openai_responses(format!("{}/v1", server.uri()), "gpt-test").with_api_key(KEY)
}

fn gateway(server: &MockServer) -> HttpModelGateway {
    HttpModelGateway::new(connection(server)).unwrap()
}

fn ok(body: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(body)
}

fn response(id: &str, output: Value) -> Value {
    json!({
        "id": id, "object": "response", "created_at": 1765552659, "status": "completed",
        "error": null, "incomplete_details": null, "model": "gpt-5", "output": output,
        "parallel_tool_calls": true, "previous_response_id": null, "store": false,
        "usage": {"input_tokens": 512, "input_tokens_details": {"cached_tokens": 256}, "output_tokens": 90, "output_tokens_details": {"reasoning_tokens": 64}, "total_tokens": 602}
    })
}

fn reasoning(id: &str, encrypted: &str, summary: &str) -> Value {
    let summary = if summary.is_empty() {
        json!([])
    } else {
        json!([{"type": "summary_text", "text": summary}])
    };
    json!({"id": id, "type": "reasoning", "encrypted_content": encrypted, "summary": summary})
}

fn function_call(item_id: &str, call_id: &str, name: &str, arguments: &str) -> Value {
    json!({"id": item_id, "type": "function_call", "status": "completed", "arguments": arguments, "call_id": call_id, "name": name})
}

fn text_message(id: &str, text: &str) -> Value {
    json!({"id": id, "type": "message", "status": "completed", "role": "assistant",
           "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": text}]})
}

async fn answer(server: &MockServer, response: ResponseTemplate) {
    answer_once_at(server, RESPONSES_PATH, response).await;
}

/// One call against a fresh server answering `response`.
async fn generate_once(
    response: ResponseTemplate,
) -> (Result<AgentModelResponse, ModelError>, Vec<Value>) {
    generate_once_at(RESPONSES_PATH, gateway, response).await
}

#[tokio::test]
async fn r01_text_with_reasoning_usage_and_the_request_shape() {
    let body = response(
        "resp_R01",
        json!([
            reasoning(
                "rs_R01a",
                "gAAAAABsyntheticEncryptedReasoningR01",
                "**Reporting**\n\nReport it."
            ),
            text_message("msg_R01b", "Final result: 570"),
        ]),
    );
    let server = MockServer::start().await;
    answer(&server, ok(body)).await;
    let mut first = call(opening(), 1);
    first.request.parameters.max_output_tokens = Some(2000);
    first.request.parameters.reasoning_effort = Some(ReasoningEffort::Low);
    let response = gateway(&server).generate(first).await.unwrap();
    assert_eq!(response.text(), "Final result: 570");
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.response_id.as_deref(), Some("resp_R01"));
    assert_eq!(
        response.usage,
        Some(TokenUsage {
            input_tokens: 512,
            output_tokens: 90,
            cached_input_tokens: Some(256),
            cache_write_tokens: None,
            reasoning_tokens: Some(64),
        })
    );
    assert_eq!(
        response.provider_metadata["format"],
        json!("openai-responses")
    );
    let parts = &response.message.parts;
    assert!(
        matches!(&parts[0], AgentModelContentPart::Native { provider, value, .. }
            if provider == NATIVE && value["encrypted_content"] == json!("gAAAAABsyntheticEncryptedReasoningR01"))
    );
    assert!(
        matches!(&parts[1], AgentModelContentPart::Reasoning { text, .. } if text == "**Reporting**\n\nReport it.")
    );

    let request = &server.received_requests().await.unwrap()[0];
    assert_eq!(request.url.path(), "/v1/responses");
    let header = |name: &str| request.headers.get(name).map(|v| v.to_str().unwrap());
    assert_eq!(
        header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(body["model"], json!("gpt-test"));
    assert_eq!(body["instructions"], json!("You are a writer."));
    assert_eq!(body["store"], json!(false));
    assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
    assert_eq!(body["max_output_tokens"], json!(2000));
    assert_eq!(body["reasoning"], json!({"effort": "low"}));
    assert_eq!(body["tool_choice"], json!("auto"));
    assert_eq!(
        body["input"],
        json!([{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Continue the story."}]}])
    );
    for (wire, tool) in body["tools"].as_array().unwrap().iter().zip(tools()) {
        assert_eq!(wire["type"], json!("function"));
        assert_eq!(wire["name"], json!(tool.alias));
        assert_eq!(wire["description"], json!(tool.description));
        assert_eq!(wire["parameters"], tool.input_schema);
        let strict = is_strict_compatible(&tool.input_schema);
        assert_eq!(wire["strict"], json!(strict), "{}", tool.alias);
    }
    let strict_of = |alias: &str| {
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == alias)
            .map(|t| t["strict"].clone())
            .unwrap()
    };
    // Optional fields (a line window) rule strict mode out; a closed object without fields
    // (skill.list) is sent strict.
    assert_eq!(strict_of("workspace_read_file"), json!(false));
    assert_eq!(strict_of("skill_list"), json!(true));
}

#[tokio::test]
async fn r02_single_function_call_uses_call_id() {
    let body = response(
        "resp_R02",
        json!([
            reasoning("rs_R02a", "gAAAAABsyntheticR02", ""),
            function_call(
                "fc_R02b",
                "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
                "workspace_read_file",
                "{\"path\":\"output/a.md\"}"
            ),
        ]),
    );
    let (result, _) = generate_once(ok(body)).await;
    let response = result.unwrap();
    assert_eq!(response.finish_reason, FinishReason::ToolCalls);
    let calls = response.tool_calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].call_id, "call_AB6AaRZ1FYZB2RwS6A5vbdqn");
    assert_eq!(
        calls[0].tool_id,
        ToolId::builtin("workspace.read_file").unwrap()
    );
    assert_eq!(calls[0].arguments, json!({"path": "output/a.md"}));
}

/// R-03 shape: parallel calls decode in order and, with the reasoning item, replay in place.
#[tokio::test]
async fn r03_parallel_calls_and_reasoning_replayed_verbatim_in_place() {
    let rs = reasoning("rs_R03a", "gAAAAABsyntheticR03", "Read both.");
    let server = MockServer::start().await;
    answer(
        &server,
        ok(response(
            "resp_R03",
            json!([
                rs,
                function_call(
                    "fc_R03b",
                    "call_a",
                    "workspace_read_file",
                    "{\"path\":\"output/a.md\"}"
                ),
                function_call("fc_R03c", "call_b", "workspace_list_files", "{}"),
            ]),
        )),
    )
    .await;
    answer(
        &server,
        ok(response(
            "resp_done",
            json!([text_message("msg_d", "Done.")]),
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
    assert_eq!(ids, ["call_a", "call_b"]);
    let mut messages = opening();
    messages.push(first.message.clone());
    for invocation in first.tool_calls() {
        messages.push(AgentModelMessage::tool_result(AgentToolResult::success(
            invocation,
            "It was a dark night.",
            Value::Null,
        )));
    }
    gateway.generate(call(messages, 2)).await.unwrap();
    let second = &sent_bodies(&server).await[1];
    check_responses_transcript(second).unwrap();
    let input = second["input"].as_array().unwrap();
    assert_eq!(
        input[1], rs,
        "the reasoning item, verbatim, right after the user turn"
    );
    assert_eq!(
        input[2],
        json!({"type": "function_call", "call_id": "call_a", "name": "workspace_read_file", "arguments": "{\"path\":\"output/a.md\"}"})
    );
    assert_eq!(input[3]["call_id"], json!("call_b"));
    assert_eq!(
        input[4],
        json!({"type": "function_call_output", "call_id": "call_a", "output": "It was a dark night."})
    );
    assert_eq!(input[5]["call_id"], json!("call_b"));
    assert!(
        !second.to_string().contains("fc_R03"),
        "item ids are not sent"
    );
}

#[tokio::test]
async fn reasoning_of_another_provider_is_not_replayed() {
    let mut messages = opening();
    messages.push(AgentModelMessage::new(
        agent_domain::model::ModelRole::Assistant,
        vec![
            AgentModelContentPart::native(
                "anthropic",
                json!({"type": "thinking", "thinking": "x", "signature": "s"}),
            ),
            AgentModelContentPart::text("Hi."),
        ],
    ));
    messages.push(AgentModelMessage::user("Go on."));
    let server = MockServer::start().await;
    answer(
        &server,
        ok(response("resp_x", json!([text_message("m", "Ok.")]))),
    )
    .await;
    gateway(&server).generate(call(messages, 2)).await.unwrap();
    let body = &sent_bodies(&server).await[0];
    check_responses_transcript(body).unwrap();
    assert_eq!(
        body["input"][1],
        json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hi."}]})
    );
    assert_eq!(body["input"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn r04_max_output_tokens_incomplete_is_length() {
    let mut body = response(
        "resp_R04",
        json!([reasoning("rs_R04a", "gAAAAABsyntheticR04", "")]),
    );
    body["status"] = json!("incomplete");
    body["incomplete_details"] = json!({"reason": "max_output_tokens"});
    let (result, _) = generate_once(ok(body)).await;
    let response = result.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Length);
    assert_eq!(
        response.provider_metadata["incompleteDetails"],
        json!({"reason": "max_output_tokens"})
    );
}

#[tokio::test]
async fn r06_refusal() {
    let body = response(
        "resp_R06",
        json!([{"id": "msg_R06", "type": "message", "status": "completed", "role": "assistant",
                "content": [{"type": "refusal", "refusal": "I can't help with that request."}]}]),
    );
    let (result, _) = generate_once(ok(body)).await;
    let response = result.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Refusal);
    assert_eq!(response.text(), "I can't help with that request.");
}

#[tokio::test]
async fn rate_limit_429_with_retry_after() {
    let response = ResponseTemplate::new(429)
        .insert_header("retry-after", "7")
        .set_body_json(json!({"error": {"message": "Rate limit reached for gpt-5 on tokens per min.", "type": "tokens", "param": null, "code": "rate_limit_exceeded"}}));
    let error = generate_once(response).await.0.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::RateLimited);
    assert_eq!(error.status, Some(429));
    assert_eq!(error.provider_code.as_deref(), Some("rate_limit_exceeded"));
    assert_eq!(error.retry_after_ms, Some(7_000));
    assert!(error.is_retryable());
}

#[tokio::test]
async fn server_error_500_is_transient() {
    let response = ResponseTemplate::new(500).set_body_json(
        json!({"error": {"message": "The server had an error.", "type": "server_error", "param": null, "code": null}}),
    );
    let error = generate_once(response).await.0.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Transient);
    assert_eq!(error.status, Some(500));
    assert!(error.is_retryable());
}

#[tokio::test]
async fn failed_status_in_a_200_is_an_error() {
    let mut body = response("resp_R08", json!([]));
    body["status"] = json!("failed");
    body["error"] =
        json!({"code": "insufficient_quota", "message": "You exceeded your current quota."});
    body["usage"] = Value::Null;
    let error = generate_once(ok(body)).await.0.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Quota);
    assert_eq!(error.provider_code.as_deref(), Some("insufficient_quota"));
    assert!(!error.is_retryable());

    let mut body = response("resp_f", json!([]));
    body["status"] = json!("failed");
    body["error"] = json!({"code": "server_error", "message": "boom"});
    let error = generate_once(ok(body)).await.0.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Transient);
}

#[tokio::test]
async fn the_api_key_never_leaves_in_errors() {
    let body = json!({"error": {"message": format!("Incorrect API key provided: {KEY}."), "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}});
    let server = MockServer::start().await;
    answer(&server, ResponseTemplate::new(401).set_body_json(body)).await;
    let gateway = gateway(&server);
    let error = gateway.generate(call(opening(), 1)).await.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Auth);
    assert_secret_hidden(&error, &gateway, KEY, "Qz81RRdistinctive");
}

#[test]
fn session_fields_are_refused_clearly() {
    let refused = |field: &str, value: Value| {
        let mut c = HttpConnection::openai_responses("http://localhost:1/v1", "m");
        c.params.insert(field.into(), value);
        c
    };
    for connection in [
        refused("previous_response_id", json!("resp_1")),
        refused("background", json!(true)),
        refused("store", json!("yes")),
    ] {
        let error = HttpModelGateway::new(connection).unwrap_err();
        assert_eq!(error.code(), "model.format_unsupported");
        assert!(
            error.message.starts_with("openai-responses: "),
            "{}",
            error.message
        );
    }
    let stored = refused("store", json!(true));
    assert!(
        HttpModelGateway::new(stored).is_ok(),
        "store=true is the stateful mode"
    );
}

#[tokio::test]
async fn a_chained_predecessor_in_request_extras_is_refused_before_sending() {
    let server = MockServer::start().await;
    let mut request = call(opening(), 1);
    request
        .request
        .parameters
        .extra
        .insert("previous_response_id".into(), json!("resp_0"));
    let error = gateway(&server).generate(request).await.unwrap_err();
    assert_eq!(error.code(), "model.format_unsupported");
    assert!(sent_bodies(&server).await.is_empty());
}

#[tokio::test]
async fn a_stateless_call_hands_back_its_continuation() {
    let (result, _) = generate_once(ok(response(
        "resp_s1",
        json!([text_message("msg_s1", "Hi.")]),
    )))
    .await;
    let state = result.unwrap().provider_state.unwrap();
    assert_eq!(state.session_id(), "run_http:inv_root");
    assert_eq!(state.provider_format(), Some("openai-responses"));
    assert_eq!(state.message_cursor(), Some(opening().len() as u64));
    assert_eq!(state.last_response_id(), Some("resp_s1"));
    assert_eq!(
        state.previous_response_id(),
        None,
        "stateless: nothing to chain onto"
    );
}

fn stateful_gateway(server: &MockServer) -> HttpModelGateway {
    let mut connection = connection(server);
    connection.params.insert("store".into(), json!(true));
    HttpModelGateway::new(connection).unwrap()
}

/// `store=true`: the first request carries everything; each later one names the previous
/// response and carries only what came after the cursor, minus the assistant turns the
/// server wrote itself, with the instructions resent.
#[tokio::test]
async fn the_stateful_mode_chains_responses_and_sends_only_new_items() {
    let server = MockServer::start().await;
    let rs1 = reasoning("rs_c1", "gAAAAABsyntheticChain1", "Read first.");
    answer(
        &server,
        ok(response(
            "resp_c1",
            json!([
                rs1,
                function_call(
                    "fc_c1",
                    "call_c1",
                    "workspace_read_file",
                    "{\"path\":\"output/main.md\"}"
                ),
            ]),
        )),
    )
    .await;
    answer(
        &server,
        ok(response(
            "resp_c2",
            json!([text_message("msg_c2", "Done.")]),
        )),
    )
    .await;
    answer(
        &server,
        ok(response(
            "resp_c3",
            json!([text_message("msg_c3", "Longer now.")]),
        )),
    )
    .await;
    let gateway = stateful_gateway(&server);

    let mut messages = opening();
    let r1 = gateway.generate(call(messages.clone(), 1)).await.unwrap();
    let state1 = r1.provider_state.clone().unwrap();
    assert_eq!(state1.previous_response_id(), Some("resp_c1"));
    assert_eq!(state1.message_cursor(), Some(messages.len() as u64));
    messages.push(r1.message.clone());
    messages.push(AgentModelMessage::tool_result(AgentToolResult::success(
        r1.tool_calls()[0],
        "It was a dark night.",
        Value::Null,
    )));

    let mut second = call(messages.clone(), 2);
    second.request.provider_state = state1;
    let r2 = gateway.generate(second).await.unwrap();
    let state2 = r2.provider_state.clone().unwrap();
    assert_eq!(state2.previous_response_id(), Some("resp_c2"));
    assert_eq!(state2.message_cursor(), Some(messages.len() as u64));
    messages.push(r2.message.clone());
    messages.push(AgentModelMessage::user("Make it longer."));

    let mut third = call(messages, 3);
    third.request.provider_state = state2;
    gateway.generate(third).await.unwrap();

    let sent = sent_bodies(&server).await;
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[0]["store"], json!(true));
    assert!(sent[0].get("previous_response_id").is_none());
    assert_eq!(
        sent[0]["input"].as_array().unwrap().len(),
        1,
        "the user turn"
    );
    assert_eq!(sent[1]["previous_response_id"], json!("resp_c1"));
    assert_eq!(
        sent[1]["input"],
        json!([{"type": "function_call_output", "call_id": "call_c1", "output": "It was a dark night."}])
    );
    assert_eq!(sent[2]["previous_response_id"], json!("resp_c2"));
    assert_eq!(
        sent[2]["input"],
        json!([{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Make it longer."}]}])
    );
    for body in &sent {
        assert_eq!(body["instructions"], json!("You are a writer."));
        assert_eq!(body["store"], json!(true));
    }
}

#[tokio::test]
async fn a_cursor_beyond_the_transcript_fails_fast() {
    let server = MockServer::start().await;
    let state = agent_domain::model::ProviderState::from_value(json!({
        "sessionId": "run_http:inv_root", "providerFormat": "openai-responses",
        "messageCursor": 99, "previousResponseId": "resp_9"
    }))
    .unwrap();
    let mut request = call(opening(), 2);
    request.request.provider_state = state;
    let error = stateful_gateway(&server)
        .generate(request)
        .await
        .unwrap_err();
    assert_eq!(error.code(), "agent.provider_state_invalid");
    assert!(!error.is_retryable());
    assert!(sent_bodies(&server).await.is_empty());
}

#[tokio::test]
async fn a_stateful_response_without_an_id_cannot_be_continued() {
    let server = MockServer::start().await;
    let mut body = response("x", json!([text_message("msg", "Hi.")]));
    body.as_object_mut().unwrap().remove("id");
    answer(&server, ok(body)).await;
    let error = stateful_gateway(&server)
        .generate(call(opening(), 1))
        .await
        .unwrap_err();
    assert_eq!(error.code(), "agent.provider_state_invalid");
}

/// Round 1: reasoning, text and two parallel calls. Round 2: both results go back
/// (one an error); the model reasons and writes. Round 3: the result and a user follow-up
/// go back, with a forced tool choice; the model answers with text. Every outbound body
/// is pinned and checked against the Responses item rules.
#[tokio::test]
async fn multi_round_conversation() {
    let server = MockServer::start().await;
    let rs1 = reasoning("rs_r1", "gAAAAABsyntheticRound1", "Read, then list.");
    let rs2 = reasoning("rs_r2", "gAAAAABsyntheticRound2", "");
    answer(
        &server,
        ok(response(
            "resp_r1",
            json!([
                rs1,
                text_message("msg_r1", "Let me look first."),
                function_call(
                    "fc_r1a",
                    "call_r1_read",
                    "workspace_read_file",
                    "{\"path\":\"output/main.md\"}"
                ),
                function_call("fc_r1b", "call_r1_list", "workspace_list_files", ""),
            ]),
        )),
    )
    .await;
    answer(
        &server,
        ok(response(
            "resp_r2",
            json!([
                rs2,
                function_call(
                    "fc_r2",
                    "call_r2_write",
                    "workspace_write_file",
                    "{\"path\":\"output/main.md\",\"content\":\"The night\"}"
                ),
            ]),
        )),
    )
    .await;
    answer(
        &server,
        ok(response(
            "resp_r3",
            json!([text_message("msg_r3", "The chapter is drafted.")]),
        )),
    )
    .await;

    let gateway = gateway(&server);
    let with_params = |mut c: agent_application::ports::ModelCall| {
        c.request.parameters.max_output_tokens = Some(8000);
        c.request.parameters.reasoning_effort = Some(ReasoningEffort::Medium);
        c
    };
    let mut messages = opening();
    let r1 = gateway
        .generate(with_params(call(messages.clone(), 1)))
        .await
        .unwrap();
    let calls = r1.tool_calls();
    assert_eq!(
        calls[1].arguments,
        json!(""),
        "a no-argument call kept verbatim"
    );
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
    let write = r2.tool_calls()[0].clone();
    messages.push(r2.message.clone());
    messages.push(AgentModelMessage::tool_result(AgentToolResult::success(
        &write,
        "written",
        Value::Null,
    )));
    messages.push(AgentModelMessage::user("Make it longer."));

    let mut third = with_params(call(messages, 3));
    third.request.tool_choice =
        ToolChoice::Specific(ToolId::builtin("workspace.write_file").unwrap());
    let r3 = gateway.generate(third).await.unwrap();
    assert_eq!(r3.text(), "The chapter is drafted.");
    assert_eq!(r3.finish_reason, FinishReason::Stop);

    let sent = sent_bodies(&server).await;
    assert_eq!(sent.len(), 3);
    for (round, body) in sent.iter().enumerate() {
        check_responses_transcript(body).unwrap_or_else(|e| panic!("round {}: {e}", round + 1));
        assert_eq!(body["store"], json!(false));
        assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
        assert_eq!(body["instructions"], json!("You are a writer."));
        insta::assert_json_snapshot!(
            format!("openai_responses_request_{}", round + 1),
            with_responses_tool_names(body)
        );
    }
    let input = sent[2]["input"].as_array().unwrap();
    assert_eq!(input[1], rs1, "round-1 reasoning verbatim, in place");
    assert_eq!(input[7], rs2, "round-2 reasoning verbatim, in place");
    assert_eq!(input[8]["call_id"], json!("call_r2_write"));
    assert_eq!(
        sent[2]["tool_choice"],
        json!({"type": "function", "name": "workspace_write_file"})
    );
    assert_eq!(input[4]["arguments"], json!(""));
}
