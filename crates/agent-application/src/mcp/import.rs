//! The `{"mcpServers": {...}}` files other MCP clients keep: the servers one names, read
//! into transports, and their registration one by one (`mcp import`, `POST /api/mcp/import`).
//! A `${VAR}` value names an environment variable, read when connecting and never stored;
//! any other value is a literal. URLs are checked by the host, with the MCP client's rule,
//! before anything is registered.

use std::collections::BTreeMap;

use agent_domain::ErrorCode;
use agent_domain::mcp::{McpTransport, McpValue, NamedValue};
use serde::{Deserialize, Serialize};

use super::{McpServers, McpServiceError};

/// One server of the file.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ImportedServer {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ImportFile {
    mcp_servers: BTreeMap<String, ImportedServer>,
}

/// A file that is not an `mcpServers` file, or a server in it that names no single way to
/// reach it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct McpImportError(pub String);

impl ErrorCode for McpImportError {
    fn code(&self) -> &'static str {
        "mcp.import_invalid"
    }
}

/// The servers of an `mcpServers` file, by name, in name order.
pub fn parse_import(text: &str) -> Result<Vec<(String, McpTransport)>, McpImportError> {
    let parsed: ImportFile = serde_json::from_str(text).map_err(|error| {
        McpImportError(format!("not a {{\"mcpServers\": {{...}}}} file: {error}"))
    })?;
    parsed
        .mcp_servers
        .into_iter()
        .map(|(name, server)| Ok((name.clone(), transport(&name, server)?)))
        .collect()
}

fn value(raw: &str) -> McpValue {
    match raw
        .strip_prefix("${")
        .and_then(|rest| rest.strip_suffix('}'))
    {
        Some(var) if !var.is_empty() => McpValue::FromEnv(var.to_owned()),
        _ => McpValue::Literal(raw.to_owned()),
    }
}

fn transport(name: &str, server: ImportedServer) -> Result<McpTransport, McpImportError> {
    let pairs = |map: BTreeMap<String, String>| {
        map.into_iter()
            .map(|(key, raw)| NamedValue {
                name: key,
                value: value(&raw),
            })
            .collect()
    };
    match (server.command, server.url) {
        (Some(program), None) => Ok(McpTransport::Stdio {
            program,
            args: server.args,
            env: pairs(server.env),
            cwd: server.cwd,
        }),
        (None, Some(url)) => Ok(McpTransport::StreamableHttp {
            url,
            headers: pairs(server.headers),
        }),
        _ => Err(McpImportError(format!(
            "server `{name}` needs exactly one of `command` and `url`"
        ))),
    }
}

/// A refusal, as `{code, message}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct McpProblem {
    pub code: &'static str,
    pub message: String,
}

impl McpProblem {
    fn of(error: &McpServiceError) -> Self {
        Self {
            code: error.code(),
            message: error.to_string(),
        }
    }
}

/// What importing one server did: not added (`error`), added and refreshed (`tools`), or
/// added with a failed first refresh (`refreshError`; the registration is kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpImported {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<McpProblem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_error: Option<McpProblem>,
}

impl McpImported {
    /// Whether the server was added and its catalog listed.
    pub fn complete(&self) -> bool {
        self.error.is_none() && self.refresh_error.is_none()
    }
}

impl McpServers {
    /// Registers each server (every tool off) and refreshes it; one failing does not stop
    /// the others.
    pub async fn import(&self, servers: Vec<(String, McpTransport)>) -> Vec<McpImported> {
        let mut report = Vec::new();
        for (name, transport) in servers {
            let mut entry = McpImported {
                name,
                id: None,
                tools: None,
                error: None,
                refresh_error: None,
            };
            match self.add(&entry.name, transport).await {
                Err(error) => entry.error = Some(McpProblem::of(&error)),
                Ok(registration) => {
                    match self.refresh(&registration.id).await {
                        Ok(catalog) => entry.tools = Some(catalog.tools.len()),
                        Err(error) => entry.refresh_error = Some(McpProblem::of(&error)),
                    }
                    entry.id = Some(registration.id);
                }
            }
            report.push(entry);
        }
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_are_references_and_each_server_needs_one_way_in() {
        let text = r#"{"mcpServers": {"b": {"url": "https://x.example/mcp",
            "headers": {"Authorization": "${TOKEN}", "X-Mode": "fast"}},
            "a": {"command": "srv", "args": ["-q"], "env": {"KEY": "${}"}}}}"#;
        let servers = parse_import(text).unwrap();
        assert_eq!(servers[0].0, "a");
        let McpTransport::Stdio { env, .. } = &servers[0].1 else {
            panic!("{servers:?}");
        };
        assert_eq!(env[0].value, McpValue::Literal("${}".to_owned()));
        let McpTransport::StreamableHttp { headers, .. } = &servers[1].1 else {
            panic!("{servers:?}");
        };
        assert_eq!(headers[0].value, McpValue::FromEnv("TOKEN".to_owned()));
        assert_eq!(headers[1].value, McpValue::Literal("fast".to_owned()));

        let both = r#"{"mcpServers": {"odd": {"command": "x", "url": "https://x.example"}}}"#;
        assert_eq!(parse_import(both).unwrap_err().code(), "mcp.import_invalid");
        assert_eq!(parse_import("[]").unwrap_err().code(), "mcp.import_invalid");
    }
}
