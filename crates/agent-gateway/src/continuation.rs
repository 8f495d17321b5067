//! Provider-state continuation (`docs/spec-map.md`, Provider state): what a request continues
//! from, and the state a successful call hands back to the runtime.
//!
//! The state is the invocation's own: it starts as `{sessionId, runId, invocationId}` and
//! after every successful call records the format that answered, how many request messages
//! the provider has seen (`messageCursor`), the response id, and for chained sessions the id
//! the next request names as its predecessor. It is never sent upstream.

use agent_application::ports::{ModelError, ModelErrorKind};
use agent_domain::model::{
    AgentModelMessage, AgentModelResponse, ModelRole, NativeContinuation, ProviderContinuation,
    ProviderState,
};
use serde_json::{Map, Value, json};

/// The code of a continuation the adapter cannot use (a missing or out-of-range cursor, a
/// chained session without a response id).
pub const PROVIDER_STATE_INVALID: &str = "agent.provider_state_invalid";

/// The code of a response whose tool calls arrived without the native turn they need.
pub const NATIVE_METADATA_LOST: &str = "model.native_metadata_lost";

/// How much of the transcript one request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Continuation<'a> {
    /// Every message (stateless providers, and the first call of a chained session).
    Full,
    /// The provider keeps the earlier turns: the request names `previous_id` and carries
    /// only the messages from `start` on, minus assistant messages (the provider wrote
    /// those itself). System text is still sent: instructions are not inherited.
    Chained { previous_id: &'a str, start: usize },
}

impl Continuation<'_> {
    /// Whether message `index` (a `message` of the full transcript) goes on the wire. System
    /// messages always do.
    pub fn sends(&self, index: usize, message: &AgentModelMessage) -> bool {
        match *self {
            Self::Full => true,
            Self::Chained { start, .. } => {
                message.role == ModelRole::System
                    || (index >= start && message.role != ModelRole::Assistant)
            }
        }
    }

    /// The predecessor a chained request names.
    pub fn previous_id(&self) -> Option<&str> {
        match *self {
            Self::Full => None,
            Self::Chained { previous_id, .. } => Some(previous_id),
        }
    }
}

/// The session fields of a format whose server can keep the conversation (`store`) and
/// chain a request onto an earlier answer: the connection's `store` parameter picks the
/// mode; the predecessor field is the adapter's alone (it comes from the provider state);
/// `background` answers (they return before the model has) are not spoken.
#[derive(Debug, Clone, Copy)]
pub struct SessionFields {
    /// The format name errors start with (`openai-responses`).
    pub format: &'static str,
    /// The body field naming the predecessor (`previous_response_id`).
    pub previous: &'static str,
    /// What the format calls one answer, for messages (`responses`).
    pub answers: &'static str,
}

impl SessionFields {
    /// `true` for the stateful mode (`store: true` among the connection's params); refuses a
    /// non-boolean `store` and the fields [`refuse`](Self::refuse) refuses.
    pub fn stateful(&self, params: &Map<String, Value>) -> Result<bool, ModelError> {
        self.refuse(params)?;
        match params.get("store") {
            None | Some(Value::Bool(false)) => Ok(false),
            Some(Value::Bool(true)) => Ok(true),
            Some(other) => {
                Err(self.refused(&format!("`store` must be true or false, not {other}")))
            }
        }
    }

    /// Refuses body fields (a connection's params or a request's extras) that would take the
    /// session out of the adapter's hands.
    pub fn refuse(&self, fields: &Map<String, Value>) -> Result<(), ModelError> {
        if fields.contains_key(self.previous) {
            return Err(self.refused(&format!(
                "`{}` is set by the adapter from the provider state",
                self.previous
            )));
        }
        if fields
            .get("background")
            .is_some_and(|b| b != &Value::Bool(false))
        {
            return Err(self.refused(&format!("`background` {} are not supported", self.answers)));
        }
        Ok(())
    }

    /// `model.format_unsupported`, prefixed with the format.
    pub fn refused(&self, what: &str) -> ModelError {
        let mut error = ModelError::new(
            ModelErrorKind::InvalidRequest,
            format!("{}: {what}", self.format),
        );
        error.code = "model.format_unsupported";
        error
    }
}

/// Where a chained session (`format` with server-side state) resumes: `Full` when the state
/// comes from another format or names no predecessor yet, else the predecessor and the
/// cursor. A predecessor without a usable cursor fails fast.
pub fn resume<'a>(
    state: &'a ProviderState,
    format: &str,
    message_count: usize,
) -> Result<Continuation<'a>, ModelError> {
    let Some(previous_id) = state
        .previous_response_id()
        .filter(|_| state.provider_format() == Some(format))
    else {
        return Ok(Continuation::Full);
    };
    let start = state
        .incremental_start(message_count)
        .map_err(|e| invalid_state(e.to_string()))?;
    Ok(Continuation::Chained { previous_id, start })
}

/// What one format needs to say about a successful call for the next state.
#[derive(Debug, Clone, Copy)]
pub struct Answered<'a> {
    /// The connection's wire format (`openai-responses`, `gemini`, …).
    pub format: &'a str,
    /// SillyTavern's name for the source (`openai`, `claude`, `makersuite`, `custom`).
    pub chat_completion_source: &'a str,
    /// The provider name of the format's native parts; `None` for formats without any.
    pub native: Option<&'a str>,
    /// Whether a tool call is unusable without the native turn it came in (formats whose
    /// decoder keeps the whole model turn verbatim).
    pub calls_need_native: bool,
    /// Whether the provider keeps the session and the next request chains onto this one.
    pub chained: bool,
    /// The transport the session uses when it is not plain HTTP (`responses_websocket`).
    pub transport: Option<&'a str>,
    /// How many messages the request carried (the full transcript, whatever went on the
    /// wire).
    pub message_count: usize,
}

/// Checks `response` against what `answered` promises and returns the state after it.
///
/// * Tool calls without the native turn they need → `model.native_metadata_lost`.
/// * A chained session whose response has no id → `agent.provider_state_invalid`.
pub fn next_state(
    current: &ProviderState,
    answered: &Answered<'_>,
    response: &AgentModelResponse,
) -> Result<ProviderState, ModelError> {
    let native_continuation = answered.native.map(|provider| {
        let part_count = response.message.native_parts(provider).count();
        NativeContinuation {
            provider: provider.to_owned(),
            part_count: u32::try_from(part_count).unwrap_or(u32::MAX),
        }
    });
    if answered.calls_need_native
        && !response.tool_calls().is_empty()
        && native_continuation
            .as_ref()
            .is_some_and(|n| n.part_count == 0)
    {
        let mut error = ModelError::new(
            ModelErrorKind::ContractViolation,
            format!(
                "{} continuation requires native metadata: the response has tool calls but \
                 no native turn to replay them from",
                answered.format
            ),
        );
        error.code = NATIVE_METADATA_LOST;
        return Err(error);
    }
    let previous_response_id = if answered.chained {
        match &response.response_id {
            Some(id) if !id.trim().is_empty() => Some(id.clone()),
            _ => {
                return Err(invalid_state(format!(
                    "{} continuation is missing the response id",
                    answered.format
                )));
            }
        }
    } else {
        None
    };
    let next = ProviderContinuation {
        provider_format: answered.format.to_owned(),
        message_cursor: u64::try_from(answered.message_count).unwrap_or(u64::MAX),
        last_response_id: response.response_id.clone(),
        previous_response_id,
        transport: answered.transport.map(str::to_owned),
        native_continuation,
    };
    current
        .continued(&next)
        .with_extra(
            "chatCompletionSource",
            json!(answered.chat_completion_source),
        )
        .map_err(|e| invalid_state(e.to_string()))
}

fn invalid_state(message: String) -> ModelError {
    let mut error = ModelError::new(ModelErrorKind::ContractViolation, message);
    error.code = PROVIDER_STATE_INVALID;
    error
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_domain::model::{AgentModelContentPart, FinishReason};
    use agent_domain::tool::{ToolId, ToolInvocation};
    use serde_json::Value;

    fn answered(chained: bool) -> Answered<'static> {
        Answered {
            format: "openai-responses",
            chat_completion_source: "openai",
            native: Some("openai_responses"),
            calls_need_native: false,
            chained,
            transport: None,
            message_count: 4,
        }
    }

    fn response(id: Option<&str>, parts: Vec<AgentModelContentPart>) -> AgentModelResponse {
        AgentModelResponse {
            message: AgentModelMessage::new(ModelRole::Assistant, parts),
            finish_reason: FinishReason::Stop,
            usage: None,
            response_id: id.map(str::to_owned),
            model: None,
            provider_metadata: Value::Null,
            provider_state: None,
        }
    }

    fn call() -> AgentModelContentPart {
        AgentModelContentPart::ToolCall(ToolInvocation {
            call_id: "c1".into(),
            tool_id: ToolId::parse("workspace.finish").unwrap(),
            arguments: json!({}),
            provider_metadata: Value::Null,
        })
    }

    #[test]
    fn a_call_records_format_cursor_and_ids_and_keeps_identity() {
        let initial = ProviderState::initial("run1", "root");
        let state =
            next_state(&initial, &answered(true), &response(Some("resp_1"), vec![])).unwrap();
        assert_eq!(state.session_id(), "run1:root");
        assert_eq!(state.provider_format(), Some("openai-responses"));
        assert_eq!(state.message_cursor(), Some(4));
        assert_eq!(state.last_response_id(), Some("resp_1"));
        assert_eq!(state.previous_response_id(), Some("resp_1"));
        assert_eq!(state.get("chatCompletionSource"), Some(&json!("openai")));
        let stateless = next_state(&initial, &answered(false), &response(None, vec![])).unwrap();
        assert_eq!(stateless.previous_response_id(), None);
    }

    #[test]
    fn a_chained_session_needs_a_response_id() {
        let error = next_state(
            &ProviderState::initial("r", "root"),
            &answered(true),
            &response(None, vec![]),
        )
        .unwrap_err();
        assert_eq!(error.code, PROVIDER_STATE_INVALID);
    }

    #[test]
    fn calls_without_their_native_turn_fail_fast() {
        let needs = Answered {
            format: "gemini",
            native: Some("gemini"),
            calls_need_native: true,
            ..answered(false)
        };
        let state = ProviderState::initial("r", "root");
        let error = next_state(&state, &needs, &response(None, vec![call()])).unwrap_err();
        assert_eq!(error.code, NATIVE_METADATA_LOST);
        let with_native = vec![call(), AgentModelContentPart::native("gemini", json!({}))];
        let ok = next_state(&state, &needs, &response(None, with_native)).unwrap();
        assert_eq!(ok.native_continuation().unwrap().part_count, 1);
    }

    #[test]
    fn resume_chains_only_onto_its_own_format_and_checks_the_cursor() {
        let initial = ProviderState::initial("r", "root");
        assert_eq!(
            resume(&initial, "openai-responses", 3).unwrap(),
            Continuation::Full
        );
        let state =
            next_state(&initial, &answered(true), &response(Some("resp_1"), vec![])).unwrap();
        assert_eq!(
            resume(&state, "openai-responses", 6).unwrap(),
            Continuation::Chained {
                previous_id: "resp_1",
                start: 4
            }
        );
        assert_eq!(
            resume(&state, "gemini-interactions", 6).unwrap(),
            Continuation::Full
        );
        let error = resume(&state, "openai-responses", 3).unwrap_err();
        assert_eq!(error.code, PROVIDER_STATE_INVALID);
        let no_cursor = ProviderState::from_value(json!({
            "sessionId": "r:root", "providerFormat": "openai-responses",
            "previousResponseId": "resp_1"
        }))
        .unwrap();
        assert_eq!(
            resume(&no_cursor, "openai-responses", 3).unwrap_err().code,
            PROVIDER_STATE_INVALID
        );
    }

    #[test]
    fn a_chained_request_sends_system_and_new_non_assistant_messages() {
        let chained = Continuation::Chained {
            previous_id: "p",
            start: 2,
        };
        let system = AgentModelMessage::system("s");
        let user = AgentModelMessage::user("u");
        let assistant = AgentModelMessage::assistant("a");
        assert!(chained.sends(0, &system));
        assert!(!chained.sends(1, &user));
        assert!(!chained.sends(2, &assistant));
        assert!(chained.sends(3, &user));
        assert!(Continuation::Full.sends(1, &user));
    }
}
