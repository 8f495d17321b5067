//! [`ScriptedModel`]: the [`ModelGateway`] that answers from a script.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use agent_application::ports::{ModelCall, ModelError, ModelGateway};
use agent_domain::model::AgentModelResponse;
use agent_domain::run::RunId;
use async_trait::async_trait;

use super::ScriptError;
use super::parse::parse;
use super::respond::{Origin, exhausted, failure_error, respond};
use super::run_state::RunState;
use super::script::{Outcome, Script};

/// A model that plays back a script (format in `docs/scripted-model.md`), for offline
/// runs, demos and tests of the run loop.
///
/// Each call attempt takes the next turn of its list: the profile's own list under
/// `agents.<profileId>`, else `turns`. Cursors and tool call ids are tracked per run, so
/// one model can serve several runs, each starting from the top of every list.
#[derive(Debug)]
pub struct ScriptedModel {
    script: Script,
    runs: Mutex<HashMap<RunId, RunState>>,
}

impl ScriptedModel {
    /// Parses and checks a script.
    pub fn from_json(text: &str) -> Result<Self, ScriptError> {
        Ok(Self {
            script: parse(text)?,
            runs: Mutex::default(),
        })
    }

    /// Takes the call's turn and settles its outcome at once, under the lock, so turns
    /// and ids go to concurrent calls in the order the calls start; only the delay is
    /// waited out afterwards. A call dropped during its delay has still used its turn,
    /// like a provider request that was sent and then abandoned.
    fn start(
        &self,
        call: &ModelCall,
    ) -> (Option<Duration>, Result<AgentModelResponse, ModelError>) {
        let (list, turns) = self.script.list_for(&call.profile_id);
        // Nothing under the lock is expected to panic; if something did, the state is
        // still plain counters, so the lock is recovered rather than failing every later call.
        let mut runs = self.runs.lock().unwrap_or_else(PoisonError::into_inner);
        let state = runs.entry(call.run_id.clone()).or_default();
        let Some((taken, turn)) = state.take_turn(&list, turns) else {
            return (None, Err(exhausted(&list, turns.len(), &call.profile_id)));
        };
        let origin = Origin {
            run_id: &call.run_id,
            list: &list,
            taken,
        };
        let outcome = match &turn.outcome {
            Outcome::Answer(answer) => respond(answer, &origin, &call.request.tools, state),
            Outcome::Fail(failure) => Err(failure_error(failure)),
        };
        (turn.delay, outcome)
    }
}

#[async_trait]
impl ModelGateway for ScriptedModel {
    async fn generate(&self, call: ModelCall) -> Result<AgentModelResponse, ModelError> {
        let (delay, outcome) = self.start(&call);
        if let Some(delay) = delay {
            tokio::time::sleep(delay).await;
        }
        outcome
    }
}
