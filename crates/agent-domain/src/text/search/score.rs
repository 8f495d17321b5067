//! Scoring a text against tokens, and the chat snippet around the first match.

use std::borrow::Cow;

use std::cell::RefCell;

use memchr::memmem::Finder;

use super::query::Token;

/// Characters a snippet shows of a longer text.
pub const SNIPPET_CHARS: usize = 200;
/// Characters of context a snippet keeps before the first match.
pub const SNIPPET_LEAD_CHARS: usize = 40;

/// Scores texts against one query's tokens: how much of the query a text contains, from
/// 0.0 to 1.0 — the summed weights of the tokens found as substrings over the summed
/// weights of all tokens.
///
/// The text is compared lowercased when some token contains an ASCII letter (tokens are
/// already lowercase) or the query is literal. A blank text or no tokens score 0.
///
/// Built once per search, so every token's substring searcher (`memchr::memmem`, SIMD) is
/// prepared once instead of per text. Each token stops at its first occurrence, which for
/// the short tokens of a chat query (words and their bigrams) is usually near the start;
/// only absent tokens read a text to its end. One multi-pattern Aho-Corasick pass was
/// measured 3-4× slower on the chat bench: it must report every overlapping bigram match.
#[derive(Debug, Clone)]
pub struct Scorer {
    tokens: Vec<Token>,
    finders: Vec<Finder<'static>>,
    weights: Vec<usize>,
    total: usize,
    folds_case: bool,
    /// Every token is ASCII (see [`fold_case`]).
    ascii_tokens: bool,
    scratch: RefCell<Scratch>,
}

/// What a [`Scorer`] reuses from one text to the next.
#[derive(Debug, Clone, Default)]
struct Scratch {
    /// The lowercased text: a search scores every message of a chat, and allocating a
    /// lowercase copy of each dominated its time.
    folded: String,
    order: TokenOrder,
}

/// Texts scored between two [`TokenOrder::reorder`]s.
const REORDER_EVERY: u64 = 64;

/// The order tokens are looked for in, learnt from the texts scored so far.
///
/// The score is the same in any order, but [`Scorer::score_where`] gives up sooner when
/// it first finds some token (the text matches) and then misses heavy ones (it cannot
/// score high enough): so the token found most often goes first, then the others by the
/// weight they were missing with.
#[derive(Debug, Clone, Default)]
struct TokenOrder {
    tokens: Vec<usize>,
    hits: Vec<u64>,
    misses: Vec<u64>,
    texts: u64,
}

impl TokenOrder {
    fn new(count: usize) -> Self {
        Self {
            tokens: (0..count).collect(),
            hits: vec![0; count],
            misses: vec![0; count],
            texts: 0,
        }
    }

    fn reorder(&mut self, weights: &[usize]) {
        let hits = &self.hits;
        let misses = &self.misses;
        self.tokens
            .sort_by_key(|&token| std::cmp::Reverse(misses[token] * weights[token] as u64));
        if let Some(first) = (0..self.tokens.len()).max_by_key(|&at| hits[self.tokens[at]]) {
            let token = self.tokens.remove(first);
            self.tokens.insert(0, token);
        }
    }
}

impl Scorer {
    pub fn new(tokens: Vec<Token>) -> Self {
        let weights: Vec<usize> = tokens.iter().map(Token::weight).collect();
        Self {
            finders: tokens
                .iter()
                .map(|token| Finder::new(token.as_str()).into_owned())
                .collect(),
            total: weights.iter().sum(),
            folds_case: tokens.iter().any(Token::needs_lowercase_haystack),
            ascii_tokens: tokens.iter().all(|token| token.as_str().is_ascii()),
            weights,
            scratch: RefCell::new(Scratch {
                folded: String::new(),
                order: TokenOrder::new(tokens.len()),
            }),
            tokens,
        }
    }

    pub fn tokens(&self) -> &[Token] {
        &self.tokens
    }

    pub fn score(&self, haystack: &str) -> f64 {
        match self.score_where(haystack, |_| true) {
            Scored::Score(score) => score,
            Scored::Absent | Scored::Unwanted => 0.0,
        }
    }

    /// Scores `haystack`, giving up as soon as some token was found and `wanted` refuses
    /// the best score still reachable: a ranker that already holds its best hits skips
    /// most of the remaining texts after a token or two.
    pub fn score_where(&self, haystack: &str, wanted: impl Fn(f64) -> bool) -> Scored {
        if self.total == 0 || haystack.trim().is_empty() {
            return Scored::Absent;
        }
        let total = self.total as f64;
        let mut scratch = self.scratch.borrow_mut();
        let Scratch { folded, order } = &mut *scratch;
        order.texts += 1;
        if order.texts % REORDER_EVERY == 0 {
            order.reorder(&self.weights);
        }
        let mut fold = Fold::Unknown;
        let (mut found, mut missing) = (0, 0);
        for &token in &order.tokens {
            let finder = &self.finders[token];
            let occurs = match fold {
                Fold::Unknown | Fold::Needless => {
                    // Tokens are lowercase, so an occurrence in the text as written is one
                    // in the lowercased text too: the text is folded only once a token is
                    // missing from it as written. Folding then is one vectorised copy,
                    // cheaper than a byte-by-byte look for capitals that would decide
                    // whether it is needed.
                    finder.find(haystack.as_bytes()).is_some()
                        || (fold == Fold::Unknown && {
                            fold = if self.folds_case {
                                fold_case(haystack, self.ascii_tokens, folded);
                                Fold::Done
                            } else {
                                Fold::Needless
                            };
                            fold == Fold::Done && finder.find(folded.as_bytes()).is_some()
                        })
                }
                Fold::Done => finder.find(folded.as_bytes()).is_some(),
            };
            if occurs {
                found += self.weights[token];
                order.hits[token] += 1;
            } else {
                missing += self.weights[token];
                order.misses[token] += 1;
            }
            if found > 0 && !wanted((self.total - missing) as f64 / total) {
                return Scored::Unwanted;
            }
        }
        if found == 0 {
            Scored::Absent
        } else {
            Scored::Score(found as f64 / total)
        }
    }
}

/// Whether [`Scorer::score_where`] has lowercased the text it scores.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fold {
    Unknown,
    /// No token needs a lowercased text.
    Needless,
    Done,
}

/// What [`Scorer::score_where`] learnt of a text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scored {
    /// No token occurs: the score is 0.
    Absent,
    /// Some token occurs, but the score cannot be one the caller wants.
    Unwanted,
    /// The exact score, above 0.
    Score(f64),
}

/// Writes `haystack` lowercased into `out`, as tokens are compared against it.
fn fold_case(haystack: &str, ascii_tokens: bool, out: &mut String) {
    out.clear();
    if ascii_folding_suffices(haystack, ascii_tokens) {
        out.push_str(haystack);
        out.make_ascii_lowercase();
    } else {
        out.push_str(&haystack.to_lowercase());
    }
}

/// Whether ASCII-lowercasing `haystack` compares like lowercasing it in full.
///
/// It is enough when the haystack is ASCII, and also when every token is:
/// a non-ASCII character can then only matter if its lowercase form contains ASCII, and
/// only two do (the Kelvin sign `K` and the dotted capital `İ`); a haystack holding either
/// is lowercased in full. Chats mix scripts, so this keeps Latin queries over CJK or
/// accented text from lowercasing every message in full.
fn ascii_folding_suffices(haystack: &str, ascii_tokens: bool) -> bool {
    haystack.is_ascii() || (ascii_tokens && !has_ascii_lowercase_outside_ascii(haystack))
}

/// Whether `text` holds one of the two non-ASCII characters whose lowercase form contains
/// ASCII: `K` (U+212A, lowercases to `k`) and `İ` (U+0130, to `i` + U+0307). Their UTF-8
/// lead bytes are looked for first, which rules most texts out with one fast byte scan.
fn has_ascii_lowercase_outside_ascii(text: &str) -> bool {
    let bytes = text.as_bytes();
    (memchr::memchr(0xE2, bytes).is_some() && text.contains('\u{212A}'))
        || (memchr::memchr(0xC4, bytes).is_some() && text.contains('\u{130}'))
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
