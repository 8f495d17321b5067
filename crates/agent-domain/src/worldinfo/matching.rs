//! Matching one key against a haystack, as SillyTavern's `matchKeys` does.
//!
//! * A key of the form `/pattern/flags` (flags from `gimsuy`; the pattern is the shortest
//!   text before a `/` that is followed only by flag letters) whose pattern has no unescaped
//!   `/` is a *regex key*: the first `\/` becomes `/`, the [`KeyRegexEngine`] compiles it, and
//!   it is tested against the original-case haystack, so only its own flags decide case. If it
//!   does not compile, the key is matched as plain text.
//! * A plain key and the haystack are lowercased unless the entry's `caseSensitive` (else the
//!   global setting) is on. With whole-word matching (entry, else global) a key containing
//!   whitespace is a substring test, and a single word must sit between boundaries: the
//!   haystack's ends or a character outside ASCII `[A-Za-z0-9_]` (JavaScript's `\W` is
//!   ASCII-only, so `é` or `'` is a boundary). Without whole words it is a substring test.
//!
//! Compiled regex keys are cached for the whole scan.

use std::cell::OnceCell;
use std::collections::HashMap;

use super::engines::{KeyRegex, KeyRegexEngine};
use super::entry::WorldEntry;
use crate::json::js::{is_ascii_word_byte, is_js_whitespace};

/// A haystack with its lowercase form computed once, on first need.
pub(super) struct Haystack {
    text: String,
    lowered: OnceCell<String>,
}

impl Haystack {
    pub(super) fn new(text: String) -> Self {
        Self {
            text,
            lowered: OnceCell::new(),
        }
    }

    pub(super) fn text(&self) -> &str {
        &self.text
    }

    fn lowered(&self) -> &str {
        self.lowered.get_or_init(|| self.text.to_lowercase())
    }
}

/// Matches keys for one scan, with the global case and whole-word settings.
pub(super) struct KeyMatcher<'e> {
    engine: &'e dyn KeyRegexEngine,
    compiled: HashMap<String, Option<Box<dyn KeyRegex>>>,
    case_sensitive: bool,
    whole_words: bool,
}

impl<'e> KeyMatcher<'e> {
    pub(super) fn new(
        engine: &'e dyn KeyRegexEngine,
        case_sensitive: bool,
        whole_words: bool,
    ) -> Self {
        Self {
            engine,
            compiled: HashMap::new(),
            case_sensitive,
            whole_words,
        }
    }

    /// Whether `key` (already macro-expanded and trimmed by the caller, where the scan does
    /// that) matches `haystack` for `entry`.
    pub(super) fn matches(&mut self, haystack: &Haystack, key: &str, entry: &WorldEntry) -> bool {
        if let Some(regex) = self.regex(key) {
            return regex.is_match(haystack.text());
        }
        let case_sensitive = entry.case_sensitive.unwrap_or(self.case_sensitive);
        let (text, lowered_key);
        let (text, key) = if case_sensitive {
            (haystack.text(), key)
        } else {
            lowered_key = key.to_lowercase();
            text = haystack.lowered();
            (text, lowered_key.as_str())
        };
        if entry.match_whole_words.unwrap_or(self.whole_words) && !key.contains(is_js_whitespace) {
            contains_whole_word(text, key)
        } else {
            text.contains(key)
        }
    }

    /// The compiled regex of a regex key; `None` for a plain key or one that did not compile.
    fn regex(&mut self, key: &str) -> Option<&dyn KeyRegex> {
        if !self.compiled.contains_key(key) {
            let compiled = split_regex_key(key)
                .and_then(|(pattern, flags)| self.engine.compile(&pattern, flags));
            self.compiled.insert(key.to_owned(), compiled);
        }
        self.compiled.get(key).and_then(Option::as_deref)
    }
}

/// The pattern and flags of a `/pattern/flags` key; `None` when the key is not one.
pub(super) fn split_regex_key(key: &str) -> Option<(String, &str)> {
    let body = key.strip_prefix('/')?;
    // The pattern is lazy: the first `/` (past at least one character) followed only by flag
    // letters ends it.
    let (pattern, flags) = body
        .char_indices()
        .skip(1)
        .filter(|&(_, c)| c == '/')
        .map(|(i, _)| (&body[..i], &body[i + 1..]))
        .find(|(_, flags)| flags.chars().all(|c| "gimsuy".contains(c)))?;
    let mut previous = None;
    for c in pattern.chars() {
        if c == '/' && previous != Some('\\') {
            return None;
        }
        previous = Some(c);
    }
    Some((pattern.replacen("\\/", "/", 1), flags))
}

/// Whether `word` occurs in `text` with a non-word character (or an end) on both sides.
fn contains_whole_word(text: &str, word: &str) -> bool {
    let bytes = text.as_bytes();
    let is_boundary = |at: Option<&u8>| at.is_none_or(|&b| !is_ascii_word_byte(b));
    let mut from = 0;
    while let Some(offset) = text[from..].find(word) {
        let start = from + offset;
        let end = start + word.len();
        let before = start.checked_sub(1).and_then(|i| bytes.get(i));
        if is_boundary(before) && is_boundary(bytes.get(end)) {
            return true;
        }
        // Try every later start, overlapping ones included.
        match text[start..].chars().next() {
            Some(c) => from = start + c.len_utf8(),
            None => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regex_keys_split_lazily_and_refuse_unescaped_slashes() {
        assert_eq!(split_regex_key("/abc/"), Some(("abc".into(), "")));
        assert_eq!(split_regex_key("/a.c/gi"), Some(("a.c".into(), "gi")));
        assert_eq!(split_regex_key("/a\\/b/i"), Some(("a/b".into(), "i")));
        assert_eq!(
            split_regex_key("/a\\/b\\/c/"),
            Some(("a/b\\/c".into(), "")),
            "only the first escaped slash is unescaped"
        );
        assert_eq!(
            split_regex_key("/a/b/i"),
            None,
            "unescaped slash: plain text"
        );
        assert_eq!(split_regex_key("/abc/x"), None);
        assert_eq!(split_regex_key("//"), None);
        assert_eq!(split_regex_key("///"), None);
        assert_eq!(split_regex_key("abc"), None);
        assert_eq!(split_regex_key("/é/u"), Some(("é".into(), "u")));
    }

    #[test]
    fn whole_words_use_ascii_boundaries() {
        assert!(contains_whole_word("\x01eldoria's gate", "eldoria"));
        assert!(contains_whole_word("\x01éeldoria", "eldoria"));
        assert!(contains_whole_word("eldoria", "eldoria"));
        assert!(!contains_whole_word("\x01eldorian", "eldoria"));
        assert!(!contains_whole_word("\x01_eldoria", "eldoria"));
        assert!(contains_whole_word("ababa aba", "aba"));
        assert!(!contains_whole_word("ababa", "aba"));
        assert!(contains_whole_word("\x01x", ""));
        assert!(contains_whole_word("", ""));
    }
}
