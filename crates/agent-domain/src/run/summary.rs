//! [`RunSummary`]: what a run history shows about one run, projected from its record and
//! journal. Terminal runs keep their summary on disk so listings need not re-read journals.

use serde::{Deserialize, Serialize};

use super::{AgentRun, GenerationType, RunId, WorkspaceId};
use crate::event::{ChatRef, JournalLine, Presentation, RunEvent, RunStatus};
use crate::model::TokenUsage;

/// The terminal event that ended a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TerminalSummary {
    /// `run_completed`, `run_partial_success`, `run_cancelled` or `run_failed`.
    #[serde(rename = "type")]
    pub event_type: String,
    pub seq: u64,
    pub timestamp: String,
}

/// Why a run failed (or only partly succeeded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryError {
    pub code: String,
    pub message: String,
}

/// Retention slimmed the run: every file but its record, journal and summary is gone
/// (`docs/storage/retention.md`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SlimmedRun {
    pub at: String,
    pub removed_files: u64,
    pub removed_bytes: u64,
}

/// One run as a history list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    pub run_id: RunId,
    pub workspace_id: WorkspaceId,
    pub stable_chat_id: String,
    pub chat_ref: ChatRef,
    pub generation_type: GenerationType,
    pub profile_id: Option<String>,
    pub presentation: Presentation,
    pub status: RunStatus,
    pub created_at: String,
    pub updated_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal: Option<TerminalSummary>,
    /// Model calls made (rounds of every invocation).
    pub model_rounds: u32,
    pub tool_calls: u32,
    /// Host-confirmed chat commits.
    pub commit_count: u32,
    /// The chat message the last commit wrote, as it was when committed (the chat is not
    /// re-read: later edits to the chat do not move it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_index: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<SummaryError>,
    /// Tokens over every model call that reported usage; absent when none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    /// A person undid the run's commits on the chat (`run_rolled_back`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rolled_back: bool,
    /// Set when retention slimmed the run; a summary projected again keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slimmed: Option<SlimmedRun>,
}

impl RunSummary {
    /// Projects the summary of `run` from its whole journal, oldest event first.
    pub fn project(run: &AgentRun, events: &[JournalLine]) -> Self {
        let mut summary = Self::empty(run);
        for line in events {
            summary.observe(line);
        }
        summary
    }

    /// The summary of `run` before any event: what [`observe`](Self::observe) folds into.
    pub fn empty(run: &AgentRun) -> Self {
        Self {
            run_id: run.id.clone(),
            workspace_id: run.workspace_id.clone(),
            stable_chat_id: run.stable_chat_id.clone(),
            chat_ref: run.chat_ref.clone(),
            generation_type: run.generation_type,
            profile_id: run.profile_id.clone(),
            presentation: run.presentation,
            status: run.status,
            created_at: run.created_at.clone(),
            updated_at: run.updated_at.clone(),
            terminal: None,
            model_rounds: 0,
            tool_calls: 0,
            commit_count: 0,
            message_id: None,
            message_index: None,
            error: None,
            usage: None,
            rolled_back: false,
            slimmed: None,
        }
    }

    /// Folds the next journal line in, so a driver can keep the summary as it journals
    /// instead of re-reading the journal at the end.
    pub fn observe(&mut self, line: &JournalLine) {
        match &line.event {
            RunEvent::ModelRequestCreated(_) => self.model_rounds += 1,
            RunEvent::ModelCompleted(completed) => {
                if let Some(usage) = &completed.usage {
                    self.usage = Some(self.usage.unwrap_or_default().plus(usage));
                }
            }
            RunEvent::ToolCallRequested(_) => self.tool_calls += 1,
            RunEvent::ChatCommitCompleted(done) => {
                self.commit_count += 1;
                self.message_id = Some(done.message_id.clone());
                self.message_index = done.message_index;
            }
            RunEvent::RunFailed(failure) => {
                self.error = Some(SummaryError {
                    code: failure.code.clone(),
                    message: failure.message.clone(),
                });
            }
            RunEvent::RunRolledBack(_) => self.rolled_back = true,
            RunEvent::RunPartialSuccess(partial) => {
                self.error = Some(SummaryError {
                    code: partial.failure.code.clone(),
                    message: partial.failure.message.clone(),
                });
            }
            _ => {}
        }
        if let Some(outcome) = line.event.terminal_outcome() {
            // The journal's terminal event decides the status: a summary projected before
            // the record catches up must not be stored as still finishing.
            self.status = outcome.run_status();
            self.terminal = Some(TerminalSummary {
                event_type: line.event.event_type().to_owned(),
                seq: line.seq,
                timestamp: line.timestamp.clone(),
            });
        }
    }

    /// Takes the record's fields (status, update time, …) from `run` as it is now, keeping
    /// what was folded from the journal: the fold started from an older copy of the record.
    pub fn restamp(&mut self, run: &AgentRun) {
        let status = match self.terminal {
            Some(_) if !run.status.is_terminal() => self.status,
            _ => run.status,
        };
        *self = Self {
            status,
            terminal: self.terminal.take(),
            model_rounds: self.model_rounds,
            tool_calls: self.tool_calls,
            commit_count: self.commit_count,
            message_id: self.message_id.take(),
            message_index: self.message_index,
            error: self.error.take(),
            usage: self.usage,
            rolled_back: self.rolled_back,
            ..Self::empty(run)
        };
    }

    /// Only a run whose terminal event is journaled has a final summary worth storing.
    pub fn is_final(&self) -> bool {
        self.terminal.is_some()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::event::samples::one_of_each;

    fn run() -> AgentRun {
        serde_json::from_value(json!({
            "id": "run_1", "workspaceId": "chat_1", "stableChatId": "s",
            "chatRef": {"kind": "group", "chatId": "g"}, "generationType": "swipe",
            "profileId": "default-writer", "status": "partial_success", "presentation": "foreground",
            "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:09.000Z"
        }))
        .unwrap()
    }

    /// A journal of two model rounds, one tool call, one commit and a partial success.
    fn journal() -> Vec<JournalLine> {
        let pick = |kind: &str| {
            one_of_each()
                .into_iter()
                .find(|e| e.event_type() == kind)
                .unwrap()
        };
        let kinds = [
            "model_request_created",
            "tool_call_requested",
            "chat_commit_completed",
            "model_request_created",
            "run_partial_success",
        ];
        kinds
            .iter()
            .enumerate()
            .map(|(i, kind)| {
                let seq = i as u64 + 1;
                JournalLine::new(
                    seq,
                    format!("evt_{seq}"),
                    "run_1",
                    format!("t{seq}"),
                    pick(kind),
                )
            })
            .collect()
    }

    #[test]
    fn usage_is_summed_over_the_calls_that_report_it() {
        let completed = one_of_each()
            .into_iter()
            .find(|e| e.event_type() == "model_completed")
            .unwrap();
        let RunEvent::ModelCompleted(mut quiet) = completed.clone() else {
            unreachable!()
        };
        quiet.usage = None;
        let lines: Vec<JournalLine> = [
            completed.clone(),
            RunEvent::ModelCompleted(quiet),
            completed,
        ]
        .into_iter()
        .enumerate()
        .map(|(i, event)| JournalLine::new(i as u64 + 1, format!("evt_{i}"), "run_1", "t", event))
        .collect();
        let usage = RunSummary::project(&run(), &lines).usage.unwrap();
        assert_eq!((usage.input_tokens, usage.output_tokens), (2400, 160));
        assert_eq!(usage.cached_input_tokens, Some(2000));
        assert_eq!(usage.reasoning_tokens, None, "no call reported any");
        assert_eq!(RunSummary::project(&run(), &lines[1..2]).usage, None);
    }

    #[test]
    fn the_terminal_event_decides_the_status_before_the_record_catches_up() {
        let mut finishing = run();
        finishing.status = RunStatus::Finishing;
        let summary = RunSummary::project(&finishing, &journal());
        assert_eq!(summary.status, RunStatus::PartialSuccess);
        let mut restamped = summary.clone();
        restamped.restamp(&finishing);
        assert_eq!(restamped.status, RunStatus::PartialSuccess);
        let unfinished = RunSummary::project(&finishing, &journal()[..3]);
        assert_eq!(unfinished.status, RunStatus::Finishing);
    }

    #[test]
    fn a_journal_projects_counts_commit_and_outcome() {
        let lines = journal();
        let summary = RunSummary::project(&run(), &lines);
        assert_eq!(
            (
                summary.model_rounds,
                summary.tool_calls,
                summary.commit_count
            ),
            (2, 1, 1)
        );
        let RunEvent::ChatCommitCompleted(commit) = &lines[2].event else {
            unreachable!()
        };
        assert_eq!(summary.message_id.as_ref(), Some(&commit.message_id));
        assert_eq!(summary.message_index, commit.message_index);
        let RunEvent::RunPartialSuccess(partial) = &lines[4].event else {
            unreachable!()
        };
        assert_eq!(
            summary.error.as_ref().map(|e| &e.code),
            Some(&partial.failure.code)
        );
        let terminal = summary.terminal.as_ref().unwrap();
        assert_eq!(
            (
                terminal.event_type.as_str(),
                terminal.seq,
                terminal.timestamp.as_str()
            ),
            ("run_partial_success", 5, "t5")
        );
        assert!(summary.is_final());

        let unfinished = RunSummary::project(&run(), &lines[..3]);
        assert!(!unfinished.is_final());
        assert_eq!(unfinished.error, None);
        let json = serde_json::to_value(&summary).unwrap();
        assert_eq!(json["terminal"]["type"], "run_partial_success");
        let back: RunSummary = serde_json::from_value(json).unwrap();
        assert_eq!(back, summary);
    }
}
