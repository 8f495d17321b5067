//! [`ModelTurnView`]: the display DTO of one stored model turn (`readModelTurn`), so UIs
//! never parse `model-responses/` files themselves.

use agent_domain::model::{AgentModelResponse, TokenUsage};
use agent_domain::run::{InvocationId, RunId};
use agent_domain::text::TextMetrics;
use agent_domain::tool::{BuiltinTool, ToolId};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::errors::RuntimeError;
use super::machine::NARRATION_PREVIEW_CHARS;
use super::wiring::RuntimePorts;

/// Longest arguments preview of a tool call, in characters.
const ARGUMENTS_PREVIEW_CHARS: usize = 200;

/// One model turn as a timeline shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelTurnView {
    pub run_id: RunId,
    pub invocation_id: InvocationId,
    pub round: u32,
    /// The visible assistant text (narration when the turn also called tools).
    pub assistant_text: String,
    /// Reasoning, summarised; `None` when the turn had none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningSummary>,
    pub tool_calls: Vec<ToolCallSummary>,
    pub finish_reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
}

/// The turn's reasoning: its size and its first characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningSummary {
    pub chars: u64,
    /// The first 280 characters.
    pub preview: String,
    pub truncated: bool,
}

/// One tool call of the turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallSummary {
    pub call_id: String,
    pub tool_id: ToolId,
    /// The model-facing name: the builtin alias, else the tool's native name.
    pub alias: String,
    /// The arguments as compact JSON (or the raw text the model sent), at most 200
    /// characters.
    pub arguments_preview: String,
}

/// Reads `model-responses/…` of the turn and projects it.
pub(super) async fn read_model_turn(
    ports: &RuntimePorts,
    run: &RunId,
    invocation: Option<&InvocationId>,
    round: u32,
) -> Result<ModelTurnView, RuntimeError> {
    let invocation = invocation.cloned().unwrap_or_else(InvocationId::root);
    let document = ports
        .audit
        .read_model_response(run, &invocation, round)
        .await?;
    let invalid = |detail: String| RuntimeError::ModelTurnInvalid {
        run: run.clone(),
        round,
        detail,
    };
    let response = document
        .get("response")
        .cloned()
        .ok_or_else(|| invalid("the document has no `response`".to_owned()))?;
    let response: AgentModelResponse =
        serde_json::from_value(response).map_err(|error| invalid(error.to_string()))?;
    Ok(project(run.clone(), invocation, round, &response))
}

/// The view of a parsed response.
pub(super) fn project(
    run_id: RunId,
    invocation_id: InvocationId,
    round: u32,
    response: &AgentModelResponse,
) -> ModelTurnView {
    let reasoning = response.reasoning_text();
    let reasoning = (!reasoning.is_empty()).then(|| {
        let chars = TextMetrics::of(&reasoning).chars;
        ReasoningSummary {
            chars: u64::try_from(chars).unwrap_or(u64::MAX),
            preview: reasoning.chars().take(NARRATION_PREVIEW_CHARS).collect(),
            truncated: chars > NARRATION_PREVIEW_CHARS,
        }
    });
    let tool_calls = response
        .tool_calls()
        .into_iter()
        .map(|call| ToolCallSummary {
            call_id: call.call_id.clone(),
            tool_id: call.tool_id.clone(),
            alias: BuiltinTool::from_id(&call.tool_id).map_or_else(
                || call.tool_id.native_name().to_owned(),
                |t| t.model_alias(),
            ),
            arguments_preview: preview(&call.arguments),
        })
        .collect();
    ModelTurnView {
        run_id,
        invocation_id,
        round,
        assistant_text: response.text(),
        reasoning,
        tool_calls,
        finish_reason: response.finish_reason.as_str().to_owned(),
        model: response.model.clone(),
        response_id: response.response_id.clone(),
        usage: response.usage,
    }
}

fn preview(arguments: &Value) -> String {
    let text = match arguments {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    };
    if text.chars().count() <= ARGUMENTS_PREVIEW_CHARS {
        text
    } else {
        let mut cut: String = text.chars().take(ARGUMENTS_PREVIEW_CHARS).collect();
        cut.push('…');
        cut
    }
}
