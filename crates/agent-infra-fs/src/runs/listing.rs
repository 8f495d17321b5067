//! Listing runs from the index: filters, newest-first order, cursor paging.

use agent_application::ports::{RunCursor, RunListQuery, RunPage, StoreError};
use agent_domain::run::AgentRun;

use super::records::read_record_dir;
use crate::layout::DataDir;

/// The page size a query asks for, checked against `1..=MAX_LIMIT`.
fn page_size(query: &RunListQuery) -> Result<usize, StoreError> {
    let limit = query.limit.unwrap_or(RunListQuery::DEFAULT_LIMIT);
    if (1..=RunListQuery::MAX_LIMIT).contains(&limit) {
        Ok(limit as usize)
    } else {
        Err(StoreError::Invalid {
            code: "agent.run_history_limit_invalid",
            message: format!(
                "limit {limit} is out of range; use 1 to {}",
                RunListQuery::MAX_LIMIT
            ),
        })
    }
}

/// Whether `run` passes the query's filters and lies strictly before its cursor.
fn selected(query: &RunListQuery, run: &AgentRun) -> bool {
    query
        .chat_ref
        .as_ref()
        .is_none_or(|chat| *chat == run.chat_ref)
        && query
            .stable_chat_id
            .as_ref()
            .is_none_or(|id| *id == run.stable_chat_id)
        && (query.statuses.is_empty() || query.statuses.contains(&run.status))
        && query.before.as_ref().is_none_or(|cursor| {
            (run.created_at.as_str(), &run.id) < (cursor.created_at.as_str(), &cursor.run_id)
        })
}

/// One page of matching runs, newest first (creation time, then id, both descending).
/// Every index entry is read; the index holds one small file per run.
pub(crate) fn list_runs(data: &DataDir, query: &RunListQuery) -> Result<RunPage, StoreError> {
    let size = page_size(query)?;
    let mut runs: Vec<AgentRun> = read_record_dir(&data.run_index_dir())?;
    runs.retain(|run| selected(query, run));
    runs.sort_by(|a, b| {
        b.created_at
            .cmp(&a.created_at)
            .then_with(|| b.id.cmp(&a.id))
    });
    let next = if runs.len() > size {
        runs.truncate(size);
        runs.last().map(|run| RunCursor {
            created_at: run.created_at.clone(),
            run_id: run.id.clone(),
        })
    } else {
        None
    };
    Ok(RunPage { runs, next })
}
