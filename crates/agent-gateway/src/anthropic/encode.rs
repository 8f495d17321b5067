//! Canonical request → Anthropic Messages request body.

use agent_application::ports::ModelError;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelRequest, GenerationParameters, MediaData,
    ModelRole,
};
use agent_domain::tool::{AgentModelTool, ToolCallDecoder, ToolInvocation};
use serde_json::{Map, Value, json};

use super::{DEFAULT_MAX_TOKENS, FORMAT, NATIVE, THINKING_TYPES};
use crate::wire::{self, resource_line, tool_decode_error};

/// Body fields this adapter owns; connection params and request extras never replace them.
const OWNED_FIELDS: &[&str] = &[
    "model",
    "system",
    "messages",
    "tools",
    "tool_choice",
    "stream",
];

/// Schema keywords removed from the root of a tool's `input_schema` (on a copy).
const DROPPED_SCHEMA_KEYS: &[&str] = &["$schema", "$id"];

/// Encodes `request` for `model`.
///
/// System messages become the top-level `system` string. Consecutive user-side turns (tool
/// results, then any user text) are merged into one `user` message, tool results first,
/// because Anthropic wants every `tool_result` answering an assistant turn in the single
/// next user message, ahead of other content. Assistant turns replay this provider's
/// thinking blocks first and verbatim, then text and `tool_use` in their original order.
///
/// `max_tokens` (required) comes from the request's output limit, else
/// [`DEFAULT_MAX_TOKENS`] (plus the thinking budget, which it must exceed); a connection's
/// `max_tokens` param overrides both. A thinking
/// budget becomes `thinking: {type: enabled, budget_tokens}`.
pub fn encode(
    request: &AgentModelRequest,
    model: &str,
    connection_params: &Map<String, Value>,
) -> Result<Value, ModelError> {
    let decoder = ToolCallDecoder::new(&request.tools);
    let mut system = Vec::new();
    let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in request.messages.iter() {
        let (role, blocks) = match message.role {
            ModelRole::System => {
                system.push(wire::plain_text(message, FORMAT)?);
                continue;
            }
            ModelRole::User => ("user", user_blocks(message)?),
            ModelRole::Tool => ("user", tool_result_blocks(message, &decoder)?),
            ModelRole::Assistant => ("assistant", assistant_blocks(message, &decoder)?),
            _ => {
                return Err(wire::unsupported(
                    FORMAT,
                    "a message role it has no place for",
                ));
            }
        };
        if blocks.is_empty() {
            continue;
        }
        match messages.last_mut() {
            Some((last, content)) if *last == role => content.extend(blocks),
            _ => messages.push((role, blocks)),
        }
    }

    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    // `max_tokens` is required and must exceed a thinking budget: without an explicit limit,
    // the answer gets the default room on top of the budget.
    let max_tokens = request.parameters.max_output_tokens.unwrap_or_else(|| {
        request
            .parameters
            .reasoning_budget_tokens
            .map_or(DEFAULT_MAX_TOKENS, |budget| {
                budget.saturating_add(DEFAULT_MAX_TOKENS)
            })
    });
    body.insert("max_tokens".into(), json!(max_tokens));
    let system = system.join("\n\n");
    if !system.is_empty() {
        body.insert("system".into(), json!(system));
    }
    let messages = messages
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools = request.tools.iter().map(encode_tool).collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert(
            "tool_choice".into(),
            wire::tool_choice(&request.tool_choice, &decoder, choice_shape)?,
        );
    }
    encode_parameters(&request.parameters, &mut body)?;
    body.insert("stream".into(), json!(false));
    wire::merge_params(
        &mut body,
        OWNED_FIELDS,
        connection_params,
        &request.parameters.extra,
    );
    Ok(Value::Object(body))
}

/// `{name, description, input_schema}`; the schema is a deep copy with `$schema`/`$id`
/// removed from its root and `type: object` ensured there.
fn encode_tool(tool: &AgentModelTool) -> Value {
    let mut schema = tool.input_schema.clone();
    if let Some(root) = schema.as_object_mut() {
        for key in DROPPED_SCHEMA_KEYS {
            root.remove(*key);
        }
        root.entry("type").or_insert_with(|| json!("object"));
    }
    json!({
        "name": tool.alias,
        "description": tool.description,
        "input_schema": schema,
    })
}

fn choice_shape(choice: wire::WireChoice<'_>) -> Value {
    use wire::WireChoice;
    match choice {
        WireChoice::None => json!({"type": "none"}),
        WireChoice::Auto => json!({"type": "auto"}),
        WireChoice::Required => json!({"type": "any"}),
        WireChoice::Specific(alias) => json!({"type": "tool", "name": alias}),
    }
}

/// Sampling settings (`max_tokens` is filled by [`encode`], which always sends one) and a
/// thinking budget.
fn encode_parameters(
    params: &GenerationParameters,
    body: &mut Map<String, Value>,
) -> Result<(), ModelError> {
    let names = wire::SamplingNames {
        top_p: "top_p",
        max_tokens: None,
        stop: Some("stop_sequences"),
    };
    wire::insert_sampling(params, names, body, FORMAT)?;
    if let Some(budget) = params.reasoning_budget_tokens {
        body.insert(
            "thinking".into(),
            json!({"type": "enabled", "budget_tokens": budget}),
        );
    }
    Ok(())
}

fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// A user message as content blocks: text, resource lines and images.
fn user_blocks(message: &AgentModelMessage) -> Result<Vec<Value>, ModelError> {
    let mut blocks = Vec::new();
    for part in &message.parts {
        match part {
            // Anthropic rejects empty text blocks.
            AgentModelContentPart::Text { text } if text.is_empty() => {}
            AgentModelContentPart::Text { text } => blocks.push(text_block(text)),
            AgentModelContentPart::ResourceRef { uri, title } => {
                blocks.push(text_block(&resource_line(uri, title.as_deref())))
            }
            AgentModelContentPart::Media { mime_type, data } if mime_type.starts_with("image/") => {
                let source = match data {
                    MediaData::Base64(b64) => {
                        json!({"type": "base64", "media_type": mime_type, "data": b64})
                    }
                    MediaData::Url(url) => json!({"type": "url", "url": url}),
                    _ => return Err(wire::media_unsupported(FORMAT, mime_type)),
                };
                blocks.push(json!({"type": "image", "source": source}));
            }
            AgentModelContentPart::Media { mime_type, .. } => {
                return Err(wire::media_unsupported(FORMAT, mime_type));
            }
            _ => {
                return Err(wire::unsupported(
                    FORMAT,
                    "a user message may only carry text and images",
                ));
            }
        }
    }
    Ok(blocks)
}

/// A tool message: one `tool_result` block per result.
fn tool_result_blocks(
    message: &AgentModelMessage,
    decoder: &ToolCallDecoder<'_>,
) -> Result<Vec<Value>, ModelError> {
    message
        .parts
        .iter()
        .map(|part| {
            let AgentModelContentPart::ToolResult(result) = part else {
                return Err(wire::unsupported(
                    FORMAT,
                    "a tool message may only carry tool results",
                ));
            };
            // The alias is not sent on a result, but a result whose tool left the request
            // would pair with a call we could not encode: fail alike.
            decoder
                .alias_of(&result.tool_id)
                .map_err(tool_decode_error)?;
            Ok(json!({
                "type": "tool_result",
                "tool_use_id": result.call_id,
                "content": result.model_content(),
                "is_error": result.is_error,
            }))
        })
        .collect()
}

/// An assistant turn: this provider's thinking blocks first, verbatim; then text, tool
/// calls and any other native block of this provider in their original order. Readable
/// reasoning parts are display copies and are not sent; other providers' native parts
/// are left out.
fn assistant_blocks(
    message: &AgentModelMessage,
    decoder: &ToolCallDecoder<'_>,
) -> Result<Vec<Value>, ModelError> {
    let mut thinking = Vec::new();
    let mut rest = Vec::new();
    for part in &message.parts {
        match part {
            AgentModelContentPart::Native {
                provider, value, ..
            } if provider == NATIVE => {
                let kind = value
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if THINKING_TYPES.contains(&kind) {
                    thinking.push(value.clone());
                } else {
                    rest.push(value.clone());
                }
            }
            AgentModelContentPart::Text { text } if !text.is_empty() => rest.push(text_block(text)),
            AgentModelContentPart::ToolCall(call) => rest.push(encode_call(call, decoder)?),
            _ => {}
        }
    }
    thinking.extend(rest);
    Ok(thinking)
}

/// One historical call as a `tool_use` block named by this request's alias.
fn encode_call(call: &ToolInvocation, decoder: &ToolCallDecoder<'_>) -> Result<Value, ModelError> {
    let alias = decoder.alias_of(&call.tool_id).map_err(tool_decode_error)?;
    Ok(json!({
        "type": "tool_use",
        "id": call.call_id,
        "name": alias,
        "input": wire::object_arguments(&call.arguments),
    }))
}
