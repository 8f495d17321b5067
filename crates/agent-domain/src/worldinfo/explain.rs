//! Why an entry fired or did not: the explanation a scan records as data, for commands that
//! show a prompt build.

use serde::Serialize;

use super::entry::SelectiveLogic;

/// The kind of scan pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ScanPhase {
    /// The first pass, over the chat.
    Initial,
    /// A pass over the content activated so far (or the next delay-until-recursion level).
    Recursion,
    /// A pass one message deeper, looking for more entries to reach the minimum activations.
    MinActivations,
}

/// Why an entry became a candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
#[non_exhaustive]
pub enum ActivationCause {
    /// Its content carried `@@activate`.
    Decorator,
    /// It was forced from outside ([`super::ScanInput::forced`]).
    Forced,
    /// It is `constant`.
    Constant,
    /// A sticky effect from an earlier generation is still running.
    Sticky,
    /// Keys matched.
    #[serde(rename_all = "camelCase")]
    Keys {
        /// The first primary key that matched, as written in the entry.
        primary: String,
        /// The secondary-key check, when the entry is selective and has secondary keys.
        #[serde(skip_serializing_if = "Option::is_none")]
        secondary: Option<SecondaryMatch>,
    },
}

/// The secondary keys looked at, in order, until the logic was decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SecondaryMatch {
    pub logic: SelectiveLogic,
    /// Secondary keys that matched, as written in the entry.
    pub matched: Vec<String>,
    /// Secondary keys that did not match.
    pub unmatched: Vec<String>,
}

/// Why an entry that was considered did not activate (the reason from the last pass that
/// looked at it).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
#[non_exhaustive]
pub enum SkipReason {
    /// `disable` is set.
    Disabled,
    /// `triggers` does not list this generation's trigger.
    Trigger,
    /// The character filter's names rule this character out.
    CharacterName,
    /// The character filter's tags rule this character out.
    CharacterTag,
    /// A delay is running: the chat is shorter than the entry's `delay`.
    Delay,
    /// A cooldown is running.
    Cooldown,
    /// `delayUntilRecursion`: not in a recursion pass yet, or not at its level yet.
    #[serde(rename_all = "camelCase")]
    DelayUntilRecursion { level: u32 },
    /// `excludeRecursion` in a recursion pass.
    ExcludeRecursion,
    /// Its content carried `@@dont_activate`.
    DontActivate,
    /// It has no primary keys (and nothing else activated it).
    NoKeys,
    /// No primary key matched.
    NoKeyMatch,
    /// A primary key matched but the secondary keys did not satisfy the logic.
    #[serde(rename_all = "camelCase")]
    SecondaryLogic {
        primary: String,
        secondary: SecondaryMatch,
    },
    /// Another member of an inclusion group was kept.
    #[serde(rename_all = "camelCase")]
    GroupLoser { group: String, rule: GroupRule },
    /// The probability roll failed; final for this scan.
    #[serde(rename_all = "camelCase")]
    Probability { probability: f64, roll: f64 },
    /// The token budget was full.
    Budget,
}

/// The inclusion-group rule that dropped an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum GroupRule {
    /// The group has sticky members; only they stay.
    Sticky,
    /// The entry's cooldown or delay is running.
    TimedEffect,
    /// Group scoring: another member matched more keys.
    Score,
    /// A member of this group activated in an earlier pass.
    AlreadyActivated,
    /// Another member has `groupOverride` and a higher `order`.
    Override,
    /// The weighted draw picked another member.
    Weighted,
}
