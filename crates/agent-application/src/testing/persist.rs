//! An in-memory [`PersistentStateStore`] that keeps the lineage of states, not their files:
//! a run's base must be a state promoted before (`NotFound` otherwise), a run promotes one
//! state named after itself (`AlreadyExists` the second time), and the snapshot and the
//! changes it reports are empty. Planned [`Faults`] make a promotion fail, matched on the
//! run.

use std::sync::Mutex;

use agent_domain::run::{AgentRun, RunId, StateId};
use async_trait::async_trait;

use super::Faults;
use crate::ports::{PersistError, PersistSnapshot, PersistentStateStore, PromotedState};

/// Persistent states, in memory.
#[derive(Debug, Default)]
pub struct MemoryPersist {
    /// Every promoted state, with the base it was built on.
    states: Mutex<Vec<(StateId, Option<StateId>)>>,
    faults: Faults<RunId, PersistError>,
}

impl MemoryPersist {
    pub fn new() -> Self {
        Self::default()
    }

    fn with_states<T>(&self, f: impl FnOnce(&mut Vec<(StateId, Option<StateId>)>) -> T) -> T {
        f(&mut self.states.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Failures planned for promotions, matched on the promoting run.
    pub fn faults(&self) -> &Faults<RunId, PersistError> {
        &self.faults
    }

    /// The promoted states, oldest first, each with its base.
    pub fn states(&self) -> Vec<(StateId, Option<StateId>)> {
        self.with_states(|states| states.clone())
    }
}

#[async_trait]
impl PersistentStateStore for MemoryPersist {
    async fn project_base(&self, run: &AgentRun) -> Result<PersistSnapshot, PersistError> {
        if let Some(base) = &run.persist_base_state_id
            && !self.with_states(|states| states.iter().any(|(id, _)| id == base))
        {
            return Err(PersistError::NotFound(base.to_string()));
        }
        Ok(PersistSnapshot {
            base_state_id: run.persist_base_state_id.clone(),
            files: Vec::new(),
        })
    }

    async fn promote(
        &self,
        run: &AgentRun,
        _created_at: &str,
    ) -> Result<PromotedState, PersistError> {
        self.faults.check(&run.id)?;
        let state_id = StateId::of_run(&run.id);
        let base_state_id = run.persist_base_state_id.clone();
        self.with_states(|states| {
            if states.iter().any(|(id, _)| *id == state_id) {
                return Err(PersistError::AlreadyExists(state_id.to_string()));
            }
            states.push((state_id.clone(), base_state_id.clone()));
            Ok(())
        })?;
        Ok(PromotedState {
            state_id,
            base_state_id,
            changes: Vec::new(),
            browsable_copy_error: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use agent_domain::event::{ChatRef, Presentation, RunStatus};
    use agent_domain::run::{GenerationType, WorkspaceId};

    use super::*;

    fn run(id: &str, base: Option<&StateId>) -> AgentRun {
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
            persist_base_state_id: base.cloned(),
            input_message_count: None,
            presentation: Presentation::Foreground,
            status: RunStatus::Finishing,
            created_at: "t".into(),
            updated_at: "t".into(),
        }
    }

    #[tokio::test]
    async fn states_chain_from_promoted_bases() {
        let persist = MemoryPersist::new();
        let first = run("run_a", None);
        assert_eq!(
            persist.project_base(&first).await.unwrap().base_state_id,
            None
        );
        persist
            .faults()
            .fail_first(|_| true, PersistError::Io("disk full".into()));
        assert!(persist.promote(&first, "t").await.is_err());
        let promoted = persist.promote(&first, "t").await.unwrap();
        assert_eq!(promoted.state_id, StateId::of_run(&first.id));
        assert!(matches!(
            persist.promote(&first, "t").await,
            Err(PersistError::AlreadyExists(_))
        ));

        let second = run("run_b", Some(&promoted.state_id));
        let snapshot = persist.project_base(&second).await.unwrap();
        assert_eq!(snapshot.base_state_id, Some(promoted.state_id.clone()));
        let orphan = run("run_c", Some(&StateId::of_run(&second.id)));
        assert!(matches!(
            persist.project_base(&orphan).await,
            Err(PersistError::NotFound(_))
        ));
        persist.promote(&second, "t").await.unwrap();
        assert_eq!(persist.states()[1].1, Some(promoted.state_id));
    }
}
