//! The prune planner: from the facts of every indexed run and the policy, which finished
//! runs are slimmed, which are deleted, and which cannot be touched, with exact totals.

use serde::Serialize;

use super::settings::{RetentionError, RetentionSettings};
use super::storage_class::{FileLocation, StorageClass};
use crate::run::{AgentRun, RunId, WorkspaceId};

/// One stored file of a run and its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredFile {
    pub location: FileLocation,
    pub bytes: u64,
}

/// What the run's journal says about its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JournalFacts {
    /// The timestamp of its last terminal event.
    Terminal { at: String },
    /// It has no terminal event.
    NoTerminalEvent,
    /// It could not be read; why.
    Unreadable(String),
}

/// Everything the planner needs to know about one indexed run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunFacts {
    /// The run's index record.
    pub run: AgentRun,
    /// Whether a process drives or otherwise holds the run right now.
    pub active: bool,
    /// The journal, read for finished runs that are not active; `None` otherwise.
    pub journal: Option<JournalFacts>,
    /// Every stored file of the run, or why they could not be listed.
    pub storage: Result<Vec<StoredFile>, String>,
}

/// What happens to a finished run outside the full window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PruneAction {
    /// Every file but the core history is removed.
    SlimHeavyArtifacts,
    /// The run's folder, index record and summary are removed.
    DeleteRun,
}

/// A run the plan changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PruneCandidate {
    pub run_id: RunId,
    pub workspace_id: WorkspaceId,
    pub action: PruneAction,
    /// Its place among the finished runs, newest first (0 is the newest).
    pub rank: u64,
    /// When it ended (its last terminal event).
    pub ended_at: String,
    /// Files and bytes the action removes.
    pub files: u64,
    pub bytes: u64,
    /// For a slim: the paths inside the run's folder to remove.
    #[serde(skip)]
    pub paths: Vec<String>,
}

/// Why a run is left alone although the policy might reach it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockReason {
    /// A process drives or holds the run.
    ActiveRun,
    /// Its journal does not read.
    InvalidJournal,
    /// It is marked finished but its journal has no terminal event.
    MissingTerminalEvent,
    /// Its files could not be listed.
    InvalidStorage,
}

/// A run the plan reports but never touches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockedRun {
    pub run_id: RunId,
    pub workspace_id: WorkspaceId,
    pub reason: BlockReason,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Counts over every run, never truncated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PruneTotals {
    pub scanned_runs: u64,
    /// Runs that have not ended and no process holds (untouched, not blocked).
    pub non_terminal_runs: u64,
    /// Finished runs ranked by the policy.
    pub ranked_runs: u64,
    /// Ranked runs left as they are: the full window, and slim candidates that hold nothing
    /// but their core history already.
    pub kept_runs: u64,
    pub slim_runs: u64,
    pub slim_files: u64,
    pub slim_bytes: u64,
    pub delete_runs: u64,
    pub delete_files: u64,
    pub delete_bytes: u64,
    pub blocked_runs: u64,
}

/// The whole plan: every candidate and every blocked run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrunePlan {
    pub settings: RetentionSettings,
    pub totals: PruneTotals,
    /// Newest first.
    pub candidates: Vec<PruneCandidate>,
    /// Newest first.
    pub blocked: Vec<BlockedRun>,
}

/// How many candidates and blocked runs a report lists (each). 0..=1000, 200 by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DetailLimit(usize);

impl DetailLimit {
    pub const DEFAULT: u64 = 200;
    pub const MAX: u64 = 1000;

    /// `raw`, or the default when absent; out of range is refused.
    pub fn new(raw: Option<u64>) -> Result<Self, RetentionError> {
        let value = raw.unwrap_or(Self::DEFAULT);
        if value > Self::MAX {
            return Err(RetentionError::DetailLimitInvalid { value });
        }
        Ok(Self(value as usize))
    }
}

impl Default for DetailLimit {
    fn default() -> Self {
        Self(Self::DEFAULT as usize)
    }
}

/// A plan as shown: exact totals, details up to a limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PruneReport {
    pub settings: RetentionSettings,
    pub totals: PruneTotals,
    pub candidates: Vec<PruneCandidate>,
    pub blocked: Vec<BlockedRun>,
    /// Candidates and blocked runs counted in the totals but not listed.
    pub omitted_candidates: u64,
    pub omitted_blocked: u64,
}

impl PrunePlan {
    /// The plan with at most `limit` candidates and `limit` blocked runs listed.
    pub fn report(&self, limit: DetailLimit) -> PruneReport {
        let listed = |len: usize| len.min(limit.0);
        PruneReport {
            settings: self.settings,
            totals: self.totals,
            candidates: self.candidates[..listed(self.candidates.len())].to_vec(),
            blocked: self.blocked[..listed(self.blocked.len())].to_vec(),
            omitted_candidates: (self.candidates.len() - listed(self.candidates.len())) as u64,
            omitted_blocked: (self.blocked.len() - listed(self.blocked.len())) as u64,
        }
    }
}

/// A finished run that may be ranked.
struct Ranked<'a> {
    facts: &'a RunFacts,
    ended_at: String,
    files: &'a [StoredFile],
}

fn blocked(facts: &RunFacts, reason: BlockReason, detail: Option<String>) -> BlockedRun {
    BlockedRun {
        run_id: facts.run.id.clone(),
        workspace_id: facts.run.workspace_id.clone(),
        reason,
        detail,
    }
}

/// Sums files and bytes, refusing overflow.
fn add(total: &mut u64, more: u64, overflow: RetentionError) -> Result<(), RetentionError> {
    *total = total.checked_add(more).ok_or(overflow)?;
    Ok(())
}

fn sum(files: &[&StoredFile]) -> Result<(u64, u64), RetentionError> {
    let mut bytes = 0u64;
    for file in files {
        add(&mut bytes, file.bytes, RetentionError::ByteCountOverflow)?;
    }
    Ok((files.len() as u64, bytes))
}

/// Plans a prune of `runs` under `settings`.
///
/// * A run a process holds is blocked (`active_run`), whatever its status.
/// * Other runs that have not ended are counted and left alone.
/// * A finished run whose journal does not read, has no terminal event, or whose files
///   could not be listed is blocked; blocked runs take no place in the ranking, so they
///   only ever make the plan keep more.
/// * The rest are ranked by when their last terminal event happened (the record's
///   `updatedAt` when that event carries no time), newest first; ties by creation time,
///   then id, newest first. Ranks below `keep_full_recent_runs` keep everything; ranks
///   below `keep_recent_terminal_runs` are slimmed to their core history (kept when they
///   hold nothing else); the rest are deleted.
///
/// `persistent-states/` belongs to the chat, not to a run, and is never part of a plan.
pub fn plan_prune(
    runs: &[RunFacts],
    settings: RetentionSettings,
) -> Result<PrunePlan, RetentionError> {
    let settings = settings.validated()?;
    let mut totals = PruneTotals {
        scanned_runs: runs.len() as u64,
        ..PruneTotals::default()
    };
    let mut blocked_runs = Vec::new();
    let mut ranked = Vec::new();
    for facts in runs {
        if facts.active {
            blocked_runs.push(blocked(facts, BlockReason::ActiveRun, None));
            continue;
        }
        if !facts.run.status.is_terminal() {
            totals.non_terminal_runs += 1;
            continue;
        }
        let ended_at = match &facts.journal {
            Some(JournalFacts::Terminal { at }) if at.is_empty() => facts.run.updated_at.clone(),
            Some(JournalFacts::Terminal { at }) => at.clone(),
            Some(JournalFacts::Unreadable(why)) => {
                blocked_runs.push(blocked(
                    facts,
                    BlockReason::InvalidJournal,
                    Some(why.clone()),
                ));
                continue;
            }
            Some(JournalFacts::NoTerminalEvent) | None => {
                blocked_runs.push(blocked(facts, BlockReason::MissingTerminalEvent, None));
                continue;
            }
        };
        let files = match &facts.storage {
            Ok(files) => files.as_slice(),
            Err(why) => {
                blocked_runs.push(blocked(
                    facts,
                    BlockReason::InvalidStorage,
                    Some(why.clone()),
                ));
                continue;
            }
        };
        ranked.push(Ranked {
            facts,
            ended_at,
            files,
        });
    }
    ranked.sort_by(|a, b| {
        (
            b.ended_at.as_str(),
            b.facts.run.created_at.as_str(),
            &b.facts.run.id,
        )
            .cmp(&(
                a.ended_at.as_str(),
                a.facts.run.created_at.as_str(),
                &a.facts.run.id,
            ))
    });
    totals.ranked_runs = ranked.len() as u64;
    let full = settings.keep_full_recent_runs as usize;
    let recent = settings.keep_recent_terminal_runs as usize;
    let mut candidates = Vec::new();
    for (rank, entry) in ranked.into_iter().enumerate() {
        if rank < full {
            totals.kept_runs += 1;
            continue;
        }
        let (action, removed): (PruneAction, Vec<&StoredFile>) = if rank < recent {
            let heavy = entry
                .files
                .iter()
                .filter(|file| !StorageClass::of(&file.location).is_core())
                .collect::<Vec<_>>();
            if heavy.is_empty() {
                totals.kept_runs += 1;
                continue;
            }
            (PruneAction::SlimHeavyArtifacts, heavy)
        } else {
            (PruneAction::DeleteRun, entry.files.iter().collect())
        };
        let (files, bytes) = sum(&removed)?;
        let (runs_total, files_total, bytes_total) = match action {
            PruneAction::SlimHeavyArtifacts => (
                &mut totals.slim_runs,
                &mut totals.slim_files,
                &mut totals.slim_bytes,
            ),
            PruneAction::DeleteRun => (
                &mut totals.delete_runs,
                &mut totals.delete_files,
                &mut totals.delete_bytes,
            ),
        };
        *runs_total += 1;
        add(files_total, files, RetentionError::FileCountOverflow)?;
        add(bytes_total, bytes, RetentionError::ByteCountOverflow)?;
        let paths = match action {
            PruneAction::SlimHeavyArtifacts => removed
                .iter()
                .filter_map(|file| match &file.location {
                    FileLocation::RunFolder(path) => Some(path.clone()),
                    FileLocation::IndexRecord | FileLocation::Summary => None,
                })
                .collect(),
            PruneAction::DeleteRun => Vec::new(),
        };
        candidates.push(PruneCandidate {
            run_id: entry.facts.run.id.clone(),
            workspace_id: entry.facts.run.workspace_id.clone(),
            action,
            rank: rank as u64,
            ended_at: entry.ended_at,
            files,
            bytes,
            paths,
        });
    }
    totals.blocked_runs = blocked_runs.len() as u64;
    blocked_runs.sort_by(|a, b| b.run_id.cmp(&a.run_id));
    Ok(PrunePlan {
        settings,
        totals,
        candidates,
        blocked: blocked_runs,
    })
}
