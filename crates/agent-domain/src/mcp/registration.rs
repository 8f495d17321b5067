//! One MCP server registration: display name, how to reach it, Active/Paused and the
//! per-tool permissions. The registration UUID is the tool provider's identity, so a new
//! endpoint is a new registration.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::ErrorCode;
use crate::tool::{ToolId, ToolProvider};

/// Schema version written into every registration document.
pub const MCP_REGISTRATION_SCHEMA_VERSION: u32 = 1;
/// Display names longer than this are refused; they end up in model aliases and listings.
const MAX_DISPLAY_NAME_CHARS: usize = 64;

/// A value given to a server: literal, or the name of an environment variable of
/// tavern-agent's own environment, read at spawn/call time so secrets are never stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum McpValue {
    Literal(String),
    FromEnv(String),
}

/// One env entry or header: a name and its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NamedValue {
    pub name: String,
    pub value: McpValue,
}

/// How the server is reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum McpTransport {
    /// A local child process speaking JSON-RPC over stdin/stdout.
    #[serde(rename_all = "camelCase")]
    Stdio {
        program: String,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default)]
        env: Vec<NamedValue>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
    /// A Streamable HTTP endpoint.
    #[serde(rename_all = "camelCase")]
    StreamableHttp {
        url: String,
        #[serde(default)]
        headers: Vec<NamedValue>,
    },
}

/// Whether the server's tools may be offered to agents at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum McpServerStatus {
    Active,
    Paused,
}

/// What agents may do with one tool. Discovery never grants authority: tools the
/// registration does not mention are `Off`. `Ask` and `Allow` both run the tool today
/// (there is no approval flow yet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum McpToolPermission {
    #[default]
    Off,
    Ask,
    Allow,
}

impl McpToolPermission {
    /// Parses `off`, `ask` or `allow` (any case).
    pub fn parse(raw: &str) -> Option<Self> {
        match raw.to_ascii_lowercase().as_str() {
            "off" => Some(Self::Off),
            "ask" => Some(Self::Ask),
            "allow" => Some(Self::Allow),
            _ => None,
        }
    }

    /// The lower-case name used by the CLI and documents.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Ask => "ask",
            Self::Allow => "allow",
        }
    }
}

/// The stored registration document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpRegistration {
    pub schema_version: u32,
    /// Lower-case UUID; the provider half of every `mcp/<uuid>:<tool>` id.
    pub id: String,
    pub display_name: String,
    pub transport: McpTransport,
    pub status: McpServerStatus,
    /// Per native tool name; absent means `Off`.
    #[serde(default)]
    pub permissions: BTreeMap<String, McpToolPermission>,
}

impl McpRegistration {
    /// A new Active registration with no tool permitted.
    pub fn new(
        id: String,
        display_name: String,
        transport: McpTransport,
    ) -> Result<Self, McpRegistrationError> {
        let registration = Self {
            schema_version: MCP_REGISTRATION_SCHEMA_VERSION,
            id,
            display_name,
            transport,
            status: McpServerStatus::Active,
            permissions: BTreeMap::new(),
        };
        registration.validate()?;
        Ok(registration)
    }

    /// The permission of the native tool `name`.
    pub fn permission(&self, name: &str) -> McpToolPermission {
        self.permissions.get(name).copied().unwrap_or_default()
    }

    /// Checks the rules a stored or new registration must follow.
    pub fn validate(&self) -> Result<(), McpRegistrationError> {
        if self.schema_version != MCP_REGISTRATION_SCHEMA_VERSION {
            return Err(McpRegistrationError::SchemaVersion(self.schema_version));
        }
        if registration_id(&self.id)? != self.id {
            return Err(McpRegistrationError::IdInvalid(self.id.clone()));
        }
        validate_display_name(&self.display_name)?;
        match &self.transport {
            McpTransport::Stdio { program, env, .. } => {
                if program.trim().is_empty() {
                    return Err(McpRegistrationError::ProgramEmpty);
                }
                validate_names(env)
            }
            McpTransport::StreamableHttp { url, headers } => {
                if !(url.starts_with("https://") || url.starts_with("http://")) {
                    return Err(McpRegistrationError::UrlInvalid(url.clone()));
                }
                validate_names(headers)
            }
        }
    }
}

/// A registration id as stored: a UUID, lower-cased.
pub fn registration_id(raw: &str) -> Result<String, McpRegistrationError> {
    match ToolId::mcp(raw, "x").map(|id| id.provider().clone()) {
        Ok(ToolProvider::Mcp { registration }) => Ok(registration),
        _ => Err(McpRegistrationError::IdInvalid(raw.to_owned())),
    }
}

/// A registration id from 32 random hex digits (an `IdSource` id), grouped as a UUID.
pub fn registration_id_from_hex(hex: &str) -> Result<String, McpRegistrationError> {
    let grouped = match (hex.len(), hex.get(..8), hex.get(8..12), hex.get(12..16)) {
        (32, Some(a), Some(b), Some(c)) => {
            format!("{a}-{b}-{c}-{}-{}", &hex[16..20], &hex[20..])
        }
        _ => hex.to_owned(),
    };
    registration_id(&grouped)
}

/// A display name: not blank, no control characters, at most 64 characters.
pub fn validate_display_name(name: &str) -> Result<(), McpRegistrationError> {
    if name.trim().is_empty()
        || name.trim() != name
        || name.chars().count() > MAX_DISPLAY_NAME_CHARS
        || name.chars().any(char::is_control)
    {
        return Err(McpRegistrationError::NameInvalid(name.to_owned()));
    }
    Ok(())
}

fn validate_names(values: &[NamedValue]) -> Result<(), McpRegistrationError> {
    for entry in values {
        let bad = |s: &str| s.is_empty() || s.contains(['=', '\0', '\n', '\r']);
        let env_bad = matches!(&entry.value, McpValue::FromEnv(var) if bad(var));
        if bad(&entry.name) || env_bad {
            return Err(McpRegistrationError::EntryInvalid(entry.name.clone()));
        }
    }
    Ok(())
}

/// A registration that breaks a rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpRegistrationError {
    #[error("unsupported MCP registration schema version {0} (expected 1)")]
    SchemaVersion(u32),
    #[error("`{0}` is not a registration UUID")]
    IdInvalid(String),
    #[error(
        "MCP server name `{0}` is invalid: it must be 1 to 64 characters, no control \
         characters and no leading or trailing space"
    )]
    NameInvalid(String),
    #[error("a stdio MCP server needs a program to run")]
    ProgramEmpty,
    #[error("`{0}` is not an http:// or https:// URL")]
    UrlInvalid(String),
    #[error(
        "env entry or header `{0}` is invalid: names and variable names must be non-empty without `=` or line breaks"
    )]
    EntryInvalid(String),
}

impl ErrorCode for McpRegistrationError {
    fn code(&self) -> &'static str {
        match self {
            Self::SchemaVersion(_) => "mcp.registration_schema_unsupported",
            Self::IdInvalid(_) => "mcp.registration_id_invalid",
            Self::NameInvalid(_) => "mcp.server_name_invalid",
            Self::ProgramEmpty => "mcp.program_empty",
            Self::UrlInvalid(_) => "mcp.url_invalid",
            Self::EntryInvalid(_) => "mcp.entry_invalid",
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const ID: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

    fn stdio() -> McpTransport {
        McpTransport::Stdio {
            program: "npx".into(),
            args: vec!["-y".into(), "server".into()],
            env: vec![NamedValue {
                name: "TOKEN".into(),
                value: McpValue::FromEnv("MY_TOKEN".into()),
            }],
            cwd: None,
        }
    }

    #[test]
    fn a_registration_round_trips_and_new_tools_are_off() {
        let registration = McpRegistration::new(ID.into(), "files".into(), stdio()).unwrap();
        let value = serde_json::to_value(&registration).unwrap();
        assert_eq!(value["transport"]["type"], "stdio");
        assert_eq!(
            value["transport"]["env"][0],
            json!({"name": "TOKEN", "value": {"fromEnv": "MY_TOKEN"}})
        );
        let back: McpRegistration = serde_json::from_value(value).unwrap();
        assert_eq!(back, registration);
        assert_eq!(back.permission("anything"), McpToolPermission::Off);
        assert_eq!(back.status, McpServerStatus::Active);
    }

    #[test]
    fn broken_registrations_are_refused_with_their_codes() {
        let code = |id: &str, name: &str, transport: McpTransport| {
            McpRegistration::new(id.into(), name.into(), transport)
                .unwrap_err()
                .code()
        };
        assert_eq!(
            code("nope", "files", stdio()),
            "mcp.registration_id_invalid"
        );
        assert_eq!(code(ID, " files", stdio()), "mcp.server_name_invalid");
        assert_eq!(code(ID, "", stdio()), "mcp.server_name_invalid");
        let empty = McpTransport::Stdio {
            program: " ".into(),
            args: vec![],
            env: vec![],
            cwd: None,
        };
        assert_eq!(code(ID, "files", empty), "mcp.program_empty");
        let ftp = McpTransport::StreamableHttp {
            url: "ftp://x".into(),
            headers: vec![],
        };
        assert_eq!(code(ID, "files", ftp), "mcp.url_invalid");
        let header = McpTransport::StreamableHttp {
            url: "https://x".into(),
            headers: vec![NamedValue {
                name: "A=B".into(),
                value: McpValue::Literal("v".into()),
            }],
        };
        assert_eq!(code(ID, "files", header), "mcp.entry_invalid");
    }

    #[test]
    fn ids_are_uuids_stored_lower_case() {
        assert_eq!(registration_id(&ID.to_uppercase()).unwrap(), ID);
        assert_eq!(
            registration_id_from_hex("0F8FAD5BD9CB469FA16570867728950E").unwrap(),
            ID
        );
        assert_eq!(
            registration_id("../etc").unwrap_err().code(),
            "mcp.registration_id_invalid"
        );
        assert!(registration_id_from_hex("abc").is_err());
    }

    #[test]
    fn permissions_parse_from_their_names() {
        for permission in [
            McpToolPermission::Off,
            McpToolPermission::Ask,
            McpToolPermission::Allow,
        ] {
            assert_eq!(
                McpToolPermission::parse(permission.as_str()),
                Some(permission)
            );
        }
        assert_eq!(
            McpToolPermission::parse("ALLOW"),
            Some(McpToolPermission::Allow)
        );
        assert_eq!(McpToolPermission::parse("yes"), None);
    }
}
