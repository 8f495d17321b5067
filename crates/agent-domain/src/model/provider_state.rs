//! [`ProviderState`]: the run-owned, invocation-scoped continuation state a provider
//! adapter hands back after every call and receives again with the next request.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value, json};

use crate::error::ErrorCode;

const SESSION_ID: &str = "sessionId";
const RUN_ID: &str = "runId";
const INVOCATION_ID: &str = "invocationId";
const PROVIDER_FORMAT: &str = "providerFormat";
const TRANSPORT: &str = "transport";
const MESSAGE_CURSOR: &str = "messageCursor";
const LAST_RESPONSE_ID: &str = "lastResponseId";
const PREVIOUS_RESPONSE_ID: &str = "previousResponseId";
const NATIVE_CONTINUATION: &str = "nativeContinuation";

/// Keys that identify whose state this is; a continuation never changes them.
const IDENTITY_KEYS: [&str; 3] = [SESSION_ID, RUN_ID, INVOCATION_ID];

/// Opaque continuation state: a JSON object that always has a non-empty `sessionId`.
///
/// The runtime stores and forwards it without interpreting it; adapters read and write it
/// through the typed accessors. The session id is `<runId>:<invocationId>`, so every
/// invocation (root, child, handoff target) continues its own provider session.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct ProviderState(Value);

impl ProviderState {
    /// The state an invocation starts with:
    /// `{"sessionId": "<run>:<inv>", "runId": …, "invocationId": …}`.
    pub fn initial(run_id: &str, invocation_id: &str) -> Self {
        Self(json!({
            SESSION_ID: format!("{run_id}:{invocation_id}"),
            RUN_ID: run_id,
            INVOCATION_ID: invocation_id,
        }))
    }

    /// Adopts a state read from storage or returned by an adapter.
    pub fn from_value(value: Value) -> Result<Self, ProviderStateError> {
        let Some(object) = value.as_object() else {
            return Err(ProviderStateError::NotAnObject);
        };
        match object.get(SESSION_ID).and_then(Value::as_str) {
            Some(id) if !id.trim().is_empty() => Ok(Self(value)),
            _ => Err(ProviderStateError::SessionIdMissing),
        }
    }

    /// The raw JSON.
    pub fn as_value(&self) -> &Value {
        &self.0
    }

    /// The raw JSON, by value.
    pub fn into_value(self) -> Value {
        self.0
    }

    /// One raw field.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    fn str_field(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    /// The provider session this state continues (`<runId>:<invocationId>`).
    pub fn session_id(&self) -> &str {
        self.str_field(SESSION_ID).unwrap_or_default()
    }

    pub fn run_id(&self) -> Option<&str> {
        self.str_field(RUN_ID)
    }

    pub fn invocation_id(&self) -> Option<&str> {
        self.str_field(INVOCATION_ID)
    }

    /// The provider format of the last successful call (`openai-responses`, `anthropic`, …).
    pub fn provider_format(&self) -> Option<&str> {
        self.str_field(PROVIDER_FORMAT)
    }

    /// The transport the session uses, when it is not plain HTTP.
    pub fn transport(&self) -> Option<&str> {
        self.str_field(TRANSPORT)
    }

    /// How many request messages the provider has already seen; incremental providers
    /// send only the messages after it.
    pub fn message_cursor(&self) -> Option<u64> {
        self.0.get(MESSAGE_CURSOR).and_then(Value::as_u64)
    }

    /// The id of the last response.
    pub fn last_response_id(&self) -> Option<&str> {
        self.str_field(LAST_RESPONSE_ID)
    }

    /// The id the next request names as its predecessor (OpenAI Responses).
    pub fn previous_response_id(&self) -> Option<&str> {
        self.str_field(PREVIOUS_RESPONSE_ID)
    }

    /// Which native parts the last turn left for the provider to see again.
    pub fn native_continuation(&self) -> Option<NativeContinuation> {
        self.0
            .get(NATIVE_CONTINUATION)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
    }

    /// The state after a successful call: identity fields are kept, every continuation
    /// field is replaced by `next` (fields `next` leaves unset are removed), and any
    /// adapter-specific fields are dropped.
    pub fn continued(&self, next: &ProviderContinuation) -> Self {
        let mut object = Map::new();
        if let Some(current) = self.0.as_object() {
            for key in IDENTITY_KEYS {
                if let Some(value) = current.get(key) {
                    object.insert(key.to_owned(), value.clone());
                }
            }
        }
        object.insert(PROVIDER_FORMAT.to_owned(), json!(next.provider_format));
        object.insert(MESSAGE_CURSOR.to_owned(), json!(next.message_cursor));
        let optional = [
            (
                LAST_RESPONSE_ID,
                next.last_response_id.as_ref().map(|v| json!(v)),
            ),
            (
                PREVIOUS_RESPONSE_ID,
                next.previous_response_id.as_ref().map(|v| json!(v)),
            ),
            (TRANSPORT, next.transport.as_ref().map(|v| json!(v))),
            (
                NATIVE_CONTINUATION,
                next.native_continuation.as_ref().map(|v| json!(v)),
            ),
        ];
        for (key, value) in optional {
            if let Some(value) = value {
                object.insert(key.to_owned(), value);
            }
        }
        Self(Value::Object(object))
    }

    /// Adds an adapter-specific field. Identity fields cannot be changed this way.
    pub fn with_extra(mut self, key: &str, value: Value) -> Result<Self, ProviderStateError> {
        if IDENTITY_KEYS.contains(&key) {
            return Err(ProviderStateError::IdentityFieldReadOnly(key.to_owned()));
        }
        if let Some(object) = self.0.as_object_mut() {
            object.insert(key.to_owned(), value);
        }
        Ok(self)
    }

    /// Where an incremental request starts in a transcript of `message_count` messages:
    /// the cursor, which must exist and not lie beyond the transcript.
    pub fn incremental_start(&self, message_count: usize) -> Result<usize, ProviderStateError> {
        let cursor = self
            .message_cursor()
            .ok_or(ProviderStateError::CursorMissing)?;
        match usize::try_from(cursor) {
            Ok(start) if start <= message_count => Ok(start),
            _ => Err(ProviderStateError::CursorOutOfRange {
                cursor,
                message_count,
            }),
        }
    }

    /// The journal's view of the state (`provider_state_updated`): continuation facts only.
    pub fn summary(&self) -> ProviderStateSummary {
        ProviderStateSummary {
            provider_format: self.provider_format().map(str::to_owned),
            transport: self.transport().map(str::to_owned),
            message_cursor: self.message_cursor(),
            last_response_id: self.last_response_id().map(str::to_owned),
            previous_response_id: self.previous_response_id().map(str::to_owned),
            native_continuation: self.native_continuation(),
        }
    }
}

impl<'de> Deserialize<'de> for ProviderState {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Self::from_value(value).map_err(serde::de::Error::custom)
    }
}

/// Which provider's native parts a turn left behind, and how many.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NativeContinuation {
    pub provider: String,
    pub part_count: u32,
}

/// What an adapter learned from a successful call, to build the next [`ProviderState`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderContinuation {
    pub provider_format: String,
    /// The number of messages in the request just sent.
    pub message_cursor: u64,
    pub last_response_id: Option<String>,
    pub previous_response_id: Option<String>,
    pub transport: Option<String>,
    pub native_continuation: Option<NativeContinuation>,
}

/// The continuation facts of a [`ProviderState`], as journaled.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderStateSummary {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_format: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_cursor: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_response_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_response_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_continuation: Option<NativeContinuation>,
}

/// A provider state that cannot be used. Always a runtime fault, never retried.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProviderStateError {
    #[error("provider state must be a JSON object")]
    NotAnObject,
    #[error("provider state has no sessionId")]
    SessionIdMissing,
    #[error("provider state has no messageCursor for an incremental request")]
    CursorMissing,
    #[error(
        "provider state messageCursor {cursor} lies beyond the {message_count} request messages"
    )]
    CursorOutOfRange { cursor: u64, message_count: usize },
    #[error("provider state field `{0}` identifies the session and cannot be changed")]
    IdentityFieldReadOnly(String),
}

impl ErrorCode for ProviderStateError {
    fn code(&self) -> &'static str {
        "agent.provider_state_invalid"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn initial_state_is_scoped_to_the_invocation() {
        let state = ProviderState::initial("run_abc", "inv_root");
        assert_eq!(
            state.as_value(),
            &json!({"sessionId": "run_abc:inv_root", "runId": "run_abc", "invocationId": "inv_root"})
        );
        assert_eq!(state.session_id(), "run_abc:inv_root");
        assert_eq!(state.run_id(), Some("run_abc"));
        assert_eq!(state.invocation_id(), Some("inv_root"));
        assert_eq!(state.message_cursor(), None);
        assert_eq!(state.summary(), ProviderStateSummary::default());
    }

    #[test]
    fn a_state_without_session_id_is_invalid() {
        for bad in [
            json!(null),
            json!([]),
            json!({}),
            json!({"sessionId": ""}),
            json!({"sessionId": 3}),
        ] {
            let err = ProviderState::from_value(bad.clone()).unwrap_err();
            assert_eq!(err.code(), "agent.provider_state_invalid", "{bad}");
        }
        assert!(serde_json::from_value::<ProviderState>(json!({"runId": "r"})).is_err());
        let ok: ProviderState = serde_json::from_value(json!({"sessionId": "s", "x": 1})).unwrap();
        assert_eq!(ok.get("x"), Some(&json!(1)));
    }

    #[test]
    fn continuation_keeps_identity_and_replaces_the_rest() {
        let state = ProviderState::initial("run_1", "inv_root")
            .with_extra("socket", json!("ws-1"))
            .unwrap();
        let next = state.continued(&ProviderContinuation {
            provider_format: "openai-responses".into(),
            message_cursor: 4,
            last_response_id: Some("resp_2".into()),
            previous_response_id: Some("resp_2".into()),
            transport: Some("responses_websocket".into()),
            native_continuation: Some(NativeContinuation {
                provider: "openai_responses".into(),
                part_count: 2,
            }),
        });
        assert_eq!(
            next.as_value(),
            &json!({
                "sessionId": "run_1:inv_root", "runId": "run_1", "invocationId": "inv_root",
                "providerFormat": "openai-responses", "messageCursor": 4,
                "lastResponseId": "resp_2", "previousResponseId": "resp_2",
                "transport": "responses_websocket",
                "nativeContinuation": {"provider": "openai_responses", "partCount": 2}
            })
        );
        assert_eq!(next.provider_format(), Some("openai-responses"));
        assert_eq!(next.last_response_id(), Some("resp_2"));
        assert_eq!(next.previous_response_id(), Some("resp_2"));
        assert_eq!(next.transport(), Some("responses_websocket"));
        assert_eq!(
            serde_json::to_value(next.summary()).unwrap(),
            json!({
                "providerFormat": "openai-responses", "transport": "responses_websocket",
                "messageCursor": 4, "lastResponseId": "resp_2", "previousResponseId": "resp_2",
                "nativeContinuation": {"provider": "openai_responses", "partCount": 2}
            })
        );
        let plain = next.continued(&ProviderContinuation {
            provider_format: "anthropic".into(),
            message_cursor: 6,
            last_response_id: None,
            previous_response_id: None,
            transport: None,
            native_continuation: None,
        });
        assert_eq!(plain.previous_response_id(), None);
        assert_eq!(plain.transport(), None);
        assert_eq!(plain.session_id(), "run_1:inv_root");
    }

    #[test]
    fn identity_fields_are_read_only() {
        let err = ProviderState::initial("r", "i")
            .with_extra("sessionId", json!("other"))
            .unwrap_err();
        assert_eq!(
            err,
            ProviderStateError::IdentityFieldReadOnly("sessionId".into())
        );
    }

    #[test]
    fn incremental_start_checks_the_cursor() {
        let base = ProviderState::initial("r", "i");
        assert_eq!(
            base.incremental_start(3).unwrap_err(),
            ProviderStateError::CursorMissing
        );
        let state = base.with_extra("messageCursor", json!(3)).unwrap();
        assert_eq!(state.incremental_start(5).unwrap(), 3);
        assert_eq!(state.incremental_start(3).unwrap(), 3);
        let err = state.incremental_start(2).unwrap_err();
        assert_eq!(err.code(), "agent.provider_state_invalid");
        assert!(matches!(
            err,
            ProviderStateError::CursorOutOfRange {
                cursor: 3,
                message_count: 2
            }
        ));
    }
}
