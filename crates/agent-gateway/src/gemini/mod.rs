//! Google Gemini `generateContent` (`docs/providers.md`):
//! `POST {base}/v1beta/models/{model}:generateContent`.
//!
//! [`encode`] turns a canonical request into a request body and [`decode`] turns a
//! response body into a canonical turn; both are pure so they can be tested without a
//! server. A model turn's original parts (with their `thoughtSignature`s) are kept verbatim
//! as one [`NATIVE`] part `{"parts": [...]}` and replayed, signatures on the exact parts they
//! came with, only to this format.
//!
//! Gemini often sends function calls without ids. [`decode`] then mints one per call:
//! `gemini_<responseId>_<n>` (`n` = the call's position in the turn), or
//! `gemini_h<hash of the body>_<n>` when the response has no `responseId`. Response ids are
//! unique per generation, so minted ids never collide across the responses of a run. Minted
//! ids are never sent back: Gemini pairs calls and responses by position.

mod decode;
mod encode;
mod stream;
mod schema;

pub use decode::decode;
pub use encode::{SchemaMode, encode};
pub use schema::openapi_schema;
pub use stream::GeminiAssembler;

/// Provider of the native parts holding a Gemini model turn's parts verbatim, and
/// producer of the reasoning parts read from thought parts.
pub const NATIVE: &str = "gemini";

/// The base URL used when a connection leaves it empty (requests go to
/// `{base}/v1beta/models/{model}:generateContent`).
pub const DEFAULT_BASE_URL: &str =
    agent_domain::connection::ProviderFormat::Gemini.default_base_url();

/// Marks, in a tool call's `provider_metadata`, an id this adapter minted (never sent back).
const MINTED_ID: &str = "geminiMintedId";

/// The format name in error messages.
const FORMAT: &str = "Gemini generateContent";
