//! The live activity channel: the deltas of streamed model calls as they arrive, for hosts
//! that show a run while it works (`AgentRuntime::watch_activity`).
//!
//! It sits next to the journal, not in it: deltas are never persisted (the journal records
//! whole steps), a subscriber that falls behind loses the oldest deltas rather than slowing
//! the run, and nothing is sent while no host listens. A failed attempt's deltas have gone
//! out live, but its partial answer is dropped here and never reaches the machine.

use agent_domain::model::AgentModelResponse;
use agent_domain::run::{InvocationId, RunId};
use futures::StreamExt;
use tokio::sync::broadcast;

use crate::ports::{
    ModelCall, ModelDelta, ModelError, ModelErrorKind, ModelGateway, ModelStreamItem,
};

/// How many deltas a slow subscriber may fall behind before it loses the oldest.
const CAPACITY: usize = 4096;

/// One delta of a streamed model call, with the call it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelActivity {
    pub run_id: RunId,
    pub invocation_id: InvocationId,
    /// 1-based round of the invocation.
    pub round: u32,
    /// 1-based attempt within the round: a retry starts its text over.
    pub attempt: u32,
    pub delta: ModelDelta,
}

/// The sending side every run of a runtime shares (clones share the channel).
#[derive(Debug, Clone)]
pub(super) struct ActivityHub {
    sender: broadcast::Sender<ModelActivity>,
}

impl Default for ActivityHub {
    fn default() -> Self {
        Self {
            sender: broadcast::channel(CAPACITY).0,
        }
    }
}

impl ActivityHub {
    pub fn subscribe(&self) -> broadcast::Receiver<ModelActivity> {
        self.sender.subscribe()
    }

    /// Makes `call` streamed, publishing its deltas; answers the completed response or the
    /// call's error. Dropping the future drops the stream, which cancels the call.
    pub async fn call(
        &self,
        model: &dyn ModelGateway,
        call: ModelCall,
    ) -> Result<AgentModelResponse, ModelError> {
        let (run_id, invocation_id) = (call.run_id.clone(), call.invocation_id.clone());
        let (round, attempt) = (call.round, call.attempt);
        let mut items = model.stream(call);
        while let Some(item) = items.next().await {
            match item? {
                ModelStreamItem::Completed(response) => return Ok(response),
                ModelStreamItem::Delta(delta) => {
                    if self.sender.receiver_count() > 0 {
                        let _ = self.sender.send(ModelActivity {
                            run_id: run_id.clone(),
                            invocation_id: invocation_id.clone(),
                            round,
                            attempt,
                            delta,
                        });
                    }
                }
            }
        }
        let mut error = ModelError::new(
            ModelErrorKind::Transient,
            "the model stream ended without a response",
        );
        error.code = "model.stream_interrupted";
        Err(error)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use agent_domain::event::InvocationKind;
    use agent_domain::model::{
        AgentModelMessage, AgentModelRequest, FinishReason, GenerationParameters, ProviderState,
    };
    use agent_domain::tool::ToolChoice;
    use async_trait::async_trait;
    use futures::stream::{self, BoxStream};

    use super::*;

    /// Streams two text deltas, then the response or (when `fails`) an overload.
    struct Streaming {
        fails: bool,
    }

    fn response() -> AgentModelResponse {
        AgentModelResponse {
            message: AgentModelMessage::assistant("Once upon"),
            finish_reason: FinishReason::Stop,
            usage: None,
            response_id: None,
            model: None,
            provider_metadata: serde_json::Value::Null,
            provider_state: None,
        }
    }

    #[async_trait]
    impl ModelGateway for Streaming {
        async fn generate(&self, _call: ModelCall) -> Result<AgentModelResponse, ModelError> {
            Ok(response())
        }

        fn stream(&self, _call: ModelCall) -> BoxStream<'_, Result<ModelStreamItem, ModelError>> {
            let end = if self.fails {
                Err(ModelError::new(ModelErrorKind::Overloaded, "busy"))
            } else {
                Ok(ModelStreamItem::Completed(response()))
            };
            stream::iter([
                Ok(ModelStreamItem::Delta(ModelDelta::Text("Once ".into()))),
                Ok(ModelStreamItem::Delta(ModelDelta::Text("upon".into()))),
                end,
            ])
            .boxed()
        }
    }

    fn call() -> ModelCall {
        ModelCall {
            run_id: RunId::parse("run_activity").unwrap_or_else(|e| unreachable!("{e}")),
            invocation_id: InvocationId::root(),
            invocation_kind: InvocationKind::Root,
            profile_id: "default-writer".into(),
            round: 2,
            attempt: 1,
            request: AgentModelRequest {
                messages: Arc::new(Vec::new()),
                tools: Arc::new(Vec::new()),
                tool_choice: ToolChoice::Auto,
                provider_state: ProviderState::initial("run_activity", "inv_root"),
                parameters: GenerationParameters::default(),
            },
        }
    }

    fn texts(receiver: &mut broadcast::Receiver<ModelActivity>) -> Vec<(u32, String)> {
        std::iter::from_fn(|| receiver.try_recv().ok())
            .map(|activity| match activity.delta {
                ModelDelta::Text(text) => (activity.round, text),
                other => unreachable!("{other:?}"),
            })
            .collect()
    }

    #[tokio::test]
    async fn deltas_go_live_and_the_response_comes_back_whole() {
        let hub = ActivityHub::default();
        let mut receiver = hub.subscribe();
        let answer = hub.call(&Streaming { fails: false }, call()).await;
        assert_eq!(answer, Ok(response()));
        assert_eq!(
            texts(&mut receiver),
            vec![(2, "Once ".to_owned()), (2, "upon".to_owned())]
        );
    }

    #[tokio::test]
    async fn a_failed_stream_publishes_its_deltas_but_answers_only_the_error() {
        let hub = ActivityHub::default();
        let mut receiver = hub.subscribe();
        let error = hub.call(&Streaming { fails: true }, call()).await;
        assert_eq!(error.map_err(|e| e.kind), Err(ModelErrorKind::Overloaded));
        assert_eq!(texts(&mut receiver).len(), 2);
    }
}
