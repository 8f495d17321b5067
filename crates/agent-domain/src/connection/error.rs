//! [`ConnectionError`]: every way a connection can be refused, each with a stable code.

use super::ProviderFormat;
use crate::error::ErrorCode;

/// Why a connection document, a connection name or a command-line piece of one was refused,
/// or why a store could not do what was asked with a connection.
///
/// Every variant maps to one `connection.*` code (see [`ErrorCode`]). Messages name the
/// offending field and say how to fix it, but never repeat a header or parameter *value*:
/// those are the places a misplaced secret would end up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectionError {
    /// The document is not JSON, has a wrong type, or has a field the format does not know.
    #[error("the connection does not match the connection format: {detail}")]
    ContractInvalid { detail: String },
    #[error("connection kind must be `tavern-agent.llmConnection`, found `{found}`")]
    KindInvalid { found: String },
    #[error("connection schemaVersion {found} is not supported; this runtime reads 1")]
    SchemaUnsupported { found: String },
    #[error(
        "connection name `{name}` {reason}; use 1 to 64 ASCII letters, digits, `.`, `_` or \
         `-`, starting with a letter or digit"
    )]
    InvalidName { name: String, reason: &'static str },
    #[error(
        "unknown provider format `{found}`; use one of: {}",
        ProviderFormat::names_joined()
    )]
    UnknownFormat { found: String },
    #[error("the connection needs a non-blank model")]
    ModelRequired,
    /// The value is never repeated: a key pasted where its variable's name belongs is the
    /// usual cause.
    #[error(
        "apiKeyEnv is not an environment variable name; give the name of the variable that \
         holds the key (ASCII letters, digits and `_`, not starting with a digit), not the key"
    )]
    InvalidEnvVar,
    #[error("dialect `{found}`: {reason}")]
    InvalidDialect { found: String, reason: &'static str },
    #[error("requestTimeoutSecs {secs} is out of range; use 1 to 86400 seconds")]
    InvalidTimeout { secs: u64 },
    #[error("transport: {reason}")]
    InvalidTransport { reason: &'static str },
    #[error("header `{header}` {reason}")]
    InvalidHeader { header: String, reason: String },
    #[error("parameter `{param}` {reason}")]
    InvalidParam { param: String, reason: String },
    #[error("baseUrl {reason}")]
    InvalidBaseUrl { reason: &'static str },
    /// The file name is the connection's name; a document naming another connection could
    /// never be found under its own name.
    #[error(
        "the connection file `{file_name}.json` holds the connection `{document_name}`; a \
         connection file must be named after its connection"
    )]
    NameMismatch {
        file_name: String,
        document_name: String,
    },
    #[error("no LLM connection named `{name}` exists")]
    NotFound { name: String },
    #[error("an LLM connection named `{name}` already exists; pass --force to replace it")]
    AlreadyExists { name: String },
    #[error(
        "the connection name `{name}` differs from the existing connection `{existing}` only \
         in case; such names would share one file on macOS and Windows, so pick another name \
         or change `{existing}`"
    )]
    NameClash { name: String, existing: String },
}

impl ErrorCode for ConnectionError {
    fn code(&self) -> &'static str {
        match self {
            Self::ContractInvalid { .. } => "connection.contract_invalid",
            Self::KindInvalid { .. } => "connection.kind_invalid",
            Self::SchemaUnsupported { .. } => "connection.schema_unsupported",
            Self::InvalidName { .. } => "connection.invalid_name",
            Self::UnknownFormat { .. } => "connection.unknown_format",
            Self::ModelRequired => "connection.model_required",
            Self::InvalidEnvVar => "connection.invalid_env_var",
            Self::InvalidDialect { .. } => "connection.invalid_dialect",
            Self::InvalidTimeout { .. } => "connection.invalid_timeout",
            Self::InvalidTransport { .. } => "connection.invalid_transport",
            Self::InvalidHeader { .. } => "connection.invalid_header",
            Self::InvalidParam { .. } => "connection.invalid_param",
            Self::InvalidBaseUrl { .. } => "connection.invalid_base_url",
            Self::NameMismatch { .. } => "connection.name_mismatch",
            Self::NotFound { .. } => "connection.not_found",
            Self::AlreadyExists { .. } => "connection.already_exists",
            Self::NameClash { .. } => "connection.name_clash",
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    fn every_variant() -> Vec<ConnectionError> {
        let s = || "x".to_owned();
        use ConnectionError::*;
        vec![
            ContractInvalid { detail: s() },
            KindInvalid { found: s() },
            SchemaUnsupported { found: s() },
            InvalidName {
                name: s(),
                reason: "r",
            },
            UnknownFormat { found: s() },
            ModelRequired,
            InvalidEnvVar,
            InvalidDialect {
                found: s(),
                reason: "r",
            },
            InvalidTimeout { secs: 0 },
            InvalidTransport { reason: "r" },
            InvalidHeader {
                header: s(),
                reason: s(),
            },
            InvalidParam {
                param: s(),
                reason: s(),
            },
            InvalidBaseUrl { reason: "r" },
            NameMismatch {
                file_name: s(),
                document_name: s(),
            },
            NotFound { name: s() },
            AlreadyExists { name: s() },
            NameClash {
                name: s(),
                existing: s(),
            },
        ]
    }

    #[test]
    fn codes_are_unique_connection_codes() {
        let all = every_variant();
        let codes: BTreeSet<&str> = all.iter().map(ErrorCode::code).collect();
        assert_eq!(codes.len(), all.len());
        for code in codes {
            let rest = code.strip_prefix("connection.").unwrap();
            assert!(
                rest.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{code}"
            );
        }
        for err in &all {
            assert!(!err.to_string().is_empty());
        }
    }

    #[test]
    fn unknown_format_lists_every_format() {
        let message = ConnectionError::UnknownFormat {
            found: "openai".into(),
        }
        .to_string();
        for format in ProviderFormat::ALL {
            assert!(message.contains(format.as_str()), "{message}");
        }
    }
}
