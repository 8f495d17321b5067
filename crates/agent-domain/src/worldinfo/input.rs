//! [`ScanInput`]: everything about the generation a scan reads besides the entries and the
//! settings.

use serde_json::Value;

/// One chat message as the scan sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanMessage {
    /// The speaker's name, prefixed as `Name: ` when names are included.
    pub name: String,
    /// The message text (after whatever the prompt builder already applied to it).
    pub text: String,
}

impl ScanMessage {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            text: text.into(),
        }
    }
}

/// Texts besides the chat that entries may opt into scanning (their `match*` flags).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GlobalScanData {
    pub persona_description: String,
    pub character_description: String,
    pub character_personality: String,
    /// The character's depth prompt (creator's note).
    pub character_depth_prompt: String,
    pub scenario: String,
    pub creator_notes: String,
}

/// The kind of generation, which entries may be limited to (`triggers`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum GenerationTrigger {
    #[default]
    Normal,
    Continue,
    Impersonate,
    Swipe,
    Regenerate,
    Quiet,
}

impl GenerationTrigger {
    /// The trigger of a SillyTavern generation type; any type that is not one of the six
    /// triggers counts as `normal`.
    pub fn from_generation_type(generation_type: &str) -> Self {
        match generation_type {
            "continue" => Self::Continue,
            "impersonate" => Self::Impersonate,
            "swipe" => Self::Swipe,
            "regenerate" => Self::Regenerate,
            "quiet" => Self::Quiet,
            _ => Self::Normal,
        }
    }

    /// The name entries list in `triggers`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Normal => "normal",
            Self::Continue => "continue",
            Self::Impersonate => "impersonate",
            Self::Swipe => "swipe",
            Self::Regenerate => "regenerate",
            Self::Quiet => "quiet",
        }
    }
}

/// The character being generated for, as character filters see it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CharacterContext {
    /// The card's avatar file name without extension (`Seraphina` for `Seraphina.png`);
    /// `None` when no character is selected. In a group chat, the member generating.
    pub avatar_stem: Option<String>,
    /// The card's tag ids (`tag_map[<avatar>]`); `None` when the card has no tag-map record,
    /// in which case tag filters are not applied at all.
    pub tags: Option<Vec<String>>,
}

/// An entry named by its book and uid.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EntryRef {
    pub world: String,
    pub uid: i64,
}

/// The generation a scan is for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScanInput {
    /// The chat messages the prompt will hold, oldest first: hidden (system) messages already
    /// left out, and on a swipe the message being replaced too. Their count is the chat
    /// length timed effects measure.
    pub messages: Vec<ScanMessage>,
    /// Texts entries can opt into scanning.
    pub scan_data: GlobalScanData,
    /// Prompt texts registered for scanning (the Author's Note when its "allow WI scan" is on,
    /// …). Always part of every entry's haystack; empty strings are ignored.
    pub injections: Vec<String>,
    pub trigger: GenerationTrigger,
    pub character: CharacterContext,
    /// The max prompt tokens the budget is a percentage of (see `max_prompt_tokens`). Leaving
    /// it 0 makes the budget 1 token, which nothing but `ignoreBudget` entries fits.
    pub max_prompt_tokens: u32,
    /// `chat_metadata.timedWorldInfo` as stored; `None` when the chat has none.
    pub timed_state: Option<Value>,
    /// A dry run (a preview) neither reads nor writes sticky and cooldown records; delays
    /// still apply.
    pub dry_run: bool,
    /// Entries activated from outside, whatever their keys say (SillyTavern's
    /// `WORLDINFO_FORCE_ACTIVATE`).
    pub forced: Vec<EntryRef>,
}
