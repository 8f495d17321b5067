//! Canonical request → Chat Completions request body.

use agent_application::ports::ModelError;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelRequest, GenerationParameters, MediaData,
    ModelRole,
};
use agent_domain::tool::{ToolCallDecoder, ToolInvocation};
use serde_json::{Map, Value, json};

use agent_domain::connection::ChatDialect;

use super::{OPENROUTER_NATIVE, REASONING_CONTENT_PRODUCER};
use crate::wire::{
    self, resource_line, tool_decode_error as decode_error,
};

/// The format name in error messages.
const FORMAT: &str = "Chat Completions";

/// Body fields this adapter owns; connection params and request extras never replace them.
const OWNED_FIELDS: &[&str] = &["model", "messages", "tools", "tool_choice", "stream"];

/// Encodes `request` for `model` on a server speaking `dialect`.
///
/// The gateway has checked the transcript's tool-call pairing before this runs. Historical
/// tool calls and results are named by the alias *this* request gives their tool; a tool
/// missing from the request fails fast with `model.tool_not_in_request`.
///
/// `connection_params` (a connection's own body fields) and then the request's
/// `parameters.extra` are merged last, so they may adjust generation settings but never
/// the fields listed in [`OWNED_FIELDS`]. Provider state is not sent: Chat Completions is
/// stateless and the whole transcript travels each time.
pub fn encode(
    request: &AgentModelRequest,
    model: &str,
    dialect: ChatDialect,
    connection_params: &Map<String, Value>,
) -> Result<Value, ModelError> {
    let decoder = ToolCallDecoder::new(&request.tools);
    let mut messages = Vec::with_capacity(request.messages.len());
    for message in request.messages.iter() {
        encode_message(message, &decoder, dialect, &mut messages)?;
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.alias,
                        "description": tool.description,
                        // A deep copy: the canonical schema is never touched by the wire.
                        "parameters": tool.input_schema.clone(),
                    }
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert(
            "tool_choice".into(),
            wire::tool_choice(&request.tool_choice, &decoder, choice_shape)?,
        );
    }
    encode_parameters(&request.parameters, dialect, &mut body)?;
    body.insert("stream".into(), json!(false));
    wire::merge_params(
        &mut body,
        OWNED_FIELDS,
        connection_params,
        &request.parameters.extra,
    );
    Ok(Value::Object(body))
}

fn choice_shape(choice: wire::WireChoice<'_>) -> Value {
    use wire::WireChoice;
    match choice {
        WireChoice::None => json!("none"),
        WireChoice::Auto => json!("auto"),
        WireChoice::Required => json!("required"),
        WireChoice::Specific(alias) => json!({"type": "function", "function": {"name": alias}}),
    }
}

fn encode_parameters(
    params: &GenerationParameters,
    dialect: ChatDialect,
    body: &mut Map<String, Value>,
) -> Result<(), ModelError> {
    let names = wire::SamplingNames {
        top_p: "top_p",
        max_tokens: Some(max_tokens_field(dialect)),
        stop: Some("stop"),
    };
    wire::insert_sampling(params, names, body, FORMAT)?;
    let effort = params.reasoning_effort.map(|e| json!(e.as_str()));
    match dialect {
        ChatDialect::Openai => {
            if let Some(effort) = effort {
                body.insert("reasoning_effort".into(), effort);
            }
        }
        ChatDialect::Openrouter => {
            let mut reasoning = Map::new();
            if let Some(effort) = effort {
                reasoning.insert("effort".into(), effort);
            }
            if let Some(budget) = params.reasoning_budget_tokens {
                reasoning.insert("max_tokens".into(), json!(budget));
            }
            if !reasoning.is_empty() {
                body.insert("reasoning".into(), Value::Object(reasoning));
            }
        }
        // DeepSeek switches thinking by model; generic servers have no common knob.
        ChatDialect::Deepseek | ChatDialect::Generic => {}
    }
    Ok(())
}

fn encode_message(
    message: &AgentModelMessage,
    decoder: &ToolCallDecoder<'_>,
    dialect: ChatDialect,
    out: &mut Vec<Value>,
) -> Result<(), ModelError> {
    match message.role {
        ModelRole::System => {
            out.push(json!({"role": "system", "content": wire::plain_text(message, FORMAT)?}));
        }
        ModelRole::User => out.push(json!({"role": "user", "content": user_content(message)?})),
        ModelRole::Assistant => out.push(assistant_message(message, decoder, dialect)?),
        ModelRole::Tool => {
            for part in &message.parts {
                let AgentModelContentPart::ToolResult(result) = part else {
                    return Err(unsupported("a tool message may only carry tool results"));
                };
                // The alias is not sent on a tool message, but a result whose tool left
                // the request would pair with a call we could not encode: fail alike.
                decoder.alias_of(&result.tool_id).map_err(decode_error)?;
                out.push(json!({
                    "role": "tool",
                    "tool_call_id": result.call_id,
                    "content": result.model_content(),
                }));
            }
        }
        _ => {
            return Err(unsupported(
                "a message role Chat Completions has no place for",
            ));
        }
    }
    Ok(())
}

/// A user message: a plain string, or content parts when it carries images.
fn user_content(message: &AgentModelMessage) -> Result<Value, ModelError> {
    let has_media = message
        .parts
        .iter()
        .any(|p| matches!(p, AgentModelContentPart::Media { .. }));
    if !has_media {
        return wire::plain_text(message, FORMAT).map(Value::String);
    }
    let mut parts = Vec::new();
    for part in &message.parts {
        match part {
            AgentModelContentPart::Text { text } => {
                parts.push(json!({"type": "text", "text": text}))
            }
            AgentModelContentPart::ResourceRef { uri, title } => {
                parts.push(json!({"type": "text", "text": resource_line(uri, title.as_deref())}))
            }
            AgentModelContentPart::Media { mime_type, data } if mime_type.starts_with("image/") => {
                let url = match data {
                    MediaData::Base64(b64) => format!("data:{mime_type};base64,{b64}"),
                    MediaData::Url(url) => url.clone(),
                    _ => return Err(media_unsupported(mime_type)),
                };
                parts.push(json!({"type": "image_url", "image_url": {"url": url}}));
            }
            AgentModelContentPart::Media { mime_type, .. } => {
                return Err(media_unsupported(mime_type));
            }
            _ => return Err(unsupported("a user message may only carry text and images")),
        }
    }
    Ok(Value::Array(parts))
}

/// An assistant turn: text, tool calls under this request's aliases, and the reasoning
/// the dialect needs back. Other providers' native parts are left out.
fn assistant_message(
    message: &AgentModelMessage,
    decoder: &ToolCallDecoder<'_>,
    dialect: ChatDialect,
) -> Result<Value, ModelError> {
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    let mut reasoning_content: Option<String> = None;
    let mut reasoning_details = Vec::new();
    for part in &message.parts {
        match part {
            AgentModelContentPart::Text { text: t } => text.push_str(t),
            AgentModelContentPart::ToolCall(call) => tool_calls.push(encode_call(call, decoder)?),
            AgentModelContentPart::Reasoning {
                text: t, producer, ..
            } if dialect == ChatDialect::Deepseek
                && producer.as_deref() == Some(REASONING_CONTENT_PRODUCER) =>
            {
                reasoning_content
                    .get_or_insert_with(String::new)
                    .push_str(t);
            }
            AgentModelContentPart::Native {
                provider, value, ..
            } if dialect == ChatDialect::Openrouter && provider == OPENROUTER_NATIVE => match value {
                Value::Array(items) => reasoning_details.extend(items.iter().cloned()),
                other => reasoning_details.push(other.clone()),
            },
            _ => {}
        }
    }
    let mut out = Map::new();
    out.insert("role".into(), json!("assistant"));
    let content = if text.is_empty() && !tool_calls.is_empty() {
        Value::Null
    } else {
        Value::String(text)
    };
    out.insert("content".into(), content);
    if let Some(reasoning) = reasoning_content {
        out.insert("reasoning_content".into(), Value::String(reasoning));
    }
    if !reasoning_details.is_empty() {
        out.insert("reasoning_details".into(), Value::Array(reasoning_details));
    }
    if !tool_calls.is_empty() {
        out.insert("tool_calls".into(), Value::Array(tool_calls));
    }
    Ok(Value::Object(out))
}

/// One historical call. Arguments kept as a raw string (they were not valid JSON) go
/// back verbatim; parsed arguments are serialised again.
fn encode_call(call: &ToolInvocation, decoder: &ToolCallDecoder<'_>) -> Result<Value, ModelError> {
    let alias = decoder.alias_of(&call.tool_id).map_err(decode_error)?;
    let arguments = wire::string_arguments(&call.arguments);
    Ok(json!({
        "id": call.call_id,
        "type": "function",
        "function": {"name": alias, "arguments": arguments},
    }))
}

fn unsupported(what: &str) -> ModelError {
    wire::unsupported(FORMAT, what)
}

fn media_unsupported(mime_type: &str) -> ModelError {
    wire::media_unsupported(FORMAT, mime_type)
}

/// The body field that caps output tokens: OpenAI's reasoning models reject `max_tokens`.
fn max_tokens_field(dialect: ChatDialect) -> &'static str {
    match dialect {
        ChatDialect::Openai => "max_completion_tokens",
        ChatDialect::Deepseek | ChatDialect::Openrouter | ChatDialect::Generic => "max_tokens",
    }
}
