//! [`JournalLine`]: one line of `events.jsonl`.

use serde::{Deserialize, Serialize};

use super::{EventLevel, RunEvent};

/// One journaled event with its envelope.
///
/// Serialises as one flat object,
/// `{"seq","id","runId","timestamp","level","type","payload"}`, which is both the
/// `events.jsonl` line and the CLI's `--json` output. `seq` starts at 1 and grows by one per
/// line; the journal store assigns it. The timestamp (RFC 3339, UTC) and id (`evt_…`) are
/// values handed in, since this crate reads no clock and draws no randomness.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalLine {
    pub seq: u64,
    pub id: String,
    pub run_id: String,
    pub timestamp: String,
    pub level: EventLevel,
    #[serde(flatten)]
    pub event: RunEvent,
}

impl JournalLine {
    /// A line for `event`, at the event's own level.
    pub fn new(
        seq: u64,
        id: impl Into<String>,
        run_id: impl Into<String>,
        timestamp: impl Into<String>,
        event: RunEvent,
    ) -> Self {
        Self {
            seq,
            id: id.into(),
            run_id: run_id.into(),
            timestamp: timestamp.into(),
            level: event.level(),
            event,
        }
    }

    /// The event type of the line.
    pub fn event_type(&self) -> &'static str {
        self.event.event_type()
    }
}
