//! cyrb53, the string hash SillyTavern stores in timed-effect records (`getStringHash`).
//!
//! A record only applies to the entry whose hash it carries, so the value must match the
//! browser's bit for bit: the input is walked as UTF-16 code units (JavaScript's
//! `charCodeAt`), all arithmetic is 32-bit wrapping multiplication (`Math.imul`) and
//! unsigned shifts (`>>>`), and the result is a 53-bit integer (`2097151 & h2` in the high
//! part, `h1 >>> 0` in the low part).

/// cyrb53 of `text` with `seed`, as JavaScript's `getStringHash(text, seed)` computes it.
/// SillyTavern hashes world-info entries with seed 0.
pub fn cyrb53(text: &str, seed: u32) -> u64 {
    let mut h1: u32 = 0xdead_beef ^ seed;
    let mut h2: u32 = 0x41c6_ce57 ^ seed;
    for unit in text.encode_utf16() {
        let unit = u32::from(unit);
        h1 = (h1 ^ unit).wrapping_mul(2_654_435_761);
        h2 = (h2 ^ unit).wrapping_mul(1_597_334_677);
    }
    h1 = (h1 ^ (h1 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h2 ^ (h2 >> 13)).wrapping_mul(3_266_489_909);
    h2 = (h2 ^ (h2 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h1 ^ (h1 >> 13)).wrapping_mul(3_266_489_909);
    (u64::from(h2 & 0x1f_ffff) << 32) + u64::from(h1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values computed with the JavaScript function in node v20.
    #[test]
    fn matches_javascript() {
        let cases: &[(&str, u64)] = &[
            ("", 3_338_908_027_751_811),
            ("a", 7_929_297_801_672_961),
            ("hello world", 3_259_054_761_512_980),
            ("Eldoria", 59_964_539_520_806),
            // é is one code unit, 😀 two (a surrogate pair), U+2028 one.
            ("é😀\u{2028}", 7_352_019_262_733_301),
            (
                r#"{"uid":0,"world":"Eldoria","key":["capital"],"content":"Alden is the capital.","decorators":[]}"#,
                7_257_779_205_221_688,
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(cyrb53(text, 0), *expected, "{text:?}");
        }
    }

    #[test]
    fn fits_in_53_bits() {
        assert!(cyrb53("anything at all", 0) < 1 << 53);
    }
}
