//! Model gateway adapters: provider wire formats over HTTP and the scripted model.
//!
//! See this crate's README and `docs/ARCHITECTURE.md` for what it owns. The wire-format
//! modules are private: hosts reach a provider only through [`HttpModelGateway`], which
//! enforces the invariants every format shares. Benches, fuzz targets and this crate's
//! integration tests open them with the `internals` feature.

/// Declares the wire-format modules: public with the `internals` feature, private without.
macro_rules! wire_modules {
    ($($module:ident),* $(,)?) => {
        $(
            #[cfg(feature = "internals")]
            pub mod $module;
            #[cfg(not(feature = "internals"))]
            mod $module;
        )*
    };
}

wire_modules!(
    anthropic,
    continuation,
    gemini,
    gemini_interactions,
    openai_chat,
    openai_responses,
    sse,
    websocket,
);

pub mod gateway;
pub mod http;
pub mod scripted;
mod wire;

pub use gateway::{HttpConnection, HttpModelGateway};
