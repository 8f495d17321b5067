//! Canonical request → Gemini Interactions request body, whole or chained onto a stored
//! interaction.

use std::collections::HashMap;

use agent_application::ports::ModelError;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelRequest, GenerationParameters, MediaData,
    ModelRole, ReasoningEffort,
};
use agent_domain::tool::{AgentModelTool, ToolCallDecoder, ToolInvocation};
use serde_json::{Map, Value, json};

use super::{FORMAT, NATIVE, SESSION};
use crate::continuation::Continuation;
use crate::gemini::openapi_schema;
use crate::wire::{self, resource_line, tool_decode_error};

/// Body fields this adapter owns; connection params and request extras never replace them.
/// `generation_config` is merged key by key instead (see [`encode`]). `stream` is owned
/// but never sent: the adapter reads one JSON body, which is the server's default.
const OWNED_FIELDS: &[&str] = &[
    "model",
    "system_instruction",
    "input",
    "tools",
    "generation_config",
    "store",
    "previous_interaction_id",
    "stream",
];

/// Keys of `generation_config` this adapter owns inside an otherwise mergeable object.
const OWNED_CONFIG_KEYS: &[&str] = &["tool_choice"];

/// Content types of the pre-May-2026 `outputs[]` shape that the `steps[]` shape carries
/// inside a `model_output` step.
const OUTPUT_CONTENT_TYPES: &[&str] = &["text", "image", "audio", "video", "document"];

/// Encodes `request` for `model`.
///
/// * System messages → `system_instruction` (joined; resent every turn, also when chained).
/// * User messages → a `user_input` step each, with `text` and media content.
/// * Assistant messages → the steps of this format's native part verbatim (each `thought`
///   keeps its `signature`, each `function_call` its id and `signature`; only the call's
///   `name` is refreshed to the alias the current request gives its tool). Without that
///   part — the turn came from another provider — or when it no longer matches the turn's
///   calls, `model_output` and `function_call` steps built from the canonical parts, in
///   their order; reasoning is then left out (signatures never cross providers).
/// * The tool messages answering one model turn → one `user_input` step of
///   `function_result` blocks in the order of that turn's calls, each with the alias of
///   the current request, the text the model reads and the native `is_error` flag.
///
/// Tools are `{type: "function", name, description, parameters}` with the Gemini-safe
/// schema ([`openapi_schema`], on a copy; no `parameters` for a tool without properties).
/// `generation_config` carries `tool_choice`, the sampling settings and a `thinking_level`
/// from the reasoning effort (a token budget has no Interactions knob and is dropped).
///
/// `store` is the connection's mode and is always sent (the server stores by default). A
/// [`Continuation::Chained`] request names its predecessor in `previous_interaction_id`
/// and carries only the messages the continuation sends. Connection params and request
/// extras are merged last; a `generation_config` among them is merged into the adapter's
/// key by key, except `tool_choice`.
pub fn encode(
    request: &AgentModelRequest,
    model: &str,
    connection_params: &Map<String, Value>,
    store: bool,
    continuation: Continuation<'_>,
) -> Result<Value, ModelError> {
    SESSION.refuse(&request.parameters.extra)?;
    if continuation.previous_id().is_some() && !store {
        return Err(SESSION
            .refused("a chained request needs `store: true` (nothing was stored to chain onto)"));
    }
    let decoder = ToolCallDecoder::new(&request.tools);
    let mut system = Vec::new();
    let mut input = Vec::new();
    // Calls of the latest model turn: call id → position in the turn. Tracked for every
    // turn, also those a chained request leaves out, so results keep their call order.
    let mut open_calls: HashMap<&str, usize> = HashMap::new();
    let mut results: Vec<(usize, Value)> = Vec::new();
    for (index, message) in request.messages.iter().enumerate() {
        if message.role != ModelRole::Tool {
            flush_results(&mut results, &mut input);
        }
        if message.role == ModelRole::Assistant {
            open_calls = message
                .tool_calls()
                .into_iter()
                .enumerate()
                .map(|(position, call)| (call.call_id.as_str(), position))
                .collect();
        }
        if !continuation.sends(index, message) {
            continue;
        }
        match message.role {
            ModelRole::System => system.push(wire::plain_text(message, FORMAT)?),
            ModelRole::User => {
                let content = user_content(message)?;
                if !content.is_empty() {
                    input.push(json!({"type": "user_input", "content": content}));
                }
            }
            ModelRole::Assistant => model_steps(message, &decoder, &mut input)?,
            ModelRole::Tool => {
                for part in &message.parts {
                    results.push(function_result(part, &open_calls, &decoder)?);
                }
            }
            _ => return Err(unsupported("a message role it has no place for")),
        }
    }
    flush_results(&mut results, &mut input);

    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    let system = system.join("\n\n");
    if !system.is_empty() {
        body.insert("system_instruction".into(), json!(system));
    }
    body.insert("input".into(), Value::Array(input));
    let mut config = generation_config(&request.parameters)?;
    if !request.tools.is_empty() {
        let tools = request.tools.iter().map(encode_tool).collect();
        body.insert("tools".into(), Value::Array(tools));
        config.insert(
            "tool_choice".into(),
            wire::tool_choice(&request.tool_choice, &decoder, choice_shape)?,
        );
    }
    for params in [connection_params, &request.parameters.extra] {
        if let Some(Value::Object(extra)) = params.get("generation_config") {
            for (key, value) in extra {
                if !OWNED_CONFIG_KEYS.contains(&key.as_str()) {
                    config.insert(key.clone(), value.clone());
                }
            }
        }
    }
    if !config.is_empty() {
        body.insert("generation_config".into(), Value::Object(config));
    }
    body.insert("store".into(), json!(store));
    if let Some(previous) = continuation.previous_id() {
        body.insert("previous_interaction_id".into(), json!(previous));
    }
    wire::merge_params(
        &mut body,
        OWNED_FIELDS,
        connection_params,
        &request.parameters.extra,
    );
    Ok(Value::Object(body))
}

/// `{type: "function", name, description, parameters?}`; the schema is a sanitised copy.
fn encode_tool(tool: &AgentModelTool) -> Value {
    let mut declaration = json!({
        "type": "function",
        "name": tool.alias,
        "description": tool.description,
    });
    if let Some(parameters) = openapi_schema(&tool.input_schema) {
        declaration["parameters"] = parameters;
    }
    declaration
}

fn choice_shape(choice: wire::WireChoice<'_>) -> Value {
    use wire::WireChoice;
    match choice {
        WireChoice::None => json!("none"),
        WireChoice::Auto => json!("auto"),
        WireChoice::Required => json!("any"),
        WireChoice::Specific(alias) => {
            json!({"allowed_tools": {"mode": "validated", "tools": [alias]}})
        }
    }
}

/// `temperature`, `top_p`, `max_output_tokens`, `stop_sequences`, and a `thinking_level`
/// (with `thinking_summaries: "auto"`, so the thoughts come back readable) from the effort.
fn generation_config(params: &GenerationParameters) -> Result<Map<String, Value>, ModelError> {
    let mut config = Map::new();
    let names = wire::SamplingNames {
        top_p: "top_p",
        max_tokens: Some("max_output_tokens"),
        stop: Some("stop_sequences"),
    };
    wire::insert_sampling(params, names, &mut config, FORMAT)?;
    let level = params
        .reasoning_effort
        .and_then(ReasoningEffort::thinking_level);
    if let Some(level) = level {
        config.insert("thinking_level".into(), json!(level));
        config.insert("thinking_summaries".into(), json!("auto"));
    }
    Ok(config)
}

/// A user message as content: text (empty text left out), resource lines and media.
fn user_content(message: &AgentModelMessage) -> Result<Vec<Value>, ModelError> {
    let mut content = Vec::new();
    for part in &message.parts {
        match part {
            AgentModelContentPart::Text { text } if text.is_empty() => {}
            AgentModelContentPart::Text { text } => {
                content.push(json!({"type": "text", "text": text}))
            }
            AgentModelContentPart::ResourceRef { uri, title } => {
                content.push(json!({"type": "text", "text": resource_line(uri, title.as_deref())}))
            }
            AgentModelContentPart::Media { mime_type, data } => {
                content.push(media_content(mime_type, data)?)
            }
            _ => return Err(unsupported("a user message may only carry text and media")),
        }
    }
    Ok(content)
}

/// `{type: image|audio|video|document, data | uri, mime_type}`.
fn media_content(mime_type: &str, data: &MediaData) -> Result<Value, ModelError> {
    let kind = match mime_type.split('/').next().unwrap_or_default() {
        "image" => "image",
        "audio" => "audio",
        "video" => "video",
        _ if mime_type == "application/pdf" => "document",
        _ => return Err(wire::media_unsupported(FORMAT, mime_type)),
    };
    match data {
        MediaData::Base64(b64) => Ok(json!({"type": kind, "data": b64, "mime_type": mime_type})),
        MediaData::Url(url) => Ok(json!({"type": kind, "uri": url, "mime_type": mime_type})),
        _ => Err(wire::media_unsupported(FORMAT, mime_type)),
    }
}

/// One tool result as `(call position, function_result block)`.
fn function_result(
    part: &AgentModelContentPart,
    open_calls: &HashMap<&str, usize>,
    decoder: &ToolCallDecoder<'_>,
) -> Result<(usize, Value), ModelError> {
    let AgentModelContentPart::ToolResult(result) = part else {
        return Err(unsupported("a tool message may only carry tool results"));
    };
    let alias = decoder
        .alias_of(&result.tool_id)
        .map_err(tool_decode_error)?;
    // The transcript check guarantees the result answers a call of the latest model turn.
    let position = open_calls
        .get(result.call_id.as_str())
        .copied()
        .unwrap_or(usize::MAX);
    Ok((
        position,
        json!({
            "type": "function_result",
            "call_id": result.call_id,
            "name": alias,
            "result": result.model_content(),
            "is_error": result.is_error,
        }),
    ))
}

/// Sends the pending results as one `user_input` step, in call order.
fn flush_results(results: &mut Vec<(usize, Value)>, input: &mut Vec<Value>) {
    if results.is_empty() {
        return;
    }
    results.sort_by_key(|(position, _)| *position);
    let content: Vec<Value> = results.drain(..).map(|(_, block)| block).collect();
    input.push(json!({"type": "user_input", "content": content}));
}

/// A model turn as steps (see [`encode`]).
fn model_steps(
    message: &AgentModelMessage,
    decoder: &ToolCallDecoder<'_>,
    out: &mut Vec<Value>,
) -> Result<(), ModelError> {
    let calls = message.tool_calls();
    let native: Vec<&Value> = message
        .native_parts(NATIVE)
        .filter_map(|v| v.get("steps").and_then(Value::as_array))
        .flatten()
        .collect();
    if !native.is_empty() && native_matches(&native, &calls) {
        let mut calls = calls.iter();
        for step in native {
            match step_type(step) {
                // A `GET` timeline's echo of the user's own turn: the transcript has it.
                Some("user_input") => {}
                Some(kind) if OUTPUT_CONTENT_TYPES.contains(&kind) => {
                    out.push(json!({"type": "model_output", "content": [step]}));
                }
                Some("function_call") => {
                    let mut step = step.clone();
                    if let (Some(object), Some(call)) = (step.as_object_mut(), calls.next()) {
                        let alias = decoder.alias_of(&call.tool_id).map_err(tool_decode_error)?;
                        object.insert("name".into(), json!(alias));
                        if step_id(object).is_none() {
                            object.insert("id".into(), json!(call.call_id));
                        }
                    }
                    out.push(step);
                }
                _ => out.push(step.clone()),
            }
        }
        return Ok(());
    }
    let mut text = Vec::new();
    for part in &message.parts {
        match part {
            AgentModelContentPart::Text { text: t } if !t.is_empty() => {
                text.push(json!({"type": "text", "text": t}));
            }
            AgentModelContentPart::ToolCall(call) => {
                flush_output(&mut text, out);
                out.push(function_call_step(call, decoder)?);
            }
            _ => {}
        }
    }
    flush_output(&mut text, out);
    Ok(())
}

/// Whether the native steps are this turn's: the same number of calls, and every call id
/// the steps carry equals the canonical call's at the same position.
fn native_matches(steps: &[&Value], calls: &[&ToolInvocation]) -> bool {
    let native_calls: Vec<&Value> = steps
        .iter()
        .copied()
        .filter(|s| step_type(s) == Some("function_call"))
        .collect();
    native_calls.len() == calls.len()
        && native_calls.iter().zip(calls).all(|(step, call)| {
            step.as_object()
                .and_then(step_id)
                .is_none_or(|id| id == call.call_id)
        })
}

fn step_type(step: &Value) -> Option<&str> {
    step.get("type").and_then(Value::as_str)
}

/// A step's non-blank `id`.
fn step_id(step: &Map<String, Value>) -> Option<&str> {
    step.get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.trim().is_empty())
}

/// Text collected so far as one `model_output` step.
fn flush_output(text: &mut Vec<Value>, out: &mut Vec<Value>) {
    if !text.is_empty() {
        out.push(json!({"type": "model_output", "content": std::mem::take(text)}));
    }
}

/// A call from another provider's turn, named by this request's alias, with object
/// arguments.
fn function_call_step(
    call: &ToolInvocation,
    decoder: &ToolCallDecoder<'_>,
) -> Result<Value, ModelError> {
    let alias = decoder.alias_of(&call.tool_id).map_err(tool_decode_error)?;
    Ok(json!({
        "type": "function_call",
        "id": call.call_id,
        "name": alias,
        "arguments": wire::object_arguments(&call.arguments),
    }))
}

fn unsupported(what: &str) -> ModelError {
    wire::unsupported(FORMAT, what)
}
