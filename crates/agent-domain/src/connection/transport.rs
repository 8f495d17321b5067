//! [`ConnectionTransport`]: how a connection carries its model calls.
//!
//! A domain value so the saved connection, the host and the gateway agree on one typed name.
//! Only OpenAI Responses has a second transport (its WebSocket mode); every other format
//! speaks HTTP.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How model calls travel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConnectionTransport {
    /// One HTTP request per call (streamed as server-sent events or answered whole).
    #[default]
    Http,
    /// OpenAI Responses over one persistent WebSocket per invocation: each call is a
    /// `response.create` message answered by the same events a stream carries.
    Websocket,
}

impl ConnectionTransport {
    /// Every transport, in the order help texts list them.
    pub const ALL: [Self; 2] = [Self::Http, Self::Websocket];

    /// The configuration name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Http => "http",
            Self::Websocket => "websocket",
        }
    }

    /// The transport a base URL's scheme implies: `ws://` and `wss://` → WebSocket,
    /// anything else → HTTP.
    pub fn for_base_url(base_url: &str) -> Self {
        if is_websocket_url(base_url) {
            Self::Websocket
        } else {
            Self::Http
        }
    }
}

/// Whether `url` starts with `ws://` or `wss://` (in any case).
pub fn is_websocket_url(url: &str) -> bool {
    let lower = url.get(..6).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("ws://") || lower.starts_with("wss://")
}

impl fmt::Display for ConnectionTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A transport name that is not one of [`ConnectionTransport::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown transport `{0}`; use http or websocket")]
pub struct UnknownTransport(pub String);

impl FromStr for ConnectionTransport {
    type Err = UnknownTransport;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| UnknownTransport(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_the_scheme_implies_the_transport() {
        for transport in ConnectionTransport::ALL {
            assert_eq!(transport.as_str().parse(), Ok(transport));
            let json = serde_json::to_value(transport).unwrap();
            assert_eq!(json, serde_json::json!(transport.as_str()));
        }
        assert!("ws".parse::<ConnectionTransport>().is_err());
        assert_eq!(
            ConnectionTransport::for_base_url("wss://api.openai.com/v1"),
            ConnectionTransport::Websocket
        );
        assert_eq!(
            ConnectionTransport::for_base_url("WS://127.0.0.1:1/v1"),
            ConnectionTransport::Websocket
        );
        assert_eq!(
            ConnectionTransport::for_base_url("https://api.openai.com/v1"),
            ConnectionTransport::Http
        );
        assert_eq!(
            ConnectionTransport::for_base_url(""),
            ConnectionTransport::Http
        );
    }
}
