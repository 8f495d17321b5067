//! The per-turn tool contract, its request-scoped projection, and alias decoding.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{InvocationToolSnapshot, ToolId, ToolInvocation};
use crate::error::ErrorCode;

/// Which tools the model may or must call this turn. Production uses [`ToolChoice::Auto`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    None,
    Auto,
    Required,
    Specific(ToolId),
}

/// The tools one model call may request, bound to the snapshot they come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolTurnContract {
    snapshot_id: String,
    tools: Vec<ToolId>,
    choice: ToolChoice,
}

impl ToolTurnContract {
    /// Every tool of the snapshot, in advertisement order, with `choice`.
    pub fn all(snapshot: &InvocationToolSnapshot, choice: ToolChoice) -> Result<Self, TurnError> {
        let tools: Vec<ToolId> = snapshot
            .bindings()
            .iter()
            .map(|b| b.tool_id().clone())
            .collect();
        match &choice {
            ToolChoice::Required if tools.is_empty() => return Err(TurnError::RequiredEmpty),
            ToolChoice::Specific(id) if !tools.contains(id) => {
                return Err(TurnError::SpecificNotAvailable(id.clone()));
            }
            _ => {}
        }
        Ok(Self {
            snapshot_id: snapshot.id().to_owned(),
            tools,
            choice,
        })
    }

    pub fn snapshot_id(&self) -> &str {
        &self.snapshot_id
    }

    pub fn tools(&self) -> &[ToolId] {
        &self.tools
    }

    pub fn choice(&self) -> &ToolChoice {
        &self.choice
    }

    pub fn contains(&self, id: &ToolId) -> bool {
        self.tools.contains(id)
    }

    /// The request-scoped tool list a provider adapter encodes.
    pub fn model_tools(
        &self,
        snapshot: &InvocationToolSnapshot,
    ) -> Result<Vec<AgentModelTool>, TurnError> {
        if snapshot.id() != self.snapshot_id {
            return Err(TurnError::SnapshotMismatch {
                turn: self.snapshot_id.clone(),
                snapshot: snapshot.id().to_owned(),
            });
        }
        self.tools
            .iter()
            .map(|id| {
                let binding = snapshot
                    .binding(id)
                    .ok_or_else(|| TurnError::ToolNotInSnapshot(id.clone()))?;
                Ok(AgentModelTool {
                    tool_id: id.clone(),
                    alias: binding.model_alias.clone(),
                    description: binding.descriptor.description.clone(),
                    input_schema: binding.descriptor.input_schema.clone(),
                })
            })
            .collect()
    }
}

/// One tool as a single model request advertises it. Carries no UI fields and no handler.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentModelTool {
    pub tool_id: ToolId,
    pub alias: String,
    pub description: String,
    pub input_schema: Value,
}

/// Decodes a provider's tool calls through the tools of the request that produced them.
///
/// This is the only way from an alias to a [`ToolId`]: no registry lookups, no guessing from
/// native names, no fallback ids.
#[derive(Debug, Clone, Copy)]
pub struct ToolCallDecoder<'a> {
    tools: &'a [AgentModelTool],
}

impl<'a> ToolCallDecoder<'a> {
    pub fn new(tools: &'a [AgentModelTool]) -> Self {
        Self { tools }
    }

    /// Turns one provider tool call into a canonical invocation.
    pub fn decode(
        &self,
        call_id: &str,
        alias: &str,
        arguments: Value,
        provider_metadata: Value,
    ) -> Result<ToolInvocation, ToolCallDecodeError> {
        if call_id.trim().is_empty() {
            return Err(ToolCallDecodeError::MissingCallId {
                alias: alias.to_owned(),
            });
        }
        match self.tools.iter().find(|t| t.alias == alias) {
            Some(tool) => Ok(ToolInvocation {
                call_id: call_id.to_owned(),
                tool_id: tool.tool_id.clone(),
                arguments,
                provider_metadata,
            }),
            None => {
                let canonical = self
                    .tools
                    .iter()
                    .any(|t| t.tool_id.native_name() == alias || t.tool_id.to_string() == alias);
                Err(if canonical {
                    ToolCallDecodeError::CanonicalNameUsed(alias.to_owned())
                } else {
                    ToolCallDecodeError::UnknownAlias(alias.to_owned())
                })
            }
        }
    }

    /// The alias this request gives `id`, for encoding a historical call or result. A tool
    /// missing from the current request is a contract violation, never re-guessed.
    pub fn alias_of(&self, id: &ToolId) -> Result<&'a str, ToolCallDecodeError> {
        self.tools
            .iter()
            .find(|t| &t.tool_id == id)
            .map(|t| t.alias.as_str())
            .ok_or_else(|| ToolCallDecodeError::ToolNotInRequest(id.clone()))
    }
}

/// A model turn that names tools outside its contract. Always fail-fast.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolCallDecodeError {
    #[error("model called `{0}`, which is not a tool of this request")]
    UnknownAlias(String),
    #[error(
        "model called `{0}` by its canonical name instead of the alias this request advertised"
    )]
    CanonicalNameUsed(String),
    #[error("model called `{alias}` without a tool call id")]
    MissingCallId { alias: String },
    #[error("tool `{0}` has a result in the history but is not part of the current request")]
    ToolNotInRequest(ToolId),
}

impl ErrorCode for ToolCallDecodeError {
    fn code(&self) -> &'static str {
        match self {
            Self::UnknownAlias(_) | Self::CanonicalNameUsed(_) => "model.unknown_tool_call",
            Self::MissingCallId { .. } => "model.invalid_tool_call",
            Self::ToolNotInRequest(_) => "model.tool_not_in_request",
        }
    }
}

/// A turn contract that cannot be built or projected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TurnError {
    #[error("tool choice `required` needs at least one tool")]
    RequiredEmpty,
    #[error("tool choice names `{0}`, which is not in the snapshot")]
    SpecificNotAvailable(ToolId),
    #[error("turn belongs to snapshot `{turn}`, not `{snapshot}`")]
    SnapshotMismatch { turn: String, snapshot: String },
    #[error("turn names `{0}`, which is not in its snapshot")]
    ToolNotInSnapshot(ToolId),
}

impl ErrorCode for TurnError {
    fn code(&self) -> &'static str {
        match self {
            Self::RequiredEmpty => "tool.turn_required_empty",
            Self::SpecificNotAvailable(_) => "tool.turn_specific_not_available",
            Self::SnapshotMismatch { .. } => "tool.turn_snapshot_mismatch",
            Self::ToolNotInSnapshot(_) => "tool.turn_tool_not_in_snapshot",
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tool::test_support::{id, snapshot};

    #[test]
    fn contract_covers_the_snapshot_in_order() {
        let snap = snapshot(&["workspace.read_file", "workspace.finish"]);
        let turn = ToolTurnContract::all(&snap, ToolChoice::Auto).unwrap();
        assert_eq!(turn.snapshot_id(), "inv_root");
        assert_eq!(
            turn.tools(),
            [id("workspace.read_file"), id("workspace.finish")]
        );
        let tools = turn.model_tools(&snap).unwrap();
        let aliases: Vec<_> = tools.iter().map(|t| t.alias.as_str()).collect();
        assert_eq!(aliases, ["workspace_read_file", "workspace_finish"]);
        assert_eq!(
            serde_json::to_value(&turn).unwrap(),
            json!({"snapshotId": "inv_root", "tools": ["builtin:workspace.read_file", "builtin:workspace.finish"], "choice": "auto"})
        );
    }

    #[test]
    fn choice_errors() {
        let empty = snapshot(&["workspace.finish"]);
        let specific = ToolChoice::Specific(id("workspace.read_file"));
        assert_eq!(
            ToolTurnContract::all(&empty, specific).unwrap_err().code(),
            "tool.turn_specific_not_available"
        );
        let ok =
            ToolTurnContract::all(&empty, ToolChoice::Specific(id("workspace.finish"))).unwrap();
        assert_eq!(
            serde_json::to_value(ok.choice()).unwrap(),
            json!({"specific": "builtin:workspace.finish"})
        );
        let none = crate::tool::InvocationToolSnapshot::new(
            "inv_x".into(),
            crate::tool::ExitPolicy::RunFinishAllowed,
            vec![],
            1,
            1,
        )
        .unwrap();
        assert_eq!(
            ToolTurnContract::all(&none, ToolChoice::Required)
                .unwrap_err()
                .code(),
            "tool.turn_required_empty"
        );
        assert!(
            ToolTurnContract::all(&none, ToolChoice::Auto)
                .unwrap()
                .tools()
                .is_empty()
        );
    }

    #[test]
    fn projection_refuses_a_foreign_snapshot() {
        let a = snapshot(&["workspace.finish"]);
        let turn = ToolTurnContract::all(&a, ToolChoice::Auto).unwrap();
        let other = crate::tool::InvocationToolSnapshot::new(
            "inv_other".into(),
            crate::tool::ExitPolicy::RunFinishAllowed,
            a.bindings().to_vec(),
            1,
            1,
        )
        .unwrap();
        assert_eq!(
            turn.model_tools(&other).unwrap_err().code(),
            "tool.turn_snapshot_mismatch"
        );
    }

    #[test]
    fn decoding_goes_only_through_this_request() {
        let snap = snapshot(&["workspace.read_file", "workspace.finish"]);
        let tools = ToolTurnContract::all(&snap, ToolChoice::Auto)
            .unwrap()
            .model_tools(&snap)
            .unwrap();
        let decoder = ToolCallDecoder::new(&tools);
        let call = decoder
            .decode(
                "c1",
                "workspace_read_file",
                json!({"path": "output/main.md"}),
                json!({"sig": 1}),
            )
            .unwrap();
        assert_eq!(call.tool_id, id("workspace.read_file"));
        assert_eq!(call.call_id, "c1");
        assert_eq!(call.provider_metadata, json!({"sig": 1}));

        let cases = [
            ("c2", "workspace.read_file", "model.unknown_tool_call"),
            ("c2", "builtin:workspace.finish", "model.unknown_tool_call"),
            ("c2", "workspace_write_file", "model.unknown_tool_call"),
            ("c2", "mcp__x__y", "model.unknown_tool_call"),
            ("", "workspace_read_file", "model.invalid_tool_call"),
            ("  ", "workspace_read_file", "model.invalid_tool_call"),
        ];
        for (call_id, alias, code) in cases {
            let err = decoder
                .decode(call_id, alias, json!({}), Value::Null)
                .unwrap_err();
            assert_eq!(err.code(), code, "{alias}");
        }
        assert!(matches!(
            decoder.decode("c", "workspace.read_file", json!({}), Value::Null),
            Err(ToolCallDecodeError::CanonicalNameUsed(_))
        ));
        // Arguments pass through verbatim, even when they are not an object.
        let raw = decoder
            .decode("c3", "workspace_finish", json!("{not json"), Value::Null)
            .unwrap();
        assert_eq!(raw.arguments, json!("{not json"));
    }

    #[test]
    fn an_alias_from_another_snapshot_is_unknown() {
        let child = crate::tool::test_support::compile(
            &crate::tool::test_support::policy(&["workspace.read_file"]),
            crate::tool::ExitPolicy::TaskReturnRequired,
            &Default::default(),
        )
        .unwrap()
        .snapshot;
        let root = snapshot(&["workspace.read_file", "workspace.finish"]);
        let root_tools = ToolTurnContract::all(&root, ToolChoice::Auto)
            .unwrap()
            .model_tools(&root)
            .unwrap();
        let decoder = ToolCallDecoder::new(&root_tools);
        assert!(
            child
                .alias_of(&crate::tool::BuiltinTool::TaskReturn.id())
                .is_some()
        );
        assert_eq!(
            decoder
                .decode("c", "task_return", json!({}), Value::Null)
                .unwrap_err()
                .code(),
            "model.unknown_tool_call"
        );
        assert_eq!(
            decoder.alias_of(&id("workspace.finish")).unwrap(),
            "workspace_finish"
        );
        assert_eq!(
            decoder.alias_of(&id("task.return")).unwrap_err().code(),
            "model.tool_not_in_request"
        );
    }
}
