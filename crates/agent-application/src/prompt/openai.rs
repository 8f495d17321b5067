//! OpenAI Chat Completions messages (the shape SillyTavern's prompt snapshots use) to and
//! from the canonical model IR.
//!
//! Only what a prompt can hold is accepted: system (and `developer`), user and assistant
//! messages whose `content` is a string or a list of `text` / `image_url` parts. Tool turns
//! are refused before conversion (see [`tool_turn`]); anything else is an invalid snapshot,
//! named by its place, because silently dropping part of a prompt changes what the model
//! is asked.

use agent_domain::model::{AgentModelContentPart, AgentModelMessage, MediaData, ModelRole};
use serde_json::{Map, Value, json};

use super::PromptError;

/// What makes `message` a tool turn, if anything: a `tool` or legacy `function` role, or
/// assistant `tool_calls` / `function_call`.
pub(super) fn tool_turn(message: &Value) -> Option<&'static str> {
    match message.get("role").and_then(Value::as_str) {
        Some("tool") => return Some("role `tool`"),
        Some("function") => return Some("role `function`"),
        _ => {}
    }
    if message
        .get("tool_calls")
        .is_some_and(|calls| !is_empty(calls))
    {
        return Some("`tool_calls`");
    }
    if message
        .get("function_call")
        .is_some_and(|call| !call.is_null())
    {
        return Some("`function_call`");
    }
    None
}

/// `null`, `[]` and `{}` say "nothing"; every other value says something.
pub(super) fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.is_empty(),
        Value::Object(fields) => fields.is_empty(),
        _ => false,
    }
}

/// Converts `messages[index]`. A message without any content (`null` or `""`) carries
/// nothing a provider could use and is dropped (`Ok(None)`).
pub(super) fn from_openai(
    index: usize,
    message: &Value,
) -> Result<Option<AgentModelMessage>, PromptError> {
    let at = format!("messages[{index}]");
    let Some(fields) = message.as_object() else {
        return Err(PromptError::invalid(format!("{at} must be an object")));
    };
    let role = match fields.get("role").and_then(Value::as_str) {
        Some("system" | "developer") => ModelRole::System,
        Some("user") => ModelRole::User,
        Some("assistant") => ModelRole::Assistant,
        Some(other) => {
            return Err(PromptError::invalid(format!(
                "{at}.role `{other}` is not one of system, user or assistant"
            )));
        }
        None => {
            return Err(PromptError::invalid(format!(
                "{at}.role is missing or not a string"
            )));
        }
    };
    let mut parts = content_parts(&at, fields.get("content"))?;
    if let Some(name) = speaker_name(&at, fields)? {
        prefix_name(&mut parts, name);
    }
    if parts.is_empty() {
        return Ok(None);
    }
    Ok(Some(AgentModelMessage::new(role, parts)))
}

fn content_parts(
    at: &str,
    content: Option<&Value>,
) -> Result<Vec<AgentModelContentPart>, PromptError> {
    match content {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(text)) if text.is_empty() => Ok(Vec::new()),
        Some(Value::String(text)) => Ok(vec![AgentModelContentPart::text(text.clone())]),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| content_part(&format!("{at}.content[{i}]"), item).transpose())
            .collect(),
        Some(_) => Err(PromptError::invalid(format!(
            "{at}.content must be a string, a list of parts or null"
        ))),
    }
}

/// One element of a content list; an empty text part is dropped.
fn content_part(at: &str, item: &Value) -> Result<Option<AgentModelContentPart>, PromptError> {
    let kind = item.get("type").and_then(Value::as_str);
    match kind {
        Some("text") => match item.get("text") {
            Some(Value::String(text)) if text.is_empty() => Ok(None),
            Some(Value::String(text)) => Ok(Some(AgentModelContentPart::text(text.clone()))),
            _ => Err(PromptError::invalid(format!("{at}.text must be a string"))),
        },
        Some("image_url") => {
            let url = match item.get("image_url") {
                Some(Value::String(url)) => Some(url.as_str()),
                Some(Value::Object(image)) => image.get("url").and_then(Value::as_str),
                _ => None,
            };
            let url = url.ok_or_else(|| {
                PromptError::invalid(format!("{at}.image_url.url must be a string"))
            })?;
            media(at, url).map(Some)
        }
        Some(other) => Err(PromptError::invalid(format!(
            "{at} has type `{other}`; only `text` and `image_url` parts are supported"
        ))),
        None => Err(PromptError::invalid(format!(
            "{at} must be an object with a string `type`"
        ))),
    }
}

/// A `data:<mime>;base64,<bytes>` URL becomes inline bytes; any other URL is passed on for
/// the provider to fetch.
fn media(at: &str, url: &str) -> Result<AgentModelContentPart, PromptError> {
    if let Some(rest) = url.strip_prefix("data:") {
        let inline = rest
            .split_once(',')
            .and_then(|(meta, data)| Some((meta.strip_suffix(";base64")?, data)));
        let Some((mime, data)) = inline else {
            return Err(PromptError::invalid(format!(
                "{at}.image_url.url is a data URL without base64 data"
            )));
        };
        return Ok(AgentModelContentPart::Media {
            mime_type: if mime.is_empty() { "image/*" } else { mime }.to_owned(),
            data: MediaData::Base64(data.to_owned()),
        });
    }
    Ok(AgentModelContentPart::Media {
        mime_type: mime_from_extension(url).to_owned(),
        data: MediaData::Url(url.to_owned()),
    })
}

fn mime_from_extension(url: &str) -> &'static str {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let extension = path
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    match extension.as_deref() {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        _ => "image/*",
    }
}

fn speaker_name<'a>(
    at: &str,
    fields: &'a Map<String, Value>,
) -> Result<Option<&'a str>, PromptError> {
    match fields.get("name") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(name)) => Ok(Some(name.trim()).filter(|name| !name.is_empty())),
        Some(_) => Err(PromptError::invalid(format!("{at}.name must be a string"))),
    }
}

/// The canonical IR has no speaker names, so the name goes into the text the way
/// SillyTavern writes names for providers without a `name` field: `Name: text`.
fn prefix_name(parts: &mut Vec<AgentModelContentPart>, name: &str) {
    let prefix = format!("{name}: ");
    match parts.first_mut() {
        Some(AgentModelContentPart::Text { text }) if text.starts_with(&prefix) => {}
        Some(AgentModelContentPart::Text { text }) => text.insert_str(0, &prefix),
        Some(_) => parts.insert(0, AgentModelContentPart::text(format!("{name}:"))),
        None => {}
    }
}

/// The messages as OpenAI Chat Completions messages: a string `content` for plain text,
/// a part list when media is involved. Only the parts a prompt can hold are written.
pub(super) fn to_openai(messages: &[AgentModelMessage]) -> Value {
    Value::Array(messages.iter().map(message_to_openai).collect())
}

fn message_to_openai(message: &AgentModelMessage) -> Value {
    let role = match message.role {
        ModelRole::System => "system",
        ModelRole::Assistant => "assistant",
        _ => "user",
    };
    let has_media = message
        .parts
        .iter()
        .any(|part| matches!(part, AgentModelContentPart::Media { .. }));
    if !has_media {
        return json!({"role": role, "content": message.text()});
    }
    let parts: Vec<Value> = message
        .parts
        .iter()
        .filter_map(|part| match part {
            AgentModelContentPart::Text { text } => Some(json!({"type": "text", "text": text})),
            AgentModelContentPart::Media { mime_type, data } => {
                let url = match data {
                    MediaData::Base64(bytes) => format!("data:{mime_type};base64,{bytes}"),
                    MediaData::Url(url) => url.clone(),
                    _ => return None,
                };
                Some(json!({"type": "image_url", "image_url": {"url": url}}))
            }
            _ => None,
        })
        .collect();
    json!({"role": role, "content": parts})
}
