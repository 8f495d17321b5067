//! [`WorldInfoActivation`]: the result of a scan — what fired and why, what did not and why,
//! where the content goes, and the timed-effect state to save.

use serde::Serialize;
use serde_json::{Value, json};

use super::entry::{EntryPosition, PromptRole};
use super::explain::{ActivationCause, ScanPhase, SkipReason};
use super::input::GenerationTrigger;
use super::placement::WorldInfoPlacement;
use super::scan_entry::ScanEntry;

/// The result of [`super::activate`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorldInfoActivation {
    /// The activated entries, in activation order.
    pub activated: Vec<ActivatedEntry>,
    /// Entries that were considered and did not activate, in scan-list order.
    pub skipped: Vec<SkippedEntry>,
    pub placement: WorldInfoPlacement,
    /// The token budget of the scan.
    pub budget: u32,
    /// Whether the budget was reached (SillyTavern can alert on this).
    pub budget_overflowed: bool,
    /// How many passes ran.
    pub passes: u32,
    /// The new `chat_metadata.timedWorldInfo`, for the caller to save with the chat (after a
    /// dry run, the state as given, repaired).
    pub timed_state: Value,
}

/// An activated entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivatedEntry {
    pub world: String,
    pub uid: i64,
    /// The comment, or the primary keys when the comment is blank.
    pub display_name: String,
    pub comment: String,
    /// The content without decorators, macros expanded.
    pub content: String,
    pub position: EntryPosition,
    pub order: f64,
    pub depth: i64,
    pub role: PromptRole,
    pub outlet_name: String,
    pub constant: bool,
    pub cause: ActivationCause,
    /// The 1-based pass that activated it.
    pub pass: u32,
    pub phase: ScanPhase,
}

/// An entry that did not activate.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedEntry {
    pub world: String,
    pub uid: i64,
    pub display_name: String,
    pub reason: SkipReason,
    /// The 1-based pass the reason comes from (the last that looked at the entry).
    pub pass: u32,
}

impl ActivatedEntry {
    pub(super) fn new(
        scan_entry: &ScanEntry,
        content: String,
        cause: ActivationCause,
        pass: u32,
        phase: ScanPhase,
    ) -> Self {
        let entry = &scan_entry.entry;
        Self {
            world: scan_entry.world.clone(),
            uid: entry.uid,
            display_name: entry.display_name(),
            comment: entry.comment.clone(),
            content,
            position: entry.position,
            order: entry.order,
            depth: entry.depth,
            role: entry.role,
            outlet_name: entry.outlet_name.clone(),
            constant: entry.constant,
            cause,
            pass,
            phase,
        }
    }
}

impl SkippedEntry {
    pub(super) fn new(scan_entry: &ScanEntry, reason: SkipReason, pass: u32) -> Self {
        Self {
            world: scan_entry.world.clone(),
            uid: scan_entry.entry.uid,
            display_name: scan_entry.entry.display_name(),
            reason,
            pass,
        }
    }
}

impl WorldInfoActivation {
    /// The activation as a run's prompt snapshot records it (`worldInfoActivation`, what the
    /// `worldinfo.read_activated` tool reads):
    /// `{"timestampMs", "trigger", "entries": [{"world", "uid", "displayName", "comment",
    /// "content", "position", "constant"}]}`, entries in activation order, `position` by name
    /// (or its number when SillyTavern has no name for it).
    pub fn to_read_activated_json(&self, timestamp_ms: u64, trigger: GenerationTrigger) -> Value {
        let entries: Vec<Value> = self
            .activated
            .iter()
            .map(|entry| {
                let position = match entry.position {
                    EntryPosition::Unknown(number) => json!(number),
                    known => json!(known.name()),
                };
                json!({
                    "world": entry.world,
                    "uid": entry.uid,
                    "displayName": entry.display_name,
                    "comment": entry.comment,
                    "content": entry.content,
                    "position": position,
                    "constant": entry.constant,
                })
            })
            .collect();
        json!({
            "timestampMs": timestamp_ms,
            "trigger": trigger.as_str(),
            "entries": entries,
        })
    }
}
