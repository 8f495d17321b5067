//! World info (lorebooks): SillyTavern's activation algorithm as a pure engine.
//!
//! A generation scans the recent chat for the keys of lorebook entries; the entries that fire
//! are placed into the prompt. This module reproduces SillyTavern's rules closely enough that
//! the same books, settings and chat activate the same entries in the same order, and that
//! sticky/cooldown state saved by SillyTavern keeps working. Guide: `docs/worldinfo.md`.
//!
//! Nothing here reads files or draws randomness: the caller loads books and settings, and
//! hands in the engines a scan needs (a JavaScript regex engine, a tokenizer, a random
//! source, a macro expander; see [`ScanEngines`]). `agent-text` implements the first two.
//!
//! Usage, in order:
//! 1. Read the settings with [`WorldInfoSettings::from_settings_json`] and the max prompt
//!    tokens with [`max_prompt_tokens`], both from the `settings.json` value.
//! 2. Decide the books with [`select_books`] from the global selection, the available book
//!    names, the card's linked world, its extra books
//!    ([`WorldInfoSettings::extra_books_for`] with the card's avatar stem), the chat's book
//!    and the persona's book; load each named file with [`WorldBook::parse`].
//! 3. Build the scan list with [`collect_entries`] and the character strategy.
//! 4. Describe the generation in a [`ScanInput`] (messages oldest first, trigger, character,
//!    max prompt tokens, `chat_metadata.timedWorldInfo`) and call [`activate`].
//! 5. From the [`WorldInfoActivation`]: put [`WorldInfoActivation::placement`] into the
//!    prompt, save [`WorldInfoActivation::timed_state`] back into the chat metadata, show
//!    `activated`/`skipped` to explain the result, and record
//!    [`WorldInfoActivation::to_read_activated_json`] in the run's prompt snapshot.

mod activation;
mod book;
mod buffer;
mod decorators;
mod engines;
mod entry;
mod error;
mod explain;
mod groups;
mod hash;
mod input;
mod matching;
mod ordering;
mod placement;
mod scan;
mod scan_entry;
mod settings;
mod sources;
mod timed;

#[cfg(test)]
mod tests;

pub use activation::{ActivatedEntry, SkippedEntry, WorldInfoActivation};
pub use book::WorldBook;
pub use buffer::MAX_SCAN_DEPTH;
pub use decorators::{ACTIVATE, DONT_ACTIVATE, parse_decorators};
pub use engines::{Chance, FixedChance, KeyRegex, KeyRegexEngine, TokenCounter};
pub use entry::{
    CharacterFilter, DEFAULT_DEPTH, DEFAULT_GROUP_WEIGHT, DEFAULT_ORDER, EntryPosition,
    MatchSources, PromptRole, SelectiveLogic, WorldEntry,
};
pub use error::WorldInfoError;
pub use explain::{ActivationCause, GroupRule, ScanPhase, SecondaryMatch, SkipReason};
pub use hash::cyrb53;
pub use input::{
    CharacterContext, EntryRef, GenerationTrigger, GlobalScanData, ScanInput, ScanMessage,
};
pub use ordering::collect_entries;
pub use placement::{DepthInjection, Outlet, WorldInfoPlacement};
pub use scan::{ScanEngines, activate};
pub use scan_entry::ScanEntry;
pub use settings::{
    CharLore, CharacterStrategy, DEFAULT_BUDGET_PERCENT, DEFAULT_SCAN_DEPTH, WorldInfoSettings,
    max_prompt_tokens,
};
pub use sources::{BookSelection, BookSources, select_books};
pub use timed::timed_state_for_chat;
