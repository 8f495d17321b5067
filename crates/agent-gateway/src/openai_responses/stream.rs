//! Responses events → the unstreamed response object.
//!
//! The terminal `response.completed` / `response.incomplete` event carries the whole
//! response, which is the body. Output items are also collected from
//! `response.output_item.done` (never from `…added`, whose `encrypted_content` may be an
//! incomplete early copy), and fill the body's `output` when a server trims it from the
//! terminal event. `response.failed` and a bare `error` event are classified like the same
//! error over HTTP (with the status an `error` frame of the WebSocket transport names).

use std::collections::BTreeMap;

use agent_application::ports::{ModelDelta, ModelError};
use serde_json::Value;

use crate::http::Redactor;
use crate::sse::{self, Assembler};

/// Rebuilds a Responses response object from its events.
#[derive(Debug)]
pub struct ResponsesAssembler {
    redactor: Redactor,
    /// Finished output items by `output_index`.
    items: BTreeMap<u64, Value>,
    /// `output_index` of each function call → its position among the turn's calls.
    calls: BTreeMap<u64, usize>,
}

impl ResponsesAssembler {
    pub fn new(redactor: Redactor) -> Self {
        Self {
            redactor,
            items: BTreeMap::new(),
            calls: BTreeMap::new(),
        }
    }
}

impl Assembler for ResponsesAssembler {
    fn feed(
        &mut self,
        _event: &str,
        data: &str,
        out: &mut Vec<ModelDelta>,
    ) -> Result<Option<Value>, ModelError> {
        let data = sse::json(data)?;
        let output_index = data.get("output_index").and_then(Value::as_u64);
        let text = |key: &str| data.get(key).and_then(Value::as_str).unwrap_or_default();
        match data.get("type").and_then(Value::as_str).unwrap_or_default() {
            "response.output_text.delta" | "response.refusal.delta" => {
                out.push(ModelDelta::Text(text("delta").to_owned()));
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                out.push(ModelDelta::Reasoning(text("delta").to_owned()));
            }
            "response.output_item.added" => {
                let item = data.get("item").unwrap_or(&Value::Null);
                if item.get("type").and_then(Value::as_str) == Some("function_call") {
                    let position = self.calls.len();
                    self.calls.insert(output_index.unwrap_or(0), position);
                    out.push(ModelDelta::ToolCallStarted {
                        index: position,
                        name: item
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                    });
                }
            }
            "response.function_call_arguments.delta" => {
                if let Some(&index) = output_index.and_then(|i| self.calls.get(&i)) {
                    out.push(ModelDelta::ToolCallArguments {
                        index,
                        fragment: text("delta").to_owned(),
                    });
                }
            }
            "response.output_item.done" => {
                let index = output_index.unwrap_or(self.items.len() as u64);
                if let Some(&call) = self.calls.get(&index) {
                    out.push(ModelDelta::ToolCallFinished { index: call });
                }
                if let Some(item) = data.get("item") {
                    self.items.insert(index, item.clone());
                }
            }
            "response.completed" | "response.incomplete" => {
                let Some(mut response) = data.get("response").cloned() else {
                    return Err(sse::malformed("a terminal event without its response"));
                };
                let trimmed = response
                    .get("output")
                    .and_then(Value::as_array)
                    .is_none_or(Vec::is_empty);
                if trimmed && !self.items.is_empty() {
                    let items = std::mem::take(&mut self.items).into_values().collect();
                    response["output"] = Value::Array(items);
                }
                if let Some(usage) = response.get("usage")
                    && let Some(counts) = super::decode::decode_usage(usage)
                {
                    out.push(ModelDelta::Usage(counts));
                }
                return Ok(Some(response));
            }
            "response.failed" => {
                let error = data
                    .get("response")
                    .and_then(|r| r.get("error"))
                    .unwrap_or(&Value::Null);
                return Err(sse::provider_error(error, &self.redactor));
            }
            "error" => {
                if let Some(error) = sse::status_error(&data, &self.redactor) {
                    return Err(error);
                }
                let error = data.get("error").unwrap_or(&data);
                return Err(sse::provider_error(error, &self.redactor));
            }
            _ => {}
        }
        Ok(None)
    }

    fn end(&mut self) -> Result<Value, ModelError> {
        Err(sse::interrupted("Responses"))
    }
}
