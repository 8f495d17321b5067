//! Tool invocations as decoded from a model turn, and the results the runtime sends back.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ToolId;
use crate::error::ErrorCode;

/// One tool call, decoded through the current turn's aliases into a canonical id.
///
/// `call_id` is the provider's opaque id: it is never truncated, cleaned or replaced.
/// `arguments` are kept exactly as the model sent them (a raw string when they were not
/// valid JSON, so the tool can answer with a recoverable error).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolInvocation {
    pub call_id: String,
    pub tool_id: ToolId,
    pub arguments: Value,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub provider_metadata: Value,
}

/// The outcome of one tool call.
///
/// `structured`, `error_code` and `resource_refs` are audit facts for the runtime, the
/// journal and UIs; only `content` reaches the model (see [`AgentToolResult::model_content`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentToolResult {
    pub call_id: String,
    pub tool_id: ToolId,
    pub content: String,
    #[serde(default)]
    pub structured: Value,
    pub is_error: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    #[serde(default)]
    pub resource_refs: Vec<String>,
}

/// Heading the model sees above the content of a failed tool call.
pub const TOOL_ERROR_HEADING: &str = "## Tool error";

impl AgentToolResult {
    /// A successful result for `invocation`.
    pub fn success(
        invocation: &ToolInvocation,
        content: impl Into<String>,
        structured: Value,
    ) -> Self {
        Self {
            call_id: invocation.call_id.clone(),
            tool_id: invocation.tool_id.clone(),
            content: content.into(),
            structured,
            is_error: false,
            error_code: None,
            resource_refs: Vec::new(),
        }
    }

    /// A model-readable error result: content is the message, structured repeats code and
    /// message for audits.
    pub fn error(invocation: &ToolInvocation, code: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        Self {
            call_id: invocation.call_id.clone(),
            tool_id: invocation.tool_id.clone(),
            structured: serde_json::json!({"error": {"code": code, "message": message}}),
            content: message,
            is_error: true,
            error_code: Some(code.to_owned()),
            resource_refs: Vec::new(),
        }
    }

    /// Attaches resource references (workspace paths, chat refs) for audits and UIs.
    pub fn with_resource_refs(mut self, refs: Vec<String>) -> Self {
        self.resource_refs = refs;
        self
    }

    /// Checks that this result answers exactly `invocation`. A mismatch is a runtime fault,
    /// never something to repair.
    pub fn validate_identity(
        &self,
        invocation: &ToolInvocation,
    ) -> Result<(), ToolResultIdentityError> {
        if self.call_id == invocation.call_id && self.tool_id == invocation.tool_id {
            Ok(())
        } else {
            Err(ToolResultIdentityError {
                expected: format!("{} / {}", invocation.call_id, invocation.tool_id),
                actual: format!("{} / {}", self.call_id, self.tool_id),
            })
        }
    }

    /// What the model reads: the content as Text/Markdown, under a `## Tool error` heading
    /// when the call failed. No envelope, no hashes, no internal fields.
    pub fn model_content(&self) -> String {
        if self.is_error {
            format!("{TOOL_ERROR_HEADING}\n\n{}", self.content)
        } else {
            self.content.clone()
        }
    }
}

/// A result whose call id or tool id differs from the invocation it claims to answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool result identity mismatch: expected {expected}, got {actual}")]
pub struct ToolResultIdentityError {
    /// `call id / tool id` of the invocation.
    pub expected: String,
    /// `call id / tool id` the result claims.
    pub actual: String,
}

impl ErrorCode for ToolResultIdentityError {
    fn code(&self) -> &'static str {
        "tool.result_identity_mismatch"
    }
}

/// The three kinds of tool failure (`docs/spec-map.md`, Tool failures), which decide what happens to the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolErrorClass {
    /// The model reads an error result and the run goes on.
    Recoverable,
    /// A policy refused the call; answered as an error result the model can read.
    PolicyDenied,
    /// The runtime itself failed; the run ends as failed (or partial success after a commit).
    SystemFailure,
}

impl ToolErrorClass {
    /// Whether the run continues with an error result rather than ending.
    pub fn is_model_recoverable(self) -> bool {
        !matches!(self, Self::SystemFailure)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn invocation() -> ToolInvocation {
        ToolInvocation {
            call_id: "call_1".into(),
            tool_id: ToolId::parse("workspace.read_file").unwrap(),
            arguments: json!({"path": "output/main.md"}),
            provider_metadata: Value::Null,
        }
    }

    #[test]
    fn error_results_are_headed_for_the_model_and_structured_for_audits() {
        let result = AgentToolResult::error(
            &invocation(),
            "workspace.file_not_found",
            "No file at output/main.md.",
        );
        assert_eq!(
            result.model_content(),
            "## Tool error\n\nNo file at output/main.md."
        );
        assert_eq!(
            result.error_code.as_deref(),
            Some("workspace.file_not_found")
        );
        assert_eq!(
            result.structured["error"]["code"],
            "workspace.file_not_found"
        );
        let ok = AgentToolResult::success(&invocation(), "1 | hi", json!({"totalLines": 1}));
        assert_eq!(ok.model_content(), "1 | hi");
    }

    #[test]
    fn identity_must_match_the_invocation() {
        let inv = invocation();
        let mut result = AgentToolResult::success(&inv, "ok", Value::Null);
        assert!(result.validate_identity(&inv).is_ok());
        result.call_id = "call_2".into();
        let err = result.validate_identity(&inv).unwrap_err();
        assert_eq!(err.code(), "tool.result_identity_mismatch");
        let mut other_tool = AgentToolResult::success(&inv, "ok", Value::Null);
        other_tool.tool_id = ToolId::parse("workspace.write_file").unwrap();
        assert!(other_tool.validate_identity(&inv).is_err());
    }

    #[test]
    fn audit_json_shape() {
        let result = AgentToolResult::error(&invocation(), "x.y", "bad")
            .with_resource_refs(vec!["workspace:output/main.md".into()]);
        let json = serde_json::to_value(&result).unwrap();
        assert_eq!(
            json,
            json!({
                "callId": "call_1",
                "toolId": "builtin:workspace.read_file",
                "content": "bad",
                "structured": {"error": {"code": "x.y", "message": "bad"}},
                "isError": true,
                "errorCode": "x.y",
                "resourceRefs": ["workspace:output/main.md"]
            })
        );
    }

    #[test]
    fn error_classes() {
        assert!(ToolErrorClass::Recoverable.is_model_recoverable());
        assert!(ToolErrorClass::PolicyDenied.is_model_recoverable());
        assert!(!ToolErrorClass::SystemFailure.is_model_recoverable());
    }
}
