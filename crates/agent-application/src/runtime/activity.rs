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
