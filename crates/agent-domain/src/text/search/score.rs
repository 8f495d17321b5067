//! Scoring a text against tokens, and the chat snippet around the first match.

use std::borrow::Cow;

use super::query::Token;

/// Characters a snippet shows of a longer text.
pub const SNIPPET_CHARS: usize = 200;
/// Characters of context a snippet keeps before the first match.
pub const SNIPPET_LEAD_CHARS: usize = 40;

/// How much of the query `haystack` contains, from 0.0 to 1.0: the summed weights of the
/// tokens found as substrings over the summed weights of all tokens.
///
/// The haystack is lowercased when some token contains an ASCII letter (tokens are already
/// lowercase) or the query is literal. A blank haystack or no tokens score 0.
pub fn score(tokens: &[Token], haystack: &str) -> f64 {
    if tokens.is_empty() || haystack.trim().is_empty() {
        return 0.0;
    }
    let total: usize = tokens.iter().map(Token::weight).sum();
    let found: usize = with_comparable(tokens, haystack, |hay| {
        tokens
            .iter()
            .filter(|token| hay.contains(token.as_str()))
            .map(Token::weight)
            .sum()
    });
    found as f64 / total as f64
}

thread_local! {
    /// A reused buffer for lowercased ASCII haystacks: searches score every message of a
    /// chat, and allocating a lowercase copy of each dominated their time.
    static LOWERCASE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Runs `f` on the haystack as tokens are compared against it, without allocating in the
/// common cases.
///
/// ASCII-lowercasing is enough when the haystack is ASCII, and also when every token is:
/// a non-ASCII character can then only matter if its lowercase form contains ASCII, and
/// only two do (the Kelvin sign `K` and the dotted capital `İ`); a haystack holding either
/// takes the full Unicode path. Chats mix scripts, so this keeps Latin queries over CJK or
/// accented text from lowercasing (and allocating) every message in full.
fn with_comparable<R>(tokens: &[Token], haystack: &str, f: impl FnOnce(&str) -> R) -> R {
    if !tokens.iter().any(Token::needs_lowercase_haystack) {
        return f(haystack);
    }
    let ascii_folding_suffices = haystack.is_ascii()
        || (tokens.iter().all(|token| token.as_str().is_ascii())
            && !has_ascii_lowercase_outside_ascii(haystack));
    if !ascii_folding_suffices {
        return f(&haystack.to_lowercase());
    }
    LOWERCASE.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buffer) => {
            buffer.clear();
            buffer.push_str(haystack);
            buffer.make_ascii_lowercase();
            f(&buffer)
        }
        // Only reachable if `f` itself scored something; fall back to a fresh copy.
        Err(_) => f(&haystack.to_ascii_lowercase()),
    })
}

/// Whether `text` holds one of the two non-ASCII characters whose lowercase form contains
/// ASCII: `K` (U+212A, lowercases to `k`) and `İ` (U+0130, to `i` + U+0307). Their UTF-8
/// lead bytes are looked for first, which rules most texts out with one fast byte scan.
fn has_ascii_lowercase_outside_ascii(text: &str) -> bool {
    let bytes = text.as_bytes();
    (bytes.contains(&0xE2) && text.contains('\u{212A}'))
        || (bytes.contains(&0xC4) && text.contains('\u{130}'))
}

/// A short excerpt of a chat message for a search hit: the whole text when it has at most
/// [`SNIPPET_CHARS`] characters; otherwise that many characters starting
/// [`SNIPPET_LEAD_CHARS`] before the earliest match of any token, with `...` marking a cut
/// at either end.
pub fn chat_snippet(text: &str, tokens: &[Token]) -> String {
    let total = text.chars().count();
    if total <= SNIPPET_CHARS {
        return text.to_owned();
    }
    let first = first_match_char(text, tokens).unwrap_or(0).min(total);
    let start = first.saturating_sub(SNIPPET_LEAD_CHARS);
    let end = (start + SNIPPET_CHARS).min(total);
    let body: String = text.chars().skip(start).take(end - start).collect();
    let prefix = if start > 0 { "..." } else { "" };
    let suffix = if end < total { "..." } else { "" };
    format!("{prefix}{body}{suffix}")
}

/// The haystack as tokens are compared against it.
fn comparable<'a>(tokens: &[Token], haystack: &'a str) -> Cow<'a, str> {
    if tokens.iter().any(Token::needs_lowercase_haystack) {
        Cow::Owned(haystack.to_lowercase())
    } else {
        Cow::Borrowed(haystack)
    }
}

/// The character index of the earliest token match. Lowercasing rarely changes lengths;
/// when it does, the index is approximate, which only shifts a snippet slightly.
fn first_match_char(text: &str, tokens: &[Token]) -> Option<usize> {
    let hay = comparable(tokens, text);
    let byte = tokens
        .iter()
        .filter_map(|token| hay.find(token.as_str()))
        .min()?;
    Some(hay[..byte].chars().count())
}
