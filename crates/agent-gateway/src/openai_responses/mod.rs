//! OpenAI Responses over HTTP, in two modes a connection chooses.
//!
//! * **Stateless** (the default, `store: false`): every request carries the whole
//!   transcript and asks for `include: ["reasoning.encrypted_content"]`; the reasoning items
//!   of earlier responses are kept as [`NATIVE`] parts and replayed verbatim, in place. Works
//!   for zero-data-retention accounts and compatible servers.
//! * **Stateful** (connection parameter `store=true`): the server keeps the session. The
//!   first request carries everything; each later one names `previous_response_id` and
//!   carries only the messages after the provider state's `messageCursor`, minus the
//!   assistant turns the server wrote itself (see [`crate::continuation`]).
//!
//! Over the WebSocket transport (`responses_websocket`, see [`crate::websocket`]) a call
//! chains onto the previous response of its socket in either mode. [`mode`] refuses
//! `background`. [`encode`] and [`decode`] are pure so they can be tested without a server.

mod decode;
mod encode;
mod stream;
mod strict;

pub use decode::decode;
pub use encode::encode;
pub use stream::ResponsesAssembler;
pub use strict::is_strict_compatible;

use agent_application::ports::ModelError;
use serde_json::{Map, Value};

use crate::continuation::SessionFields;

/// Provider of the native parts holding Responses output items (reasoning items) verbatim.
pub const NATIVE: &str = "openai_responses";

/// The format name in error messages.
const FORMAT: &str = "Responses";

/// The session fields of Responses.
pub(crate) const SESSION: SessionFields = SessionFields {
    format: "openai-responses",
    previous: "previous_response_id",
    answers: "responses",
};

/// The provider-state transport of the WebSocket mode.
pub const WEBSOCKET_TRANSPORT: &str = "responses_websocket";

/// Whether a connection asks for the stateful mode (`store: true` among its params).
/// Refuses what this adapter does not speak: `background`, a non-boolean `store`, and a
/// `previous_response_id` of its own (the adapter chains responses itself).
pub fn mode(params: &Map<String, Value>) -> Result<bool, ModelError> {
    SESSION.stateful(params)
}
