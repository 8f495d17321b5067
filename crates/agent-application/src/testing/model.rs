//! [`FakeModel`]: a [`ModelGateway`] that answers from a queue a test fills (responses or
//! errors, in order) and records every call it received, so a test can check what the
//! runtime sent. It streams through the trait's default (the whole answer at once).

use std::collections::VecDeque;
use std::sync::Mutex;

use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelResponse, FinishReason, ModelRole,
};
use agent_domain::tool::{BuiltinTool, ToolInvocation};
use async_trait::async_trait;
use serde_json::Value;

use crate::ports::{ModelCall, ModelError, ModelErrorKind, ModelGateway};

/// Answers from a queue; an empty queue answers `model.script_exhausted`.
#[derive(Debug, Default)]
pub struct FakeModel {
    answers: Mutex<VecDeque<Result<AgentModelResponse, ModelError>>>,
    calls: Mutex<Vec<ModelCall>>,
}

impl FakeModel {
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues `response` as the answer to the next unanswered call.
    pub fn respond(&self, response: AgentModelResponse) -> &Self {
        self.queue(Ok(response))
    }

    /// Queues `error` as the answer to the next unanswered call.
    pub fn fail(&self, error: ModelError) -> &Self {
        self.queue(Err(error))
    }

    fn queue(&self, answer: Result<AgentModelResponse, ModelError>) -> &Self {
        self.answers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push_back(answer);
        self
    }

    /// Every call received, in order (retries included).
    pub fn calls(&self) -> Vec<ModelCall> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Answers queued and not yet given.
    pub fn queued(&self) -> usize {
        self.answers.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// A turn of visible text only.
pub fn text_turn(text: &str) -> AgentModelResponse {
    turn(vec![AgentModelContentPart::text(text)], FinishReason::Stop)
}

/// A turn of builtin tool calls, each `(call id, tool, arguments)`.
pub fn tool_turn(calls: &[(&str, BuiltinTool, Value)]) -> AgentModelResponse {
    let parts = calls
        .iter()
        .map(|(call_id, tool, arguments)| {
            AgentModelContentPart::ToolCall(ToolInvocation {
                call_id: (*call_id).to_owned(),
                tool_id: tool.id(),
                arguments: arguments.clone(),
                provider_metadata: Value::Null,
            })
        })
        .collect();
    turn(parts, FinishReason::ToolCalls)
}

fn turn(parts: Vec<AgentModelContentPart>, finish_reason: FinishReason) -> AgentModelResponse {
    AgentModelResponse {
        message: AgentModelMessage::new(ModelRole::Assistant, parts),
        finish_reason,
        usage: None,
        response_id: None,
        model: Some("fake".to_owned()),
        provider_metadata: Value::Null,
        provider_state: None,
    }
}

#[async_trait]
impl ModelGateway for FakeModel {
    async fn generate(&self, call: ModelCall) -> Result<AgentModelResponse, ModelError> {
        self.calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(call);
        self.answers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop_front()
            .unwrap_or_else(|| {
                Err(ModelError::new(
                    ModelErrorKind::ScriptExhausted,
                    "the fake model has no answer queued",
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use agent_domain::event::InvocationKind;
    use agent_domain::model::{AgentModelRequest, GenerationParameters, ProviderState};
    use agent_domain::run::{InvocationId, RunId};
    use agent_domain::tool::ToolChoice;
    use futures::StreamExt;

    use super::*;
    use crate::ports::ModelStreamItem;

    fn call(round: u32) -> ModelCall {
        ModelCall {
            run_id: RunId::parse("run_1").unwrap(),
            invocation_id: InvocationId::root(),
            invocation_kind: InvocationKind::Root,
            profile_id: "default-writer".into(),
            round,
            attempt: 1,
            request: AgentModelRequest {
                messages: Arc::new(vec![AgentModelMessage::user("hi")]),
                tools: Arc::new(Vec::new()),
                tool_choice: ToolChoice::Auto,
                provider_state: ProviderState::initial("run_1", "inv_root"),
                parameters: GenerationParameters::default(),
            },
        }
    }

    #[tokio::test]
    async fn answers_in_order_records_calls_and_runs_dry() {
        let model = FakeModel::new();
        model
            .fail(ModelError::new(ModelErrorKind::Overloaded, "busy"))
            .respond(text_turn("Hello."));
        let error = model.generate(call(1)).await.unwrap_err();
        assert_eq!(error.code, "model.overloaded");
        let streamed: Vec<_> = model.stream(call(2)).collect().await;
        let [Ok(ModelStreamItem::Completed(response))] = streamed.as_slice() else {
            panic!("{streamed:?}");
        };
        assert_eq!(response.text(), "Hello.");
        let dry = model.generate(call(3)).await.unwrap_err();
        assert_eq!(dry.code, "model.script_exhausted");
        let rounds: Vec<u32> = model.calls().iter().map(|c| c.round).collect();
        assert_eq!(rounds, [1, 2, 3]);
        assert_eq!(model.queued(), 0);
        let turn = tool_turn(&[("c1", BuiltinTool::WorkspaceFinish, Value::Null)]);
        assert_eq!(
            turn.tool_calls()[0].tool_id,
            BuiltinTool::WorkspaceFinish.id()
        );
    }
}
