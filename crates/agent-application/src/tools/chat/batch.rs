//! Reading several texts in one call under a shared character budget, as
//! `chat_read_messages` and `worldinfo_read_activated` do.
//!
//! Each text is windowed by lines within what the call has left (at most
//! [`ReadBudget::ENTRY_CHARS`] per text, [`ReadBudget::CALL_CHARS`] per call), counting
//! every character of the body the model reads: line breaks, and for a partial read the
//! line-number prefixes and cut markers ([`ShownWindow`]). The `chars` each entry reports is
//! that same count, so the entries of one call never add up to more than the cap. A text whose
//! window would only be cut because the call is nearly used up is not read at all: it and
//! every later text wait for another call, so a cut line always means "longer than a whole
//! text's budget", never "unlucky position in the list".
//!
//! What the model reads per text: a header line, then the text itself when the window shows
//! all of it, or numbered lines (plus how to continue, for a preview) when it shows a part.

use agent_domain::text::{LineRangeError, ReadBudget, ShownWindow, TextMetrics};
use serde_json::{Value, json};

use super::super::{Args, ToolFailure, ToolOutcome};

/// The `start_line` / `line_count` of one requested text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LineRange {
    pub start_line: Option<u64>,
    pub line_count: Option<u64>,
}

impl LineRange {
    /// Reads the range arguments of one list item. Zero passes through so the window
    /// reports it as a line-range error of the calling tool.
    pub fn parse(item: &Args) -> Result<Self, ToolFailure> {
        Ok(Self {
            start_line: item.optional_u64("start_line", 0, u64::MAX)?,
            line_count: item.optional_u64("line_count", 0, u64::MAX)?,
        })
    }
}

/// One text of a batch.
pub(crate) struct BatchItem<'a> {
    /// How `notRead` and the closing note name the text when it is left unread: a message
    /// index (a JSON number) or an entry ref (a string).
    pub label: Value,
    /// First line of the block, such as `message 4 assistant Seraphina`.
    pub header: String,
    pub text: &'a str,
    pub range: LineRange,
    /// The ref of the whole text; a partial read adds `:L<start>-L<end>`.
    pub base_ref: String,
    /// How to read on, for the continuation hint: `chat_read_messages index=4`.
    pub continue_with: String,
    /// Audit fields of the text's `structured` entry (an object); the window's facts, the
    /// shown size and the ref are added.
    pub fields: Value,
}

/// The budget of one call, spent text by text, and what the call has read so far.
pub(crate) struct BatchReader {
    remaining: usize,
    exhausted: bool,
    per_text: fn(usize) -> ReadBudget,
    blocks: Vec<String>,
    entries: Vec<Value>,
    refs: Vec<String>,
    unread: Vec<Value>,
}

impl BatchReader {
    /// A fresh call budget; `per_text` turns what is left into one text's budget
    /// ([`ReadBudget::chat_message`] or [`ReadBudget::worldinfo_entry`]).
    pub fn new(per_text: fn(usize) -> ReadBudget) -> Self {
        Self {
            remaining: ReadBudget::CALL_CHARS,
            exhausted: false,
            per_text,
            blocks: Vec::new(),
            entries: Vec::new(),
            refs: Vec::new(),
            unread: Vec::new(),
        }
    }

    /// Whether later texts must wait for another call.
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// Texts read so far.
    pub fn read_count(&self) -> usize {
        self.blocks.len()
    }

    /// Texts left for another call so far.
    pub fn unread_count(&self) -> usize {
        self.unread.len()
    }

    /// Leaves the text called `label` for another call.
    pub fn skip(&mut self, label: Value) {
        self.exhausted = true;
        self.unread.push(label);
    }

    /// Reads `item` within what the call has left, or leaves it (and every later item)
    /// for another call when the call is used up.
    pub fn read(&mut self, item: BatchItem<'_>) -> Result<(), LineRangeError> {
        if self.exhausted {
            self.skip(item.label);
            return Ok(());
        }
        let budget = (self.per_text)(self.remaining);
        let shown = ShownWindow::select(
            item.text,
            item.range.start_line,
            item.range.line_count,
            budget.max_chars,
        )?;
        let squeezed = budget.max_chars < ReadBudget::ENTRY_CHARS;
        if squeezed && shown.window.lines.iter().any(|line| line.cut) {
            self.skip(item.label);
            return Ok(());
        }
        self.remaining -= shown.chars.min(self.remaining);
        self.exhausted = self.remaining == 0;

        let window = &shown.window;
        let reference = if window.complete {
            item.base_ref.clone()
        } else {
            format!(
                "{}:L{}-L{}",
                item.base_ref, window.start_line, window.end_line
            )
        };
        let mut entry = item.fields;
        if let Value::Object(entry) = &mut entry {
            if let Ok(Value::Object(facts)) = serde_json::to_value(window.facts()) {
                entry.extend(facts);
            }
            let words = TextMetrics::of(&window.plain_text()).words;
            entry.insert("chars".into(), shown.chars.into());
            entry.insert("words".into(), words.into());
            entry.insert("ref".into(), reference.clone().into());
        }
        self.blocks
            .push(render(&item.header, &item.continue_with, &shown));
        self.entries.push(entry);
        self.refs.push(reference);
        Ok(())
    }

    /// The call's result: `lead`, the blocks, and a closing note naming the unread texts
    /// (`unread_noun`, to read again with `alias`). `structured` (an object) gains the
    /// entries under `list_key` and, when some texts were left, `notRead`.
    pub fn finish(
        self,
        lead: String,
        mut structured: Value,
        list_key: &str,
        unread_noun: &str,
        alias: &str,
    ) -> ToolOutcome {
        let mut content = lead;
        for block in &self.blocks {
            content.push_str("\n\n");
            content.push_str(block);
        }
        if !self.unread.is_empty() {
            content.push_str(&format!(
                "\n\nNot read, because this call's reading budget is used up: {unread_noun} {}. \
                 Call {alias} again for them.",
                self.unread
                    .iter()
                    .map(label_text)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            structured["notRead"] = json!(self.unread);
        }
        structured[list_key] = json!(self.entries);
        ToolOutcome::read(content, structured, self.refs)
    }
}

/// A label as the closing note writes it: a number as digits, a string without quotes.
fn label_text(label: &Value) -> String {
    match label {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The model's block for one text: its header, the shown body, and for a preview how to
/// read on.
fn render(header: &str, continue_with: &str, shown: &ShownWindow) -> String {
    let window = &shown.window;
    if window.complete {
        let body = if window.total_lines == 0 {
            "(empty)"
        } else {
            shown.text.as_str()
        };
        return format!("{header}\n{body}");
    }
    let mut block = format!(
        "{header}, lines {}-{} of {}\n{}",
        window.start_line, window.end_line, window.total_lines, shown.text
    );
    if let Some(hint) = window.continuation_hint(continue_with) {
        block.push('\n');
        block.push_str(&hint);
    }
    block
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(text: &str, start_line: Option<u64>) -> BatchItem<'_> {
        BatchItem {
            label: json!(1),
            header: "message 1 user Ann".into(),
            text,
            range: LineRange {
                start_line,
                line_count: None,
            },
            base_ref: "chat:current#1".into(),
            continue_with: "chat_read_messages index=1".into(),
            fields: json!({"index": 1}),
        }
    }

    fn finish(reader: BatchReader) -> ToolOutcome {
        reader.finish(
            "Lead.".into(),
            json!({}),
            "messages",
            "messages",
            "chat_read_messages",
        )
    }

    #[test]
    fn whole_texts_are_plain_and_parts_are_numbered() {
        let mut reader = BatchReader::new(ReadBudget::chat_message);
        reader.read(item("a\nb", None)).unwrap();
        reader.read(item("a\nb", Some(2))).unwrap();
        reader.read(item("", None)).unwrap();
        assert_eq!(reader.read_count(), 3);
        let outcome = finish(reader);
        assert_eq!(
            outcome.content,
            "Lead.\n\nmessage 1 user Ann\na\nb\
             \n\nmessage 1 user Ann, lines 2-2 of 2\n2 | b\
             \n\nmessage 1 user Ann\n(empty)"
        );
        assert_eq!(
            outcome.resource_refs,
            ["chat:current#1", "chat:current#1:L2-L2", "chat:current#1"]
        );
        assert_eq!(
            outcome.structured["messages"][1],
            json!({"index": 1, "startLine": 2, "endLine": 2, "totalLines": 2, "preview": false,
                   "complete": false, "chars": 5, "words": 1, "ref": "chat:current#1:L2-L2"})
        );
        assert!(outcome.structured.get("notRead").is_none());
    }

    #[test]
    fn previews_say_how_to_continue() {
        let text = format!("{}\n{}", "x".repeat(5_000), "y".repeat(5_000));
        let mut reader = BatchReader::new(ReadBudget::chat_message);
        reader.read(item(&text, None)).unwrap();
        let outcome = finish(reader);
        assert!(
            outcome.content.ends_with(
                "Showing lines 1-1 of 2; the rest did not fit the read budget. \
                 Continue with chat_read_messages index=1 start_line=2."
            ),
            "{}",
            outcome.content
        );
        assert_eq!(outcome.structured["messages"][0]["nextStartLine"], 2);
    }

    #[test]
    fn a_text_squeezed_by_the_call_budget_waits_for_the_next_call() {
        let mut reader = BatchReader::new(ReadBudget::chat_message);
        let long = "z".repeat(7_000);
        reader.read(item(&long, None)).unwrap();
        reader.read(item(&long, None)).unwrap();
        assert!(!reader.exhausted());
        // 6,000 characters are left: a 7,000-character line would be cut, so it waits,
        // and so does everything after it.
        reader.read(item(&long, None)).unwrap();
        assert!(reader.exhausted());
        reader.read(item("short", None)).unwrap();
        assert_eq!((reader.read_count(), reader.unread_count()), (2, 2));
        let outcome = finish(reader);
        assert!(outcome.content.ends_with(
            "Not read, because this call's reading budget is used up: messages 1, 1. \
             Call chat_read_messages again for them."
        ));
        assert_eq!(outcome.structured["notRead"], json!([1, 1]));
    }

    #[test]
    fn a_line_longer_than_a_whole_text_budget_is_cut() {
        let mut reader = BatchReader::new(ReadBudget::worldinfo_entry);
        reader.read(item(&"w".repeat(9_000), None)).unwrap();
        let outcome = finish(reader);
        assert!(outcome.content.contains("[line cut: 1039 more characters]"));
        assert_eq!(outcome.structured["messages"][0]["cutLines"], json!([1]));
    }

    #[test]
    fn range_errors_come_from_the_window() {
        let mut reader = BatchReader::new(ReadBudget::chat_message);
        assert_eq!(
            reader.read(item("a", Some(3))),
            Err(LineRangeError::StartBeyondEnd {
                start_line: 3,
                total_lines: 1
            })
        );
    }
}
