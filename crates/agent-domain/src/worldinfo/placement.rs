//! [`WorldInfoPlacement`]: where the activated entries' contents go in the prompt.
//!
//! Entries with empty content are left out. Within a position, entries appear by ascending
//! `order` (the most important last, nearest the chat), ties in reverse activation order;
//! SillyTavern gets there by sorting the activated entries by descending `order` and
//! prepending each to its list. The exceptions follow from how each list is used:
//! example blocks above the card's examples come in descending `order` (each entry's blocks
//! are prepended in turn), and outlets in descending `order` (they are appended).
//!
//! The prompt assembler puts these pieces in: `before`/`after` around the character
//! definitions, the Author's Note lists around the note when the note is inserted this turn
//! ([`WorldInfoPlacement::authors_note_with`]), each [`DepthInjection`] into the chat at its
//! depth, example blocks around the card's examples, outlets wherever `{{outlet::Name}}`
//! asks for them.

use std::cmp::Ordering;

use serde::Serialize;

use super::activation::ActivatedEntry;
use super::entry::{EntryPosition, PromptRole};

/// The activated content, by destination.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorldInfoPlacement {
    /// `worldInfoBefore`: position `before`, joined with newlines.
    pub before: String,
    /// `worldInfoAfter`: position `after`, joined with newlines.
    pub after: String,
    /// Position `ANTop`: above the Author's Note.
    pub authors_note_top: Vec<String>,
    /// Position `ANBottom`: below the Author's Note.
    pub authors_note_bottom: Vec<String>,
    /// Position `atDepth`, one injection per depth and role, in the order the buckets were
    /// first filled (highest `order` first).
    pub depth: Vec<DepthInjection>,
    /// Position `EMTop`: example-dialogue blocks to put before the card's examples.
    pub examples_top: Vec<String>,
    /// Position `EMBottom`: example-dialogue blocks to put after the card's examples.
    pub examples_bottom: Vec<String>,
    /// Position `outlet`, by outlet name, in order of first use. Entries without a name are
    /// left out.
    pub outlets: Vec<Outlet>,
}

/// The at-depth entries of one depth and role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DepthInjection {
    /// Messages from the end of the chat.
    pub depth: i64,
    pub role: PromptRole,
    /// Contents, ascending `order`.
    pub entries: Vec<String>,
}

impl DepthInjection {
    /// The injected text: the entries joined with newlines.
    pub fn content(&self) -> String {
        self.entries.join("\n")
    }

    /// The extension-prompt name SillyTavern gives this injection, which decides its order
    /// among other injections at the same depth: `customDepthWI_<depth>_<role number>`.
    pub fn prompt_key(&self) -> String {
        format!("customDepthWI_{}_{}", self.depth, self.role.number())
    }
}

/// The entries of one outlet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outlet {
    pub name: String,
    /// Contents, descending `order`.
    pub entries: Vec<String>,
}

impl WorldInfoPlacement {
    /// Places `activated` (in activation order).
    pub fn from_activated(activated: &[ActivatedEntry]) -> Self {
        // Descending order, ties in activation order; every list below is filled by walking
        // this from the back (prepending) or the front (appending).
        let mut by_order: Vec<&ActivatedEntry> =
            activated.iter().filter(|e| !e.content.is_empty()).collect();
        by_order.sort_by(|a, b| b.order.partial_cmp(&a.order).unwrap_or(Ordering::Equal));
        let prepended = |position: EntryPosition| -> Vec<String> {
            by_order
                .iter()
                .rev()
                .filter(|e| e.position == position)
                .map(|e| e.content.clone())
                .collect()
        };

        let mut depth: Vec<DepthInjection> = Vec::new();
        for entry in by_order
            .iter()
            .filter(|e| e.position == EntryPosition::AtDepth)
        {
            match depth
                .iter_mut()
                .find(|d| d.depth == entry.depth && d.role == entry.role)
            {
                Some(bucket) => bucket.entries.insert(0, entry.content.clone()),
                None => depth.push(DepthInjection {
                    depth: entry.depth,
                    role: entry.role,
                    entries: vec![entry.content.clone()],
                }),
            }
        }

        let mut outlets: Vec<Outlet> = Vec::new();
        for entry in by_order
            .iter()
            .filter(|e| e.position == EntryPosition::Outlet && !e.outlet_name.is_empty())
        {
            match outlets.iter_mut().find(|o| o.name == entry.outlet_name) {
                Some(outlet) => outlet.entries.push(entry.content.clone()),
                None => outlets.push(Outlet {
                    name: entry.outlet_name.clone(),
                    entries: vec![entry.content.clone()],
                }),
            }
        }

        let examples_top = by_order
            .iter()
            .filter(|e| e.position == EntryPosition::ExamplesTop)
            .flat_map(|e| example_blocks(&e.content))
            .collect();
        let examples_bottom = prepended(EntryPosition::ExamplesBottom)
            .iter()
            .flat_map(|content| example_blocks(content))
            .collect();

        Self {
            before: prepended(EntryPosition::Before).join("\n"),
            after: prepended(EntryPosition::After).join("\n"),
            authors_note_top: prepended(EntryPosition::AuthorsNoteTop),
            authors_note_bottom: prepended(EntryPosition::AuthorsNoteBottom),
            depth,
            examples_top,
            examples_bottom,
            outlets,
        }
    }

    /// The Author's Note with the `ANTop` entries above and the `ANBottom` entries below, each
    /// list joined with newlines, then one leading and one trailing newline removed. Use only
    /// when the note is inserted this turn; otherwise these entries are not used at all.
    pub fn authors_note_with(&self, note: &str) -> String {
        let text = format!(
            "{}\n{note}\n{}",
            self.authors_note_top.join("\n"),
            self.authors_note_bottom.join("\n")
        );
        let text = text.strip_prefix('\n').unwrap_or(&text);
        text.strip_suffix('\n').unwrap_or(text).to_owned()
    }

    /// What `{{outlet::name}}` expands to: the outlet's entries joined with newlines; `None`
    /// when no entry went there.
    pub fn outlet(&self, name: &str) -> Option<String> {
        self.outlets
            .iter()
            .find(|o| o.name == name)
            .map(|o| o.entries.join("\n"))
    }
}

/// Splits example-dialogue content into blocks at each `<START>` (any case), the way
/// SillyTavern parses example messages: text before the first marker is a block of its own,
/// each block is trimmed, and the marker itself is dropped (the prompt assembler writes its
/// own block heading). Content that is empty or just `<START>` has no blocks.
fn example_blocks(content: &str) -> Vec<String> {
    const MARKER: &str = "<START>";
    if content.is_empty() || content == MARKER {
        return Vec::new();
    }
    let text = if content.starts_with(MARKER) {
        content.to_owned()
    } else {
        format!("{MARKER}\n{}", crate::json::js::js_trim(content))
    };
    // ASCII lowercasing keeps byte offsets, so marker positions carry over.
    let folded = text.to_ascii_lowercase();
    let marker = MARKER.to_ascii_lowercase();
    let starts: Vec<usize> = folded.match_indices(&marker).map(|(i, _)| i).collect();
    starts
        .iter()
        .enumerate()
        .map(|(n, &start)| {
            let end = starts.get(n + 1).copied().unwrap_or(text.len());
            crate::json::js::js_trim(&text[start + MARKER.len()..end]).to_owned()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_content_splits_into_trimmed_blocks() {
        assert_eq!(
            example_blocks("<START>\n{{user}}: Hi\n<start>\nBot: Hello "),
            ["{{user}}: Hi", "Bot: Hello"]
        );
        assert_eq!(
            example_blocks("  Hi there\n<START>\nMore"),
            ["Hi there", "More"]
        );
        assert_eq!(example_blocks("<START>\n<START>\nx"), ["", "x"]);
        assert!(example_blocks("<START>").is_empty());
        assert!(example_blocks("").is_empty());
    }

    #[test]
    fn the_authors_note_is_wrapped_and_edge_newlines_dropped() {
        let mut placement = WorldInfoPlacement::default();
        assert_eq!(placement.authors_note_with("Note"), "Note");
        assert_eq!(placement.authors_note_with(""), "");
        placement.authors_note_top = vec!["A".into(), "B".into()];
        assert_eq!(placement.authors_note_with("Note"), "A\nB\nNote");
        placement.authors_note_bottom = vec!["C".into()];
        assert_eq!(placement.authors_note_with("Note"), "A\nB\nNote\nC");
    }
}
