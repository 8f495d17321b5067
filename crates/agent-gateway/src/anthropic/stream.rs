//! Anthropic Messages events → the unstreamed message body.
//!
//! `message_start` carries the message with empty `content`; each block opens with
//! `content_block_start`, grows by `content_block_delta` (`text_delta`, `thinking_delta`,
//! `signature_delta`, `input_json_delta`, `citations_delta`) and closes with
//! `content_block_stop`, where a `tool_use` block's concatenated `partial_json` becomes its
//! `input` (empty means `{}`). `message_delta` sets the stop reason and the cumulative usage
//! (the last one wins, even for `input_tokens`); `message_stop` ends the message. `ping` is
//! ignored; `error` is classified like the same error over HTTP.

use std::collections::BTreeMap;

use agent_application::ports::{ModelDelta, ModelError};
use serde_json::{Map, Value, json};

use crate::http::Redactor;
use crate::sse::{self, Assembler};

/// Rebuilds an Anthropic message from its events.
#[derive(Debug)]
pub struct AnthropicAssembler {
    redactor: Redactor,
    message: Option<Map<String, Value>>,
    /// Blocks by their wire `index`, with a `tool_use` block's argument text.
    blocks: BTreeMap<u64, (Value, String)>,
    /// Wire index of each `tool_use` block → its position among the turn's calls.
    calls: BTreeMap<u64, usize>,
}

impl AnthropicAssembler {
    pub fn new(redactor: Redactor) -> Self {
        Self {
            redactor,
            message: None,
            blocks: BTreeMap::new(),
            calls: BTreeMap::new(),
        }
    }

    fn message(&mut self) -> Result<&mut Map<String, Value>, ModelError> {
        self.message
            .as_mut()
            .ok_or_else(|| sse::malformed("an event before message_start"))
    }

    fn usage(&mut self, usage: &Value, out: &mut Vec<ModelDelta>) -> Result<(), ModelError> {
        let Some(fields) = usage.as_object() else {
            return Ok(());
        };
        let message = self.message()?;
        let merged = message.entry("usage").or_insert_with(|| json!({}));
        if let Some(merged) = merged.as_object_mut() {
            for (key, value) in fields {
                if !value.is_null() {
                    merged.insert(key.clone(), value.clone());
                }
            }
        }
        if let Some(counts) = super::decode::decode_usage(merged) {
            out.push(ModelDelta::Usage(counts));
        }
        Ok(())
    }

    fn delta(&mut self, data: &Value, out: &mut Vec<ModelDelta>) -> Result<(), ModelError> {
        let index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
        let delta = data.get("delta").unwrap_or(&Value::Null);
        let (block, arguments) = self
            .blocks
            .get_mut(&index)
            .ok_or_else(|| sse::malformed("a delta for a block that never started"))?;
        let text = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or_default();
        let mut grow = |field: &str, fragment: &str| match &mut block[field] {
            Value::String(grown) => grown.push_str(fragment),
            slot => *slot = Value::String(fragment.to_owned()),
        };
        match delta.get("type").and_then(Value::as_str) {
            Some("text_delta") => {
                grow("text", text("text"));
                out.push(ModelDelta::Text(text("text").to_owned()));
            }
            Some("thinking_delta") => {
                grow("thinking", text("thinking"));
                out.push(ModelDelta::Reasoning(text("thinking").to_owned()));
            }
            Some("signature_delta") => grow("signature", text("signature")),
            Some("input_json_delta") => {
                let fragment = text("partial_json");
                arguments.push_str(fragment);
                if let Some(&index) = self.calls.get(&index)
                    && !fragment.is_empty()
                {
                    out.push(ModelDelta::ToolCallArguments {
                        index,
                        fragment: fragment.to_owned(),
                    });
                }
            }
            Some("citations_delta") => {
                if let Some(citation) = delta.get("citation") {
                    let citations = &mut block["citations"];
                    if !citations.is_array() {
                        *citations = json!([]);
                    }
                    if let Some(list) = citations.as_array_mut() {
                        list.push(citation.clone());
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn stop_block(&mut self, data: &Value, out: &mut Vec<ModelDelta>) -> Result<(), ModelError> {
        let index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
        let (block, arguments) = self
            .blocks
            .get_mut(&index)
            .ok_or_else(|| sse::malformed("a stop for a block that never started"))?;
        if let Some(&call) = self.calls.get(&index) {
            let input = if arguments.trim().is_empty() {
                json!({})
            } else {
                sse::json(arguments)?
            };
            block["input"] = input;
            out.push(ModelDelta::ToolCallFinished { index: call });
        }
        Ok(())
    }

    fn body(&mut self) -> Result<Value, ModelError> {
        let blocks = std::mem::take(&mut self.blocks);
        let message = self.message()?;
        message.insert(
            "content".into(),
            Value::Array(blocks.into_values().map(|(block, _)| block).collect()),
        );
        Ok(Value::Object(std::mem::take(message)))
    }
}

impl Assembler for AnthropicAssembler {
    fn feed(
        &mut self,
        _event: &str,
        data: &str,
        out: &mut Vec<ModelDelta>,
    ) -> Result<Option<Value>, ModelError> {
        let data = sse::json(data)?;
        match data.get("type").and_then(Value::as_str) {
            Some("message_start") => {
                let Some(Value::Object(message)) = data.get("message") else {
                    return Err(sse::malformed("message_start without a message"));
                };
                let usage = message.get("usage").cloned();
                self.message = Some(message.clone());
                if let Some(usage) = usage {
                    self.usage(&usage, out)?;
                }
            }
            Some("content_block_start") => {
                let index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
                let block = data.get("content_block").cloned().unwrap_or(Value::Null);
                if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                    let position = self.calls.len();
                    self.calls.insert(index, position);
                    out.push(ModelDelta::ToolCallStarted {
                        index: position,
                        name: block
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                    });
                }
                if let Some(text) = block.get("text").and_then(Value::as_str)
                    && !text.is_empty()
                {
                    out.push(ModelDelta::Text(text.to_owned()));
                }
                self.blocks.insert(index, (block, String::new()));
            }
            Some("content_block_delta") => self.delta(&data, out)?,
            Some("content_block_stop") => self.stop_block(&data, out)?,
            Some("message_delta") => {
                if let Some(Value::Object(delta)) = data.get("delta") {
                    let message = self.message()?;
                    for (key, value) in delta {
                        message.insert(key.clone(), value.clone());
                    }
                }
                if let Some(usage) = data.get("usage") {
                    self.usage(usage, out)?;
                }
            }
            Some("message_stop") => return self.body().map(Some),
            Some("error") => {
                let error = data.get("error").unwrap_or(&data);
                return Err(sse::provider_error(error, &self.redactor));
            }
            // `ping`, and event types added later.
            _ => {}
        }
        Ok(None)
    }

    fn end(&mut self) -> Result<Value, ModelError> {
        Err(sse::interrupted("Anthropic"))
    }
}
