//! `streamGenerateContent?alt=sse` chunks → the unstreamed `generateContent` body.
//!
//! Every chunk is a whole `GenerateContentResponse` holding the next parts of the first
//! candidate. Consecutive text parts of the same kind (answer or thought) are joined into
//! one, as the unstreamed answer has them; a part carrying a `thoughtSignature` closes the
//! part it joins, so the signature Gemini sends on a trailing empty text part lands on the
//! text it signs. Function calls arrive whole. The last chunk's other fields (finish reason,
//! usage, model version) are the body's. The stream has no terminal event: it ends after a
//! chunk with a `finishReason` (or a blocked prompt); ending without one is a fault.

use agent_application::ports::{ModelDelta, ModelError};
use serde_json::Value;

use crate::http::Redactor;
use crate::sse::{self, Assembler};

/// Rebuilds a Gemini body from its chunks.
#[derive(Debug)]
pub struct GeminiAssembler {
    redactor: Redactor,
    parts: Vec<Value>,
    last: Option<Value>,
    finished: bool,
    calls: usize,
}

impl GeminiAssembler {
    pub fn new(redactor: Redactor) -> Self {
        Self {
            redactor,
            parts: Vec::new(),
            last: None,
            finished: false,
            calls: 0,
        }
    }

    fn push(&mut self, part: Value, out: &mut Vec<ModelDelta>) {
        let thought = part.get("thought").and_then(Value::as_bool) == Some(true);
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            if !text.is_empty() {
                out.push(if thought {
                    ModelDelta::Reasoning(text.to_owned())
                } else {
                    ModelDelta::Text(text.to_owned())
                });
            }
            let joins = self.parts.last().is_some_and(|last| {
                last.get("text").is_some_and(Value::is_string)
                    && (last.get("thought").and_then(Value::as_bool) == Some(true)) == thought
                    && last.get("thoughtSignature").is_none()
            });
            if joins && let Some(last) = self.parts.last_mut() {
                if let Value::String(joined) = &mut last["text"] {
                    joined.push_str(text);
                }
                if let Some(signature) = part.get("thoughtSignature") {
                    last["thoughtSignature"] = signature.clone();
                }
                return;
            }
        }
        if let Some(call) = part.get("functionCall") {
            let index = self.calls;
            self.calls += 1;
            out.push(ModelDelta::ToolCallStarted {
                index,
                name: call
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            });
            if let Some(args) = call.get("args") {
                out.push(ModelDelta::ToolCallArguments {
                    index,
                    fragment: args.to_string(),
                });
            }
            out.push(ModelDelta::ToolCallFinished { index });
        }
        self.parts.push(part);
    }
}

impl Assembler for GeminiAssembler {
    fn feed(
        &mut self,
        _event: &str,
        data: &str,
        out: &mut Vec<ModelDelta>,
    ) -> Result<Option<Value>, ModelError> {
        let mut chunk = sse::json(data)?;
        if let Some(error) = chunk.get("error") {
            return Err(sse::provider_error(error, &self.redactor));
        }
        let candidate = chunk
            .get_mut("candidates")
            .and_then(Value::as_array_mut)
            .and_then(|c| c.first_mut());
        if let Some(candidate) = candidate {
            if candidate.get("finishReason").is_some() {
                self.finished = true;
            }
            let parts = candidate
                .get_mut("content")
                .and_then(|c| c.get_mut("parts"))
                .map(Value::take);
            if let Some(Value::Array(parts)) = parts {
                for part in parts {
                    self.push(part, out);
                }
            }
        }
        if chunk.pointer("/promptFeedback/blockReason").is_some() {
            self.finished = true;
        }
        if let Some(usage) = chunk.get("usageMetadata")
            && let Some(counts) = super::decode::decode_usage(usage)
        {
            out.push(ModelDelta::Usage(counts));
        }
        self.last = Some(chunk);
        Ok(None)
    }

    fn end(&mut self) -> Result<Value, ModelError> {
        let Some(mut body) = self.last.take().filter(|_| self.finished) else {
            return Err(sse::interrupted("Gemini"));
        };
        if let Some(candidate) = body
            .get_mut("candidates")
            .and_then(Value::as_array_mut)
            .and_then(|c| c.first_mut())
        {
            let content = &mut candidate["content"];
            if !content.is_object() {
                *content = serde_json::json!({"role": "model"});
            }
            content["parts"] = Value::Array(std::mem::take(&mut self.parts));
        }
        Ok(body)
    }
}
