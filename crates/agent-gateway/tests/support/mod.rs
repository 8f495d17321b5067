//! Shared helpers for the HTTP gateway tests: real tool snapshots, model calls, a mock
//! provider, and a transcript checker that reads the wire JSON back.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashSet};

use agent_application::ports::ModelCall;
use agent_domain::event::InvocationKind;
use agent_domain::model::{
    AgentModelMessage, AgentModelRequest, GenerationParameters, ProviderState,
};
use agent_domain::profile::{ProfileSource, default_writer, resolve};
use agent_domain::run::{InvocationId, RunId};
use agent_domain::tool::{
    AgentModelTool, ExitPolicy, SnapshotInputs, ToolChoice, ToolTurnContract, builtin_catalog,
    compile_snapshot,
};
use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

pub const CHAT_PATH: &str = "/v1/chat/completions";
pub const MESSAGES_PATH: &str = "/v1/messages";

/// The default writer's root tools as one request advertises them.
pub fn tools() -> Vec<AgentModelTool> {
    let profile = resolve(&default_writer(), ProfileSource::BuiltIn).unwrap();
    let catalog = builtin_catalog().unwrap();
    let snapshot = compile_snapshot(SnapshotInputs {
        invocation_id: "inv_root",
        policy: &profile.tool_policy(),
        exit_policy: ExitPolicy::RunFinishAllowed,
        builtins: &catalog,
        mcp: &BTreeMap::new(),
    })
    .unwrap()
    .snapshot;
    ToolTurnContract::all(&snapshot, ToolChoice::Auto)
        .unwrap()
        .model_tools(&snapshot)
        .unwrap()
}

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
            messages,
            tools: tools(),
            tool_choice: ToolChoice::Auto,
            provider_state: ProviderState::initial("run_http", "inv_root"),
            parameters: GenerationParameters::default(),
        },
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

/// A mock provider answering the next request to `endpoint` (once) with `response`.
pub async fn answer_once_at(server: &MockServer, endpoint: &str, response: ResponseTemplate) {
    Mock::given(method("POST"))
        .and(path(endpoint))
        .respond_with(response)
        .up_to_n_times(1)
        .mount(server)
        .await;
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
