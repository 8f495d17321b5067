//! Reading one page of a journal (`readEvents`).

use std::fs::File;
use std::io;
use std::path::Path;

use agent_application::ports::{EventQuery, JournalError};
use agent_domain::event::JournalLine;
use agent_domain::run::{InvocationId, RunId};

use super::scan::{RawLine, Scan, SeqOrder, io_error, is_blank};

/// The error code of a page size outside `1..=500`.
pub const LIMIT_INVALID: &str = "agent.read_events_limit_invalid";

/// The page size a query asks for: 100 when unset, an error outside `1..=500`.
pub(super) fn page_limit(query: &EventQuery) -> Result<usize, JournalError> {
    let limit = query.limit.unwrap_or(EventQuery::DEFAULT_LIMIT);
    if (1..=EventQuery::MAX_LIMIT).contains(&limit) {
        Ok(limit as usize)
    } else {
        Err(JournalError::InvalidQuery {
            code: LIMIT_INVALID,
            message: format!(
                "limit must be between 1 and {}, got {limit}",
                EventQuery::MAX_LIMIT
            ),
        })
    }
}

/// Whether a line shows on `invocation`'s timeline
/// ([`RunEvent::belongs_to`](agent_domain::event::RunEvent::belongs_to)).
pub fn belongs_to(line: &JournalLine, invocation: &InvocationId) -> bool {
    line.event.belongs_to(invocation.as_str())
}

/// Reads one page of the journal at `path` (blocking).
///
/// With `before_seq`: the last `limit` matching events with a smaller seq, ascending.
/// Otherwise the first `limit` matching events with a seq above `after_seq` (if set).
/// `before_seq` wins when both are set. A missing file is an empty journal. Only the
/// blocks around the page are read (plus the last block, to find the committed end), and
/// every line read must carry the seq that follows its neighbour's: a forward page starts
/// at the line of `after_seq` itself, so a repeat of it is seen too.
pub fn read_page(
    path: &Path,
    run: &RunId,
    query: &EventQuery,
) -> Result<Vec<JournalLine>, JournalError> {
    let limit = page_limit(query)?;
    let file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(io_error(err)),
    };
    let len = file.metadata().map_err(io_error)?.len();
    let scan = Scan::new(&file, run.as_str());
    let tail = scan.tail(len)?;
    let wanted = |line: &JournalLine| {
        query
            .invocation_id
            .as_ref()
            .is_none_or(|invocation| belongs_to(line, invocation))
    };
    let last_seq = tail.last.map_or(0, |last| last.seq);
    if let Some(before) = query.before_seq {
        let mut lines = scan.backward(scan.offset_of(&tail, before)?);
        let mut order = SeqOrder::backward(before.min(last_seq.saturating_add(1)).checked_sub(1));
        let mut page = collect(
            &scan,
            limit,
            &mut order,
            || lines.next_line(),
            |line| line.seq < before && wanted(line),
        )?;
        page.reverse();
        Ok(page)
    } else {
        let after = query.after_seq.unwrap_or(0);
        let (start, first) = if after == 0 {
            (0, 1)
        } else {
            (scan.offset_of(&tail, after)?, after)
        };
        let mut lines = scan.forward(start, tail.end)?;
        let mut order = SeqOrder::forward(Some(first));
        collect(
            &scan,
            limit,
            &mut order,
            || lines.next_line(),
            |line| line.seq > after && wanted(line),
        )
    }
}

/// Parses lines from `next`, checking their order, until `limit` of them pass `keep`.
/// Running out of lines means the start of the file for a backward reader, or the committed
/// end for a forward one.
fn collect(
    scan: &Scan<'_>,
    limit: usize,
    order: &mut SeqOrder,
    mut next: impl FnMut() -> io::Result<Option<RawLine>>,
    keep: impl Fn(&JournalLine) -> bool,
) -> Result<Vec<JournalLine>, JournalError> {
    let mut page = Vec::new();
    while page.len() < limit {
        let Some((start, bytes)) = next().map_err(io_error)? else {
            order.finish(scan)?;
            break;
        };
        if is_blank(&bytes) {
            continue;
        }
        let line = scan.parse(start, &bytes)?;
        order.check(scan, start, line.seq)?;
        if keep(&line) {
            page.push(line);
        }
    }
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_default_to_100_and_must_lie_in_1_to_500() {
        let with = |limit| EventQuery {
            limit,
            ..EventQuery::default()
        };
        assert_eq!(page_limit(&with(None)).unwrap(), 100);
        assert_eq!(page_limit(&with(Some(1))).unwrap(), 1);
        assert_eq!(page_limit(&with(Some(500))).unwrap(), 500);
        for bad in [0, 501, u32::MAX] {
            let err = page_limit(&with(Some(bad))).unwrap_err();
            assert!(matches!(
                err,
                JournalError::InvalidQuery {
                    code: LIMIT_INVALID,
                    ..
                }
            ));
        }
    }
}
