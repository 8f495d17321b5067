//! What one run has used of the script: a cursor per list, the attempt count, and every
//! tool call id issued so far.
//!
//! Kept per run so one [`ScriptedModel`](super::ScriptedModel) can serve many runs, each
//! reading its lists from the start.

use std::collections::{HashMap, HashSet};

use super::script::ListKey;

#[derive(Debug, Default)]
pub(crate) struct RunState {
    cursors: HashMap<ListKey, usize>,
    attempts: u64,
    tool_calls: u64,
    call_ids: HashSet<String>,
}

/// A turn taken from a list: where it was and which attempt of the run it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TakenTurn {
    /// 0-based index in its list, as the script's error paths count.
    pub index: usize,
    /// 1-based count of turns this run has taken from all lists.
    pub attempt: u64,
}

impl RunState {
    /// Takes the next of `turns`, the turns of `list`; `None` once the list ran out (a
    /// call that finds it exhausted takes nothing, so it stays exhausted).
    pub fn take_turn<'t, T>(
        &mut self,
        list: &ListKey,
        turns: &'t [T],
    ) -> Option<(TakenTurn, &'t T)> {
        let cursor = self.cursors.entry(list.clone()).or_default();
        let turn = turns.get(*cursor)?;
        let index = *cursor;
        *cursor += 1;
        self.attempts += 1;
        Some((
            TakenTurn {
                index,
                attempt: self.attempts,
            },
            turn,
        ))
    }

    /// The ids a response with these calls gets: each explicit id as written, each missing
    /// one `call_<n>` where `n` is the call's 1-based position among all tool calls of the
    /// run. Explicit ids advance `n` too, so a default id depends only on the call's
    /// position, whatever ids the script spells out. Nothing is recorded until
    /// [`issue`](Self::issue).
    pub fn plan_call_ids<'a>(
        &self,
        explicit: impl IntoIterator<Item = Option<&'a str>>,
    ) -> Vec<String> {
        explicit
            .into_iter()
            .zip(self.tool_calls + 1..)
            .map(|(id, n)| id.map_or_else(|| format!("call_{n}"), str::to_owned))
            .collect()
    }

    /// Whether `id` was issued in an earlier response of this run.
    pub fn was_issued(&self, id: &str) -> bool {
        self.call_ids.contains(id)
    }

    /// Records the ids of a response the run receives. A response that fails is never
    /// issued, so its ids and numbers stay free.
    pub fn issue(&mut self, ids: Vec<String>) {
        self.tool_calls += ids.len() as u64;
        self.call_ids.extend(ids);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn cursors_are_per_list_and_attempts_per_run() {
        let mut state = RunState::default();
        let agent = ListKey::Agent("reviewer".into());
        let turns = ["t0", "t1"];
        let reviews = ["r0"];
        let taken = |index, attempt, turn| Some((TakenTurn { index, attempt }, turn));
        assert_eq!(state.take_turn(&ListKey::Turns, &turns), taken(0, 1, &"t0"));
        assert_eq!(state.take_turn(&agent, &reviews), taken(0, 2, &"r0"));
        assert_eq!(state.take_turn(&ListKey::Turns, &turns), taken(1, 3, &"t1"));
        assert_eq!(state.take_turn(&ListKey::Turns, &turns), None);
        assert_eq!(state.take_turn(&agent, &reviews), None);
        assert_eq!(state.take_turn(&ListKey::Turns, &turns), None);
    }

    #[test]
    fn default_ids_count_every_issued_call() {
        let mut state = RunState::default();
        let first = state.plan_call_ids([None, Some("mine"), None]);
        assert_eq!(first, ["call_1", "mine", "call_3"]);
        // Planning twice without issuing gives the same ids.
        assert_eq!(state.plan_call_ids([None]), ["call_1"]);
        state.issue(first);
        assert!(state.was_issued("mine"));
        assert!(!state.was_issued("call_2"));
        assert_eq!(state.plan_call_ids([None, None]), ["call_4", "call_5"]);
    }
}
