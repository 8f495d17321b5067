//! The engines a scan needs but this crate cannot own: a JavaScript regex engine, a
//! tokenizer and a random source. Each is a small trait implemented by an adapter
//! (`agent-text` has the regex engine and the tokenizers); tests use fakes.
//!
//! Macro expansion is the fourth outside service; it is a plain closure
//! (`&dyn Fn(&str) -> String`), see `ScanEngines`.

/// Compiles the regex keys of a lorebook (`/pattern/flags`) with JavaScript `RegExp`
/// semantics.
pub trait KeyRegexEngine {
    /// Compiles `pattern` (the text between the slashes, with the first `\/` already turned
    /// into `/`) with `flags` (letters from `gimsuy`). `None` when JavaScript would throw —
    /// a syntax error, an unknown or repeated flag — in which case the key is matched as
    /// plain text.
    fn compile(&self, pattern: &str, flags: &str) -> Option<Box<dyn KeyRegex>>;
}

/// A compiled regex key.
pub trait KeyRegex {
    /// `RegExp.prototype.test` on a fresh regex (so `lastIndex` is 0: `g` changes nothing and
    /// `y` anchors the match at the start of `haystack`).
    fn is_match(&self, haystack: &str) -> bool;
}

/// Counts tokens the way the active model's tokenizer does.
pub trait TokenCounter {
    fn count_tokens(&self, text: &str) -> usize;
}

/// A uniform random source, as JavaScript's `Math.random()`.
pub trait Chance {
    /// The next value in `[0, 1)`.
    fn next_unit(&mut self) -> f64;
}

/// A [`Chance`] that replays a fixed sequence, cycling; `0.0` forever when empty. For tests,
/// and for previews that must not depend on luck.
#[derive(Debug, Clone, Default)]
pub struct FixedChance {
    values: Vec<f64>,
    next: usize,
}

impl FixedChance {
    pub fn new(values: impl Into<Vec<f64>>) -> Self {
        Self {
            values: values.into(),
            next: 0,
        }
    }
}

impl Chance for FixedChance {
    fn next_unit(&mut self) -> f64 {
        let Some(value) = self.values.get(self.next % self.values.len().max(1)) else {
            return 0.0;
        };
        self.next += 1;
        *value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_chance_cycles_and_defaults_to_zero() {
        let mut chance = FixedChance::new([0.25, 0.75]);
        let drawn: Vec<f64> = (0..3).map(|_| chance.next_unit()).collect();
        assert_eq!(drawn, [0.25, 0.75, 0.25]);
        assert_eq!(FixedChance::default().next_unit(), 0.0);
    }
}
