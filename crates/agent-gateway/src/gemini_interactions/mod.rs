//! Google Gemini Interactions: `POST {base}/v1beta/interactions`, in two
//! modes a connection chooses.
//!
//! * **Stateless** (the default; the adapter sends `store: false`, because the server's own
//!   default is to store): every request carries the whole transcript as `input` steps. A
//!   model turn's steps are kept verbatim as one [`NATIVE`] part `{"steps": [...]}` and
//!   replayed in place, so each `thought` step keeps its `signature` and each
//!   `function_call` step its id and `signature`.
//! * **Stateful** (connection parameter `store=true`): the server keeps the session. The
//!   first request carries everything; each later one names `previous_interaction_id` and
//!   carries only the messages after the provider state's `messageCursor`, minus the model
//!   turns the server wrote itself (see [`crate::continuation`]). The system instruction
//!   and the tools are resent every time: they are not inherited.
//!
//! Tool results travel as `function_result` content blocks (with the native `is_error`
//! flag) inside one `user_input` step per answered model turn; a user message is a
//! `user_input` step of its own.
//!
//! The API changed shape in May 2026 (`outputs[]` became `steps[]`); [`decode`] reads both
//! and ignores step types it does not know, keeping them in the native turn. A
//! `function_call` step without an id (not seen in practice; the API documents ids as
//! present) gets one minted — `interactions_<id>_<n>`, or `interactions_h<hash of the
//! body>_<n>` when the interaction has no id (`store: false`) — so ids stay unique within a
//! run; the minted id is marked in the call's `provider_metadata` and written onto the
//! replayed step so its `function_result` pairs with it.
//!
//! [`encode`] and [`decode`] are pure so they can be tested without a server.

mod decode;
mod encode;

pub use decode::decode;
pub use encode::encode;

use agent_application::ports::ModelError;
use agent_domain::model::AgentModelResponse;
use serde_json::{Map, Value};

use crate::continuation::SessionFields;

/// Provider of the native parts holding an interaction's model steps verbatim, and
/// producer of the reasoning parts read from `thought` steps.
pub const NATIVE: &str = "gemini_interactions";

/// The base URL used when a connection leaves it empty (requests go to
/// `{base}/v1beta/interactions`).
pub const DEFAULT_BASE_URL: &str =
    agent_domain::connection::ProviderFormat::GeminiInteractions.default_base_url();

/// Marks, in a tool call's `provider_metadata`, an id this adapter minted.
const MINTED_ID: &str = "interactionsMintedId";

/// The format name in error messages.
const FORMAT: &str = "Gemini Interactions";

/// The session fields of Interactions.
pub(crate) const SESSION: SessionFields = SessionFields {
    format: "gemini-interactions",
    previous: "previous_interaction_id",
    answers: "interactions",
};

/// A chained session can only continue from calls the server named: the results of the
/// next request travel without the model turn, so a minted id would answer a call the
/// server never issued. `model.invalid_tool_call` when a call's id was minted.
pub(crate) fn check_chainable(response: &AgentModelResponse) -> Result<(), ModelError> {
    let minted = response
        .tool_calls()
        .into_iter()
        .find(|call| call.provider_metadata.get(MINTED_ID).is_some());
    match minted {
        None => Ok(()),
        Some(call) => Err(crate::wire::contract(
            "model.invalid_tool_call",
            format!(
                "a stored interaction returned a function_call without an id (given `{}` here); \
                 its result could not be matched in the next request",
                call.call_id
            ),
        )),
    }
}

/// Whether a connection asks for the stateful mode (`store: true` among its params).
///
/// Refuses what would take the session out of the adapter's hands: a non-boolean `store`,
/// a `previous_interaction_id` of its own (the adapter chains interactions from the
/// provider state), and `background` interactions (they answer before the model has).
pub fn mode(params: &Map<String, Value>) -> Result<bool, ModelError> {
    SESSION.stateful(params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(pairs: &[(&str, Value)]) -> Map<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    #[test]
    fn store_chooses_the_mode_and_session_fields_are_refused() {
        assert_eq!(mode(&Map::new()).ok(), Some(false));
        assert_eq!(mode(&params(&[("store", json!(false))])).ok(), Some(false));
        assert_eq!(mode(&params(&[("store", json!(true))])).ok(), Some(true));
        assert_eq!(
            mode(&params(&[("background", json!(false))])).ok(),
            Some(false)
        );
        for bad in [
            params(&[("store", json!("yes"))]),
            params(&[("previous_interaction_id", json!("v1_x"))]),
            params(&[("background", json!(true))]),
        ] {
            let error = mode(&bad).err();
            assert_eq!(
                error.as_ref().map(|e| e.code),
                Some("model.format_unsupported"),
                "{bad:?}"
            );
        }
    }
}
