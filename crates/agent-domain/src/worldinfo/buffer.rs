//! The scan buffer: the text one entry's keys are matched against (its *haystack*).
//!
//! Messages are kept newest first, each trimmed and, when names are included, written as
//! `Name: text` (only the newest 1000 are kept). An entry's haystack is the newest `d`
//! messages, where `d` is its own `scanDepth` or else the global depth plus the
//! min-activations skew, clamped to 1000; `d <= 0` gives an empty haystack that nothing
//! matches, not even recursion or injected text. Each part starts with `\x01` and parts are
//! joined by a newline (`\x01m0\n\x01m1…`), so a match cannot span two messages. After the
//! messages come, in this order: the texts the entry's `match*` flags opt into (persona
//! description, character description, personality, depth prompt, scenario, creator notes;
//! empty ones skipped), the injected prompt texts, and the recursion texts (left out of
//! min-activations passes).
//!
//! Most entries of a pass share one haystack (the global depth, no `match*` flags), so each
//! distinct haystack is built (and lowercased) once per pass, not once per entry: a scan
//! deepening one message at a time for min activations would otherwise rebuild the whole
//! chat's text for every entry on every step.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::entry::{MatchSources, WorldEntry};
use super::explain::ScanPhase;
use super::input::{GlobalScanData, ScanInput};
use super::matching::Haystack;
use crate::json::js::js_trim;

/// The deepest scan SillyTavern allows (`MAX_SCAN_DEPTH`).
pub const MAX_SCAN_DEPTH: usize = 1000;

const MATCHER: &str = "\x01";
const JOINER: &str = "\n\x01";

pub(super) struct ScanBuffer<'a> {
    /// Newest first.
    messages: Vec<String>,
    scan_data: &'a GlobalScanData,
    injections: Vec<&'a str>,
    recursion: Vec<String>,
    depth: i64,
    skew: i64,
    /// The haystacks built since the depth or the recursion texts last changed.
    built: RefCell<HashMap<HaystackShape, Rc<Haystack>>>,
}

/// What decides a haystack's text while the depth and the recursion texts stay the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct HaystackShape {
    depth: usize,
    sources: MatchSources,
    with_recursion: bool,
}

impl<'a> ScanBuffer<'a> {
    pub(super) fn new(input: &'a ScanInput, depth: i64, include_names: bool) -> Self {
        let messages = input
            .messages
            .iter()
            .rev()
            .take(MAX_SCAN_DEPTH)
            .map(|m| {
                if include_names {
                    js_trim(&format!("{}: {}", m.name, m.text)).to_owned()
                } else {
                    js_trim(&m.text).to_owned()
                }
            })
            .collect();
        Self {
            messages,
            scan_data: &input.scan_data,
            injections: input
                .injections
                .iter()
                .map(String::as_str)
                .filter(|s| !s.is_empty())
                .collect(),
            recursion: Vec::new(),
            depth,
            skew: 0,
            built: RefCell::default(),
        }
    }

    /// The global scan depth including the min-activations skew.
    pub(super) fn depth(&self) -> i64 {
        self.depth + self.skew
    }

    /// Scans one message deeper (min activations).
    pub(super) fn advance(&mut self) {
        self.skew += 1;
        self.built.get_mut().clear();
    }

    pub(super) fn add_recursion(&mut self, text: String) {
        self.recursion.push(text);
        self.built.get_mut().clear();
    }

    pub(super) fn has_recursion(&self) -> bool {
        !self.recursion.is_empty()
    }

    /// The haystack of `entry` in a pass of kind `phase`.
    pub(super) fn haystack(&self, entry: &WorldEntry, phase: ScanPhase) -> Rc<Haystack> {
        let depth = entry.scan_depth.unwrap_or_else(|| self.depth());
        let shape = HaystackShape {
            depth: usize::try_from(depth.max(0))
                .unwrap_or(MAX_SCAN_DEPTH)
                .min(MAX_SCAN_DEPTH),
            sources: entry.match_sources,
            with_recursion: phase != ScanPhase::MinActivations,
        };
        let mut built = self.built.borrow_mut();
        let haystack = built
            .entry(shape)
            .or_insert_with(|| Rc::new(Haystack::new(self.text(shape))));
        Rc::clone(haystack)
    }

    /// The text of a haystack of `shape` (see the module docs).
    fn text(&self, shape: HaystackShape) -> String {
        if shape.depth == 0 {
            return String::new();
        }
        let newest = &self.messages[..shape.depth.min(self.messages.len())];
        let mut text = format!("{MATCHER}{}", newest.join(JOINER));
        let wanted = shape.sources;
        let data = self.scan_data;
        let sources = [
            (wanted.persona_description, &data.persona_description),
            (wanted.character_description, &data.character_description),
            (wanted.character_personality, &data.character_personality),
            (wanted.character_depth_prompt, &data.character_depth_prompt),
            (wanted.scenario, &data.scenario),
            (wanted.creator_notes, &data.creator_notes),
        ];
        for (_, source) in sources.iter().filter(|(on, s)| *on && !s.is_empty()) {
            text.push_str(JOINER);
            text.push_str(source);
        }
        if !self.injections.is_empty() {
            text.push_str(JOINER);
            text.push_str(&self.injections.join(JOINER));
        }
        if !self.recursion.is_empty() && shape.with_recursion {
            text.push_str(JOINER);
            text.push_str(&self.recursion.join(JOINER));
        }
        text
    }
}
