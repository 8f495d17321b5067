//! Saved LLM connections: which provider wire format, server, model, key variable, extra
//! headers and extra body parameters a run talks to.
//!
//! A connection is a small JSON document stored under its name (the CLI writes
//! `_tauritavern/llm-connections/<name>.json`). It never holds a key: [`ConnectionConfig`]
//! names the environment variable the key is read from when a call is made, so the file can
//! be shared, committed or printed without leaking anything. Everything here is pure:
//! reading files and environment variables is the adapters' and the host's job.
//!
//! Read a stored document with [`ConnectionConfig::from_json`] (kind, schema version and
//! every rule checked, each failure with its `connection.*` code); build one from command
//! line pieces with [`ConnectionConfig::new`], [`parse_header_arg`] and [`params_from_args`],
//! then [`ConnectionConfig::validate`] it.

mod assign;
mod config;
mod dialect;
mod error;
mod format;
mod name;
mod transport;

pub use assign::{
    headers_from_args, params_from_args, parse_assignment, parse_header_arg, parse_param_arg,
};
pub use config::{
    CONNECTION_KIND, CONNECTION_SCHEMA_VERSION, ConnectionConfig, ConnectionHeader,
    MAX_REQUEST_TIMEOUT_SECS, REDACTED, is_sensitive_header,
};
pub use dialect::{ChatDialect, UnknownChatDialect};
pub use error::ConnectionError;
pub use format::ProviderFormat;
pub use name::{ConnectionName, MAX_CONNECTION_NAME_CHARS};
pub use transport::{ConnectionTransport, UnknownTransport, is_websocket_url};
