//! Inclusion groups: of the candidates of one pass that share a group, at most one stays.
//!
//! Runs after the candidates are sorted and before probability and budget. Every
//! comma-separated name in an entry's `group` is its own group; groups are visited in
//! JavaScript object order (names that are array indexes first, ascending, then first
//! appearance), which matters because each weighted draw takes the next random number.
//! 1. A group with sticky members keeps only them; members whose cooldown or delay is running
//!    are dropped. A group with sticky members is then done.
//! 2. Group scoring (global setting, or any member's `useGroupScoring`): each member scores
//!    the number of its primary keys found, plus its secondary keys found for AND ANY, or plus
//!    them for AND ALL only when all are found; scored members below the best score are
//!    dropped. Scoring matches the keys as written, without macro expansion or trimming, as
//!    SillyTavern does.
//! 3. If an entry activated in an earlier pass has exactly this `group` text, every member is
//!    dropped.
//! 4. One member left: it stays.
//! 5. Members with `groupOverride`: the one with the highest `order` (first on ties) stays.
//! 6. Otherwise a weighted draw: `random × Σ groupWeight`, walking the members and their
//!    cumulative weights; the first member whose cumulative weight reaches the roll stays. No
//!    winner (all weights zero or negative) leaves the group as it is.
//!
//! Dropped entries are only dropped for this pass. An entry dropped by one group stays
//! dropped even if it would win another (SillyTavern's list removal then also drops whichever
//! candidate happens to be last; that slip is not reproduced).

use std::cmp::Ordering;

use super::engines::Chance;
use super::entry::{SelectiveLogic, WorldEntry};
use super::explain::GroupRule;
use super::scan_entry::ScanEntry;
use super::timed::TimedEffects;
use crate::json::js::array_index;

/// A candidate dropped by a group, with the group and the rule.
pub(super) struct GroupLoss {
    pub index: usize,
    pub group: String,
    pub rule: GroupRule,
}

/// What the group filter needs from the scan.
pub(super) struct GroupFilter<'s, 'c> {
    pub entries: &'s [ScanEntry],
    pub timed: &'s TimedEffects,
    /// The raw `group` text of every entry activated in an earlier pass.
    pub activated_groups: Vec<&'s str>,
    pub use_group_scoring: bool,
    /// The group score of an entry in this pass.
    pub score: &'c mut dyn FnMut(&ScanEntry) -> usize,
    pub chance: &'c mut dyn Chance,
}

impl GroupFilter<'_, '_> {
    /// The losers among `candidates` (indexes into the scan list, in candidate order).
    pub(super) fn apply(mut self, candidates: &[usize]) -> Vec<GroupLoss> {
        let mut groups = self.groups(candidates);
        let mut losses: Vec<GroupLoss> = Vec::new();
        let mut drop = |index: usize, group: &str, rule: GroupRule| {
            if !losses.iter().any(|l| l.index == index) {
                losses.push(GroupLoss {
                    index,
                    group: group.to_owned(),
                    rule,
                });
            }
        };

        let mut has_sticky = Vec::with_capacity(groups.len());
        for (name, members) in &groups {
            let sticky = members
                .iter()
                .any(|&i| self.timed.is_sticky(&self.entries[i]));
            for &i in members {
                let entry = &self.entries[i];
                if sticky && !self.timed.is_sticky(entry) {
                    drop(i, name, GroupRule::Sticky);
                }
                if self.timed.is_cooldown(entry) || self.timed.is_delayed(entry) {
                    drop(i, name, GroupRule::TimedEffect);
                }
            }
            has_sticky.push(sticky);
        }

        for ((name, members), &sticky) in groups.iter_mut().zip(&has_sticky) {
            if sticky || !self.scoring_applies(members) {
                continue;
            }
            let scores: Vec<usize> = members
                .iter()
                .map(|&i| (self.score)(&self.entries[i]))
                .collect();
            let best = scores.iter().copied().max().unwrap_or(0);
            let mut kept = Vec::with_capacity(members.len());
            for (&i, &score) in members.iter().zip(&scores) {
                let scored = self.entries[i]
                    .entry
                    .use_group_scoring
                    .unwrap_or(self.use_group_scoring);
                if scored && score < best {
                    drop(i, name, GroupRule::Score);
                } else {
                    kept.push(i);
                }
            }
            *members = kept;
        }

        for ((name, members), &sticky) in groups.iter().zip(&has_sticky) {
            if sticky {
                continue;
            }
            if self.activated_groups.iter().any(|g| g == name) {
                for &i in members {
                    drop(i, name, GroupRule::AlreadyActivated);
                }
                continue;
            }
            if members.len() <= 1 {
                continue;
            }
            let (winner, rule) = match self.override_winner(members) {
                Some(winner) => (winner, GroupRule::Override),
                None => match self.weighted_winner(members) {
                    Some(winner) => (winner, GroupRule::Weighted),
                    None => continue,
                },
            };
            for &i in members.iter().filter(|&&i| i != winner) {
                drop(i, name, rule);
            }
        }

        losses
    }

    /// Each group name with its members in candidate order, in JavaScript object order.
    fn groups(&self, candidates: &[usize]) -> Vec<(String, Vec<usize>)> {
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        for &i in candidates {
            for name in self.entries[i].entry.group_names() {
                match groups.iter_mut().find(|(g, _)| g == name) {
                    Some((_, members)) => members.push(i),
                    None => groups.push((name.to_owned(), vec![i])),
                }
            }
        }
        groups.sort_by_key(|(name, _)| array_index(name).map_or((1, 0), |n| (0, n)));
        groups
    }

    fn scoring_applies(&self, members: &[usize]) -> bool {
        self.use_group_scoring
            || members
                .iter()
                .any(|&i| self.entries[i].entry.use_group_scoring == Some(true))
    }

    fn override_winner(&self, members: &[usize]) -> Option<usize> {
        let mut overriding: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&i| self.entries[i].entry.group_override)
            .collect();
        overriding.sort_by(|&a, &b| {
            let (a, b) = (&self.entries[a].entry, &self.entries[b].entry);
            b.order.partial_cmp(&a.order).unwrap_or(Ordering::Equal)
        });
        overriding.first().copied()
    }

    fn weighted_winner(&mut self, members: &[usize]) -> Option<usize> {
        let weight = |i: usize| self.entries[i].entry.group_weight;
        let total: f64 = members.iter().map(|&i| weight(i)).sum();
        let roll = self.chance.next_unit() * total;
        let mut cumulative = 0.0;
        members.iter().copied().find(|&i| {
            cumulative += weight(i);
            roll <= cumulative
        })
    }
}

/// How many of `entry`'s keys match, for group scoring (see the module documentation);
/// `matches` tests one key as written.
pub(super) fn group_score(entry: &WorldEntry, mut matches: impl FnMut(&str) -> bool) -> usize {
    if entry.keys.is_empty() {
        return 0;
    }
    let primary = entry.keys.iter().filter(|k| matches(k)).count();
    let secondary = entry.secondary_keys.iter().filter(|k| matches(k)).count();
    if entry.secondary_keys.is_empty() {
        return primary;
    }
    match entry.selective_logic {
        SelectiveLogic::AndAny => primary + secondary,
        SelectiveLogic::AndAll if secondary == entry.secondary_keys.len() => primary + secondary,
        _ => primary,
    }
}
