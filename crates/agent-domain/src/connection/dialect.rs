//! [`ChatChatDialect`]: which flavour of Chat Completions a connection speaks.
//!
//! A domain value so a saved connection, the host and the gateway agree on one typed name
//! instead of matching strings.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The flavour of Chat Completions a server speaks. It decides the few places where
/// compatible servers disagree: the name of the output-length field, how reasoning effort
/// is asked for, and which reasoning must be sent back on earlier assistant turns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatDialect {
    /// OpenAI itself: `max_completion_tokens` (reasoning models reject `max_tokens`),
    /// `reasoning_effort`, no reasoning to replay.
    Openai,
    /// DeepSeek thinking mode: `reasoning_content` must come back on every assistant turn
    /// that called tools, even when it was empty, or the next request is rejected.
    Deepseek,
    /// OpenRouter: `reasoning_details` come back unchanged on their assistant message, so
    /// an upstream's thinking signatures survive; effort goes in `reasoning.effort`.
    Openrouter,
    /// Any other compatible server (llama.cpp, vLLM, Ollama): `max_tokens`, nothing
    /// replayed, nothing dialect-specific sent.
    #[default]
    Generic,
}

impl ChatDialect {
    /// Every dialect, in the order help texts list them.
    pub const ALL: [Self; 4] = [
        Self::Openai,
        Self::Deepseek,
        Self::Openrouter,
        Self::Generic,
    ];

    /// The configuration name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::Deepseek => "deepseek",
            Self::Openrouter => "openrouter",
            Self::Generic => "generic",
        }
    }

    /// The dialect a base URL's host implies: `api.openai.com` → `openai`, `api.deepseek.com`
    /// → `deepseek`, `openrouter.ai` → `openrouter`, anything else (local servers, proxies)
    /// → `generic`. A connection that knows better names its dialect explicitly.
    pub fn for_base_url(base_url: &str) -> Self {
        let rest = base_url
            .split_once("://")
            .map_or(base_url, |(_, rest)| rest);
        let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let host = host.rsplit_once('@').map_or(host, |(_, host)| host);
        let host = host
            .split(':')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let is = |domain: &str| host == domain || host.ends_with(&format!(".{domain}"));
        if is("openai.com") {
            Self::Openai
        } else if is("deepseek.com") {
            Self::Deepseek
        } else if is("openrouter.ai") {
            Self::Openrouter
        } else {
            Self::Generic
        }
    }
}

impl fmt::Display for ChatDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown dialect name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown Chat Completions dialect `{0}` (expected openai, deepseek, openrouter or generic)"
)]
pub struct UnknownChatDialect(pub String);

impl FromStr for ChatDialect {
    type Err = UnknownChatDialect;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|d| d.as_str() == s)
            .ok_or_else(|| UnknownChatDialect(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dialect_follows_the_host() {
        for (url, dialect) in [
            ("https://api.openai.com/v1", ChatDialect::Openai),
            ("https://API.DeepSeek.com/v1", ChatDialect::Deepseek),
            ("https://openrouter.ai/api/v1", ChatDialect::Openrouter),
            ("http://127.0.0.1:8080/v1", ChatDialect::Generic),
            ("http://user@localhost:11434/v1", ChatDialect::Generic),
            ("https://notopenai.com/v1", ChatDialect::Generic),
            ("https://proxy.example/openai.com/v1", ChatDialect::Generic),
            ("", ChatDialect::Generic),
        ] {
            assert_eq!(ChatDialect::for_base_url(url), dialect, "{url}");
        }
    }
}
