//! [`Query`]: one normalisation of a search query shared by every search tool.

/// Most tokens a query expands to; longer expansions are thinned out.
pub const MAX_TOKENS: usize = 64;

/// How a query matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueryMode {
    /// The query has words (letters, digits or `_`): match them and their bigrams.
    Tokens,
    /// The query is only punctuation or symbols (`!!`, `->`, `…`): match its
    /// whitespace-separated pieces literally, so such fragments stay searchable.
    Literal,
}

/// A parsed, non-blank search query.
///
/// Normalisation: the query is trimmed and lowercased; every character that is neither
/// alphanumeric nor `_` becomes a space; the rest splits on whitespace into words. A query
/// without any word is kept as literal pieces (lowercased, split on whitespace) instead.
/// Matching is case-insensitive in both modes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    text: String,
    mode: QueryMode,
    terms: Vec<String>,
}

/// One search term with its weight. Obtain tokens from [`Query::chat_tokens`] or
/// [`Query::line_tokens`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Token {
    text: String,
    literal: bool,
}

impl Token {
    pub(super) fn new(text: impl Into<String>, literal: bool) -> Self {
        Self {
            text: text.into(),
            literal,
        }
    }

    /// The lowercase text matched as a substring.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The token's share of a score: its length in characters, clamped to 1..=8, so long
    /// terms count more than bigrams without drowning them.
    pub fn weight(&self) -> usize {
        self.text.chars().count().clamp(1, 8)
    }

    /// Whether the haystack must be lowercased before matching this token.
    pub(super) fn needs_lowercase_haystack(&self) -> bool {
        self.literal || self.text.chars().any(|c| c.is_ascii_alphabetic())
    }
}

impl Query {
    /// Parses `raw`; `None` when it is empty or blank.
    pub fn parse(raw: &str) -> Option<Query> {
        let text = raw.trim();
        if text.is_empty() {
            return None;
        }
        let lowered = text.to_lowercase();
        let normalised: String = lowered
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '_' {
                    c
                } else {
                    ' '
                }
            })
            .collect();
        let words: Vec<String> = normalised.split_whitespace().map(str::to_owned).collect();
        let (mode, terms) = if words.is_empty() {
            let pieces = lowered.split_whitespace().map(str::to_owned).collect();
            (QueryMode::Literal, pieces)
        } else {
            (QueryMode::Tokens, words)
        };
        Some(Query {
            text: text.to_owned(),
            mode,
            terms,
        })
    }

    /// The query as typed, trimmed; for echoing back to the model.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// How the query matches.
    pub fn mode(&self) -> QueryMode {
        self.mode
    }

    /// The normalised words (or literal pieces), in query order.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// Tokens for ranking chat messages, where recall matters: a single word longer than
    /// two characters becomes its character bigrams (plus the word itself when it has at
    /// most 8 characters), and a long word without ASCII letters or digits in a several-word
    /// query (typically CJK) becomes sampled bigrams. At most [`MAX_TOKENS`].
    pub fn chat_tokens(&self) -> Vec<Token> {
        if self.mode == QueryMode::Literal {
            return self.literal_tokens();
        }
        let mut expanded: Vec<String> = Vec::new();
        if let [word] = self.terms.as_slice() {
            let chars: Vec<char> = word.chars().collect();
            if chars.len() <= 2 {
                expanded.push(word.clone());
            } else {
                if chars.len() <= 8 {
                    expanded.push(word.clone());
                }
                expanded.extend(bigrams(&chars, 32));
            }
        } else {
            for word in &self.terms {
                let chars: Vec<char> = word.chars().collect();
                let has_ascii = chars.iter().any(char::is_ascii_alphanumeric);
                if !has_ascii && chars.len() >= 8 {
                    expanded.extend(bigrams(&chars, 8));
                } else {
                    expanded.push(word.clone());
                }
            }
        }
        thin_out(dedup(expanded))
            .into_iter()
            .map(|text| Token::new(text, false))
            .collect()
    }

    /// Tokens for ranking lines of files, where precision matters: the words themselves,
    /// deduplicated, the first [`MAX_TOKENS`].
    pub fn line_tokens(&self) -> Vec<Token> {
        let literal = self.mode == QueryMode::Literal;
        dedup(self.terms.clone())
            .into_iter()
            .take(MAX_TOKENS)
            .map(|text| Token::new(text, literal))
            .collect()
    }

    fn literal_tokens(&self) -> Vec<Token> {
        thin_out(dedup(self.terms.clone()))
            .into_iter()
            .map(|text| Token::new(text, true))
            .collect()
    }
}

/// Character bigrams of `chars` at every `step`-th position, where `step` is chosen so that
/// about `samples` bigrams cover the word: `ceil((len - 1) / samples)`.
fn bigrams(chars: &[char], samples: usize) -> Vec<String> {
    let step = chars.len().saturating_sub(1).div_ceil(samples).max(1);
    (0..chars.len().saturating_sub(1))
        .step_by(step)
        .map(|i| chars[i..i + 2].iter().collect())
        .collect()
}

/// Removes repeats, keeping the first occurrence of each.
fn dedup(items: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    items
        .into_iter()
        .filter(|item| seen.insert(item.clone()))
        .collect()
}

/// Keeps every `ceil(n / 64)`-th item, at most [`MAX_TOKENS`], so a long query is sampled
/// evenly rather than cut off at the end.
fn thin_out(items: Vec<String>) -> Vec<String> {
    if items.len() <= MAX_TOKENS {
        return items;
    }
    let step = items.len().div_ceil(MAX_TOKENS);
    items.into_iter().step_by(step).take(MAX_TOKENS).collect()
}
