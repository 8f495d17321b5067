//! How a run ends: the terminal classification rule and the payloads of `run_failed` and
//! `run_partial_success`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{EventLevel, RunEvent, RunStatus, WriteMode};
use crate::workspace::WorkspacePath;

/// Error codes a user may sensibly retry even though a plain retry of the model call would
/// not help: the model misbehaved, and another attempt may go differently.
pub const USER_RETRYABLE_CODES: [&str; 3] = [
    "model.tool_call_required",
    "agent.tool_after_finish",
    "agent.max_tool_rounds_exceeded",
];

/// The four ways a run can end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TerminalOutcome {
    /// The agent finished and everything after it (persistence, metadata) succeeded.
    Completed,
    /// An error struck after at least one host-confirmed commit: the chat output is kept.
    PartialSuccess,
    /// An error struck before any host-confirmed commit.
    Failed,
    Cancelled,
}

impl TerminalOutcome {
    /// Classifies a run that stopped on an error. A cancellation always ends as cancelled;
    /// any other error keeps already-confirmed chat output by ending as partial success,
    /// never as a silent failure.
    pub fn after_error(cancelled: bool, confirmed_commits: usize) -> Self {
        if cancelled {
            Self::Cancelled
        } else if confirmed_commits > 0 {
            Self::PartialSuccess
        } else {
            Self::Failed
        }
    }

    /// The run status this outcome writes.
    pub fn run_status(self) -> RunStatus {
        match self {
            Self::Completed => RunStatus::Completed,
            Self::PartialSuccess => RunStatus::PartialSuccess,
            Self::Failed => RunStatus::Failed,
            Self::Cancelled => RunStatus::Cancelled,
        }
    }

    /// The terminal event type this outcome journals.
    pub fn event_type(self) -> &'static str {
        match self {
            Self::Completed => "run_completed",
            Self::PartialSuccess => "run_partial_success",
            Self::Failed => "run_failed",
            Self::Cancelled => "run_cancelled",
        }
    }

    /// The level of the terminal event.
    pub fn level(self) -> EventLevel {
        match self {
            Self::Completed | Self::Cancelled => EventLevel::Info,
            Self::PartialSuccess => EventLevel::Warn,
            Self::Failed => EventLevel::Error,
        }
    }
}

/// `run_failed`: the error that ended the run, in a shape UIs can act on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunFailurePayload {
    /// The stable error code (`model.tool_call_required`, `agent.chat_commit_failed`, …).
    pub code: String,
    /// The user-facing message.
    pub message: String,
    /// The full diagnostic text.
    pub technical_message: String,
    /// Whether retrying the same request could succeed (rate limits, transient faults).
    pub retryable: bool,
    /// Whether offering the user a retry makes sense.
    pub user_retryable: bool,
    #[serde(default)]
    pub details: Map<String, Value>,
}

impl RunFailurePayload {
    /// A failure payload; `userRetryable` follows from `retryable` and the code.
    pub fn new(code: impl Into<String>, message: impl Into<String>, retryable: bool) -> Self {
        let code = code.into();
        let message = message.into();
        let user_retryable = retryable || USER_RETRYABLE_CODES.contains(&code.as_str());
        Self {
            technical_message: message.clone(),
            code,
            message,
            retryable,
            user_retryable,
            details: Map::new(),
        }
    }

    /// Replaces the diagnostic text (by default the message).
    pub fn with_technical_message(mut self, technical_message: impl Into<String>) -> Self {
        self.technical_message = technical_message.into();
        self
    }

    /// Attaches structured details.
    pub fn with_details(mut self, details: Map<String, Value>) -> Self {
        self.details = details;
        self
    }

    /// The same failure reported as a partial success: nothing is retryable because the
    /// chat already shows committed output.
    pub fn into_partial_success(
        self,
        preserved_commits: Vec<PreservedCommit>,
    ) -> PartialSuccessPayload {
        PartialSuccessPayload {
            failure: Self {
                retryable: false,
                user_retryable: false,
                ..self
            },
            preserved_commit_count: u32::try_from(preserved_commits.len()).unwrap_or(u32::MAX),
            preserved_commits,
        }
    }

    /// The terminal event for a non-cancellation error, given the run's confirmed commits:
    /// `run_failed` with none, `run_partial_success` otherwise.
    pub fn into_terminal_event(self, confirmed_commits: Vec<PreservedCommit>) -> RunEvent {
        match TerminalOutcome::after_error(false, confirmed_commits.len()) {
            TerminalOutcome::PartialSuccess => {
                RunEvent::RunPartialSuccess(self.into_partial_success(confirmed_commits))
            }
            _ => RunEvent::RunFailed(self),
        }
    }
}

/// A host-confirmed commit that stays in the chat although the run did not complete.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreservedCommit {
    pub path: WorkspacePath,
    pub mode: WriteMode,
    pub message_id: String,
    pub round: u32,
}

/// `run_partial_success`: the failure fields plus the commits that were kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartialSuccessPayload {
    #[serde(flatten)]
    pub failure: RunFailurePayload,
    pub preserved_commit_count: u32,
    pub preserved_commits: Vec<PreservedCommit>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn commit() -> PreservedCommit {
        PreservedCommit {
            path: WorkspacePath::parse("output/main.md").unwrap(),
            mode: WriteMode::Replace,
            message_id: "12".into(),
            round: 3,
        }
    }

    #[test]
    fn classification() {
        assert_eq!(
            TerminalOutcome::after_error(true, 2),
            TerminalOutcome::Cancelled
        );
        assert_eq!(
            TerminalOutcome::after_error(false, 0),
            TerminalOutcome::Failed
        );
        assert_eq!(
            TerminalOutcome::after_error(false, 1),
            TerminalOutcome::PartialSuccess
        );
        assert_eq!(
            TerminalOutcome::PartialSuccess.run_status(),
            RunStatus::PartialSuccess
        );
        assert_eq!(TerminalOutcome::Failed.level(), EventLevel::Error);
        for outcome in [
            TerminalOutcome::Completed,
            TerminalOutcome::PartialSuccess,
            TerminalOutcome::Failed,
            TerminalOutcome::Cancelled,
        ] {
            assert!(outcome.run_status().is_terminal());
            assert_eq!(
                outcome.event_type(),
                format!("run_{}", outcome.run_status().as_str())
            );
        }
    }

    #[test]
    fn user_retryable_follows_code_and_retryable() {
        assert!(RunFailurePayload::new("model.tool_call_required", "m", false).user_retryable);
        assert!(RunFailurePayload::new("agent.rate_limited", "m", true).user_retryable);
        assert!(!RunFailurePayload::new("agent.chat_commit_failed", "m", false).user_retryable);
    }

    #[test]
    fn failure_becomes_partial_success_once_a_commit_is_confirmed() {
        let failure = RunFailurePayload::new("model.tool_call_required", "no tools", false)
            .with_technical_message("Validation error: no tools");
        let failed = failure.clone().into_terminal_event(Vec::new());
        assert_eq!(failed.event_type(), "run_failed");
        let partial = failure.into_terminal_event(vec![commit()]);
        assert_eq!(partial.event_type(), "run_partial_success");
        assert_eq!(
            serde_json::to_value(&partial).unwrap(),
            json!({
                "type": "run_partial_success",
                "payload": {
                    "code": "model.tool_call_required",
                    "message": "no tools",
                    "technicalMessage": "Validation error: no tools",
                    "retryable": false,
                    "userRetryable": false,
                    "details": {},
                    "preservedCommitCount": 1,
                    "preservedCommits": [
                        {"path": "output/main.md", "mode": "replace", "messageId": "12", "round": 3}
                    ]
                }
            })
        );
    }
}
