//! The cached tool catalog of one registration: what `refresh` last listed. Agents only
//! ever see this cache; nothing is discovered over the network at invocation time.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tool::{ToolDescriptor, ToolId, ToolIdError};

/// One tool as the server describes it. Annotations are kept raw and untrusted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolDefinition {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default)]
    pub description: String,
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub annotations: Value,
}

impl McpToolDefinition {
    /// The neutral descriptor of this tool under registration `registration`; fails when
    /// the server named it in a way no ToolId can carry.
    pub fn descriptor(&self, registration: &str) -> Result<ToolDescriptor, ToolIdError> {
        Ok(self.descriptor_as(ToolId::mcp(registration, &self.name)?))
    }

    /// The neutral descriptor of this tool under `id`, a ToolId already known to name it.
    pub fn descriptor_as(&self, id: ToolId) -> ToolDescriptor {
        ToolDescriptor {
            id,
            title: self.title.clone().unwrap_or_else(|| self.name.clone()),
            description: self.description.clone(),
            input_schema: self.input_schema.clone(),
            output_schema: self.output_schema.clone(),
            annotations: self.annotations.clone(),
        }
    }
}

/// The stored catalog document of one registration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpCatalog {
    pub registration_id: String,
    /// When the listing finished (RFC 3339, from the host clock).
    pub refreshed_at: String,
    /// In the server's listing order.
    pub tools: Vec<McpToolDefinition>,
}

impl McpCatalog {
    /// The definition of the native tool `name`.
    pub fn tool(&self, name: &str) -> Option<&McpToolDefinition> {
        self.tools.iter().find(|tool| tool.name == name)
    }
}
