//! The run-scoped commit ledger: which chat commits the host has confirmed, and the
//! terminal classification rule that depends on them.

use agent_domain::event::{PreservedCommit, RunFailurePayload};
use serde::{Deserialize, Serialize};

use super::Outcome;

/// One host-confirmed chat commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LedgerEntry {
    #[serde(flatten)]
    pub commit: PreservedCommit,
    /// `true` for a `workspace.commit` call, `false` for an auto-publish.
    pub explicit: bool,
}

/// Every host-confirmed chat commit of a run, explicit or automatic, in order.
///
/// The ledger belongs to the run: a handoff target starts with the ledger its predecessor
/// ended with (a commit made earlier in a handoff chain satisfies the finish requirement),
/// while a return-mode child starts with an empty one (children never commit, and a
/// child's failure is its task's failure, not the run's).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommitLedger {
    entries: Vec<LedgerEntry>,
}

impl CommitLedger {
    /// An empty ledger: nothing confirmed yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a commit the host confirmed.
    pub fn record(&mut self, commit: PreservedCommit, explicit: bool) {
        self.entries.push(LedgerEntry { commit, explicit });
    }

    /// Confirmed commits, oldest first.
    #[cfg(test)]
    pub fn entries(&self) -> &[LedgerEntry] {
        &self.entries
    }

    /// Confirmed `workspace.commit` calls.
    #[cfg(test)]
    pub fn explicit_count(&self) -> u32 {
        count(self.entries.iter().filter(|e| e.explicit))
    }

    /// Confirmed auto-publishes.
    pub fn auto_count(&self) -> u32 {
        count(self.entries.iter().filter(|e| !e.explicit))
    }

    /// Every confirmed commit, explicit or automatic.
    pub fn confirmed_count(&self) -> u32 {
        count(self.entries.iter())
    }

    /// Whether a `workspace.commit` was confirmed: what a foreground finish needs.
    pub fn has_explicit(&self) -> bool {
        self.entries.iter().any(|e| e.explicit)
    }

    /// Whether anything reached the chat: what turns a failure into a partial success.
    pub fn has_confirmed(&self) -> bool {
        !self.entries.is_empty()
    }

    /// The chat message the latest commit wrote (all commits of a run target one message).
    pub fn last_message_id(&self) -> Option<&str> {
        self.entries.last().map(|e| e.commit.message_id.as_str())
    }

    /// The commits a partial success keeps, oldest first.
    pub fn preserved_commits(&self) -> Vec<PreservedCommit> {
        self.entries.iter().map(|e| e.commit.clone()).collect()
    }

    /// The terminal classification of a failure (`run_partial_success`, `docs/spec-map.md`, Run flow and events): with any
    /// host-confirmed commit it is a partial success that keeps the chat output, otherwise a
    /// failure. The driver uses the same rule for failures after the loop (persist promotion,
    /// metadata write-back).
    pub fn classify(&self, failure: RunFailurePayload) -> Outcome {
        if self.has_confirmed() {
            Outcome::PartialSuccess(failure.into_partial_success(self.preserved_commits()))
        } else {
            Outcome::Failed(failure)
        }
    }
}

fn count<'a>(entries: impl Iterator<Item = &'a LedgerEntry>) -> u32 {
    u32::try_from(entries.count()).unwrap_or(u32::MAX)
}
