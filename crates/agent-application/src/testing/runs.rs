//! An in-memory [`RunStore`] with the contract of the file store: a run is created once
//! (`AlreadyExists` after), only an existing run is saved or holds invocations, tasks and
//! a summary, listings are newest first with the same filters, limits and cursors.

use std::sync::Mutex;

use agent_domain::event::RunStatus;
use agent_domain::run::{
    AgentInvocation, AgentRun, AgentTaskRecord, InvocationId, RunId, RunSummary, TaskId,
};
use async_trait::async_trait;

use crate::ports::{RunCursor, RunListQuery, RunPage, RunStore, StoreError};

#[derive(Debug, Default)]
struct State {
    runs: Vec<AgentRun>,
    invocations: Vec<AgentInvocation>,
    tasks: Vec<AgentTaskRecord>,
    summaries: Vec<RunSummary>,
    /// Every status a run was saved with, in order (its creation included).
    saved_statuses: Vec<(RunId, RunStatus)>,
}

/// Run records in memory.
#[derive(Debug, Default)]
pub struct MemoryRuns {
    state: Mutex<State>,
}

impl MemoryRuns {
    pub fn new() -> Self {
        Self::default()
    }

    fn with_state<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// The statuses the run's record was written with, in order, from `created` on.
    pub fn saved_statuses(&self, run: &RunId) -> Vec<RunStatus> {
        self.with_state(|s| {
            s.saved_statuses
                .iter()
                .filter(|(id, _)| id == run)
                .map(|(_, status)| *status)
                .collect()
        })
    }
}

impl State {
    fn has_run(&self, run: &RunId) -> Result<(), StoreError> {
        if self.runs.iter().any(|r| r.id == *run) {
            Ok(())
        } else {
            Err(StoreError::NotFound(format!("run {run}")))
        }
    }
}

/// Records oldest first: by creation time, then id.
fn oldest_first<T>(mut records: Vec<T>, key: impl Fn(&T) -> (String, String)) -> Vec<T> {
    records.sort_by_key(|record| key(record));
    records
}

/// The page size a listing asks for, checked against `1..=200`.
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

fn selected(query: &RunListQuery, run: &AgentRun) -> bool {
    query.chat_ref.as_ref().is_none_or(|c| *c == run.chat_ref)
        && query
            .stable_chat_id
            .as_ref()
            .is_none_or(|id| *id == run.stable_chat_id)
        && (query.statuses.is_empty() || query.statuses.contains(&run.status))
        && query.before.as_ref().is_none_or(|cursor| {
            (run.created_at.as_str(), &run.id) < (cursor.created_at.as_str(), &cursor.run_id)
        })
}

#[async_trait]
impl RunStore for MemoryRuns {
    async fn create_run(&self, run: &AgentRun) -> Result<(), StoreError> {
        self.with_state(|s| {
            if s.has_run(&run.id).is_ok() {
                return Err(StoreError::AlreadyExists(format!("run {}", run.id)));
            }
            s.runs.push(run.clone());
            s.saved_statuses.push((run.id.clone(), run.status));
            Ok(())
        })
    }

    async fn save_run(&self, run: &AgentRun) -> Result<(), StoreError> {
        self.with_state(|s| {
            s.has_run(&run.id)?;
            s.runs.retain(|r| r.id != run.id);
            s.runs.push(run.clone());
            s.saved_statuses.push((run.id.clone(), run.status));
            Ok(())
        })
    }

    async fn load_run(&self, id: &RunId) -> Result<AgentRun, StoreError> {
        self.with_state(|s| {
            s.runs
                .iter()
                .find(|r| r.id == *id)
                .cloned()
                .ok_or_else(|| StoreError::NotFound(format!("run {id}")))
        })
    }

    async fn list_runs(&self, query: &RunListQuery) -> Result<RunPage, StoreError> {
        let size = page_size(query)?;
        let mut runs: Vec<AgentRun> = self.with_state(|s| s.runs.clone());
        runs.retain(|run| selected(query, run));
        runs.sort_by(|a, b| (&b.created_at, &b.id).cmp(&(&a.created_at, &a.id)));
        let next = (runs.len() > size).then(|| {
            runs.truncate(size);
            let last = &runs[size - 1];
            RunCursor {
                created_at: last.created_at.clone(),
                run_id: last.id.clone(),
            }
        });
        Ok(RunPage { runs, next })
    }

    async fn save_invocation(&self, invocation: &AgentInvocation) -> Result<(), StoreError> {
        self.with_state(|s| {
            s.has_run(&invocation.run_id)?;
            s.invocations
                .retain(|i| !(i.run_id == invocation.run_id && i.id == invocation.id));
            s.invocations.push(invocation.clone());
            Ok(())
        })
    }

    async fn load_invocation(
        &self,
        run: &RunId,
        id: &InvocationId,
    ) -> Result<AgentInvocation, StoreError> {
        self.with_state(|s| {
            s.has_run(run)?;
            s.invocations
                .iter()
                .find(|i| i.run_id == *run && i.id == *id)
                .cloned()
                .ok_or_else(|| StoreError::NotFound(format!("invocation {id} of run {run}")))
        })
    }

    async fn list_invocations(&self, run: &RunId) -> Result<Vec<AgentInvocation>, StoreError> {
        let invocations = self.with_state(|s| -> Result<Vec<_>, StoreError> {
            s.has_run(run)?;
            Ok(s.invocations
                .iter()
                .filter(|i| i.run_id == *run)
                .cloned()
                .collect())
        })?;
        Ok(oldest_first(invocations, |i| {
            (i.created_at.clone(), i.id.to_string())
        }))
    }

    async fn save_task(&self, task: &AgentTaskRecord) -> Result<(), StoreError> {
        self.with_state(|s| {
            s.has_run(&task.run_id)?;
            s.tasks
                .retain(|t| !(t.run_id == task.run_id && t.id == task.id));
            s.tasks.push(task.clone());
            Ok(())
        })
    }

    async fn load_task(&self, run: &RunId, id: &TaskId) -> Result<AgentTaskRecord, StoreError> {
        self.with_state(|s| {
            s.has_run(run)?;
            s.tasks
                .iter()
                .find(|t| t.run_id == *run && t.id == *id)
                .cloned()
                .ok_or_else(|| StoreError::NotFound(format!("task {id} of run {run}")))
        })
    }

    async fn list_tasks(&self, run: &RunId) -> Result<Vec<AgentTaskRecord>, StoreError> {
        let tasks = self.with_state(|s| -> Result<Vec<_>, StoreError> {
            s.has_run(run)?;
            Ok(s.tasks
                .iter()
                .filter(|t| t.run_id == *run)
                .cloned()
                .collect())
        })?;
        Ok(oldest_first(tasks, |t| {
            (t.created_at.clone(), t.id.to_string())
        }))
    }

    async fn save_run_summary(&self, summary: &RunSummary) -> Result<(), StoreError> {
        self.with_state(|s| {
            s.summaries.retain(|old| old.run_id != summary.run_id);
            s.summaries.push(summary.clone());
        });
        Ok(())
    }

    async fn load_run_summary(&self, run: &RunId) -> Result<Option<RunSummary>, StoreError> {
        Ok(self.with_state(|s| s.summaries.iter().find(|x| x.run_id == *run).cloned()))
    }
}

#[cfg(test)]
mod tests {
    use agent_domain::event::{ChatRef, Presentation};
    use agent_domain::run::{GenerationType, WorkspaceId};

    use super::*;

    fn run(id: &str, created_at: &str) -> AgentRun {
        AgentRun {
            id: RunId::parse(id).unwrap(),
            workspace_id: WorkspaceId::from_digest(&[7; 32]),
            stable_chat_id: "chat".into(),
            chat_ref: ChatRef::Group {
                chat_id: "g".into(),
            },
            generation_type: GenerationType::Normal,
            profile_id: None,
            skill_scope_refs: Default::default(),
            persist_base_state_id: None,
            input_message_count: None,
            presentation: Presentation::Foreground,
            status: RunStatus::Created,
            created_at: created_at.into(),
            updated_at: created_at.into(),
        }
    }

    #[tokio::test]
    async fn creates_once_saves_existing_runs_and_pages_newest_first() {
        let runs = MemoryRuns::new();
        let (a, b, c) = (run("run_a", "t1"), run("run_b", "t2"), run("run_c", "t3"));
        assert!(matches!(
            runs.save_run(&a).await,
            Err(StoreError::NotFound(_))
        ));
        for record in [&a, &b, &c] {
            runs.create_run(record).await.unwrap();
        }
        assert!(matches!(
            runs.create_run(&a).await,
            Err(StoreError::AlreadyExists(_))
        ));
        let mut failed = a.clone();
        failed.status = RunStatus::Failed;
        runs.save_run(&failed).await.unwrap();
        assert_eq!(
            runs.saved_statuses(&a.id),
            [RunStatus::Created, RunStatus::Failed]
        );

        let first = runs
            .list_runs(&RunListQuery {
                limit: Some(2),
                ..RunListQuery::default()
            })
            .await
            .unwrap();
        let ids = |page: &RunPage| {
            page.runs
                .iter()
                .map(|r| r.id.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&first), ["run_c", "run_b"]);
        let rest = runs
            .list_runs(&RunListQuery {
                before: first.next.clone(),
                ..RunListQuery::default()
            })
            .await
            .unwrap();
        assert_eq!((ids(&rest), rest.next), (vec!["run_a".to_owned()], None));
        let bad = RunListQuery {
            limit: Some(0),
            ..RunListQuery::default()
        };
        assert!(matches!(
            runs.list_runs(&bad).await,
            Err(StoreError::Invalid { .. })
        ));
        let unknown = RunId::parse("run_x").unwrap();
        assert!(matches!(
            runs.list_invocations(&unknown).await,
            Err(StoreError::NotFound(_))
        ));
        assert_eq!(runs.list_invocations(&a.id).await.unwrap(), []);
    }
}
