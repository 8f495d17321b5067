//! OpenAI Responses (wire-formats §2), stateless mode only.
//!
//! Every request carries the whole transcript with `store: false` and asks for
//! `include: ["reasoning.encrypted_content"]`; the reasoning items of earlier responses are
//! kept as [`NATIVE`] parts and replayed verbatim, in place. The stateful mode
//! (`store: true` + `previous_response_id`) and the WebSocket transport are not spoken:
//! [`check_stateless`] refuses a connection or request that asks for them.
//!
//! [`encode`] and [`decode`] are pure so they can be tested without a server.

mod decode;
mod encode;

pub use decode::decode;
pub use encode::encode;

use agent_application::ports::{ModelError, ModelErrorKind};
use serde_json::{Map, Value};

/// Provider of the native parts holding Responses output items (reasoning items) verbatim.
pub const NATIVE: &str = "openai_responses";

/// The format name in error messages.
const FORMAT: &str = "Responses";

/// Refuses what would need the stateful mode or another transport: `store: true`, a
/// `previous_response_id`, `background`, or a `ws://`/`wss://` base URL. `body_fields` are
/// a connection's params or a request's `parameters.extra`.
pub fn check_stateless(base_url: &str, body_fields: &Map<String, Value>) -> Result<(), ModelError> {
    let asks = if base_url.starts_with("ws://") || base_url.starts_with("wss://") {
        Some("the WebSocket transport")
    } else if body_fields
        .get("store")
        .is_some_and(|s| s != &Value::Bool(false))
    {
        Some("`store` other than false")
    } else if body_fields.contains_key("previous_response_id") {
        Some("`previous_response_id`")
    } else if body_fields
        .get("background")
        .is_some_and(|b| b != &Value::Bool(false))
    {
        Some("`background`")
    } else {
        None
    };
    match asks {
        None => Ok(()),
        Some(what) => {
            let mut error = ModelError::new(
                ModelErrorKind::InvalidRequest,
                format!(
                    "the openai-responses adapter only speaks the stateless HTTP mode \
                     (store: false, full input every turn); {what} is not supported"
                ),
            );
            error.code = "model.format_unsupported";
            Err(error)
        }
    }
}
