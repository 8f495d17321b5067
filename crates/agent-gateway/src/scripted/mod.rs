//! The scripted model (`docs/scripted-model.md`): a [`ModelGateway`] that answers each call with the
//! next turn of a JSON script instead of asking a provider, so the whole run loop —
//! tool calls, malformed arguments, provider errors and retries, delays, subagents and
//! handoffs — can be driven offline and deterministically.
//!
//! The script's aliases are decoded through each call's own request, exactly as a
//! provider adapter decodes a real model's, so a script exercises the same tool-call
//! contract the runtime enforces for providers.
//!
//! [`ModelGateway`]: agent_application::ports::ModelGateway

mod error;
mod model;
mod parse;
mod respond;
mod run_state;
mod script;

pub use error::ScriptError;
pub use model::ScriptedModel;
