//! Shared helpers for the HTTP gateway tests: real tool snapshots, model calls, a mock
//! provider, and a transcript checker that reads the wire JSON back.

#![allow(dead_code)]

use std::collections::HashSet;

use agent_application::ports::ModelCall;
use agent_domain::event::InvocationKind;
use agent_domain::model::{
    AgentModelMessage, AgentModelRequest, GenerationParameters, ProviderState,
};
use agent_domain::run::{InvocationId, RunId};
use agent_domain::tool::{AgentModelTool, AgentToolResult, ToolChoice, ToolId, ToolInvocation};
use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

#[path = "tools.rs"]
mod tools;
pub use tools::tools;

pub const CHAT_PATH: &str = "/v1/chat/completions";
pub const MESSAGES_PATH: &str = "/v1/messages";

/// A root model call over `messages` with the default writer's tools.
pub fn call(messages: Vec<AgentModelMessage>, round: u32) -> ModelCall {
    ModelCall {
        run_id: RunId::parse("run_http").unwrap(),
        invocation_id: InvocationId::root(),
        invocation_kind: InvocationKind::Root,
        profile_id: "default-writer".into(),
        round,
        attempt: 1,
        request: AgentModelRequest {
            messages: messages.into(),
            tools: tools().into(),
            tool_choice: ToolChoice::Auto,
            provider_state: ProviderState::initial("run_http", "inv_root"),
            parameters: GenerationParameters::default(),
        },
    }
}

/// The id of `workspace.read_file`.
pub fn read_file() -> ToolId {
    ToolId::builtin("workspace.read_file").unwrap()
}

/// The id of `workspace.write_file`.
pub fn write_file() -> ToolId {
    ToolId::builtin("workspace.write_file").unwrap()
}

/// A successful result for each call, in order (`result of <call id>`).
pub fn results_for(calls: &[&ToolInvocation]) -> Vec<AgentModelMessage> {
    calls
        .iter()
        .map(|c| {
            AgentModelMessage::tool_result(AgentToolResult::success(
                c,
                format!("result of {}", c.call_id),
                Value::Null,
            ))
        })
        .collect()
}

/// Checks the wire declarations against the canonical tools, in order: each is named by
/// its alias and carries a schema under `schema_key` exactly when the tool has properties
/// (Gemini wants none for a tool without them).
pub fn assert_declared_schemas(declarations: &[Value], tools: &[AgentModelTool], schema_key: &str) {
    assert_eq!(declarations.len(), tools.len());
    for (wire, tool) in declarations.iter().zip(tools) {
        assert_eq!(wire["name"], Value::String(tool.alias.clone()));
        let has_properties = tool.input_schema["properties"]
            .as_object()
            .is_some_and(|p| !p.is_empty());
        assert_eq!(
            wire.get(schema_key).is_some(),
            has_properties,
            "{}",
            tool.alias
        );
    }
}

/// The opening of every conversation.
pub fn opening() -> Vec<AgentModelMessage> {
    vec![
        AgentModelMessage::system("You are a writer."),
        AgentModelMessage::user("Continue the story."),
    ]
}

/// A mock provider answering the next chat request (once) with `response`.
pub async fn answer_once(server: &MockServer, response: ResponseTemplate) {
    answer_once_at(server, CHAT_PATH, response).await;
}

/// A mock provider answering the next request to `endpoint` (once) with `response`, after
/// checking the request against its format's transcript invariants.
pub async fn answer_once_at(server: &MockServer, endpoint: &str, response: ResponseTemplate) {
    Mock::given(method("POST"))
        .and(path(endpoint))
        .respond_with(CheckedAnswer(response))
        .up_to_n_times(1)
        .mount(server)
        .await;
}

/// Status of the answer to a request that broke a transcript invariant: no provider uses
/// it, so a test can never mistake it for the answer it staged.
pub const INVARIANT_BROKEN_STATUS: u16 = 599;

/// Checks every outbound request before answering it (the way a strict provider would):
/// a body that breaks its format's pairing rules gets [`INVARIANT_BROKEN_STATUS`] with the
/// violation as the error message instead of the staged answer, so every test that sends
/// one fails, whatever it was about.
struct CheckedAnswer(ResponseTemplate);

impl Respond for CheckedAnswer {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let violation = match serde_json::from_slice::<Value>(&request.body) {
            Ok(body) => check_outbound(request.url.path(), &body).err(),
            Err(e) => Some(format!("the body is not JSON: {e}")),
        };
        match violation {
            None => self.0.clone(),
            Some(violation) => ResponseTemplate::new(INVARIANT_BROKEN_STATUS).set_body_json(
                serde_json::json!({"error": {"message": format!("transcript invariant: {violation}")}}),
            ),
        }
    }
}

/// The transcript invariants of the format `path` speaks. A chained request (one naming its
/// predecessor) carries only the new items, whose calls live server-side: it is not checked.
pub fn check_outbound(path: &str, body: &Value) -> Result<(), String> {
    let chained =
        body.get("previous_response_id").is_some() || body.get("previous_interaction_id").is_some();
    if chained {
        Ok(())
    } else if path.ends_with("/chat/completions") {
        check_wire_transcript(body)
    } else if path.ends_with("/messages") {
        check_anthropic_transcript(body)
    } else if path.ends_with(":generateContent") || path.ends_with(":streamGenerateContent") {
        check_gemini_transcript(body)
    } else if path.ends_with("/responses") {
        check_responses_transcript(body)
    } else if path.ends_with("/interactions") {
        check_interactions_transcript(body)
    } else {
        Err(format!("no transcript checker for {path}"))
    }
}

/// The JSON bodies the mock provider received, in order.
pub async fn sent_bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

/// Checks the tool-call pairing of a Chat Completions body as the provider will read it:
/// every assistant tool call has a non-empty id, unique in the body, and is answered by
/// exactly one `tool` message with the same id among the messages right after it; every
/// `tool` message answers a call of the assistant turn right before it.
pub fn check_wire_transcript(body: &Value) -> Result<(), String> {
    let messages = body["messages"].as_array().ok_or("no messages array")?;
    let mut seen = HashSet::new();
    let mut open: Vec<String> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let role = message["role"]
            .as_str()
            .ok_or(format!("message {i} has no role"))?;
        if role == "tool" {
            let id = message["tool_call_id"].as_str().unwrap_or_default();
            if id.is_empty() {
                return Err(format!("message {i}: tool message without tool_call_id"));
            }
            let Some(pos) = open.iter().position(|open_id| open_id == id) else {
                return Err(format!(
                    "message {i}: tool message `{id}` answers no call of the previous assistant turn"
                ));
            };
            open.remove(pos);
            continue;
        }
        if !open.is_empty() {
            return Err(format!("message {i}: calls {open:?} are unanswered"));
        }
        if role == "assistant" {
            for call in message["tool_calls"].as_array().into_iter().flatten() {
                let id = call["id"].as_str().unwrap_or_default();
                if id.is_empty() {
                    return Err(format!("message {i}: tool call without id"));
                }
                if !seen.insert(id.to_owned()) {
                    return Err(format!("message {i}: call id `{id}` used twice"));
                }
                open.push(id.to_owned());
            }
        }
    }
    if open.is_empty() {
        Ok(())
    } else {
        Err(format!("transcript ends with unanswered calls {open:?}"))
    }
}

/// The body with each tool reduced to its name, for readable snapshots (the schemas are
/// checked separately against the canonical ones).
pub fn with_tool_names(body: &Value) -> Value {
    let mut body = body.clone();
    if let Some(tools) = body["tools"].as_array_mut() {
        for tool in tools {
            *tool = tool["function"]["name"].clone();
        }
    }
    body
}

/// Checks an Anthropic Messages body as the provider will read it: no system role inside
/// `messages`; roles alternate, starting with `user`; in an assistant message thinking
/// blocks come before everything else; every `tool_use` has a non-empty id, unique in the
/// body, and the very next message is a `user` message that opens with exactly one
/// `tool_result` per call of that turn (before any other block); every `tool_result`
/// answers a call of the assistant turn right before it.
pub fn check_anthropic_transcript(body: &Value) -> Result<(), String> {
    let messages = body["messages"].as_array().ok_or("no messages array")?;
    let mut seen = HashSet::new();
    let mut open: Vec<String> = Vec::new();
    let mut previous_role = "";
    for (i, message) in messages.iter().enumerate() {
        let role = message["role"]
            .as_str()
            .ok_or(format!("message {i} has no role"))?;
        let expected = if i == 0 || previous_role == "assistant" {
            "user"
        } else {
            "assistant"
        };
        if role != expected {
            return Err(format!("message {i}: role `{role}`, expected `{expected}`"));
        }
        previous_role = role;
        let blocks: Vec<Value> = match &message["content"] {
            Value::String(text) => vec![serde_json::json!({"type": "text", "text": text})],
            Value::Array(blocks) => blocks.clone(),
            _ => return Err(format!("message {i}: content is neither string nor array")),
        };
        if blocks.is_empty() {
            return Err(format!("message {i}: empty content"));
        }
        let kind = |b: &Value| b["type"].as_str().unwrap_or_default().to_owned();
        if role == "user" {
            let mut results_done = false;
            for block in &blocks {
                if kind(block) != "tool_result" {
                    results_done = true;
                    continue;
                }
                if results_done {
                    return Err(format!("message {i}: tool_result after other content"));
                }
                let id = block["tool_use_id"].as_str().unwrap_or_default();
                let Some(pos) = open.iter().position(|o| o == id) else {
                    return Err(format!(
                        "message {i}: tool_result `{id}` answers no call of the previous assistant turn"
                    ));
                };
                open.remove(pos);
            }
            if !open.is_empty() {
                return Err(format!("message {i}: calls {open:?} are unanswered"));
            }
            continue;
        }
        if !open.is_empty() {
            return Err(format!("message {i}: calls {open:?} are unanswered"));
        }
        let mut other_seen = false;
        for block in &blocks {
            match kind(block).as_str() {
                "thinking" | "redacted_thinking" if other_seen => {
                    return Err(format!("message {i}: thinking after other content"));
                }
                "thinking" | "redacted_thinking" => {}
                "tool_use" => {
                    other_seen = true;
                    let id = block["id"].as_str().unwrap_or_default();
                    if id.is_empty() {
                        return Err(format!("message {i}: tool_use without id"));
                    }
                    if !block["input"].is_object() {
                        return Err(format!(
                            "message {i}: tool_use `{id}` input is not an object"
                        ));
                    }
                    if !seen.insert(id.to_owned()) {
                        return Err(format!("message {i}: call id `{id}` used twice"));
                    }
                    open.push(id.to_owned());
                }
                "text" if block["text"].as_str().unwrap_or_default().is_empty() => {
                    return Err(format!("message {i}: empty text block"));
                }
                _ => other_seen = true,
            }
        }
    }
    if open.is_empty() {
        Ok(())
    } else {
        Err(format!("transcript ends with unanswered calls {open:?}"))
    }
}

/// An Anthropic body with each tool reduced to its name, for readable snapshots.
pub fn with_anthropic_tool_names(body: &Value) -> Value {
    let mut body = body.clone();
    if let Some(tools) = body["tools"].as_array_mut() {
        for tool in tools {
            *tool = tool["name"].clone();
        }
    }
    body
}

/// The path of a Gemini `generateContent` call for `model`.
pub fn gemini_path(model: &str) -> String {
    format!("/v1beta/models/{model}:generateContent")
}

/// Checks a Gemini `generateContent` body as the provider will read it: no `system` role in
/// `contents` (system text lives in `systemInstruction`); roles are only `user` and `model`
/// and alternate; no content is empty and no text part is empty; a model content with
/// `functionCall` parts is followed by a `user` content that opens with exactly one
/// `functionResponse` per call, same names, same order (ids equal when the call had one,
/// absent when it had none); `functionResponse` appears nowhere else; call ids are unique.
pub fn check_gemini_transcript(body: &Value) -> Result<(), String> {
    let contents = body["contents"].as_array().ok_or("no contents array")?;
    let mut seen = HashSet::new();
    let mut open: Vec<(String, Option<String>)> = Vec::new();
    let mut previous_role = "";
    for (i, content) in contents.iter().enumerate() {
        let role = content["role"]
            .as_str()
            .ok_or(format!("content {i} has no role"))?;
        if role != "user" && role != "model" {
            return Err(format!("content {i}: role `{role}`"));
        }
        if role == previous_role {
            return Err(format!("content {i}: two `{role}` contents in a row"));
        }
        previous_role = role;
        let parts = content["parts"]
            .as_array()
            .filter(|p| !p.is_empty())
            .ok_or(format!("content {i}: no parts"))?;
        for part in parts {
            if part.get("text").is_some_and(|t| t.as_str() == Some(""))
                && part.get("thoughtSignature").is_none()
            {
                return Err(format!("content {i}: empty text part"));
            }
        }
        let responses: Vec<&Value> = parts
            .iter()
            .take_while(|p| p.get("functionResponse").is_some())
            .map(|p| &p["functionResponse"])
            .collect();
        let total = parts
            .iter()
            .filter(|p| p.get("functionResponse").is_some())
            .count();
        if total != responses.len() {
            return Err(format!("content {i}: functionResponse after other parts"));
        }
        if role == "model" && total > 0 {
            return Err(format!("content {i}: functionResponse in a model turn"));
        }
        if responses.len() != open.len() {
            return Err(format!(
                "content {i}: {} responses for calls {open:?}",
                responses.len()
            ));
        }
        for (response, (name, id)) in responses.iter().zip(open.drain(..)) {
            if response["name"].as_str() != Some(name.as_str()) {
                return Err(format!("content {i}: response {response} answers `{name}`"));
            }
            if response.get("id").and_then(Value::as_str) != id.as_deref() {
                return Err(format!("content {i}: response {response} has the wrong id"));
            }
            if !response["response"].is_object() {
                return Err(format!("content {i}: response is not an object"));
            }
        }
        if role == "model" {
            for part in parts {
                let Some(call) = part.get("functionCall") else {
                    continue;
                };
                let name = call["name"].as_str().unwrap_or_default();
                if name.is_empty() || !call["args"].is_object() {
                    return Err(format!(
                        "content {i}: call {call} needs a name and object args"
                    ));
                }
                let id = call.get("id").and_then(Value::as_str).map(str::to_owned);
                if let Some(id) = &id
                    && !seen.insert(id.clone())
                {
                    return Err(format!("content {i}: call id `{id}` used twice"));
                }
                open.push((name.to_owned(), id));
            }
        }
    }
    if open.is_empty() {
        Ok(())
    } else {
        Err(format!("contents end with unanswered calls {open:?}"))
    }
}

/// A Gemini body with each function declaration reduced to its name, for readable snapshots.
pub fn with_gemini_tool_names(body: &Value) -> Value {
    let mut body = body.clone();
    if let Some(declarations) = body["tools"][0]["functionDeclarations"].as_array_mut() {
        for declaration in declarations {
            *declaration = declaration["name"].clone();
        }
    }
    body
}

/// The path of a Responses call.
pub const RESPONSES_PATH: &str = "/v1/responses";

/// Checks a Responses (stateless) body as the provider will read it: no system or
/// developer message in `input` (system text lives in `instructions`); every
/// `function_call` has a non-empty `call_id`, unique in the body, and no item `id` (pairing is
/// by `call_id`); it is answered by exactly one `function_call_output` with the same
/// `call_id` later in the input, before the next user message; every output answers an
/// earlier open call; every reasoning item carries `encrypted_content`, no raw `content`,
/// and is followed by another item.
pub fn check_responses_transcript(body: &Value) -> Result<(), String> {
    let input = body["input"].as_array().ok_or("no input array")?;
    let mut seen = HashSet::new();
    let mut open: Vec<String> = Vec::new();
    for (i, item) in input.iter().enumerate() {
        let kind = item["type"].as_str().unwrap_or_default();
        let role = item["role"].as_str().unwrap_or_default();
        match kind {
            "message" if role == "user" => {
                if !open.is_empty() {
                    return Err(format!("item {i}: calls {open:?} are unanswered"));
                }
            }
            "message" if role == "assistant" => {}
            "message" => return Err(format!("item {i}: message role `{role}`")),
            "function_call" => {
                let id = item["call_id"].as_str().unwrap_or_default();
                if id.is_empty() {
                    return Err(format!("item {i}: function_call without call_id"));
                }
                if item.get("id").is_some() {
                    return Err(format!("item {i}: function_call carries an item id"));
                }
                if !item["arguments"].is_string() || item["name"].as_str().is_none() {
                    return Err(format!(
                        "item {i}: function_call needs name and string arguments"
                    ));
                }
                if !seen.insert(id.to_owned()) {
                    return Err(format!("item {i}: call id `{id}` used twice"));
                }
                open.push(id.to_owned());
            }
            "function_call_output" => {
                let id = item["call_id"].as_str().unwrap_or_default();
                let Some(pos) = open.iter().position(|o| o == id) else {
                    return Err(format!("item {i}: output `{id}` answers no open call"));
                };
                open.remove(pos);
                if !item["output"].is_string() {
                    return Err(format!("item {i}: output is not a string"));
                }
            }
            "reasoning" => {
                if !item["encrypted_content"].is_string() {
                    return Err(format!("item {i}: reasoning without encrypted_content"));
                }
                if item.get("content").is_some() {
                    return Err(format!("item {i}: reasoning with raw content"));
                }
                if i + 1 == input.len() {
                    return Err(format!("item {i}: reasoning without a following item"));
                }
            }
            other => return Err(format!("item {i}: unexpected item type `{other}`")),
        }
    }
    if open.is_empty() {
        Ok(())
    } else {
        Err(format!("input ends with unanswered calls {open:?}"))
    }
}

/// A Responses body with each (flat) tool reduced to its name, for readable snapshots.
pub fn with_responses_tool_names(body: &Value) -> Value {
    with_anthropic_tool_names(body)
}

/// The path of a Gemini Interactions call.
pub const INTERACTIONS_PATH: &str = "/v1beta/interactions";

/// Checks a Gemini Interactions body as the provider will read it:
///
/// * system text lives in a string `system_instruction`, never among the `input` steps;
/// * every step is an object with a `type`; `user_input` and `model_output` steps have
///   non-empty content and no empty text;
/// * every `function_call` has a non-empty id, unique in the body, a name and object
///   arguments, and is answered by exactly one `function_result` (same `call_id`, a name,
///   a string or list `result`, a boolean `is_error` if any) in the very next `user_input`
///   step, which answers nothing else; a `function_result` anywhere else is an orphan —
///   except, in a chained body (`previous_interaction_id`), in a first `user_input` step
///   before any model step: those answer the stored interaction's calls;
/// * every `thought` carries a non-empty `signature` and is followed by another model step
///   of the same turn (it is replayed in place, before what it led to).
pub fn check_interactions_transcript(body: &Value) -> Result<(), String> {
    if body
        .get("system_instruction")
        .is_some_and(|s| !s.is_string())
    {
        return Err("system_instruction is not a string".into());
    }
    let steps = body["input"].as_array().ok_or("no input array")?;
    let chained = body["previous_interaction_id"].is_string();
    let mut seen = HashSet::new();
    let mut open: Vec<String> = Vec::new();
    let mut model_seen = false;
    for (i, step) in steps.iter().enumerate() {
        if step.get("role").is_some() {
            return Err(format!("step {i}: has a role (turn shape, not a step)"));
        }
        let kind = step["type"]
            .as_str()
            .ok_or(format!("step {i} has no type"))?;
        match kind {
            "user_input" => {
                let content = step["content"]
                    .as_array()
                    .filter(|c| !c.is_empty())
                    .ok_or(format!("step {i}: user_input without content"))?;
                let stored_calls = chained && !model_seen;
                for block in content {
                    match block["type"].as_str().unwrap_or_default() {
                        "function_result" => {
                            let id = block["call_id"].as_str().unwrap_or_default();
                            if id.is_empty() {
                                return Err(format!("step {i}: function_result without call_id"));
                            }
                            if block["name"].as_str().is_none_or(str::is_empty) {
                                return Err(format!(
                                    "step {i}: function_result `{id}` without name"
                                ));
                            }
                            if !block["result"].is_string() && !block["result"].is_array() {
                                return Err(format!(
                                    "step {i}: result of `{id}` is neither text nor a list"
                                ));
                            }
                            if block.get("is_error").is_some_and(|e| !e.is_boolean()) {
                                return Err(format!(
                                    "step {i}: is_error of `{id}` is not a boolean"
                                ));
                            }
                            if stored_calls {
                                continue;
                            }
                            let Some(pos) = open.iter().position(|o| o == id) else {
                                return Err(format!(
                                    "step {i}: function_result `{id}` answers no call of the previous model turn"
                                ));
                            };
                            open.remove(pos);
                        }
                        "text" if block["text"].as_str().unwrap_or_default().is_empty() => {
                            return Err(format!("step {i}: empty text"));
                        }
                        _ => {}
                    }
                }
                if !open.is_empty() {
                    return Err(format!("step {i}: calls {open:?} are unanswered"));
                }
            }
            _ => {
                model_seen = true;
                match kind {
                    "thought" => {
                        if step["signature"].as_str().is_none_or(str::is_empty) {
                            return Err(format!("step {i}: thought without signature"));
                        }
                        let next = steps.get(i + 1).and_then(|s| s["type"].as_str());
                        if next.is_none() || next == Some("user_input") {
                            return Err(format!("step {i}: thought ends its turn"));
                        }
                    }
                    "function_call" => {
                        let id = step["id"].as_str().unwrap_or_default();
                        if id.is_empty() {
                            return Err(format!("step {i}: function_call without id"));
                        }
                        // A step the provider sent without arguments is replayed as it
                        // came; arguments that are there must be an object.
                        if step["name"].as_str().is_none_or(str::is_empty)
                            || step.get("arguments").is_some_and(|a| !a.is_object())
                        {
                            return Err(format!(
                                "step {i}: function_call `{id}` needs a name and object arguments"
                            ));
                        }
                        if !seen.insert(id.to_owned()) {
                            return Err(format!("step {i}: call id `{id}` used twice"));
                        }
                        open.push(id.to_owned());
                    }
                    "model_output" => {
                        let content = step["content"]
                            .as_array()
                            .filter(|c| !c.is_empty())
                            .ok_or(format!("step {i}: model_output without content"))?;
                        if content.iter().any(|c| {
                            c["type"] == "text" && c["text"].as_str().unwrap_or_default().is_empty()
                        }) {
                            return Err(format!("step {i}: empty text"));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    if open.is_empty() {
        Ok(())
    } else {
        Err(format!("input ends with unanswered calls {open:?}"))
    }
}

/// A Gemini Interactions body with each (flat) tool reduced to its name, for readable
/// snapshots.
pub fn with_interactions_tool_names(body: &Value) -> Value {
    with_anthropic_tool_names(body)
}

/// Asserts that neither the API key nor a distinctive fragment of it appears in anything a
/// failed call can show: the error's message and Debug form, and the gateway's and its
/// connection's Debug forms; and that the key's place in the message says `[REDACTED]`.
pub fn assert_secret_hidden(
    error: &agent_application::ports::ModelError,
    gateway: &agent_gateway::gateway::HttpModelGateway,
    key: &str,
    fragment: &str,
) {
    for text in [
        error.to_string(),
        format!("{error:?}"),
        format!("{gateway:?}"),
        format!("{:?}", gateway.connection()),
    ] {
        assert!(!text.contains(key), "key leaked: {text}");
        assert!(!text.contains(fragment), "key fragment leaked: {text}");
    }
    assert!(error.message.contains("[REDACTED]"), "{}", error.message);
}

/// One call against a fresh server that answers `response` at `endpoint`, through the
/// gateway `build` makes for that server; returns the result and the bodies sent.
pub async fn generate_once_at(
    endpoint: &str,
    build: impl FnOnce(&MockServer) -> agent_gateway::HttpModelGateway,
    response: ResponseTemplate,
) -> (
    Result<agent_domain::model::AgentModelResponse, agent_application::ports::ModelError>,
    Vec<Value>,
) {
    use agent_application::ports::ModelGateway;
    let server = MockServer::start().await;
    answer_once_at(&server, endpoint, response).await;
    let result = build(&server).generate(call(opening(), 1)).await;
    (result, sent_bodies(&server).await)
}
