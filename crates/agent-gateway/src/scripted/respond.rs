//! What a taken turn makes of a call: a canonical response, or a classified error.

use agent_application::ports::{ModelError, ModelErrorKind};
use agent_domain::ErrorCode;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelResponse, FinishReason, ModelRole,
};
use agent_domain::run::RunId;
use agent_domain::tool::{AgentModelTool, ToolCallDecoder};
use serde_json::{Value, json};

use super::run_state::{RunState, TakenTurn};
use super::script::{Answer, Failure, FailureKind, ListKey};

/// The `model` every scripted response names.
const MODEL: &str = "scripted";

/// Where a turn came from, for the response's metadata and for error messages that point
/// back into the script.
#[derive(Debug)]
pub(crate) struct Origin<'a> {
    pub run_id: &'a RunId,
    pub list: &'a ListKey,
    pub taken: TakenTurn,
}

impl Origin<'_> {
    /// The turn's path in the script, as parse errors write it (`agents.reviewer[0]`).
    fn path(&self) -> String {
        format!("{}[{}]", self.list, self.taken.index)
    }
}

/// Answers with the turn's parts in order (reasoning, text, tool calls), decoding every
/// call through this request's tools exactly as a provider adapter must. The ids are
/// issued in `state` only when the whole response is valid.
pub(crate) fn respond(
    answer: &Answer,
    origin: &Origin<'_>,
    tools: &[AgentModelTool],
    state: &mut RunState,
) -> Result<AgentModelResponse, ModelError> {
    let ids = state.plan_call_ids(answer.tool_calls.iter().map(|call| call.id.as_deref()));
    let decoder = ToolCallDecoder::new(tools);
    let mut parts = Vec::new();
    if let Some(reasoning) = &answer.reasoning {
        parts.push(AgentModelContentPart::reasoning(reasoning));
    }
    if let Some(text) = &answer.text {
        parts.push(AgentModelContentPart::text(text));
    }
    for (index, (call, id)) in answer.tool_calls.iter().zip(&ids).enumerate() {
        let at = || format!("{}.tool_calls[{index}]", origin.path());
        let invocation = decoder
            .decode(id, &call.name, call.arguments.clone(), Value::Null)
            .map_err(|err| contract_violation(err.code(), format!("{}: {err}", at())))?;
        if state.was_issued(id) || ids[..index].contains(id) {
            return Err(contract_violation(
                "model.duplicate_tool_call_id",
                format!("{}: tool call id `{id}` was already used in this run", at()),
            ));
        }
        parts.push(AgentModelContentPart::ToolCall(invocation));
    }
    let finish_reason = if ids.is_empty() {
        FinishReason::Stop
    } else {
        FinishReason::ToolCalls
    };
    state.issue(ids);
    Ok(AgentModelResponse {
        message: AgentModelMessage::new(ModelRole::Assistant, parts),
        finish_reason,
        usage: None,
        response_id: Some(format!(
            "{MODEL}-{}-{}",
            origin.run_id, origin.taken.attempt
        )),
        model: Some(MODEL.to_owned()),
        provider_metadata: json!({
            "provider": MODEL,
            "list": origin.list.to_string(),
            "turn": origin.taken.index,
        }),
        provider_state: None,
    })
}

/// The error a scripted `error` turn stages, classified like a real provider's.
pub(crate) fn failure_error(failure: &Failure) -> ModelError {
    let kind = match failure.kind {
        FailureKind::RateLimit => ModelErrorKind::RateLimited,
        FailureKind::Transient => ModelErrorKind::Transient,
        FailureKind::Fatal => ModelErrorKind::Other,
    };
    ModelError {
        retry_after_ms: failure.retry_after_ms,
        ..ModelError::new(kind, failure.message.clone())
    }
}

/// The error of a call whose list has no turn left.
pub(crate) fn exhausted(list: &ListKey, len: usize, profile_id: &str) -> ModelError {
    ModelError::new(
        ModelErrorKind::ScriptExhausted,
        format!(
            "the script's `{list}` list has no turn left for profile `{profile_id}` \
             (all {len} used)"
        ),
    )
}

fn contract_violation(code: &'static str, message: String) -> ModelError {
    ModelError {
        code,
        ..ModelError::new(ModelErrorKind::ContractViolation, message)
    }
}
