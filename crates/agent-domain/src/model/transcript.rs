//! The transcript invariant every provider needs: tool calls and tool results pair up
//! one-to-one, results come right after the calls they answer, and call ids are unique.

use std::collections::HashSet;

use super::{AgentModelContentPart, AgentModelMessage, ModelRole};
use crate::error::ErrorCode;
use crate::tool::ToolId;

/// Checks that `messages` is a transcript any provider accepts:
///
/// * tool calls appear only in assistant messages, tool results only in tool messages;
/// * every call id is non-blank and used once in the whole transcript;
/// * the tool messages right after an assistant turn answer each of its calls exactly
///   once, with the same tool, and answer nothing else;
/// * no other message (and not the end of the transcript) comes while a call is
///   unanswered.
pub fn check_transcript(messages: &[AgentModelMessage]) -> Result<(), TranscriptError> {
    let mut seen_calls: HashSet<&str> = HashSet::new();
    // Calls of the latest assistant turn: (call id, tool id, answered).
    let mut open: Vec<(&str, &ToolId, bool)> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if message.role != ModelRole::Tool {
            close_turn(&open, index)?;
            open.clear();
        }
        for part in &message.parts {
            match part {
                AgentModelContentPart::ToolCall(call) => {
                    if message.role != ModelRole::Assistant {
                        return Err(TranscriptError::MisplacedPart {
                            message_index: index,
                        });
                    }
                    if call.call_id.trim().is_empty() {
                        return Err(TranscriptError::InvalidCallId {
                            message_index: index,
                        });
                    }
                    if !seen_calls.insert(call.call_id.as_str()) {
                        return Err(TranscriptError::DuplicateCallId {
                            message_index: index,
                            call_id: call.call_id.clone(),
                        });
                    }
                    open.push((call.call_id.as_str(), &call.tool_id, false));
                }
                AgentModelContentPart::ToolResult(result) => {
                    if message.role != ModelRole::Tool {
                        return Err(TranscriptError::MisplacedPart {
                            message_index: index,
                        });
                    }
                    if result.call_id.trim().is_empty() {
                        return Err(TranscriptError::InvalidCallId {
                            message_index: index,
                        });
                    }
                    let Some(entry) = open.iter_mut().find(|(id, ..)| *id == result.call_id) else {
                        return Err(TranscriptError::OrphanResult {
                            message_index: index,
                            call_id: result.call_id.clone(),
                        });
                    };
                    if entry.2 {
                        return Err(TranscriptError::DuplicateResult {
                            message_index: index,
                            call_id: result.call_id.clone(),
                        });
                    }
                    if entry.1 != &result.tool_id {
                        return Err(TranscriptError::ResultToolMismatch {
                            message_index: index,
                            call_id: result.call_id.clone(),
                            call_tool: entry.1.to_string(),
                            result_tool: result.tool_id.to_string(),
                        });
                    }
                    entry.2 = true;
                }
                _ => {}
            }
        }
    }
    close_turn(&open, messages.len())
}

/// Fails when a call of the closing turn has no result; `index` is where the answer was due.
fn close_turn(open: &[(&str, &ToolId, bool)], index: usize) -> Result<(), TranscriptError> {
    match open.iter().find(|(.., answered)| !answered) {
        Some((call_id, ..)) => Err(TranscriptError::UnansweredCall {
            message_index: index,
            call_id: (*call_id).to_owned(),
        }),
        None => Ok(()),
    }
}

/// A transcript no provider would accept. `message_index` is the message where the
/// problem shows (for an unanswered call: the first message that should have answered
/// it, possibly one past the end).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TranscriptError {
    #[error("message {message_index}: a tool call or result has no call id")]
    InvalidCallId { message_index: usize },
    #[error("message {message_index}: tool call id `{call_id}` is used more than once")]
    DuplicateCallId {
        message_index: usize,
        call_id: String,
    },
    #[error("message {message_index}: tool call `{call_id}` has no result")]
    UnansweredCall {
        message_index: usize,
        call_id: String,
    },
    #[error(
        "message {message_index}: result `{call_id}` answers no call of the previous assistant turn"
    )]
    OrphanResult {
        message_index: usize,
        call_id: String,
    },
    #[error("message {message_index}: tool call `{call_id}` is answered twice")]
    DuplicateResult {
        message_index: usize,
        call_id: String,
    },
    #[error(
        "message {message_index}: result `{call_id}` is for `{result_tool}` but the call was to `{call_tool}`"
    )]
    ResultToolMismatch {
        message_index: usize,
        call_id: String,
        call_tool: String,
        result_tool: String,
    },
    #[error(
        "message {message_index}: tool calls belong in assistant messages and results in tool messages"
    )]
    MisplacedPart { message_index: usize },
}

impl ErrorCode for TranscriptError {
    fn code(&self) -> &'static str {
        match self {
            Self::InvalidCallId { .. } => "model.invalid_tool_call",
            Self::DuplicateCallId { .. } => "model.duplicate_tool_call_id",
            Self::UnansweredCall { .. } => "model.transcript_unanswered_call",
            Self::OrphanResult { .. } => "model.transcript_orphan_result",
            Self::DuplicateResult { .. } => "model.transcript_duplicate_result",
            Self::ResultToolMismatch { .. } => "model.transcript_result_tool_mismatch",
            Self::MisplacedPart { .. } => "model.transcript_misplaced_part",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::{AgentToolResult, ToolInvocation};
    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};

    fn invocation(id: &str, tool: &str) -> ToolInvocation {
        ToolInvocation {
            call_id: id.into(),
            tool_id: ToolId::parse(tool).unwrap(),
            arguments: json!({}),
            provider_metadata: Value::Null,
        }
    }

    fn calls(ids: &[&str]) -> AgentModelMessage {
        let parts = ids
            .iter()
            .map(|id| AgentModelContentPart::ToolCall(invocation(id, "workspace.read_file")))
            .collect();
        AgentModelMessage::new(ModelRole::Assistant, parts)
    }

    fn result(id: &str) -> AgentToolResult {
        AgentToolResult::success(&invocation(id, "workspace.read_file"), "ok", Value::Null)
    }

    fn results(ids: &[&str]) -> AgentModelMessage {
        let parts = ids
            .iter()
            .map(|id| AgentModelContentPart::ToolResult(result(id)))
            .collect();
        AgentModelMessage::new(ModelRole::Tool, parts)
    }

    fn code(messages: &[AgentModelMessage]) -> &'static str {
        check_transcript(messages).unwrap_err().code()
    }

    #[test]
    fn valid_transcripts() {
        let system = AgentModelMessage::system("s");
        let user = AgentModelMessage::user("u");
        check_transcript(&[]).unwrap();
        check_transcript(&[
            system.clone(),
            user.clone(),
            AgentModelMessage::assistant("a"),
        ])
        .unwrap();
        // Parallel calls answered in one tool message, in another order.
        check_transcript(&[
            user.clone(),
            calls(&["a", "b"]),
            results(&["b", "a"]),
            user.clone(),
        ])
        .unwrap();
        // One tool message per result, then another round.
        check_transcript(&[
            user.clone(),
            calls(&["a", "b"]),
            results(&["a"]),
            results(&["b"]),
            calls(&["c"]),
            results(&["c"]),
            AgentModelMessage::assistant("done"),
        ])
        .unwrap();
    }

    #[test]
    fn unanswered_calls() {
        let user = AgentModelMessage::user("u");
        assert_eq!(code(&[calls(&["a"])]), "model.transcript_unanswered_call");
        assert_eq!(
            code(&[calls(&["a", "b"]), results(&["a"]), user.clone()]),
            "model.transcript_unanswered_call"
        );
        assert_eq!(
            check_transcript(&[calls(&["a", "b"]), results(&["a"])]).unwrap_err(),
            TranscriptError::UnansweredCall {
                message_index: 2,
                call_id: "b".into()
            }
        );
        // A new assistant turn before the results.
        assert_eq!(
            code(&[calls(&["a"]), calls(&["b"]), results(&["a", "b"])]),
            "model.transcript_unanswered_call"
        );
    }

    #[test]
    fn orphan_and_duplicate_results() {
        let user = AgentModelMessage::user("u");
        assert_eq!(
            code(&[user.clone(), results(&["a"])]),
            "model.transcript_orphan_result"
        );
        assert_eq!(
            code(&[calls(&["a"]), results(&["b"])]),
            "model.transcript_orphan_result"
        );
        // A result after an intervening user message answers nothing.
        assert_eq!(
            code(&[
                calls(&["a"]),
                results(&["a"]),
                user.clone(),
                results(&["a"])
            ]),
            "model.transcript_orphan_result"
        );
        assert_eq!(
            code(&[calls(&["a"]), results(&["a", "a"])]),
            "model.transcript_duplicate_result"
        );
        assert_eq!(
            code(&[calls(&["a"]), results(&["a"]), results(&["a"])]),
            "model.transcript_duplicate_result"
        );
    }

    #[test]
    fn call_id_rules() {
        assert_eq!(
            code(&[calls(&[""]), results(&[""])]),
            "model.invalid_tool_call"
        );
        assert_eq!(code(&[calls(&[" "])]), "model.invalid_tool_call");
        assert_eq!(
            code(&[calls(&["a", "a"]), results(&["a"])]),
            "model.duplicate_tool_call_id"
        );
        assert_eq!(
            code(&[
                calls(&["a"]),
                results(&["a"]),
                calls(&["a"]),
                results(&["a"])
            ]),
            "model.duplicate_tool_call_id"
        );
    }

    #[test]
    fn results_must_name_the_called_tool() {
        let mut wrong = result("a");
        wrong.tool_id = ToolId::parse("workspace.finish").unwrap();
        let message = AgentModelMessage::tool_result(wrong);
        assert_eq!(
            code(&[calls(&["a"]), message]),
            "model.transcript_result_tool_mismatch"
        );
    }

    #[test]
    fn parts_must_sit_in_the_right_role() {
        let mut user_call = calls(&["a"]);
        user_call.role = ModelRole::User;
        assert_eq!(code(&[user_call]), "model.transcript_misplaced_part");
        let user_result = AgentModelMessage::new(
            ModelRole::User,
            vec![AgentModelContentPart::ToolResult(result("a"))],
        );
        assert_eq!(
            code(&[calls(&["a"]), user_result]),
            "model.transcript_unanswered_call"
        );
        let assistant_result = AgentModelMessage::new(
            ModelRole::Assistant,
            vec![AgentModelContentPart::ToolResult(result("x"))],
        );
        assert_eq!(code(&[assistant_result]), "model.transcript_misplaced_part");
    }
}
