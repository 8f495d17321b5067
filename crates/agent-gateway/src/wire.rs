//! Pieces every wire format's encoder and decoder share: the error values for contract
//! violations and unreadable responses, and the merging of connection parameters into a
//! body.
//!
//! Formats differ in their JSON; they agree on how a broken response is reported, so that
//! lives here once. The checks every request and response pass (transcript pairing, call
//! ids) run in the gateway, once for all formats.

use agent_application::ports::{ModelError, ModelErrorKind};
use agent_domain::ErrorCode;
use agent_domain::model::{AgentModelContentPart, AgentModelMessage, GenerationParameters};
use agent_domain::tool::{ToolCallDecodeError, ToolCallDecoder, ToolChoice};
use serde_json::{Map, Value, json};

use crate::http::UPSTREAM_INVALID_RESPONSE;

/// A contract violation (a tool outside the request, a duplicate call id, …).
pub(crate) fn contract(code: &'static str, message: String) -> ModelError {
    let mut error = ModelError::new(ModelErrorKind::ContractViolation, message);
    error.code = code;
    error
}

/// A tool call that cannot be decoded or encoded through the request's tools.
pub(crate) fn tool_decode_error(e: ToolCallDecodeError) -> ModelError {
    contract(e.code(), e.to_string())
}

/// A 2xx body that is JSON but not the shape `format` promises.
pub(crate) fn invalid_response(format: &str, what: &str) -> ModelError {
    let mut error = ModelError::new(
        ModelErrorKind::Transient,
        format!("not a {format} response: {what}"),
    );
    error.code = UPSTREAM_INVALID_RESPONSE;
    error
}

/// Content the target format has no place for.
pub(crate) fn unsupported(format: &str, what: &str) -> ModelError {
    let mut error = ModelError::new(
        ModelErrorKind::InvalidRequest,
        format!("cannot encode for {format}: {what}"),
    );
    error.code = "model.unsupported_content";
    error
}

/// Media of a type the target format cannot carry.
pub(crate) fn media_unsupported(format: &str, mime_type: &str) -> ModelError {
    let mut error = ModelError::new(
        ModelErrorKind::InvalidRequest,
        format!("{format} cannot carry `{mime_type}` media"),
    );
    error.code = "model.media_unsupported";
    error
}

/// A resource reference as the line of text a model reads.
pub(crate) fn resource_line(uri: &str, title: Option<&str>) -> String {
    match title {
        Some(title) => format!("\n[resource: {title} <{uri}>]\n"),
        None => format!("\n[resource: <{uri}>]\n"),
    }
}

/// The text of a system message: text, with resource references as a line of text;
/// anything else is refused as content `format` cannot carry there.
pub(crate) fn plain_text(message: &AgentModelMessage, format: &str) -> Result<String, ModelError> {
    let mut text = String::new();
    for part in &message.parts {
        match part {
            AgentModelContentPart::Text { text: t } => text.push_str(t),
            AgentModelContentPart::ResourceRef { uri, title } => {
                text.push_str(&resource_line(uri, title.as_deref()))
            }
            _ => {
                return Err(unsupported(format, "a system message may only carry text"));
            }
        }
    }
    Ok(text)
}

/// Merges a connection's own body fields and then the request's `parameters.extra` into
/// `body`, skipping the fields the adapter owns.
pub(crate) fn merge_params(
    body: &mut Map<String, Value>,
    owned: &[&str],
    connection_params: &Map<String, Value>,
    request_extra: &Map<String, Value>,
) {
    for (key, value) in connection_params.iter().chain(request_extra) {
        if !owned.contains(&key.as_str()) {
            body.insert(key.clone(), value.clone());
        }
    }
}

/// Arguments as the JSON object formats that require one (`tool_use.input`,
/// `functionCall.args`) carry. Providers of those formats always send objects; arguments kept
/// as something else come from another format's history (a raw string that was not valid
/// JSON). The closest faithful replay: an empty string or null is `{}` (a no-argument call),
/// a string holding a JSON object is that object, and anything else travels verbatim as
/// `{"_raw": <what the model sent>}`.
pub(crate) fn object_arguments(arguments: &Value) -> Value {
    match arguments {
        Value::Object(_) => arguments.clone(),
        Value::String(raw) if raw.trim().is_empty() => json!({}),
        Value::String(raw) => match serde_json::from_str::<Value>(raw) {
            Ok(parsed @ Value::Object(_)) => parsed,
            _ => json!({"_raw": raw}),
        },
        Value::Null => json!({}),
        other => json!({"_raw": other}),
    }
}

/// A JSON string that parses to an object becomes that object; anything else (malformed
/// JSON, `""` for a no-argument call, a non-object) stays the raw string, verbatim, so the
/// tool can answer with a readable error and the call replays byte-exact. Servers that
/// already send an object are taken at their word.
pub(crate) fn decode_arguments(raw: Option<&Value>) -> Value {
    match raw {
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(parsed @ Value::Object(_)) => parsed,
            _ => Value::String(text.clone()),
        },
        Some(object @ Value::Object(_)) => object.clone(),
        Some(other) => Value::String(other.to_string()),
        None => Value::String(String::new()),
    }
}

/// Arguments as the JSON string formats that carry one (`function.arguments`,
/// `function_call.arguments`) expect: arguments kept as a raw string (they were not valid
/// JSON) go back verbatim; parsed arguments are serialised again.
pub(crate) fn string_arguments(arguments: &Value) -> String {
    match arguments {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

/// The names a format gives the portable sampling settings. `temperature` is spelt alike
/// everywhere; `None` marks a setting the format has no field for (or fills elsewhere).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SamplingNames {
    pub top_p: &'static str,
    pub max_tokens: Option<&'static str>,
    /// `None`: the format has no stop sequences, and a request with some is refused rather
    /// than silently changed.
    pub stop: Option<&'static str>,
}

/// Writes temperature, top-p, the output limit and stop sequences (each only when set) into
/// `out` under the format's `names`.
pub(crate) fn insert_sampling(
    params: &GenerationParameters,
    names: SamplingNames,
    out: &mut Map<String, Value>,
    format: &str,
) -> Result<(), ModelError> {
    if let Some(t) = params.temperature {
        out.insert("temperature".into(), json!(t));
    }
    if let Some(p) = params.top_p {
        out.insert(names.top_p.into(), json!(p));
    }
    if let (Some(max), Some(field)) = (params.max_output_tokens, names.max_tokens) {
        out.insert(field.into(), json!(max));
    }
    if !params.stop.is_empty() {
        let Some(field) = names.stop else {
            return Err(unsupported(format, "stop sequences"));
        };
        out.insert(field.into(), json!(params.stop));
    }
    Ok(())
}

/// Mints call ids for a provider that sends none: `<prefix>_<stem>_<n>`, `n` being the
/// call's position in the turn. The stem is the response's own id when it has one (unique
/// per generation), else `h<FNV-1a of the body>`, stable across builds (unlike
/// `DefaultHasher`) so a replayed response mints the same ids. The hash is only computed
/// when an id is actually minted: most responses carry their ids.
pub(crate) struct IdMinter<'a> {
    prefix: &'static str,
    response_id: Option<&'a str>,
    body: &'a Value,
    stem: std::cell::OnceCell<String>,
}

impl<'a> IdMinter<'a> {
    pub(crate) fn new(prefix: &'static str, response_id: Option<&'a str>, body: &'a Value) -> Self {
        Self {
            prefix,
            response_id: response_id.filter(|id| !id.trim().is_empty()),
            body,
            stem: std::cell::OnceCell::new(),
        }
    }

    /// The id of the call at `position` in the turn.
    pub(crate) fn mint(&self, position: usize) -> String {
        let stem = self.stem.get_or_init(|| match self.response_id {
            Some(id) => id.to_owned(),
            None => {
                let hash = self
                    .body
                    .to_string()
                    .bytes()
                    .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
                        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
                    });
                format!("h{hash:016x}")
            }
        });
        format!("{}_{stem}_{position}", self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_always_objects() {
        assert_eq!(object_arguments(&json!({"a": 1})), json!({"a": 1}));
        assert_eq!(object_arguments(&json!("")), json!({}));
        assert_eq!(object_arguments(&Value::Null), json!({}));
        assert_eq!(object_arguments(&json!("{\"a\":1}")), json!({"a": 1}));
        assert_eq!(
            object_arguments(&json!("{\"a\":")),
            json!({"_raw": "{\"a\":"})
        );
        assert_eq!(object_arguments(&json!([1])), json!({"_raw": [1]}));
    }
}

/// A tool choice with the named tool already resolved to this request's alias: what a format
/// needs to write its own `tool_choice` shape.
#[derive(Debug, Clone, Copy)]
pub(crate) enum WireChoice<'a> {
    None,
    Auto,
    Required,
    Specific(&'a str),
}

/// Encodes `choice` in a format's shape; a specific tool missing from the request fails fast.
pub(crate) fn tool_choice(
    choice: &ToolChoice,
    decoder: &ToolCallDecoder<'_>,
    shape: fn(WireChoice<'_>) -> Value,
) -> Result<Value, ModelError> {
    let wire = match choice {
        ToolChoice::None => WireChoice::None,
        ToolChoice::Auto => WireChoice::Auto,
        ToolChoice::Required => WireChoice::Required,
        ToolChoice::Specific(id) => {
            WireChoice::Specific(decoder.alias_of(id).map_err(tool_decode_error)?)
        }
    };
    Ok(shape(wire))
}
