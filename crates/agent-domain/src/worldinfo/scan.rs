//! [`activate`]: the scan loop that decides which entries fire.
//!
//! A scan makes passes over the scan list until nothing asks for another. In each pass every
//! entry not yet activated (and not failed on probability) is checked, in this order; the
//! first rule that decides wins:
//! 1. `disable` → skipped.
//! 2. `triggers` set and not listing this generation's trigger → skipped.
//! 3. Character filter names: an include list without this character, or an exclude list
//!    with it → skipped. Then tags, the same way, but only when the character has tags.
//! 4. A running delay → skipped; a running cooldown, unless also sticky → skipped.
//! 5. `delayUntilRecursion` outside a recursion pass, or above the current level in one,
//!    unless sticky → skipped. `excludeRecursion` in a recursion pass, with recursion on,
//!    unless sticky → skipped.
//! 6. `@@activate` → candidate; `@@dont_activate` → skipped.
//! 7. Forced, `constant`, or a running sticky effect → candidate.
//! 8. No primary keys → skipped. Otherwise each key is macro-expanded (an empty result is
//!    skipped), trimmed and matched against the entry's haystack; none matching → skipped.
//! 9. When `selective` with secondary keys, the logic decides (AND ANY: one matches; NOT ALL:
//!    one does not; NOT ANY: none does; AND ALL: all do); otherwise the primary match is
//!    enough.
//!
//! The pass's candidates are sorted sticky first, then by scan-list position, filtered by
//! inclusion groups, and then taken one by one:
//! * once the budget has overflowed, an entry without `ignoreBudget` is dropped, and when no
//!   `ignoreBudget` candidate is left the pass stops;
//! * probability: entries with `useProbability`, a probability other than 100 and no sticky
//!   effect roll `random × 100 <= probability`; a failure is final for the scan;
//! * the content is macro-expanded (once per scan) and appended, with a newline, to this
//!   pass's text; unless the entry ignores the budget, when the tokens of the earlier passes'
//!   recursion text plus this pass's text reach the budget (`>=`), the budget has overflowed
//!   and the entry is dropped;
//! * otherwise it activates.
//!
//! The next pass is a recursion pass when recursion is on, the budget has not overflowed and
//! some candidate of this pass (budget losers included) passed its roll and lacks
//! `preventRecursion`; also after a min-activations pass that left recursion text. Failing
//! that, when fewer than `min_activations` entries are active and the budget has not
//! overflowed, a min-activations pass scans one message deeper, unless the depth already
//! exceeds `min_activations_depth_max` (when set) or the chat length. Failing that, a
//! remaining delay-until-recursion level (levels go up one by one from the lowest) starts a
//! recursion pass at that level, even with recursion off. `max_recursion_steps` caps the
//! number of passes. Before a further pass, the content of this pass's recursion candidates
//! joined with newlines becomes recursion text: it is added to every later haystack (except
//! in min-activations passes) and to the text whose tokens count against the budget.

use std::collections::{HashMap, HashSet};
use std::fmt;

use super::activation::{ActivatedEntry, SkippedEntry, WorldInfoActivation};
use super::buffer::ScanBuffer;
use super::decorators::{ACTIVATE, DONT_ACTIVATE};
use super::engines::{Chance, KeyRegexEngine, TokenCounter};
use super::entry::SelectiveLogic;
use super::explain::{ActivationCause, ScanPhase, SecondaryMatch, SkipReason};
use super::groups::{GroupFilter, group_score};
use super::input::ScanInput;
use super::matching::KeyMatcher;
use super::placement::WorldInfoPlacement;
use super::scan_entry::ScanEntry;
use super::settings::WorldInfoSettings;
use super::timed::TimedEffects;
use crate::json::js::js_trim;

/// The outside services a scan uses.
pub struct ScanEngines<'a> {
    /// Compiles regex keys.
    pub regex: &'a dyn KeyRegexEngine,
    /// Counts tokens for the budget.
    pub tokens: &'a dyn TokenCounter,
    /// Draws for probability and inclusion-group lotteries.
    pub chance: &'a mut dyn Chance,
    /// Expands macros (`{{char}}`, `{{user}}`, …) in keys and content.
    pub macros: &'a dyn Fn(&str) -> String,
}

impl fmt::Debug for ScanEngines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScanEngines").finish_non_exhaustive()
    }
}

/// Scans `entries` (the scan list from `collect_entries`) for the generation `input`
/// describes and returns what fired, why, where it goes and the timed-effect state to save.
pub fn activate(
    entries: &[ScanEntry],
    settings: &WorldInfoSettings,
    input: &ScanInput,
    engines: &mut ScanEngines<'_>,
) -> WorldInfoActivation {
    let chat_length = input.messages.len();
    let mut scan = Scan {
        entries,
        settings,
        input,
        buffer: ScanBuffer::new(input, settings.depth, settings.include_names),
        matcher: KeyMatcher::new(
            engines.regex,
            settings.case_sensitive,
            settings.match_whole_words,
        ),
        timed: TimedEffects::check(
            input.timed_state.as_ref(),
            entries,
            chat_length,
            input.dry_run,
        ),
        macros: engines.macros,
        tokens: engines.tokens,
        budget: settings.token_budget(input.max_prompt_tokens),
        overflowed: false,
        activated: Vec::new(),
        activated_keys: HashSet::new(),
        failed_probability: HashSet::new(),
        expanded: HashMap::new(),
        skipped: HashMap::new(),
        recursion_text: String::new(),
        level: 0,
    };
    let passes = scan.run(engines.chance);
    scan.finish(passes)
}

/// An activation in progress.
struct Activation {
    index: usize,
    cause: ActivationCause,
    pass: u32,
    phase: ScanPhase,
}

/// The state of one scan.
struct Scan<'s, 'e> {
    entries: &'s [ScanEntry],
    settings: &'s WorldInfoSettings,
    input: &'s ScanInput,
    buffer: ScanBuffer<'s>,
    matcher: KeyMatcher<'e>,
    timed: TimedEffects,
    macros: &'e dyn Fn(&str) -> String,
    tokens: &'e dyn TokenCounter,
    budget: u32,
    overflowed: bool,
    activated: Vec<Activation>,
    activated_keys: HashSet<String>,
    failed_probability: HashSet<usize>,
    /// Macro-expanded content, by scan-list index.
    expanded: HashMap<usize, String>,
    /// The latest reason each entry was not activated, with its pass.
    skipped: HashMap<usize, (SkipReason, u32)>,
    /// The recursion text so far, newest first: what counts against the budget.
    recursion_text: String,
    /// The current delay-until-recursion level.
    level: u32,
}

impl Scan<'_, '_> {
    /// Runs the passes; returns how many ran.
    fn run(&mut self, chance: &mut dyn Chance) -> u32 {
        let mut levels: Vec<u32> = self
            .entries
            .iter()
            .map(|e| e.entry.delay_until_recursion)
            .filter(|&level| level > 0)
            .collect();
        levels.sort_unstable();
        levels.dedup();
        let mut levels = levels.into_iter();
        self.level = levels.next().unwrap_or(0);

        let mut phase = Some(ScanPhase::Initial);
        let mut pass: u32 = 0;
        while let Some(current) = phase {
            let max_steps = self.settings.max_recursion_steps;
            if max_steps != 0 && max_steps <= i64::from(pass) {
                break;
            }
            pass += 1;
            let candidates = self.pass_candidates(current, pass, chance);
            let for_recursion: Vec<usize> = candidates
                .into_iter()
                .filter(|i| !self.failed_probability.contains(i))
                .filter(|&i| !self.entries[i].entry.prevent_recursion)
                .collect();
            phase = self.next_phase(current, !for_recursion.is_empty());
            if phase.is_none()
                && let Some(level) = levels.next()
            {
                self.level = level;
                phase = Some(ScanPhase::Recursion);
            }
            if phase.is_some() {
                self.add_recursion_text(&for_recursion);
            }
        }
        pass
    }

    /// One pass: finds the candidates, filters them by group, rolls and budgets them.
    /// Returns the candidates that survived the groups, in order.
    fn pass_candidates(
        &mut self,
        phase: ScanPhase,
        pass: u32,
        chance: &mut dyn Chance,
    ) -> Vec<usize> {
        let entries = self.entries;
        let mut candidates: Vec<(usize, ActivationCause)> = Vec::new();
        for index in 0..entries.len() {
            match self.evaluate(index, phase) {
                Some(Ok(cause)) => candidates.push((index, cause)),
                Some(Err(reason)) => {
                    self.skipped.insert(index, (reason, pass));
                }
                None => {}
            }
        }
        // Stable: sticky first, then scan-list order.
        candidates.sort_by_key(|(i, _)| !self.timed.is_sticky(&entries[*i]));
        let losers = self.group_losers(&candidates, phase, pass, chance);
        candidates.retain(|(i, _)| !losers.contains(i));

        let tokens_before = self.tokens.count_tokens(&self.recursion_text);
        let mut ignoring_left = candidates
            .iter()
            .filter(|(i, _)| entries[*i].entry.ignore_budget)
            .count();
        let mut pass_text = String::new();
        for (position, (index, cause)) in candidates.iter().enumerate() {
            let (index, entry) = (*index, &entries[*index].entry);
            if entry.ignore_budget {
                ignoring_left -= 1;
            }
            if self.overflowed && !entry.ignore_budget {
                if ignoring_left > 0 {
                    self.skipped.insert(index, (SkipReason::Budget, pass));
                    continue;
                }
                for (rest, _) in &candidates[position..] {
                    self.skipped.insert(*rest, (SkipReason::Budget, pass));
                }
                break;
            }
            if let Some(reason) = self.roll_probability(index, chance) {
                self.failed_probability.insert(index);
                self.skipped.insert(index, (reason, pass));
                continue;
            }
            pass_text.push_str(self.expanded_content(index));
            pass_text.push('\n');
            let tokens = tokens_before + self.tokens.count_tokens(&pass_text);
            if !entry.ignore_budget && tokens >= self.budget as usize {
                self.overflowed = true;
                self.skipped.insert(index, (SkipReason::Budget, pass));
                continue;
            }
            self.activated_keys.insert(entries[index].key());
            self.skipped.remove(&index);
            self.activated.push(Activation {
                index,
                cause: cause.clone(),
                pass,
                phase,
            });
        }
        candidates.into_iter().map(|(i, _)| i).collect()
    }

    /// The rules of one entry in one pass: `None` when the entry is not considered (already
    /// activated, or failed its roll earlier), else its cause or why it is skipped.
    fn evaluate(
        &mut self,
        index: usize,
        phase: ScanPhase,
    ) -> Option<Result<ActivationCause, SkipReason>> {
        let scan_entry = &self.entries[index];
        let entry = &scan_entry.entry;
        if self.failed_probability.contains(&index)
            || self.activated_keys.contains(&scan_entry.key())
        {
            return None;
        }
        let input = self.input;
        let skip = |reason| Some(Err(reason));
        if entry.disable {
            return skip(SkipReason::Disabled);
        }
        if !entry.triggers.is_empty() && !entry.triggers.iter().any(|t| t == input.trigger.as_str())
        {
            return skip(SkipReason::Trigger);
        }
        if let Some(filter) = &entry.character_filter {
            let character = &input.character;
            if !filter.names.is_empty() {
                let listed = character
                    .avatar_stem
                    .as_ref()
                    .is_some_and(|stem| filter.names.contains(stem));
                if listed == filter.is_exclude {
                    return skip(SkipReason::CharacterName);
                }
            }
            if let (false, Some(tags)) = (filter.tags.is_empty(), &character.tags) {
                let tagged = tags.iter().any(|tag| filter.tags.contains(tag));
                if tagged == filter.is_exclude {
                    return skip(SkipReason::CharacterTag);
                }
            }
        }
        let sticky = self.timed.is_sticky(scan_entry);
        if self.timed.is_delayed(scan_entry) {
            return skip(SkipReason::Delay);
        }
        if self.timed.is_cooldown(scan_entry) && !sticky {
            return skip(SkipReason::Cooldown);
        }
        let level = entry.delay_until_recursion;
        let recursion = phase == ScanPhase::Recursion;
        if level > 0 && !sticky && (!recursion || level > self.level) {
            return skip(SkipReason::DelayUntilRecursion { level });
        }
        if recursion && self.settings.recursive && entry.exclude_recursion && !sticky {
            return skip(SkipReason::ExcludeRecursion);
        }
        if scan_entry.has_decorator(ACTIVATE) {
            return Some(Ok(ActivationCause::Decorator));
        }
        if scan_entry.has_decorator(DONT_ACTIVATE) {
            return skip(SkipReason::DontActivate);
        }
        let forced = input
            .forced
            .iter()
            .any(|f| f.world == scan_entry.world && f.uid == entry.uid);
        if forced {
            return Some(Ok(ActivationCause::Forced));
        }
        if entry.constant {
            return Some(Ok(ActivationCause::Constant));
        }
        if sticky {
            return Some(Ok(ActivationCause::Sticky));
        }
        if entry.keys.is_empty() {
            return skip(SkipReason::NoKeys);
        }
        Some(self.match_keys(index, phase))
    }

    /// Rules 8 and 9: primary keys, then the secondary logic.
    fn match_keys(
        &mut self,
        index: usize,
        phase: ScanPhase,
    ) -> Result<ActivationCause, SkipReason> {
        let entries = self.entries;
        let entry = &entries[index].entry;
        let haystack = self.buffer.haystack(entry, phase);
        let macros = self.macros;
        let matcher = &mut self.matcher;
        let mut matches = |key: &str| {
            let expanded = macros(key);
            !expanded.is_empty() && matcher.matches(&haystack, js_trim(&expanded), entry)
        };
        let Some(primary) = entry.keys.iter().find(|key| matches(key)) else {
            return Err(SkipReason::NoKeyMatch);
        };
        let primary = primary.clone();
        if !entry.selective || entry.secondary_keys.is_empty() {
            return Ok(ActivationCause::Keys {
                primary,
                secondary: None,
            });
        }
        let logic = entry.selective_logic;
        let mut secondary = SecondaryMatch {
            logic,
            matched: Vec::new(),
            unmatched: Vec::new(),
        };
        let mut satisfied = false;
        for key in &entry.secondary_keys {
            let hit = matches(key);
            if hit {
                secondary.matched.push(key.clone());
            } else {
                secondary.unmatched.push(key.clone());
            }
            if (logic == SelectiveLogic::AndAny && hit) || (logic == SelectiveLogic::NotAll && !hit)
            {
                satisfied = true;
                break;
            }
        }
        satisfied = satisfied
            || (logic == SelectiveLogic::NotAny && secondary.matched.is_empty())
            || (logic == SelectiveLogic::AndAll && secondary.unmatched.is_empty());
        if satisfied {
            Ok(ActivationCause::Keys {
                primary,
                secondary: Some(secondary),
            })
        } else {
            Err(SkipReason::SecondaryLogic { primary, secondary })
        }
    }

    /// Applies the inclusion groups to this pass's candidates; returns the losers.
    fn group_losers(
        &mut self,
        candidates: &[(usize, ActivationCause)],
        phase: ScanPhase,
        pass: u32,
        chance: &mut dyn Chance,
    ) -> HashSet<usize> {
        let entries = self.entries;
        let buffer = &self.buffer;
        let matcher = &mut self.matcher;
        let mut score = |scan_entry: &ScanEntry| {
            let haystack = buffer.haystack(&scan_entry.entry, phase);
            group_score(&scan_entry.entry, |key| {
                matcher.matches(&haystack, key, &scan_entry.entry)
            })
        };
        let filter = GroupFilter {
            entries,
            timed: &self.timed,
            activated_groups: self
                .activated
                .iter()
                .map(|a| entries[a.index].entry.group.as_str())
                .collect(),
            use_group_scoring: self.settings.use_group_scoring,
            score: &mut score,
            chance,
        };
        let indexes: Vec<usize> = candidates.iter().map(|(i, _)| *i).collect();
        let mut losers = HashSet::new();
        for loss in filter.apply(&indexes) {
            losers.insert(loss.index);
            let reason = SkipReason::GroupLoser {
                group: loss.group,
                rule: loss.rule,
            };
            self.skipped.insert(loss.index, (reason, pass));
        }
        losers
    }

    /// The failed roll, if the entry rolls and fails.
    fn roll_probability(&self, index: usize, chance: &mut dyn Chance) -> Option<SkipReason> {
        let scan_entry = &self.entries[index];
        let entry = &scan_entry.entry;
        if !entry.use_probability || entry.probability == 100.0 || self.timed.is_sticky(scan_entry)
        {
            return None;
        }
        let roll = chance.next_unit() * 100.0;
        if roll <= entry.probability {
            return None;
        }
        Some(SkipReason::Probability {
            probability: entry.probability,
            roll,
        })
    }

    /// The content with macros expanded, expanding it on first use.
    fn expanded_content(&mut self, index: usize) -> &str {
        let (entries, macros) = (self.entries, self.macros);
        self.expanded
            .entry(index)
            .or_insert_with(|| macros(&entries[index].content))
    }

    /// What comes after a pass (before delay-until-recursion levels are considered).
    fn next_phase(
        &mut self,
        current: ScanPhase,
        has_recursion_candidates: bool,
    ) -> Option<ScanPhase> {
        let recursion_allowed = self.settings.recursive && !self.overflowed;
        if recursion_allowed && has_recursion_candidates {
            return Some(ScanPhase::Recursion);
        }
        if recursion_allowed && current == ScanPhase::MinActivations && self.buffer.has_recursion()
        {
            return Some(ScanPhase::Recursion);
        }
        let wanted = self.settings.min_activations;
        if wanted > 0 && !self.overflowed && (self.activated.len() as i64) < wanted {
            let depth = self.buffer.depth();
            let depth_max = self.settings.min_activations_depth_max;
            let too_deep =
                (depth_max > 0 && depth > depth_max) || depth > self.input.messages.len() as i64;
            if !too_deep {
                self.buffer.advance();
                return Some(ScanPhase::MinActivations);
            }
        }
        None
    }

    /// Adds the content of `indexes` as recursion text.
    fn add_recursion_text(&mut self, indexes: &[usize]) {
        let text = indexes
            .iter()
            .map(|&i| {
                self.expanded
                    .get(&i)
                    .cloned()
                    .unwrap_or_else(|| self.entries[i].content.clone())
            })
            .collect::<Vec<_>>()
            .join("\n");
        if !text.is_empty() {
            self.recursion_text = format!("{text}\n{}", self.recursion_text);
            self.buffer.add_recursion(text);
        }
    }

    /// Records the timed effects and assembles the result.
    fn finish(mut self, passes: u32) -> WorldInfoActivation {
        let entries = self.entries;
        self.timed
            .record_activations(self.activated.iter().map(|a| &entries[a.index]));
        let activated: Vec<ActivatedEntry> = self
            .activated
            .iter()
            .map(|a| {
                let scan_entry = &entries[a.index];
                let content = self.expanded.get(&a.index).cloned().unwrap_or_default();
                ActivatedEntry::new(scan_entry, content, a.cause.clone(), a.pass, a.phase)
            })
            .collect();
        let mut skipped: Vec<(usize, SkipReason, u32)> = self
            .skipped
            .into_iter()
            .map(|(i, (reason, pass))| (i, reason, pass))
            .collect();
        skipped.sort_by_key(|(i, _, _)| *i);
        WorldInfoActivation {
            placement: WorldInfoPlacement::from_activated(&activated),
            activated,
            skipped: skipped
                .into_iter()
                .map(|(i, reason, pass)| SkippedEntry::new(&entries[i], reason, pass))
                .collect(),
            budget: self.budget,
            budget_overflowed: self.overflowed,
            passes,
            timed_state: self.timed.into_state(),
        }
    }
}
