//! [`JsRegexEngine`]: lorebook regex keys with JavaScript `RegExp` semantics, on `regress`.
//!
//! `regress` implements ECMAScript regular expressions (lookbehind, named groups, Unicode
//! property escapes), so a key written for SillyTavern means the same here. The details that
//! make it match the browser:
//! * the flags are JavaScript's: `i` ignore case, `m` multiline anchors, `s` dot-all, `u`
//!   Unicode mode; `g` changes nothing for a single test, and `y` (sticky) only matches at the
//!   start of the text, since every key is tested on a fresh regex whose `lastIndex` is 0. Any
//!   other letter, or a repeated one, is a compile failure, as it is a `SyntaxError` in
//!   JavaScript; the key is then matched as plain text;
//! * without `u` a JavaScript regex sees UTF-16 code units, so an astral character such as
//!   `😀` is two units that `.` matches one at a time; with `u` it is one code point. Both
//!   pattern and text are handed to `regress` in that form.

use agent_domain::worldinfo::{KeyRegex, KeyRegexEngine};
use regress::{Flags, Regex};

/// Compiles lorebook regex keys with `regress`. Stateless; share one freely.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsRegexEngine;

impl KeyRegexEngine for JsRegexEngine {
    fn compile(&self, pattern: &str, flags: &str) -> Option<Box<dyn KeyRegex>> {
        let flags = JsFlags::parse(flags)?;
        let regex = if flags.unicode {
            Regex::from_unicode(pattern.chars().map(u32::from), flags.regress())
        } else {
            Regex::from_unicode(pattern.encode_utf16().map(u32::from), flags.regress())
        }
        .ok()?;
        Some(Box::new(JsRegex {
            regex,
            unicode: flags.unicode,
            sticky: flags.sticky,
        }))
    }
}

/// The flags of a JavaScript regex literal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct JsFlags {
    ignore_case: bool,
    multiline: bool,
    dot_all: bool,
    unicode: bool,
    sticky: bool,
}

impl JsFlags {
    /// `None` for a letter outside `gimsuy` or a repeated one.
    fn parse(flags: &str) -> Option<Self> {
        let mut parsed = Self::default();
        let mut seen = String::new();
        for flag in flags.chars() {
            if seen.contains(flag) {
                return None;
            }
            seen.push(flag);
            match flag {
                'g' => {}
                'i' => parsed.ignore_case = true,
                'm' => parsed.multiline = true,
                's' => parsed.dot_all = true,
                'u' => parsed.unicode = true,
                'y' => parsed.sticky = true,
                _ => return None,
            }
        }
        Some(parsed)
    }

    fn regress(self) -> Flags {
        Flags {
            icase: self.ignore_case,
            multiline: self.multiline,
            dot_all: self.dot_all,
            unicode: self.unicode,
            ..Flags::default()
        }
    }
}

struct JsRegex {
    regex: Regex,
    unicode: bool,
    sticky: bool,
}

impl KeyRegex for JsRegex {
    fn is_match(&self, haystack: &str) -> bool {
        let units: Vec<u16> = haystack.encode_utf16().collect();
        let first = if self.unicode {
            self.regex.find_from_utf16(&units, 0).next()
        } else {
            self.regex.find_from_ucs2(&units, 0).next()
        };
        // The leftmost match starts at 0 exactly when a match at 0 exists.
        first.is_some_and(|found| !self.sticky || found.start() == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_match(pattern: &str, flags: &str, haystack: &str) -> Option<bool> {
        JsRegexEngine
            .compile(pattern, flags)
            .map(|regex| regex.is_match(haystack))
    }

    #[test]
    fn flags_are_javascripts() {
        assert_eq!(JsFlags::parse(""), Some(JsFlags::default()));
        assert_eq!(
            JsFlags::parse("gimsuy"),
            Some(JsFlags {
                ignore_case: true,
                multiline: true,
                dot_all: true,
                unicode: true,
                sticky: true,
            })
        );
        assert_eq!(JsFlags::parse("ii"), None);
        assert_eq!(JsFlags::parse("x"), None);
        assert_eq!(JsFlags::parse("d"), None);
    }

    #[test]
    fn patterns_behave_as_in_javascript() {
        let cases: &[(&str, &str, &str, Option<bool>)] = &[
            // (pattern, flags, haystack, result; None = does not compile)
            ("(?<=red )dragon", "", "a red dragon", Some(true)),
            ("(?<=red )dragon", "", "a blue dragon", Some(false)),
            ("(?<!red )dragon", "", "a blue dragon", Some(true)),
            ("(?<name>drag)on", "", "dragon", Some(true)),
            ("\\k<name>(?<name>x)", "", "x", Some(true)),
            ("DRAGON", "", "dragon", Some(false)),
            ("DRAGON", "i", "dragon", Some(true)),
            ("ÉLAN", "i", "élan", Some(true)),
            ("^b", "", "a\nb", Some(false)),
            ("^b", "m", "a\nb", Some(true)),
            ("a.b", "", "a\nb", Some(false)),
            ("a.b", "s", "a\nb", Some(true)),
            ("dragon", "g", "dragon", Some(true)),
            ("dragon", "y", "dragon here", Some(true)),
            ("dragon", "y", "a dragon", Some(false)),
            ("\\bdragon\\b", "", "a dragon!", Some(true)),
            ("\\p{Lu}", "u", "é É", Some(true)),
            ("(unclosed", "", "x", None),
            ("a{2,1}", "", "x", None),
            ("\\-", "u", "-", None),
            ("\\-", "", "-", Some(true)),
            ("dragon", "x", "dragon", None),
            ("dragon", "ii", "dragon", None),
        ];
        for (pattern, flags, haystack, expected) in cases {
            assert_eq!(
                is_match(pattern, flags, haystack),
                *expected,
                "/{pattern}/{flags} on {haystack:?}"
            );
        }
    }

    #[test]
    fn astral_characters_are_two_units_without_u_and_one_with_it() {
        assert_eq!(is_match("^.$", "", "😀"), Some(false));
        assert_eq!(is_match("^..$", "", "😀"), Some(true));
        assert_eq!(is_match("^.$", "u", "😀"), Some(true));
        assert_eq!(is_match("😀", "", "I 😀 dragons"), Some(true));
        assert_eq!(is_match("\\u{1F600}", "u", "😀"), Some(true));
    }
}
