//! The chat prefix a run may read, and the persistent state it builds on.
//!
//! A run freezes its input when it starts: a `regenerate` cannot see the reply it replaces, a
//! `swipe` cannot see the message it adds a swipe to. Chat tools and the persist base read
//! only this prefix, so a later change to the chat cannot leak into a running run.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{GenerationType, StateId};
use crate::error::ErrorCode;

/// Who wrote a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatRole {
    User,
    Assistant,
    System,
}

/// How many messages (from index 0) a run of `generation` may read, given the chat's length
/// and the role of its last message.
pub fn input_message_count(
    generation: GenerationType,
    total: usize,
    last_role: Option<ChatRole>,
) -> Result<usize, InputPrefixError> {
    match (generation, last_role) {
        (_, None) => match generation {
            GenerationType::Swipe => Err(InputPrefixError::SwipeTargetInvalid),
            _ => Ok(0),
        },
        (GenerationType::Normal, Some(_)) => Ok(total),
        (GenerationType::Regenerate, Some(ChatRole::User)) => Ok(total),
        (GenerationType::Regenerate, Some(ChatRole::Assistant)) => Ok(total - 1),
        (GenerationType::Regenerate, Some(ChatRole::System)) => {
            Err(InputPrefixError::RegenerateTargetHidden)
        }
        (GenerationType::Swipe, Some(ChatRole::Assistant)) => Ok(total - 1),
        (GenerationType::Swipe, Some(_)) => Err(InputPrefixError::SwipeTargetInvalid),
    }
}

/// The run cannot freeze its input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InputPrefixError {
    #[error("a swipe needs the chat to end with an assistant message")]
    SwipeTargetInvalid,
    #[error(
        "the chat ends with a hidden or system message, which a regenerate cannot replace; \
         unhide or delete it first"
    )]
    RegenerateTargetHidden,
}

impl ErrorCode for InputPrefixError {
    fn code(&self) -> &'static str {
        match self {
            Self::SwipeTargetInvalid | Self::RegenerateTargetHidden => "agent.swipe_target_invalid",
        }
    }
}

/// One message of the prefix as the persist-base scan sees it.
#[derive(Debug, Clone, Copy)]
pub struct PrefixMessage<'a> {
    pub index: usize,
    pub role: ChatRole,
    /// `extra.tauritavern.agent` of the message, if any.
    pub agent: Option<&'a Value>,
}

/// The persistent state a run starts from: the state recorded on the newest assistant
/// message of the prefix that an agent run committed and promoted.
///
/// `messages` must run newest first. Messages without agent metadata, and agent messages
/// whose run never promoted a state (`persistStateStatus: "not_committed"`, e.g. a partial
/// success), are skipped; a message claiming `committed` without a state id is corrupt.
pub fn resolve_persist_base<'a>(
    messages: impl IntoIterator<Item = PrefixMessage<'a>>,
) -> Result<Option<StateId>, PersistBaseError> {
    for message in messages {
        let Some(agent) = message.agent.filter(|a| a.is_object()) else {
            continue;
        };
        if message.role != ChatRole::Assistant {
            continue;
        }
        match agent
            .get("persistStateStatus")
            .and_then(Value::as_str)
            .unwrap_or("")
        {
            "not_committed" => continue,
            "" | "committed" => {}
            other => {
                return Err(PersistBaseError::StatusInvalid {
                    index: message.index,
                    status: other.to_owned(),
                });
            }
        }
        let id = agent
            .get("persistStateId")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|id| !id.is_empty())
            .ok_or(PersistBaseError::StateMissing {
                index: message.index,
            })?;
        return StateId::parse(id)
            .map(Some)
            .map_err(|_| PersistBaseError::StateMissing {
                index: message.index,
            });
    }
    Ok(None)
}

/// The chat's agent metadata does not name a usable persistent state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PersistBaseError {
    #[error("message {index} has an unknown persistStateStatus `{status}`")]
    StatusInvalid { index: usize, status: String },
    #[error("message {index} was committed by an agent run but names no valid persistent state")]
    StateMissing { index: usize },
}

impl ErrorCode for PersistBaseError {
    fn code(&self) -> &'static str {
        match self {
            Self::StatusInvalid { .. } => "agent.persist_state_status_invalid",
            Self::StateMissing { .. } => "agent.persist_state_missing",
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn prefixes_follow_the_generation_type() {
        use ChatRole::*;
        use GenerationType::*;
        let cases = [
            (Normal, 5, Some(User), Ok(5)),
            (Normal, 5, Some(Assistant), Ok(5)),
            (Normal, 0, None, Ok(0)),
            (Regenerate, 5, Some(Assistant), Ok(4)),
            (
                Regenerate,
                5,
                Some(System),
                Err(InputPrefixError::RegenerateTargetHidden),
            ),
            (Regenerate, 5, Some(User), Ok(5)),
            (Regenerate, 0, None, Ok(0)),
            (Swipe, 5, Some(Assistant), Ok(4)),
            (
                Swipe,
                5,
                Some(User),
                Err(InputPrefixError::SwipeTargetInvalid),
            ),
            (
                Swipe,
                5,
                Some(System),
                Err(InputPrefixError::SwipeTargetInvalid),
            ),
            (Swipe, 0, None, Err(InputPrefixError::SwipeTargetInvalid)),
        ];
        for (generation, total, last, expected) in cases {
            assert_eq!(
                input_message_count(generation, total, last),
                expected,
                "{generation:?} {last:?}"
            );
        }
        assert_eq!(
            InputPrefixError::SwipeTargetInvalid.code(),
            "agent.swipe_target_invalid"
        );
    }

    fn msg(index: usize, role: ChatRole, agent: &Value) -> PrefixMessage<'_> {
        PrefixMessage {
            index,
            role,
            agent: (!agent.is_null()).then_some(agent),
        }
    }

    #[test]
    fn the_newest_promoted_state_is_the_base() {
        let promoted =
            json!({"runId": "run_1", "persistStateId": "run_1", "persistStateStatus": "committed"});
        let partial = json!({"runId": "run_2", "persistStateStatus": "not_committed"});
        let legacy = json!({"runId": "run_0", "persistStateId": "run_0"});
        let none = Value::Null;
        let newest_first = [
            msg(4, ChatRole::Assistant, &partial),
            msg(3, ChatRole::User, &none),
            msg(2, ChatRole::Assistant, &promoted),
            msg(1, ChatRole::Assistant, &legacy),
        ];
        let base = resolve_persist_base(newest_first).unwrap();
        assert_eq!(base.as_ref().map(StateId::as_str), Some("run_1"));
        assert_eq!(
            resolve_persist_base([msg(1, ChatRole::Assistant, &legacy)])
                .unwrap()
                .unwrap()
                .as_str(),
            "run_0"
        );
        assert_eq!(
            resolve_persist_base([msg(0, ChatRole::Assistant, &partial)]).unwrap(),
            None
        );
        assert_eq!(resolve_persist_base([]).unwrap(), None);
    }

    #[test]
    fn corrupt_metadata_is_an_error() {
        let odd = json!({"persistStateStatus": "maybe", "persistStateId": "run_1"});
        let err = resolve_persist_base([msg(7, ChatRole::Assistant, &odd)]).unwrap_err();
        assert_eq!(err.code(), "agent.persist_state_status_invalid");
        for missing in [
            json!({"persistStateStatus": "committed"}),
            json!({"persistStateId": "  "}),
            json!({"persistStateId": "../x"}),
        ] {
            let err = resolve_persist_base([msg(2, ChatRole::Assistant, &missing)]).unwrap_err();
            assert_eq!(err.code(), "agent.persist_state_missing");
            assert!(err.to_string().contains("message 2"));
        }
        // A user message never carries a base, whatever its metadata says.
        let user = json!({"persistStateStatus": "maybe"});
        assert_eq!(
            resolve_persist_base([msg(0, ChatRole::User, &user)]).unwrap(),
            None
        );
    }
}
