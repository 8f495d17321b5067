//! Validating a prompt snapshot the host captured (TauriTavern's
//! `startRunWithPromptSnapshot`): where its chat-completion payload is, what it may not
//! contain, and its messages in the canonical IR.

use agent_domain::model::GenerationParameters;
use serde_json::{Map, Value};

use super::openai::{from_openai, is_empty, tool_turn};
use super::{PromptError, PromptSnapshot};

/// Keys that may hold the chat-completion payload, in the order they are looked for.
pub(super) const PAYLOAD_KEYS: [&str; 4] = [
    "chatCompletionPayload",
    "chat_completion_payload",
    "generateData",
    "generate_data",
];

/// The key of the captured world-info activation.
const WORLD_INFO_KEY: &str = "worldInfoActivation";

/// Checks a prompt snapshot and converts its messages.
///
/// The payload is the first non-null of `chatCompletionPayload`, `chat_completion_payload`,
/// `generateData`, `generate_data`, or the snapshot itself when it has `messages` (or a
/// text-completion `prompt`). The first failing rule wins, in this order:
///
/// 1. `stream: true` (on the snapshot or its payload) → `agent.phase2b_stream_unsupported`
/// 2. no payload, or a payload without a non-empty `messages` list →
///    `agent.invalid_prompt_snapshot`
/// 3. non-empty `tools` → `agent.external_tools_unsupported_phase2b`
/// 4. any `tool_choice` key, even `null` → `agent.external_tool_choice_unsupported_phase2b`
/// 5. a `tool`/`function` message, or assistant `tool_calls`/`function_call` →
///    `agent.external_tool_turns_unsupported_phase2b`
/// 6. a message that does not convert (unknown role, unsupported content) →
///    `agent.invalid_prompt_snapshot`
/// 7. a `worldInfoActivation` that is neither an object nor null →
///    `agent.invalid_worldinfo_activation_snapshot`
///
/// The snapshot is kept as `raw` with the payload's `stream` forced to `false`.
pub fn validate_prompt_snapshot(value: &Value) -> Result<PromptSnapshot, PromptError> {
    let Some(snapshot) = value.as_object() else {
        return Err(PromptError::invalid(
            "a prompt snapshot must be a JSON object",
        ));
    };
    let located = locate(snapshot);
    let payload = located.map(|located| located.payload(snapshot));
    if streams(snapshot) || payload.flatten().is_some_and(streams) {
        return Err(PromptError::StreamUnsupported);
    }
    let (Some(located), Some(payload)) = (located, payload) else {
        return Err(PromptError::invalid(
            "no chat-completion payload: expected `chatCompletionPayload` (or \
             `chat_completion_payload`, `generateData`, `generate_data`) or top-level `messages`",
        ));
    };
    let where_ = located.describe();
    let Some(payload) = payload else {
        return Err(PromptError::invalid(format!("{where_} must be an object")));
    };
    let messages = payload_messages(payload, &where_)?;
    check_external_tools(payload, messages)?;
    let mut converted = Vec::with_capacity(messages.len());
    for (index, message) in messages.iter().enumerate() {
        converted.extend(from_openai(index, message)?);
    }
    if converted.is_empty() {
        return Err(PromptError::invalid(format!(
            "every message of {where_} is empty"
        )));
    }
    let world_info = world_info(snapshot)?;
    Ok(PromptSnapshot {
        messages: converted,
        world_info,
        raw: without_stream(value, located),
    })
}

/// Where the payload of a snapshot is.
#[derive(Debug, Clone, Copy)]
enum Located {
    /// Under one of [`PAYLOAD_KEYS`].
    Key(&'static str),
    /// The snapshot is its own payload.
    Itself,
}

impl Located {
    /// The payload object; `None` when the key holds something else.
    fn payload(self, snapshot: &Map<String, Value>) -> Option<&Map<String, Value>> {
        match self {
            Self::Key(key) => snapshot.get(key).and_then(Value::as_object),
            Self::Itself => Some(snapshot),
        }
    }

    fn describe(self) -> String {
        match self {
            Self::Key(key) => format!("`{key}`"),
            Self::Itself => "the snapshot".to_owned(),
        }
    }
}

fn locate(snapshot: &Map<String, Value>) -> Option<Located> {
    let key = PAYLOAD_KEYS
        .into_iter()
        .find(|key| snapshot.get(*key).is_some_and(|payload| !payload.is_null()));
    match key {
        Some(key) => Some(Located::Key(key)),
        None if snapshot.contains_key("messages") || snapshot.contains_key("prompt") => {
            Some(Located::Itself)
        }
        None => None,
    }
}

fn streams(object: &Map<String, Value>) -> bool {
    object.get("stream").and_then(Value::as_bool) == Some(true)
}

fn payload_messages<'a>(
    payload: &'a Map<String, Value>,
    where_: &str,
) -> Result<&'a Vec<Value>, PromptError> {
    match payload.get("messages") {
        Some(Value::Array(messages)) if !messages.is_empty() => Ok(messages),
        Some(Value::Array(_)) => Err(PromptError::invalid(format!(
            "`messages` of {where_} is empty"
        ))),
        Some(_) => Err(PromptError::invalid(format!(
            "`messages` of {where_} must be a list"
        ))),
        None if payload.contains_key("prompt") => Err(PromptError::invalid(format!(
            "{where_} is a text-completion payload (`prompt`); agent runs need chat `messages`"
        ))),
        None => Err(PromptError::invalid(format!("{where_} has no `messages`"))),
    }
}

fn check_external_tools(
    payload: &Map<String, Value>,
    messages: &[Value],
) -> Result<(), PromptError> {
    if payload.get("tools").is_some_and(|tools| !is_empty(tools)) {
        return Err(PromptError::ExternalTools);
    }
    if payload.contains_key("tool_choice") {
        return Err(PromptError::ExternalToolChoice);
    }
    for (index, message) in messages.iter().enumerate() {
        if let Some(what) = tool_turn(message) {
            return Err(PromptError::ExternalToolTurns { index, what });
        }
    }
    Ok(())
}

fn world_info(snapshot: &Map<String, Value>) -> Result<Option<Value>, PromptError> {
    match snapshot.get(WORLD_INFO_KEY) {
        None | Some(Value::Null) => Ok(None),
        Some(value @ Value::Object(_)) => Ok(Some(value.clone())),
        Some(Value::Array(_)) => Err(PromptError::InvalidWorldInfo { found: "a list" }),
        Some(Value::String(_)) => Err(PromptError::InvalidWorldInfo { found: "a string" }),
        Some(Value::Number(_)) => Err(PromptError::InvalidWorldInfo { found: "a number" }),
        Some(Value::Bool(_)) => Err(PromptError::InvalidWorldInfo { found: "a boolean" }),
    }
}

/// The snapshot with its payload's `stream` set to `false`, as the run records it.
fn without_stream(value: &Value, located: Located) -> Value {
    let mut raw = value.clone();
    let payload = match located {
        Located::Key(key) => raw.get_mut(key),
        Located::Itself => Some(&mut raw),
    };
    if let Some(Value::Object(payload)) = payload {
        payload.insert("stream".to_owned(), Value::Bool(false));
    }
    raw
}

impl PromptSnapshot {
    /// The payload's sampling settings (`temperature`, `top_p`, `max_tokens` or
    /// `max_completion_tokens`, `stop`), for hosts that let the snapshot tune the model.
    /// Values of the wrong type are ignored: the snapshot was validated for its messages,
    /// and a connection's own settings are the authority on everything else.
    pub fn parameters(&self) -> GenerationParameters {
        let Some(snapshot) = self.raw.as_object() else {
            return GenerationParameters::default();
        };
        let payload = PAYLOAD_KEYS
            .iter()
            .find_map(|key| snapshot.get(*key).and_then(Value::as_object))
            .unwrap_or(snapshot);
        let number = |key: &str| payload.get(key).and_then(Value::as_f64);
        let tokens = |key: &str| {
            payload
                .get(key)
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
        };
        let stop = match payload.get("stop") {
            Some(Value::String(stop)) => vec![stop.clone()],
            Some(Value::Array(stops)) => stops
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        GenerationParameters {
            temperature: number("temperature"),
            top_p: number("top_p"),
            max_output_tokens: tokens("max_completion_tokens").or_else(|| tokens("max_tokens")),
            stop,
            ..GenerationParameters::default()
        }
    }
}
