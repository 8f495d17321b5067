//! [`AgentModelRequest`]: everything a provider adapter needs for one model call.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{AgentModelMessage, ProviderState};
use crate::tool::{AgentModelTool, ToolChoice, ToolId};

/// How hard a reasoning model should think. Adapters map it to their provider's knob
/// (effort level, thinking budget) or drop it where the model has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ReasoningEffort {
    /// Ask the provider to skip reasoning where it allows that.
    None,
    Minimal,
    Low,
    Medium,
    High,
}

impl ReasoningEffort {
    /// The wire name (`none`, `minimal`, `low`, `medium`, `high`): OpenAI's `reasoning_effort`
    /// and Gemini's `thinkingLevel` spell efforts alike.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Minimal => "minimal",
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }

    /// The level to ask for when thinking is on: every effort but `None`.
    pub fn thinking_level(self) -> Option<&'static str> {
        (self != Self::None).then(|| self.as_str())
    }
}

/// Sampling and length settings. Unset fields leave the provider's defaults alone.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerationParameters {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<ReasoningEffort>,
    /// An explicit thinking budget, for providers that take tokens rather than a level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_budget_tokens: Option<u32>,
    /// Provider-specific body fields (from a connection's `--param K=V`), merged into the
    /// request body as given. Fields the adapter owns (messages, tools) are never overridden.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// One model call in canonical form.
///
/// `tools` are this turn's request-scoped projection of the invocation's tool snapshot:
/// the only place aliases exist. Adapters encode historical tool calls and results through
/// it and decode the response's calls through it; nothing else maps aliases.
///
/// `messages` and `tools` are shared, not owned: an invocation's requests repeat its whole
/// transcript and the same tool list round after round, so the runtime hands each request
/// a reference to what it keeps rather than a deep copy (the JSON is the same as a plain
/// list's). An adapter that must edit them clones on write (`Arc::make_mut`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentModelRequest {
    pub messages: Arc<Vec<AgentModelMessage>>,
    pub tools: Arc<Vec<AgentModelTool>>,
    pub tool_choice: ToolChoice,
    pub provider_state: ProviderState,
    #[serde(default)]
    pub parameters: GenerationParameters,
}

impl AgentModelRequest {
    /// The alias this request gives a tool.
    pub fn alias_of(&self, tool_id: &ToolId) -> Option<&str> {
        self.tools
            .iter()
            .find(|tool| &tool.tool_id == tool_id)
            .map(|tool| tool.alias.as_str())
    }

    /// The tool this request advertises under `alias`.
    pub fn tool_for_alias(&self, alias: &str) -> Option<&AgentModelTool> {
        self.tools.iter().find(|tool| tool.alias == alias)
    }

    /// The last message, if any (usually the newest user or tool turn).
    pub fn last_message(&self) -> Option<&AgentModelMessage> {
        self.messages.last()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn tool(native: &str) -> AgentModelTool {
        AgentModelTool {
            tool_id: ToolId::builtin(native).unwrap(),
            alias: native.replace('.', "_"),
            description: format!("{native} tool"),
            input_schema: json!({"type": "object"}),
        }
    }

    fn request() -> AgentModelRequest {
        AgentModelRequest {
            messages: Arc::new(vec![
                AgentModelMessage::system("rules"),
                AgentModelMessage::user("hi"),
            ]),
            tools: Arc::new(vec![tool("workspace.write_file"), tool("workspace.finish")]),
            tool_choice: ToolChoice::Auto,
            provider_state: ProviderState::initial("run_1", "inv_root"),
            parameters: GenerationParameters {
                temperature: Some(0.7),
                max_output_tokens: Some(1024),
                reasoning_effort: Some(ReasoningEffort::Low),
                extra: Map::from_iter([("top_k".to_owned(), json!(40))]),
                ..GenerationParameters::default()
            },
        }
    }

    #[test]
    fn aliases_resolve_only_through_this_request() {
        let request = request();
        let finish = ToolId::builtin("workspace.finish").unwrap();
        assert_eq!(request.alias_of(&finish), Some("workspace_finish"));
        assert_eq!(
            request.alias_of(&ToolId::builtin("task.return").unwrap()),
            None
        );
        assert_eq!(
            request
                .tool_for_alias("workspace_finish")
                .map(|t| &t.tool_id),
            Some(&finish)
        );
        assert!(request.tool_for_alias("workspace.finish").is_none());
        assert_eq!(
            request
                .last_message()
                .map(AgentModelMessage::text)
                .as_deref(),
            Some("hi")
        );
    }

    #[test]
    fn json_round_trip() {
        let request = request();
        let value = serde_json::to_value(&request).unwrap();
        // Shared lists serialise as the plain arrays they hold.
        assert_eq!(value["messages"][1]["role"], json!("user"));
        assert_eq!(value["tools"][1]["alias"], json!("workspace_finish"));
        assert_eq!(value["toolChoice"], json!("auto"));
        assert_eq!(
            value["parameters"],
            json!({"temperature": 0.7, "maxOutputTokens": 1024, "reasoningEffort": "low", "extra": {"top_k": 40}})
        );
        assert_eq!(value["providerState"]["sessionId"], json!("run_1:inv_root"));
        let back: AgentModelRequest = serde_json::from_value(value).unwrap();
        assert_eq!(back, request);
    }
}
