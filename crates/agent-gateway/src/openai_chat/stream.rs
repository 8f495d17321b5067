//! Chat Completions chunks → the unstreamed response body.
//!
//! Each chunk's `choices[0].delta` carries fragments: `content`, `refusal`, the dialects'
//! `reasoning_content` / `reasoning` / `reasoning_details`, and `tool_calls` keyed by
//! `index` (the first fragment of a call names it and its id, later ones add argument
//! text). `finish_reason` comes on a late chunk, usage on a last chunk with no choices
//! (asked for with `stream_options.include_usage`), and `data: [DONE]` ends the stream.

use std::collections::BTreeMap;

use agent_application::ports::{ModelDelta, ModelError};
use serde_json::{Map, Value, json};

use crate::http::Redactor;
use crate::sse::{self, Assembler};

/// Rebuilds a Chat Completions body from its chunks.
#[derive(Debug)]
pub struct ChatAssembler {
    redactor: Redactor,
    /// Top-level fields of the latest chunk (`id`, `model`, `system_fingerprint`, …).
    envelope: Map<String, Value>,
    content: Option<String>,
    refusal: Option<String>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    reasoning_details: Vec<Value>,
    /// Calls by their wire `index`: id, name, argument text.
    calls: BTreeMap<u64, (Value, String, String)>,
    finish_reason: Value,
    usage: Value,
}

impl ChatAssembler {
    pub fn new(redactor: Redactor) -> Self {
        Self {
            redactor,
            envelope: Map::new(),
            content: None,
            refusal: None,
            reasoning_content: None,
            reasoning: None,
            reasoning_details: Vec::new(),
            calls: BTreeMap::new(),
            finish_reason: Value::Null,
            usage: Value::Null,
        }
    }

    fn body(&mut self) -> Value {
        let mut message = Map::new();
        message.insert("role".into(), json!("assistant"));
        message.insert(
            "content".into(),
            self.content.take().map_or(Value::Null, Value::String),
        );
        for (key, value) in [
            ("refusal", self.refusal.take()),
            ("reasoning_content", self.reasoning_content.take()),
            ("reasoning", self.reasoning.take()),
        ] {
            if let Some(value) = value {
                message.insert(key.into(), Value::String(value));
            }
        }
        if !self.reasoning_details.is_empty() {
            message.insert(
                "reasoning_details".into(),
                Value::Array(std::mem::take(&mut self.reasoning_details)),
            );
        }
        if !self.calls.is_empty() {
            let calls = std::mem::take(&mut self.calls)
                .into_values()
                .map(|(id, name, arguments)| {
                    json!({"id": id, "type": "function",
                           "function": {"name": name, "arguments": arguments}})
                })
                .collect();
            message.insert("tool_calls".into(), Value::Array(calls));
        }
        let mut body = std::mem::take(&mut self.envelope);
        body.insert("object".into(), json!("chat.completion"));
        body.insert(
            "choices".into(),
            json!([{"index": 0, "message": message, "finish_reason": self.finish_reason}]),
        );
        body.insert("usage".into(), self.usage.take());
        Value::Object(body)
    }
}

/// Appends `fragment` to an optional accumulated string, creating it on first sight (so a
/// field sent only as `""` is still present, as DeepSeek's empty `reasoning_content` is).
fn append(slot: &mut Option<String>, fragment: &str) {
    slot.get_or_insert_with(String::new).push_str(fragment);
}

impl Assembler for ChatAssembler {
    fn feed(
        &mut self,
        _event: &str,
        data: &str,
        out: &mut Vec<ModelDelta>,
    ) -> Result<Option<Value>, ModelError> {
        if data.trim() == "[DONE]" {
            for index in 0..self.calls.len() {
                out.push(ModelDelta::ToolCallFinished { index });
            }
            return Ok(Some(self.body()));
        }
        let chunk = sse::json(data)?;
        let Value::Object(mut chunk) = chunk else {
            return Err(sse::malformed("a chunk is not a JSON object"));
        };
        if let Some(error) = chunk.get("error") {
            return Err(sse::provider_error(error, &self.redactor));
        }
        let choices = chunk.remove("choices");
        if let Some(usage) = chunk.remove("usage").filter(|u| !u.is_null()) {
            if let Some(counts) = super::decode::decode_usage(&usage) {
                out.push(ModelDelta::Usage(counts));
            }
            self.usage = usage;
        }
        for (key, value) in chunk {
            self.envelope.insert(key, value);
        }
        let Some(choice) = choices
            .as_ref()
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return Ok(None);
        };
        if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
            self.finish_reason = reason.clone();
        }
        let Some(delta) = choice.get("delta") else {
            return Ok(None);
        };
        let text = |key: &str| delta.get(key).and_then(Value::as_str);
        if let Some(content) = text("content") {
            append(&mut self.content, content);
            if !content.is_empty() {
                out.push(ModelDelta::Text(content.to_owned()));
            }
        }
        if let Some(refusal) = text("refusal") {
            append(&mut self.refusal, refusal);
            if !refusal.is_empty() {
                out.push(ModelDelta::Text(refusal.to_owned()));
            }
        }
        for (key, slot) in [
            ("reasoning_content", &mut self.reasoning_content),
            ("reasoning", &mut self.reasoning),
        ] {
            if let Some(reasoning) = text(key) {
                append(slot, reasoning);
                if !reasoning.is_empty() {
                    out.push(ModelDelta::Reasoning(reasoning.to_owned()));
                }
            }
        }
        if let Some(details) = delta.get("reasoning_details").and_then(Value::as_array) {
            self.reasoning_details.extend(details.iter().cloned());
        }
        let fragments = delta.get("tool_calls").and_then(Value::as_array);
        for fragment in fragments.into_iter().flatten() {
            let wire_index = fragment.get("index").and_then(Value::as_u64).unwrap_or(0);
            let position = self
                .calls
                .keys()
                .position(|&i| i == wire_index)
                .unwrap_or(self.calls.len());
            let function = fragment.get("function");
            let name = function
                .and_then(|f| f.get("name"))
                .and_then(Value::as_str);
            let call = self.calls.entry(wire_index).or_insert_with(|| {
                (Value::Null, String::new(), String::new())
            });
            if let Some(id) = fragment.get("id").filter(|id| !id.is_null()) {
                call.0 = id.clone();
            }
            if let Some(name) = name {
                call.1.push_str(name);
                out.push(ModelDelta::ToolCallStarted {
                    index: position,
                    name: name.to_owned(),
                });
            }
            if let Some(arguments) = function
                .and_then(|f| f.get("arguments"))
                .and_then(Value::as_str)
                .filter(|a| !a.is_empty())
            {
                call.2.push_str(arguments);
                out.push(ModelDelta::ToolCallArguments {
                    index: position,
                    fragment: arguments.to_owned(),
                });
            }
        }
        Ok(None)
    }

    fn end(&mut self) -> Result<Value, ModelError> {
        Err(sse::interrupted("Chat Completions"))
    }
}
