//! A scenario builder for activation tests, with fake engines.

use serde::Serialize;
use serde_json::{Value, json};

use crate::worldinfo::{
    ActivationCause, BookSelection, CharacterStrategy, FixedChance, KeyRegex, KeyRegexEngine,
    ScanEngines, ScanEntry, ScanInput, ScanMessage, ScanPhase, SkipReason, TokenCounter, WorldBook,
    WorldInfoActivation, WorldInfoPlacement, WorldInfoSettings, activate, collect_entries,
};

/// Counts whitespace-separated words: a deterministic stand-in for a tokenizer.
pub struct WordCounter;

impl TokenCounter for WordCounter {
    fn count_tokens(&self, text: &str) -> usize {
        text.split_whitespace().count()
    }
}

/// A tiny stand-in for a JavaScript regex engine. It understands a literal pattern, optionally
/// behind one lookbehind, `(?<=before)text`, and the flags `i` (ASCII case folding) and `y`
/// (anchored at the start); `g`, `m`, `s`, `u` are accepted and ignored. Any other `(` or `[`,
/// or an unknown or repeated flag, fails to compile, as a syntax error would.
pub struct FakeRegex;

struct FakeCompiled {
    behind: String,
    text: String,
    fold: bool,
    sticky: bool,
}

impl KeyRegexEngine for FakeRegex {
    fn compile(&self, pattern: &str, flags: &str) -> Option<Box<dyn KeyRegex>> {
        let mut seen = String::new();
        for flag in flags.chars() {
            if !"gimsuy".contains(flag) || seen.contains(flag) {
                return None;
            }
            seen.push(flag);
        }
        let (behind, text) = match pattern.strip_prefix("(?<=") {
            Some(rest) => rest.split_once(')')?,
            None => ("", pattern),
        };
        if text.contains(['(', '[']) || behind.contains(['(', '[']) {
            return None;
        }
        Some(Box::new(FakeCompiled {
            behind: behind.to_owned(),
            text: text.to_owned(),
            fold: flags.contains('i'),
            sticky: flags.contains('y'),
        }))
    }
}

impl KeyRegex for FakeCompiled {
    fn is_match(&self, haystack: &str) -> bool {
        let fold = |s: &str| {
            if self.fold {
                s.to_ascii_lowercase()
            } else {
                s.to_owned()
            }
        };
        let (haystack, needle) = (
            fold(haystack),
            fold(&format!("{}{}", self.behind, self.text)),
        );
        if self.sticky {
            haystack.starts_with(&needle)
        } else {
            haystack.contains(&needle)
        }
    }
}

/// `{{char}}` → Seraphina, `{{user}}` → Alex, `{{empty}}` → nothing.
pub fn expand_macros(text: &str) -> String {
    text.replace("{{char}}", "Seraphina")
        .replace("{{user}}", "Alex")
        .replace("{{empty}}", "")
}

/// A lorebook named `name` whose entries are `entries` (objects carrying their `uid`).
pub fn book(name: &str, entries: Value) -> WorldBook {
    let members: serde_json::Map<String, Value> = entries
        .as_array()
        .expect("entries are an array")
        .iter()
        .map(|e| (e["uid"].to_string(), e.clone()))
        .collect();
    let text = json!({ "entries": members }).to_string();
    WorldBook::parse(name, &text).expect("test book parses")
}

/// One scan, built up step by step.
pub struct Scenario {
    pub entries: Vec<ScanEntry>,
    pub settings: WorldInfoSettings,
    pub input: ScanInput,
    pub chance: Vec<f64>,
}

impl Scenario {
    /// A single global book `Lore`, default settings, a large token budget and no chat.
    pub fn new(entries: Value) -> Self {
        Self::with_books(&[book("Lore", entries)], &["Lore"])
    }

    /// Several global books, scanned in the order given.
    pub fn with_books(books: &[WorldBook], global: &[&str]) -> Self {
        let selection = BookSelection {
            global: global.iter().map(|s| (*s).to_owned()).collect(),
            ..BookSelection::default()
        };
        Self {
            entries: collect_entries(&selection, books, CharacterStrategy::CharacterFirst),
            settings: WorldInfoSettings::default(),
            input: ScanInput {
                max_prompt_tokens: 100_000,
                ..ScanInput::default()
            },
            chance: Vec::new(),
        }
    }

    /// The chat, oldest first, as `(name, text)`.
    pub fn chat(mut self, messages: &[(&str, &str)]) -> Self {
        self.input.messages = messages
            .iter()
            .map(|(name, text)| ScanMessage::new(*name, *text))
            .collect();
        self
    }

    pub fn settings(mut self, change: impl FnOnce(&mut WorldInfoSettings)) -> Self {
        change(&mut self.settings);
        self
    }

    pub fn input(mut self, change: impl FnOnce(&mut ScanInput)) -> Self {
        change(&mut self.input);
        self
    }

    /// The random numbers probability rolls and group draws take, in order.
    pub fn chance(mut self, values: &[f64]) -> Self {
        self.chance = values.to_vec();
        self
    }

    pub fn run(&self) -> WorldInfoActivation {
        let mut chance = FixedChance::new(self.chance.clone());
        let mut engines = ScanEngines {
            regex: &FakeRegex,
            tokens: &WordCounter,
            chance: &mut chance,
            macros: &expand_macros,
        };
        activate(&self.entries, &self.settings, &self.input, &mut engines)
    }

    /// The keys (`world.uid`) of the activated entries, in activation order.
    pub fn fired(&self) -> Vec<String> {
        fired(&self.run())
    }

    /// A compact, readable view of the result for snapshots.
    pub fn summary(&self) -> Summary {
        Summary::of(&self.run())
    }
}

pub fn fired(result: &WorldInfoActivation) -> Vec<String> {
    result
        .activated
        .iter()
        .map(|e| format!("{}.{}", e.world, e.uid))
        .collect()
}

/// What a scan did, in a form that reads well as YAML.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub fired: Vec<Fired>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Skipped>,
    pub passes: u32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub budget_overflowed: bool,
    pub placement: Value,
}

#[derive(Debug, Serialize)]
pub struct Fired {
    pub entry: String,
    pub cause: ActivationCause,
    pub pass: u32,
    pub phase: ScanPhase,
}

#[derive(Debug, Serialize)]
pub struct Skipped {
    pub entry: String,
    pub reason: SkipReason,
}

impl Summary {
    pub fn of(result: &WorldInfoActivation) -> Self {
        Self {
            fired: result
                .activated
                .iter()
                .map(|e| Fired {
                    entry: format!("{}.{}", e.world, e.uid),
                    cause: e.cause.clone(),
                    pass: e.pass,
                    phase: e.phase,
                })
                .collect(),
            skipped: result
                .skipped
                .iter()
                .map(|e| Skipped {
                    entry: format!("{}.{}", e.world, e.uid),
                    reason: e.reason.clone(),
                })
                .collect(),
            passes: result.passes,
            budget_overflowed: result.budget_overflowed,
            placement: placement_view(&result.placement),
        }
    }
}

/// The placement without its empty parts.
fn placement_view(placement: &WorldInfoPlacement) -> Value {
    let mut value = serde_json::to_value(placement).expect("placement serializes");
    if let Value::Object(parts) = &mut value {
        parts.retain(|_, part| match part {
            Value::String(s) => !s.is_empty(),
            Value::Array(items) => !items.is_empty(),
            _ => true,
        });
    }
    value
}
