//! The notices (progress, log lines) an MCP server sends while one of a run's calls is in
//! flight, journaled as `mcp_notice_received` events of that call.
//!
//! A server may send them at any rate, so the journal keeps at most
//! [`NOTICES_PER_CALL`] per call, each cut to a bounded size, and one `suppressed` event
//! counting the rest. Notices wait in the session's buffer (`mcp_sessions::Notices`) and
//! are journaled as they arrive, between polls of the call, so the call never waits for
//! the journal; those that arrive while no call of that server is in flight are journaled
//! with the next one.

use agent_domain::event::{McpNoticeBody, McpNoticeReceivedPayload, RunEvent};
use agent_domain::tool::ToolInvocation;
use serde_json::{Number, Value};

use super::driver::Driver;
use super::fault::Fault;
use super::mcp_sessions::Notices;
use crate::ports::McpNotice;

/// Notices journaled per call; the rest are counted in one `suppressed` event.
pub(super) const NOTICES_PER_CALL: u64 = 20;
/// Longest progress message kept, in characters.
const MESSAGE_CHARS: usize = 1_000;
/// Longest log payload kept, in characters of its JSON; a longer one is kept as a prefix.
const LOG_DATA_CHARS: usize = 2_000;

/// Journals the notices of one call.
pub(super) struct NoticeJournal<'a> {
    round: u32,
    invocation_id: &'a str,
    call: &'a ToolInvocation,
    journaled: u64,
    suppressed: u64,
}

impl<'a> NoticeJournal<'a> {
    pub fn new(round: u32, invocation_id: &'a str, call: &'a ToolInvocation) -> Self {
        Self {
            round,
            invocation_id,
            call,
            journaled: 0,
            suppressed: 0,
        }
    }

    /// Journals what `notices` holds, within the call's bound.
    pub async fn flush(&mut self, d: &Driver, notices: &Notices) -> Result<(), Fault> {
        let (taken, overflow) = notices.take();
        self.suppressed += overflow;
        for notice in taken {
            if self.journaled >= NOTICES_PER_CALL {
                self.suppressed += 1;
                continue;
            }
            let Some(body) = body_of(notice) else {
                continue;
            };
            self.journaled += 1;
            d.rec.emit(self.event(body)).await?;
        }
        Ok(())
    }

    /// Journals what is left and, when notices were left out, how many.
    pub async fn finish(mut self, d: &Driver, notices: &Notices) -> Result<(), Fault> {
        self.flush(d, notices).await?;
        if self.suppressed > 0 {
            let count = self.suppressed;
            d.rec
                .emit(self.event(McpNoticeBody::Suppressed { count }))
                .await?;
        }
        Ok(())
    }

    fn event(&self, notice: McpNoticeBody) -> RunEvent {
        RunEvent::McpNoticeReceived(McpNoticeReceivedPayload {
            round: self.round,
            invocation_id: self.invocation_id.to_owned(),
            call_id: self.call.call_id.clone(),
            tool_id: self.call.tool_id.clone(),
            notice,
        })
    }
}

/// The journaled form of a notice, cut to size; `None` for progress that is not a finite
/// number (JSON cannot carry it).
fn body_of(notice: McpNotice) -> Option<McpNoticeBody> {
    Some(match notice {
        McpNotice::Progress {
            progress,
            total,
            message,
        } => McpNoticeBody::Progress {
            progress: Number::from_f64(progress)?,
            total: total.and_then(Number::from_f64),
            message: message.map(|message| cut(&message, MESSAGE_CHARS)),
        },
        McpNotice::Log { level, data } => {
            let text = data.to_string();
            let data = if text.chars().count() > LOG_DATA_CHARS {
                Value::String(cut(&text, LOG_DATA_CHARS))
            } else {
                data
            };
            McpNoticeBody::Log { level, data }
        }
    })
}

/// `text` within `limit` characters, an ellipsis marking a cut.
fn cut(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}
