//! [`TextMetrics`]: the character and word counts shown to models and users.

use serde::{Deserialize, Serialize};

/// Size of a text in Unicode scalars and words.
///
/// Counts are tokenizer-neutral on purpose: they describe a text the same way for every
/// model. A word is a run of alphanumeric characters, except that each CJK ideograph, kana
/// or hangul character is a word of its own, so texts without spaces still get a useful
/// word count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextMetrics {
    /// Unicode scalar values (Rust `char`s), not bytes.
    pub chars: usize,
    /// Words as defined on the type.
    pub words: usize,
}

impl TextMetrics {
    /// Measures `text`.
    pub fn of(text: &str) -> Self {
        let mut chars = 0;
        let mut words = 0;
        let mut in_word = false;
        for c in text.chars() {
            chars += 1;
            if is_cjk_word_char(c) {
                words += 1;
                in_word = false;
            } else if c.is_alphanumeric() {
                if !in_word {
                    words += 1;
                }
                in_word = true;
            } else {
                in_word = false;
            }
        }
        Self { chars, words }
    }
}

/// Whether `c` is a CJK ideograph, kana or hangul letter, each of which counts as one word.
/// Punctuation inside those blocks (such as the katakana middle dot) is not a word.
fn is_cjk_word_char(c: char) -> bool {
    let in_block = matches!(
        c as u32,
        0x1100..=0x11FF // hangul jamo
            | 0x3005..=0x3007 // 々 〆 〇
            | 0x3040..=0x30FF // hiragana, katakana
            | 0x3130..=0x318F // hangul compatibility jamo
            | 0x31F0..=0x31FF // katakana phonetic extensions
            | 0x3400..=0x4DBF // CJK extension A
            | 0x4E00..=0x9FFF // CJK unified ideographs
            | 0xA960..=0xA97F // hangul jamo extended A
            | 0xAC00..=0xD7FF // hangul syllables, jamo extended B
            | 0xF900..=0xFAFF // CJK compatibility ideographs
            | 0xFF66..=0xFFDC // half-width katakana and hangul
            | 0x1B000..=0x1B16F // kana supplement and extended
            | 0x20000..=0x3134F // CJK extensions B to G, compatibility supplement
    );
    in_block && c.is_alphanumeric()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(text: &str) -> (usize, usize) {
        let metrics = TextMetrics::of(text);
        (metrics.chars, metrics.words)
    }

    #[test]
    fn counts_documented_examples() {
        assert_eq!(m("Hello, brave new world!"), (23, 4));
        assert_eq!(m("你好，世界"), (5, 4));
    }

    #[test]
    fn counts_edge_cases() {
        assert_eq!(m(""), (0, 0));
        assert_eq!(m("   \n\t"), (5, 0));
        assert_eq!(m("snake_case words"), (16, 3));
        assert_eq!(m("v2 is 3.5x"), (10, 4));
        assert_eq!(m("café naïve"), (10, 2));
        assert_eq!(m("ひらがなカタカナ"), (8, 8));
        assert_eq!(m("한국어 문장"), (6, 5));
        assert_eq!(m("Tokyo東京2024"), (11, 4));
        assert_eq!(m("😀 ok"), (4, 1));
        assert_eq!(m("ジョン・スミス"), (7, 6));
    }

    #[test]
    fn serialises_camel_case() {
        let json = serde_json::to_value(TextMetrics::of("a b")).unwrap();
        assert_eq!(json, serde_json::json!({"chars": 3, "words": 2}));
    }
}
