//! Anthropic Messages (`docs/providers.md`): `POST {base}/v1/messages`.
//!
//! [`encode`] turns a canonical request into a request body and [`decode`] turns a
//! response body into a canonical turn; both are pure so they can be tested without a
//! server. Thinking and redacted-thinking blocks (and any block type this adapter does not
//! model, such as server-tool blocks) are kept verbatim as [`NATIVE`] parts and sent back,
//! signatures intact, only to this format.

mod decode;
mod encode;
mod stream;

pub use decode::decode;
pub use encode::encode;
pub use stream::AnthropicAssembler;

/// Provider of the native parts holding Anthropic content blocks verbatim, and producer of
/// the display-only reasoning parts read from thinking blocks.
pub const NATIVE: &str = "anthropic";

/// The API version header every request carries.
pub const API_VERSION: &str = "2023-06-01";

/// The base URL used when a connection leaves it empty (no version segment: requests go
/// to `{base}/v1/messages`).
pub const DEFAULT_BASE_URL: &str =
    agent_domain::connection::ProviderFormat::Anthropic.default_base_url();

/// The output limit sent when neither the request nor the connection sets one
/// (`max_tokens` is required by this format).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// Native block types that must lead their assistant message when replayed.
const THINKING_TYPES: &[&str] = &["thinking", "redacted_thinking"];

/// The format name in error messages.
const FORMAT: &str = "Anthropic Messages";

/// Whether a request asks for extended thinking: a reasoning budget (encoded as
/// `thinking: {type: enabled}`) or a `thinking` body field from the connection or the
/// request's extras whose `type` is not `disabled`. With thinking on, Anthropic refuses a
/// tool loop whose assistant turn lost its thinking block, so a response whose tool calls
/// come without one cannot be continued.
pub fn thinking_requested(
    parameters: &agent_domain::model::GenerationParameters,
    connection_params: &serde_json::Map<String, serde_json::Value>,
) -> bool {
    let field = parameters
        .extra
        .get("thinking")
        .or_else(|| connection_params.get("thinking"));
    match field {
        Some(thinking) => thinking.get("type").and_then(|t| t.as_str()) != Some("disabled"),
        None => parameters.reasoning_budget_tokens.is_some(),
    }
}
