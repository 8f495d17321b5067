//! Canonical request → Responses request body, whole or chained onto a stored response.

use agent_application::ports::ModelError;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelRequest, GenerationParameters, MediaData,
    ModelRole, ReasoningEffort,
};
use agent_domain::tool::{ToolCallDecoder, ToolInvocation};
use serde_json::{Map, Value, json};

use super::{FORMAT, NATIVE, SESSION, is_strict_compatible};
use crate::continuation::Continuation;
use crate::wire::{self, resource_line, tool_decode_error};

/// Body fields this adapter owns; connection params and request extras never replace them.
const OWNED_FIELDS: &[&str] = &[
    "model",
    "instructions",
    "input",
    "tools",
    "tool_choice",
    "store",
    "include",
    "stream",
    "previous_response_id",
];

/// Keys of a replayed reasoning item that are never sent back: the raw reasoning text is
/// rejected on input.
const DROPPED_REASONING_KEYS: &[&str] = &["content"];

/// Encodes `request` for `model`.
///
/// * System messages → `instructions` (joined; resent every turn).
/// * User messages → `message` items with `input_text` / `input_image` parts.
/// * Assistant messages, part by part in their order: text → a `message` item with one
///   `output_text`; a tool call → a `function_call` item `{call_id, name, arguments}` (no
///   item id: pairing is by `call_id`); a [`NATIVE`] part → its item verbatim (a reasoning
///   item with its `encrypted_content`, minus any raw `content`). Other providers' native
///   parts and readable reasoning copies are left out.
/// * Tool messages → one `function_call_output` item per result.
///
/// Tools are flat; `strict` is true only for a schema that already meets strict mode's rules
/// ([`is_strict_compatible`]) and sent as false otherwise (Responses defaults to strict,
/// which most schemas, with their optional fields, do not satisfy).
///
/// `store` is the connection's mode. A [`Continuation::Chained`] request names its
/// predecessor in `previous_response_id` and carries only the messages the continuation
/// sends (instructions are resent: they are not inherited).
pub fn encode(
    request: &AgentModelRequest,
    model: &str,
    connection_params: &Map<String, Value>,
    store: bool,
    continuation: Continuation<'_>,
) -> Result<Value, ModelError> {
    SESSION.refuse(&request.parameters.extra)?;
    let decoder = ToolCallDecoder::new(&request.tools);
    let mut instructions = Vec::new();
    let mut input = Vec::new();
    for (index, message) in request.messages.iter().enumerate() {
        if !continuation.sends(index, message) {
            continue;
        }
        match message.role {
            ModelRole::System => instructions.push(wire::plain_text(message, FORMAT)?),
            ModelRole::User => input.push(user_item(message)?),
            ModelRole::Assistant => assistant_items(message, &decoder, &mut input)?,
            ModelRole::Tool => tool_output_items(message, &decoder, &mut input)?,
            _ => return Err(unsupported("a message role it has no place for")),
        }
    }

    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    let instructions = instructions.join("\n\n");
    if !instructions.is_empty() {
        body.insert("instructions".into(), json!(instructions));
    }
    body.insert("input".into(), Value::Array(input));
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "name": tool.alias,
                    "description": tool.description,
                    // A deep copy: the canonical schema is never touched by the wire.
                    "parameters": tool.input_schema.clone(),
                    "strict": is_strict_compatible(&tool.input_schema),
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert(
            "tool_choice".into(),
            wire::tool_choice(&request.tool_choice, &decoder, choice_shape)?,
        );
    }
    encode_parameters(&request.parameters, &mut body)?;
    body.insert("store".into(), json!(store));
    if let Some(previous) = continuation.previous_id() {
        body.insert("previous_response_id".into(), json!(previous));
    }
    body.insert("include".into(), json!(["reasoning.encrypted_content"]));
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
        WireChoice::Specific(alias) => json!({"type": "function", "name": alias}),
    }
}

/// Generation settings. Responses has no stop sequences, so a request with some is refused
/// rather than silently changed.
fn encode_parameters(
    params: &GenerationParameters,
    body: &mut Map<String, Value>,
) -> Result<(), ModelError> {
    let names = wire::SamplingNames {
        top_p: "top_p",
        max_tokens: Some("max_output_tokens"),
        stop: None,
    };
    wire::insert_sampling(params, names, body, FORMAT)?;
    if let Some(effort) = params.reasoning_effort.map(ReasoningEffort::as_str) {
        body.insert("reasoning".into(), json!({"effort": effort}));
    }
    Ok(())
}

/// A user message item: text, resource lines and images as input parts.
fn user_item(message: &AgentModelMessage) -> Result<Value, ModelError> {
    let mut content = Vec::new();
    for part in &message.parts {
        match part {
            AgentModelContentPart::Text { text } => {
                content.push(json!({"type": "input_text", "text": text}))
            }
            AgentModelContentPart::ResourceRef { uri, title } => content
                .push(json!({"type": "input_text", "text": resource_line(uri, title.as_deref())})),
            AgentModelContentPart::Media { mime_type, data } if mime_type.starts_with("image/") => {
                let url = match data {
                    MediaData::Base64(b64) => format!("data:{mime_type};base64,{b64}"),
                    MediaData::Url(url) => url.clone(),
                    _ => return Err(wire::media_unsupported(FORMAT, mime_type)),
                };
                content.push(json!({"type": "input_image", "image_url": url}));
            }
            AgentModelContentPart::Media { mime_type, .. } => {
                return Err(wire::media_unsupported(FORMAT, mime_type));
            }
            _ => return Err(unsupported("a user message may only carry text and images")),
        }
    }
    Ok(json!({"type": "message", "role": "user", "content": content}))
}

/// An assistant turn as items, in the order of its parts.
fn assistant_items(
    message: &AgentModelMessage,
    decoder: &ToolCallDecoder<'_>,
    out: &mut Vec<Value>,
) -> Result<(), ModelError> {
    for part in &message.parts {
        match part {
            AgentModelContentPart::Native {
                provider, value, ..
            } if provider == NATIVE => {
                let mut item = value.clone();
                if let Some(object) = item.as_object_mut()
                    && object.get("type").and_then(Value::as_str) == Some("reasoning")
                {
                    for key in DROPPED_REASONING_KEYS {
                        object.remove(*key);
                    }
                }
                out.push(item);
            }
            AgentModelContentPart::Text { text } if !text.is_empty() => out.push(json!({
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text}],
            })),
            AgentModelContentPart::ToolCall(call) => out.push(encode_call(call, decoder)?),
            _ => {}
        }
    }
    Ok(())
}

/// One historical call, named by this request's alias and keyed by its `call_id`.
fn encode_call(call: &ToolInvocation, decoder: &ToolCallDecoder<'_>) -> Result<Value, ModelError> {
    let alias = decoder.alias_of(&call.tool_id).map_err(tool_decode_error)?;
    Ok(json!({
        "type": "function_call",
        "call_id": call.call_id,
        "name": alias,
        "arguments": wire::string_arguments(&call.arguments),
    }))
}

/// A tool message: one `function_call_output` per result (Responses has no error flag;
/// the content says what went wrong).
fn tool_output_items(
    message: &AgentModelMessage,
    decoder: &ToolCallDecoder<'_>,
    out: &mut Vec<Value>,
) -> Result<(), ModelError> {
    for part in &message.parts {
        let AgentModelContentPart::ToolResult(result) = part else {
            return Err(unsupported("a tool message may only carry tool results"));
        };
        // The alias is not sent on an output, but a result whose tool left the request
        // would pair with a call we could not encode: fail alike.
        decoder
            .alias_of(&result.tool_id)
            .map_err(tool_decode_error)?;
        out.push(json!({
            "type": "function_call_output",
            "call_id": result.call_id,
            "output": result.model_content(),
        }));
    }
    Ok(())
}

fn unsupported(what: &str) -> ModelError {
    wire::unsupported(FORMAT, what)
}
