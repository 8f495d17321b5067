//! JavaScript string and number semantics the lorebook format depends on.
//!
//! SillyTavern runs in a browser, so its trims, whitespace classes, number coercions and
//! number printing follow ECMAScript, not Rust. They differ in small ways that change which
//! key matches or which bytes get hashed (`'\u{feff}'` is whitespace to JavaScript and not to
//! Rust, `1e21` prints as `1e+21`, `Number("")` is 0), so the few we need live here, once.

use serde_json::Value;

/// A JSON value seen as the scalar JavaScript coerces: what `Boolean(v)` and `Number(v)`
/// need to know.
#[derive(Debug, Clone, Copy)]
pub(crate) enum JsScalar<'a> {
    Null,
    Bool(bool),
    Number(f64),
    Text(&'a str),
    /// An array or object.
    Compound,
}

impl<'a> JsScalar<'a> {
    pub(crate) fn of_value(value: &'a Value) -> Self {
        match value {
            Value::Null => Self::Null,
            Value::Bool(b) => Self::Bool(*b),
            Value::Number(n) => Self::Number(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => Self::Text(s),
            Value::Array(_) | Value::Object(_) => Self::Compound,
        }
    }

    /// `Boolean(v)`.
    pub(crate) fn truthy(self) -> bool {
        match self {
            Self::Null => false,
            Self::Bool(b) => b,
            Self::Number(n) => n != 0.0 && !n.is_nan(),
            Self::Text(s) => !s.is_empty(),
            Self::Compound => true,
        }
    }

    /// `Number(v)`, except that arrays and objects are always NaN.
    pub(crate) fn to_number(self) -> f64 {
        match self {
            Self::Null => 0.0,
            Self::Bool(b) => f64::from(u8::from(b)),
            Self::Number(n) => n,
            Self::Text(s) => string_to_number(s),
            Self::Compound => f64::NAN,
        }
    }
}

/// Whether `c` is in JavaScript's `\s` class (WhiteSpace plus LineTerminator), which is also
/// what `String.prototype.trim` removes. Unlike [`char::is_whitespace`] it includes
/// U+FEFF and excludes U+0085.
pub(crate) fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `String.prototype.trim`: JavaScript's whitespace (with U+FEFF, without U+0085), which is
/// not Rust's `str::trim`.
pub fn js_trim(text: &str) -> &str {
    text.trim_matches(is_js_whitespace)
}

/// Whether `byte` is in JavaScript's (ASCII-only) `\w` class: `[A-Za-z0-9_]`.
pub(crate) fn is_ascii_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// The numeric value of `key` when JavaScript treats it as an array index: the canonical
/// decimal form of an integer below 2³² − 1. Objects enumerate such keys first, ascending.
pub(crate) fn array_index(key: &str) -> Option<u32> {
    let canonical = key == "0" || (!key.starts_with('0') && !key.is_empty());
    if !canonical || !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    key.parse::<u32>().ok().filter(|&n| n != u32::MAX)
}

/// `Number(text)` for a string: surrounding whitespace ignored, empty means 0, decimal
/// literals with an optional exponent, `0x`/`0o`/`0b` integers and `Infinity`. Anything else
/// is NaN.
pub(crate) fn string_to_number(text: &str) -> f64 {
    let text = js_trim(text);
    if text.is_empty() {
        return 0.0;
    }
    let radix = match text.get(..2) {
        Some("0x" | "0X") => Some(16),
        Some("0o" | "0O") => Some(8),
        Some("0b" | "0B") => Some(2),
        _ => None,
    };
    if let Some(radix) = radix {
        return u64::from_str_radix(&text[2..], radix).map_or(f64::NAN, |n| n as f64);
    }
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    if unsigned == "Infinity" {
        return if text.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    // Rust also accepts `inf` and `NaN`; JavaScript's grammar only has digits, `.` and an
    // exponent.
    let decimal = unsigned
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !decimal {
        return f64::NAN;
    }
    text.parse::<f64>().unwrap_or(f64::NAN)
}

/// `Number.prototype.toString()` (and so `String(n)` and `JSON.stringify(n)` for finite
/// numbers): the shortest digits that round-trip, in plain notation for exponents from −7
/// to 20 and in `1.5e+21` notation beyond.
///
/// Non-finite values print as JavaScript prints them (`NaN`, `Infinity`); `JSON.stringify`
/// callers turn those into `null` themselves.
pub(crate) fn number_to_string(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value < 0.0 { "-Infinity" } else { "Infinity" }.to_owned();
    }
    if value == 0.0 {
        return "0".to_owned();
    }
    // `{:e}` prints the shortest round-trip digits as `d.ddde±x`, the same digits ECMAScript
    // chooses; only the layout differs.
    let scientific = format!("{:e}", value.abs());
    let (mantissa, exponent) = scientific
        .split_once('e')
        .unwrap_or((scientific.as_str(), "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let sign = if value < 0.0 { "-" } else { "" };
    format!("{sign}{}", layout_digits(&digits, exponent + 1))
}

/// ECMAScript's Number::toString layout of `digits` (no leading zeros) times `10^(n − k)`.
fn layout_digits(digits: &str, n: i64) -> String {
    let k = digits.len() as i64;
    if k <= n && n <= 21 {
        return format!("{digits}{}", "0".repeat((n - k) as usize));
    }
    if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        return format!("{int}.{frac}");
    }
    if -6 < n && n <= 0 {
        return format!("0.{}{digits}", "0".repeat((-n) as usize));
    }
    let exp = n - 1;
    let exp_sign = if exp < 0 { '-' } else { '+' };
    let (first, rest) = digits.split_at(1);
    if rest.is_empty() {
        format!("{first}e{exp_sign}{}", exp.abs())
    } else {
        format!("{first}.{rest}e{exp_sign}{}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_like_javascript() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (100.0, "100"),
            (-42.0, "-42"),
            (0.5, "0.5"),
            (12.345, "12.345"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (1e20, "100000000000000000000"),
            (123456789012345680000.0, "123456789012345680000"),
            (0.000001, "0.000001"),
            (0.0000001, "1e-7"),
            (1.25e-7, "1.25e-7"),
            (9007199254740991.0, "9007199254740991"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (value, expected) in cases {
            assert_eq!(number_to_string(*value), *expected, "{value:?}");
        }
    }

    #[test]
    fn strings_convert_like_javascript_number() {
        assert_eq!(string_to_number(""), 0.0);
        assert_eq!(string_to_number("  12 "), 12.0);
        assert_eq!(string_to_number("-1.5e2"), -150.0);
        assert_eq!(string_to_number("0x1A"), 26.0);
        assert_eq!(string_to_number("Infinity"), f64::INFINITY);
        assert!(string_to_number("inf").is_nan());
        assert!(string_to_number("NaN").is_nan());
        assert!(string_to_number("12px").is_nan());
    }

    #[test]
    fn array_indexes_are_canonical_integers_below_u32_max() {
        assert_eq!(array_index("0"), Some(0));
        assert_eq!(array_index("42"), Some(42));
        assert_eq!(array_index("4294967294"), Some(4_294_967_294));
        assert_eq!(array_index("4294967295"), None);
        assert_eq!(array_index("042"), None);
        assert_eq!(array_index("-1"), None);
        assert_eq!(array_index("1.0"), None);
        assert_eq!(array_index(""), None);
    }

    #[test]
    fn whitespace_is_javascripts() {
        assert_eq!(js_trim("\u{feff} key \u{3000}"), "key");
        assert_eq!(js_trim("\u{85}key"), "\u{85}key");
        assert!(!is_js_whitespace('\u{200b}'));
    }
}
