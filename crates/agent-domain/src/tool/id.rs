//! Canonical tool identity: `builtin:<native>` or `mcp/<registration-uuid>:<native>`.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::ErrorCode;

/// Where a tool comes from. The provider is part of the identity, so a builtin and an MCP
/// tool with the same native name are different tools.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ToolProvider {
    /// A tool implemented by the runtime itself.
    Builtin,
    /// A tool served by one MCP registration; the UUID is stored lower-case.
    Mcp { registration: String },
}

impl ToolProvider {
    /// The provider id as it appears before the `:` of a [`ToolId`].
    pub fn id(&self) -> String {
        match self {
            Self::Builtin => BUILTIN_PROVIDER.to_owned(),
            Self::Mcp { registration } => format!("{MCP_PROVIDER_PREFIX}{registration}"),
        }
    }

    fn parse(raw: &str) -> Result<Self, ToolIdError> {
        if raw.is_empty() {
            return Err(ToolIdError::ProviderEmpty);
        }
        if raw == BUILTIN_PROVIDER {
            return Ok(Self::Builtin);
        }
        match raw.strip_prefix(MCP_PROVIDER_PREFIX) {
            Some(uuid) if is_uuid(uuid) => Ok(Self::Mcp {
                registration: uuid.to_ascii_lowercase(),
            }),
            _ => Err(ToolIdError::ProviderInvalid(raw.to_owned())),
        }
    }
}

const BUILTIN_PROVIDER: &str = "builtin";
const MCP_PROVIDER_PREFIX: &str = "mcp/";
/// Native names longer than this are refused; real tool names are far shorter.
pub const MAX_NATIVE_NAME_BYTES: usize = 256;

/// The stable identity of a tool across sources, independent of any model alias.
///
/// Serialises as its canonical string. Parsing accepts a bare builtin name
/// (`workspace.read_file`) as shorthand for `builtin:workspace.read_file`, which is how
/// profiles of schema 1 and 2 name tools.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ToolId {
    provider: ToolProvider,
    native: String,
}

impl ToolId {
    /// A builtin tool id from its native name (`workspace.read_file`).
    pub fn builtin(native: &str) -> Result<Self, ToolIdError> {
        Ok(Self {
            provider: ToolProvider::Builtin,
            native: validate_native(native)?.to_owned(),
        })
    }

    /// A builtin id from a compile-time native name known to be valid (the builtin table;
    /// `every_builtin_id_round_trips` checks each one parses).
    pub(crate) fn builtin_static(native: &'static str) -> Self {
        Self {
            provider: ToolProvider::Builtin,
            native: native.to_owned(),
        }
    }

    /// An MCP tool id from a registration UUID and the server's native tool name.
    pub fn mcp(registration: &str, native: &str) -> Result<Self, ToolIdError> {
        Ok(Self {
            provider: ToolProvider::parse(&format!("{MCP_PROVIDER_PREFIX}{registration}"))?,
            native: validate_native(native)?.to_owned(),
        })
    }

    /// Parses a canonical id, or a bare builtin native name.
    pub fn parse(raw: &str) -> Result<Self, ToolIdError> {
        if raw.trim() != raw {
            return Err(ToolIdError::Invalid(raw.to_owned()));
        }
        match raw.split_once(':') {
            None => Self::builtin(raw),
            Some((provider, native)) => Ok(Self {
                provider: ToolProvider::parse(provider)?,
                native: validate_native(native)?.to_owned(),
            }),
        }
    }

    /// The provider half of the id.
    pub fn provider(&self) -> &ToolProvider {
        &self.provider
    }

    /// The native name: what the tool is called by its own source (and sent to MCP servers).
    pub fn native_name(&self) -> &str {
        &self.native
    }

    /// Whether the runtime implements this tool itself.
    pub fn is_builtin(&self) -> bool {
        self.provider == ToolProvider::Builtin
    }

    /// Whether this is the builtin tool with the given native name.
    pub fn is_builtin_named(&self, native: &str) -> bool {
        self.is_builtin() && self.native == native
    }
}

fn validate_native(native: &str) -> Result<&str, ToolIdError> {
    if native.is_empty() {
        return Err(ToolIdError::NativeNameEmpty);
    }
    let bad_char = native.chars().any(|c| c.is_control() || c == ':');
    if bad_char || native.trim() != native || native.len() > MAX_NATIVE_NAME_BYTES {
        return Err(ToolIdError::Invalid(native.to_owned()));
    }
    Ok(native)
}

/// 8-4-4-4-12 hexadecimal digits, the textual form of a UUID.
fn is_uuid(raw: &str) -> bool {
    let groups: Vec<&str> = raw.split('-').collect();
    let lengths = [8, 4, 4, 4, 12];
    groups.len() == lengths.len()
        && groups
            .iter()
            .zip(lengths)
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

impl fmt::Display for ToolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.provider.id(), self.native)
    }
}

impl std::str::FromStr for ToolId {
    type Err = ToolIdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl Serialize for ToolId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ToolId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        Self::parse(&raw).map_err(serde::de::Error::custom)
    }
}

/// Why a string is not a tool id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolIdError {
    #[error("tool provider id is empty")]
    ProviderEmpty,
    #[error("tool provider `{0}` is not `builtin` or `mcp/<registration-uuid>`")]
    ProviderInvalid(String),
    #[error("tool native name is empty")]
    NativeNameEmpty,
    #[error("`{0}` is not a valid tool id")]
    Invalid(String),
}

impl ErrorCode for ToolIdError {
    fn code(&self) -> &'static str {
        match self {
            Self::ProviderEmpty => "tool.provider_id_empty",
            Self::ProviderInvalid(_) => "tool.provider_id_invalid",
            Self::NativeNameEmpty => "tool.native_name_empty",
            Self::Invalid(_) => "tool.id_invalid",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UUID: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

    #[test]
    fn bare_and_prefixed_builtin_names_are_the_same_id() {
        let bare = ToolId::parse("workspace.read_file").unwrap();
        let prefixed = ToolId::parse("builtin:workspace.read_file").unwrap();
        assert_eq!(bare, prefixed);
        assert_eq!(bare.to_string(), "builtin:workspace.read_file");
        assert!(bare.is_builtin_named("workspace.read_file"));
    }

    #[test]
    fn mcp_ids_keep_registration_and_native_name() {
        let id = ToolId::parse(&format!("mcp/{}:issue.create", UUID.to_uppercase())).unwrap();
        assert_eq!(id.to_string(), format!("mcp/{UUID}:issue.create"));
        assert_eq!(id.native_name(), "issue.create");
        assert!(!id.is_builtin());
        assert_eq!(id, ToolId::mcp(UUID, "issue.create").unwrap());
    }

    #[test]
    fn a_builtin_and_an_mcp_tool_with_one_native_name_differ() {
        let builtin = ToolId::builtin("dice.roll").unwrap();
        let mcp = ToolId::mcp(UUID, "dice.roll").unwrap();
        assert_ne!(builtin, mcp);
    }

    #[test]
    fn invalid_ids_have_specific_codes() {
        let cases = [
            (":x", "tool.provider_id_empty"),
            ("web:x", "tool.provider_id_invalid"),
            ("mcp/not-a-uuid:x", "tool.provider_id_invalid"),
            ("mcp/:x", "tool.provider_id_invalid"),
            ("builtin:", "tool.native_name_empty"),
            ("", "tool.native_name_empty"),
            (" workspace.read_file", "tool.id_invalid"),
            ("builtin:a\u{0}b", "tool.id_invalid"),
        ];
        for (raw, code) in cases {
            let err = ToolId::parse(raw).unwrap_err();
            assert_eq!(err.code(), code, "{raw:?}");
        }
        assert_eq!(
            ToolId::parse(&format!("mcp/{UUID}:a:b"))
                .unwrap_err()
                .code(),
            "tool.id_invalid"
        );
        let long = "x".repeat(MAX_NATIVE_NAME_BYTES + 1);
        assert_eq!(
            ToolId::builtin(&long).unwrap_err().code(),
            "tool.id_invalid"
        );
    }

    #[test]
    fn serde_uses_the_canonical_string() {
        let id = ToolId::parse("chat.search").unwrap();
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, "\"builtin:chat.search\"");
        let back: ToolId = serde_json::from_str("\"chat.search\"").unwrap();
        assert_eq!(back, id);
        assert!(serde_json::from_str::<ToolId>("\"web:x\"").is_err());
    }
}
