//! Canonical request → Gemini `generateContent` request body.

use std::collections::HashMap;

use agent_application::ports::ModelError;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelRequest, GenerationParameters, MediaData,
    ModelRole, ReasoningEffort,
};
use agent_domain::tool::{AgentModelTool, ToolCallDecoder, ToolInvocation};
use serde_json::{Map, Value, json};

use super::{FORMAT, MINTED_ID, NATIVE, schema};
use crate::wire::{self, resource_line, tool_decode_error};

/// Body fields this adapter owns; connection params and request extras never replace them.
/// `generationConfig` is merged key by key instead (see [`encode`]).
const OWNED_FIELDS: &[&str] = &[
    "contents",
    "systemInstruction",
    "tools",
    "toolConfig",
    "generationConfig",
];

/// Schema keywords removed from the root of a `parametersJsonSchema` (on a copy).
const DROPPED_SCHEMA_KEYS: &[&str] = &["$schema", "$id"];

/// How tool schemas are sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SchemaMode {
    /// `parametersJsonSchema`: the canonical JSON Schema (root `$schema`/`$id` removed).
    #[default]
    JsonSchema,
    /// `parameters`: the OpenAPI 3.0 subset, see [`schema::openapi_schema`].
    #[cfg_attr(
        not(feature = "internals"),
        expect(dead_code, reason = "no connection selects it yet; its tests pin the shape")
    )]
    OpenApi,
}

/// Encodes `request`. The model travels in the URL, not the body.
///
/// System messages become `systemInstruction`. User turns become `user` contents, assistant
/// turns `model` contents: replayed verbatim from this format's native part when there is
/// one (signatures stay on their parts), otherwise built from text and `functionCall` parts.
/// The results answering a model turn become one `user` content of `functionResponse` parts
/// in the order of that turn's calls (Gemini pairs by position), followed by any user text.
/// Connection params and request extras are merged last; a `generationConfig` among them
/// is merged into the adapter's key by key.
pub fn encode(
    request: &AgentModelRequest,
    connection_params: &Map<String, Value>,
    schema_mode: SchemaMode,
) -> Result<Value, ModelError> {
    let decoder = ToolCallDecoder::new(&request.tools);
    let mut system = Vec::new();
    let mut contents: Vec<(&'static str, Vec<Value>)> = Vec::new();
    // Calls of the latest model turn: call id → (position, whether to send the id).
    let mut open_calls: HashMap<String, (usize, bool)> = HashMap::new();
    let mut responses: Vec<(usize, Value)> = Vec::new();
    for message in request.messages.iter() {
        if message.role != ModelRole::Tool {
            flush_responses(&mut responses, &mut contents);
        }
        let (role, parts) = match message.role {
            ModelRole::System => {
                system.push(wire::plain_text(message, FORMAT)?);
                continue;
            }
            ModelRole::User => ("user", user_parts(message)?),
            ModelRole::Tool => {
                for part in &message.parts {
                    responses.push(function_response(part, &open_calls, &decoder)?);
                }
                continue;
            }
            ModelRole::Assistant => {
                open_calls = message
                    .tool_calls()
                    .iter()
                    .enumerate()
                    .map(|(i, call)| (call.call_id.clone(), (i, !minted(call))))
                    .collect();
                ("model", model_parts(message, &decoder)?)
            }
            _ => {
                return Err(wire::unsupported(
                    FORMAT,
                    "a message role it has no place for",
                ));
            }
        };
        push_content(&mut contents, role, parts);
    }
    flush_responses(&mut responses, &mut contents);

    let mut body = Map::new();
    let system = system.join("\n\n");
    if !system.is_empty() {
        body.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": system}]}),
        );
    }
    let contents = contents
        .into_iter()
        .map(|(role, parts)| json!({"role": role, "parts": parts}))
        .collect();
    body.insert("contents".into(), Value::Array(contents));
    if !request.tools.is_empty() {
        let declarations: Vec<Value> = request
            .tools
            .iter()
            .map(|t| encode_tool(t, schema_mode))
            .collect();
        body.insert(
            "tools".into(),
            json!([{"functionDeclarations": declarations}]),
        );
        body.insert(
            "toolConfig".into(),
            json!({"functionCallingConfig": wire::tool_choice(&request.tool_choice, &decoder, choice_shape)?}),
        );
    }
    let mut config = generation_config(&request.parameters)?;
    for params in [connection_params, &request.parameters.extra] {
        if let Some(Value::Object(extra)) = params.get("generationConfig") {
            config.extend(extra.clone());
        }
    }
    if !config.is_empty() {
        body.insert("generationConfig".into(), Value::Object(config));
    }
    wire::merge_params(
        &mut body,
        OWNED_FIELDS,
        connection_params,
        &request.parameters.extra,
    );
    Ok(Value::Object(body))
}

/// Appends `parts` as a `role` content, merged into the previous one of the same role.
fn push_content(
    contents: &mut Vec<(&'static str, Vec<Value>)>,
    role: &'static str,
    parts: Vec<Value>,
) {
    if parts.is_empty() {
        return;
    }
    match contents.last_mut() {
        Some((last, existing)) if *last == role => existing.extend(parts),
        _ => contents.push((role, parts)),
    }
}

/// Sends the pending function responses as a `user` content, in call order.
fn flush_responses(
    responses: &mut Vec<(usize, Value)>,
    contents: &mut Vec<(&'static str, Vec<Value>)>,
) {
    if responses.is_empty() {
        return;
    }
    responses.sort_by_key(|(position, _)| *position);
    let parts = responses.drain(..).map(|(_, part)| part).collect();
    push_content(contents, "user", parts);
}

/// Whether this adapter minted the call's id (it is then never sent).
fn minted(call: &ToolInvocation) -> bool {
    call.provider_metadata.get(MINTED_ID) == Some(&Value::Bool(true))
}

/// `{name, description, parametersJsonSchema | parameters}`; the schema is a deep copy. A
/// tool without properties gets no schema at all.
fn encode_tool(tool: &AgentModelTool, mode: SchemaMode) -> Value {
    let mut declaration = json!({"name": tool.alias, "description": tool.description});
    let has_properties = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    match mode {
        SchemaMode::JsonSchema if has_properties => {
            let mut schema = tool.input_schema.clone();
            if let Some(root) = schema.as_object_mut() {
                for key in DROPPED_SCHEMA_KEYS {
                    root.remove(*key);
                }
                root.entry("type").or_insert_with(|| json!("object"));
            }
            declaration["parametersJsonSchema"] = schema;
        }
        SchemaMode::JsonSchema => {}
        SchemaMode::OpenApi => {
            if let Some(parameters) = schema::openapi_schema(&tool.input_schema) {
                declaration["parameters"] = parameters;
            }
        }
    }
    declaration
}

fn choice_shape(choice: wire::WireChoice<'_>) -> Value {
    use wire::WireChoice;
    match choice {
        WireChoice::None => json!({"mode": "NONE"}),
        WireChoice::Auto => json!({"mode": "AUTO"}),
        WireChoice::Required => json!({"mode": "ANY"}),
        WireChoice::Specific(alias) => json!({"mode": "ANY", "allowedFunctionNames": [alias]}),
    }
}

/// `temperature`, `topP`, `maxOutputTokens`, `stopSequences` and `thinkingConfig` (a budget
/// as `thinkingBudget`, else an effort as `thinkingLevel`; never both).
fn generation_config(params: &GenerationParameters) -> Result<Map<String, Value>, ModelError> {
    let mut config = Map::new();
    let names = wire::SamplingNames {
        top_p: "topP",
        max_tokens: Some("maxOutputTokens"),
        stop: Some("stopSequences"),
    };
    wire::insert_sampling(params, names, &mut config, FORMAT)?;
    let level = params
        .reasoning_effort
        .and_then(ReasoningEffort::thinking_level);
    if let Some(budget) = params.reasoning_budget_tokens {
        config.insert(
            "thinkingConfig".into(),
            json!({"thinkingBudget": budget, "includeThoughts": true}),
        );
    } else if let Some(level) = level {
        config.insert(
            "thinkingConfig".into(),
            json!({"thinkingLevel": level, "includeThoughts": true}),
        );
    }
    Ok(config)
}

/// A user message as parts: text (empty text left out), resource lines and media.
fn user_parts(message: &AgentModelMessage) -> Result<Vec<Value>, ModelError> {
    let mut parts = Vec::new();
    for part in &message.parts {
        match part {
            AgentModelContentPart::Text { text } if text.is_empty() => {}
            AgentModelContentPart::Text { text } => parts.push(json!({"text": text})),
            AgentModelContentPart::ResourceRef { uri, title } => {
                parts.push(json!({"text": resource_line(uri, title.as_deref())}))
            }
            AgentModelContentPart::Media { mime_type, data } => parts.push(match data {
                MediaData::Base64(b64) => {
                    json!({"inlineData": {"mimeType": mime_type, "data": b64}})
                }
                MediaData::Url(url) => json!({"fileData": {"mimeType": mime_type, "fileUri": url}}),
                _ => return Err(wire::media_unsupported(FORMAT, mime_type)),
            }),
            _ => {
                return Err(wire::unsupported(
                    FORMAT,
                    "a user message may only carry text and media",
                ));
            }
        }
    }
    Ok(parts)
}

/// One tool result as `(call position, functionResponse part)`.
fn function_response(
    part: &AgentModelContentPart,
    open_calls: &HashMap<String, (usize, bool)>,
    decoder: &ToolCallDecoder<'_>,
) -> Result<(usize, Value), ModelError> {
    let AgentModelContentPart::ToolResult(result) = part else {
        return Err(wire::unsupported(
            FORMAT,
            "a tool message may only carry tool results",
        ));
    };
    let alias = decoder
        .alias_of(&result.tool_id)
        .map_err(tool_decode_error)?;
    // The transcript check guarantees the result answers a call of the latest model turn.
    let (position, send_id) = open_calls
        .get(&result.call_id)
        .copied()
        .unwrap_or((usize::MAX, true));
    let mut response = json!({"name": alias, "response": {"content": result.model_content()}});
    if send_id {
        response["id"] = json!(result.call_id);
    }
    Ok((position, json!({"functionResponse": response})))
}

/// A model turn. With this format's native part, its parts verbatim (every
/// `thoughtSignature` on the part it came with), only each `functionCall.name` refreshed to
/// the alias the current request gives the call's tool. Without one (or when it no longer
/// matches the turn's calls), text and `functionCall` parts in their original order.
/// Reasoning parts are display copies and are not sent; other providers' native parts are
/// left out.
fn model_parts(
    message: &AgentModelMessage,
    decoder: &ToolCallDecoder<'_>,
) -> Result<Vec<Value>, ModelError> {
    let calls = message.tool_calls();
    let native: Vec<Value> = message
        .native_parts(NATIVE)
        .filter_map(|v| v.get("parts").and_then(Value::as_array))
        .flatten()
        .cloned()
        .collect();
    let native_calls = native
        .iter()
        .filter(|p| p.get("functionCall").is_some())
        .count();
    if !native.is_empty() && native_calls == calls.len() {
        let mut calls = calls.iter();
        let mut parts = native;
        for part in &mut parts {
            if let Some(function_call) = part.get_mut("functionCall")
                && let Some(call) = calls.next()
            {
                let alias = decoder.alias_of(&call.tool_id).map_err(tool_decode_error)?;
                function_call["name"] = json!(alias);
            }
        }
        return Ok(parts);
    }
    let mut parts = Vec::new();
    for part in &message.parts {
        match part {
            AgentModelContentPart::Text { text } if !text.is_empty() => {
                parts.push(json!({"text": text}))
            }
            AgentModelContentPart::ToolCall(call) => {
                let alias = decoder.alias_of(&call.tool_id).map_err(tool_decode_error)?;
                let mut function_call =
                    json!({"name": alias, "args": wire::object_arguments(&call.arguments)});
                if !minted(call) {
                    function_call["id"] = json!(call.call_id);
                }
                parts.push(json!({"functionCall": function_call}));
            }
            _ => {}
        }
    }
    Ok(parts)
}
