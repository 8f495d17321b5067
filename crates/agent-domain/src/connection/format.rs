//! [`ProviderFormat`]: the wire formats a connection can speak.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::ConnectionError;

/// The provider wire format of a connection, named as `docs/connections.md` spells it.
///
/// The format decides the request shape and the base URL convention: OpenAI formats take a
/// base URL that includes the API version, Anthropic and Gemini formats one without it
/// (each official SDK's own convention, so a URL copied from a provider's docs just works).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ProviderFormat {
    /// OpenAI Chat Completions and compatible servers: `POST {base}/chat/completions`.
    OpenaiChat,
    /// OpenAI Responses: `POST {base}/responses`.
    OpenaiResponses,
    /// Anthropic Messages: `POST {base}/v1/messages`.
    Anthropic,
    /// Gemini `generateContent`: `POST {base}/v1beta/models/{model}:generateContent`.
    Gemini,
    /// Gemini Interactions, on the Gemini API host.
    GeminiInteractions,
}

impl ProviderFormat {
    /// Every format, in the order help texts and error messages list them.
    pub const ALL: [Self; 5] = [
        Self::OpenaiChat,
        Self::OpenaiResponses,
        Self::Anthropic,
        Self::Gemini,
        Self::GeminiInteractions,
    ];

    /// The configuration name (`openai-chat`, `gemini-interactions`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::OpenaiChat => "openai-chat",
            Self::OpenaiResponses => "openai-responses",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
            Self::GeminiInteractions => "gemini-interactions",
        }
    }

    /// The format named exactly `raw`; anything else is `connection.unknown_format` with
    /// the list of formats, so a typo is fixed without looking up the docs.
    pub fn parse(raw: &str) -> Result<Self, ConnectionError> {
        Self::ALL
            .into_iter()
            .find(|format| format.as_str() == raw)
            .ok_or_else(|| ConnectionError::UnknownFormat {
                found: raw.to_owned(),
            })
    }

    /// The base URL used when a connection leaves `baseUrl` empty: the provider's public
    /// API, in this format's convention (OpenAI with the version, the others without).
    pub const fn default_base_url(self) -> &'static str {
        match self {
            Self::OpenaiChat | Self::OpenaiResponses => "https://api.openai.com/v1",
            Self::Anthropic => "https://api.anthropic.com",
            Self::Gemini | Self::GeminiInteractions => "https://generativelanguage.googleapis.com",
        }
    }

    /// `openai-chat, openai-responses, …`: the list error messages and help show.
    pub fn names_joined() -> String {
        Self::ALL.map(Self::as_str).join(", ")
    }
}

impl fmt::Display for ProviderFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProviderFormat {
    type Err = ConnectionError;

    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        Self::parse(raw)
    }
}

impl Serialize for ProviderFormat {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Deserialised through [`ProviderFormat::parse`], so a bad name reads with the same
/// message as on the command line.
impl<'de> Deserialize<'de> for ProviderFormat {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        Self::parse(&raw).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn names_round_trip() {
        for format in ProviderFormat::ALL {
            assert_eq!(ProviderFormat::parse(format.as_str()).unwrap(), format);
            let json = serde_json::to_value(format).unwrap();
            assert_eq!(json, format.as_str());
            let back: ProviderFormat = serde_json::from_value(json).unwrap();
            assert_eq!(back, format);
        }
        assert_eq!(
            ProviderFormat::names_joined(),
            "openai-chat, openai-responses, anthropic, gemini, gemini-interactions"
        );
    }

    #[test]
    fn unknown_names_are_refused_with_the_list() {
        for raw in ["openai", "OpenAI-Chat", " gemini", "", "claude"] {
            let err = ProviderFormat::parse(raw).unwrap_err();
            assert_eq!(err.code(), "connection.unknown_format", "{raw:?}");
        }
        let err = serde_json::from_value::<ProviderFormat>("claude".into()).unwrap_err();
        assert!(err.to_string().contains("gemini-interactions"), "{err}");
    }

    #[test]
    fn default_base_urls_follow_each_sdk() {
        assert_eq!(
            ProviderFormat::OpenaiResponses.default_base_url(),
            "https://api.openai.com/v1"
        );
        assert_eq!(
            ProviderFormat::Anthropic.default_base_url(),
            "https://api.anthropic.com"
        );
        assert_eq!(
            ProviderFormat::GeminiInteractions.default_base_url(),
            "https://generativelanguage.googleapis.com"
        );
    }
}
