//! Keeping secrets out of everything a call leaves behind.
//!
//! Providers sometimes echo request headers or keys in their bodies, and not always byte for
//! byte: PHP's JSON writes `/` as `\/`, some servers write every character as `\uXXXX`, echo
//! the key percent- or form-encoded, put it in an HTML error page, or log the base64 of an
//! `Authorization: Basic` / `Bearer` credential. Transport errors may quote the URL. Every
//! text this crate builds from upstream passes through a [`Redactor`] holding the
//! connection's secrets, so no form of a key reaches an event, a log line or a `Debug` print.
//!
//! The rule (`docs/providers.md`, "Secrets in upstream text"):
//!
//! 1. **Cut.** Every span that reads as a secret is replaced by `[REDACTED]`. A span reads as
//!    a secret when each of its characters is written raw or with one escape, mixed freely:
//!    a JSON escape (`\/`, `\"`, `\\`, `\n`…, `\uXXXX` in either case, surrogate pairs), a
//!    percent escape of each UTF-8 byte (either case), `+` for a space, or an HTML character
//!    reference (`&#47;`, `&#x2F;`, `&quot;`, `&amp;`, `&lt;`, `&gt;`, `&apos;`). The base64
//!    of a secret is cut the same way: for each of the three alignments a secret can have
//!    inside a longer base64 text (alone, after `Bearer `, after `user:`), the run of base64
//!    characters that only the secret determines, in the standard and the URL-safe alphabet,
//!    is a form of the secret too (only when that run has at least eight characters; a
//!    shorter one would match ordinary text).
//! 2. **Withhold.** What is left is then decoded up to four times over (an escape inside an
//!    escape: `\\\/`, `%252F`, `%5C%2F`); when any layer still shows a secret, the whole text
//!    is replaced by [`WITHHELD`], because that form cannot be cut precisely.

use std::borrow::Cow;

use agent_application::ports::ModelError;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD_NO_PAD;
use serde_json::Value;

/// How many characters of an upstream body an error message keeps.
pub const EXCERPT_CHARS: usize = 500;

/// What a secret is replaced with.
const MASK: &str = "[REDACTED]";

/// What a whole text is replaced with when it still shows a secret after the cut.
pub const WITHHELD: &str = "[withheld: it may carry a secret in a form that cannot be masked]";

/// The shortest base64 run that counts as a form of a secret.
const MIN_BASE64_RUN: usize = 8;

/// How many layers of escapes the withhold check looks through.
const DECODE_LAYERS: usize = 4;

/// Replaces every form of the connection's secrets in text taken from upstream.
#[derive(Clone, Default)]
pub struct Redactor {
    secrets: Vec<Secret>,
}

/// One secret and its base64 runs: everything cut where it appears.
#[derive(Clone)]
struct Secret {
    /// The secret first, then its base64 runs.
    forms: Vec<String>,
    /// The same forms with `+` read as a space, as form encoding writes it, for the
    /// withhold check on decoded text.
    spaced: Vec<String>,
}

impl Secret {
    fn new(secret: String) -> Self {
        let mut forms = vec![secret];
        for run in base64_runs(forms[0].as_bytes()) {
            if !forms.contains(&run) {
                forms.push(run);
            }
        }
        let spaced = forms.iter().map(|f| f.replace('+', " ")).collect();
        Self { forms, spaced }
    }

    /// Whether decoded `text` shows this secret in any form.
    fn appears_in(&self, text: &str) -> bool {
        let spaced_text = text.replace('+', " ");
        self.forms.iter().any(|f| text.contains(f.as_str()))
            || self.spaced.iter().any(|f| spaced_text.contains(f.as_str()))
    }
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor")
            .field("secrets", &self.secrets.len())
            .finish()
    }
}

impl Redactor {
    /// A redactor for `secrets`; blank values are ignored (they would match everywhere).
    pub fn new<I, S>(secrets: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            secrets: secrets
                .into_iter()
                .map(Into::into)
                .filter(|s| !s.trim().is_empty())
                .map(Secret::new)
                .collect(),
        }
    }

    /// `text` with every form of every secret masked, or [`WITHHELD`] when a form remains
    /// that cannot be cut (see the module docs).
    pub fn redact(&self, text: &str) -> String {
        self.clean(text).into_owned()
    }

    /// A redacted excerpt of an upstream body, at most [`EXCERPT_CHARS`] characters (plus
    /// an ellipsis when cut). Redaction happens before cutting so a key that straddles the
    /// cut can never leave a recognisable prefix behind.
    pub fn excerpt(&self, body: &str) -> String {
        let clean = self.clean(body.trim());
        if clean.chars().count() <= EXCERPT_CHARS {
            clean.into_owned()
        } else {
            let cut: String = clean.chars().take(EXCERPT_CHARS).collect();
            format!("{cut}…")
        }
    }

    /// Redacts every string (and object key) of a parsed upstream body in place, so what a
    /// decoder copies into a response or an error is already clean.
    pub fn redact_json(&self, value: &mut Value) {
        if self.secrets.is_empty() {
            return;
        }
        match value {
            Value::String(text) => {
                if let Cow::Owned(clean) = self.clean(text) {
                    *text = clean;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.redact_json(item)),
            Value::Object(map) => {
                if map
                    .keys()
                    .any(|key| matches!(self.clean(key), Cow::Owned(_)))
                {
                    *map = std::mem::take(map)
                        .into_iter()
                        .map(|(key, value)| (self.redact(&key), value))
                        .collect();
                }
                map.values_mut().for_each(|item| self.redact_json(item));
            }
            _ => {}
        }
    }

    /// `error` with its message and provider code redacted.
    pub fn redact_error(&self, mut error: ModelError) -> ModelError {
        error.message = self.redact(&error.message);
        error.provider_code = error.provider_code.map(|code| self.redact(&code));
        error
    }

    /// The cut, then the withhold check; borrowed when neither changed anything.
    fn clean<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.secrets.is_empty() {
            return Cow::Borrowed(text);
        }
        let cut = self.cut(text);
        if self.shows_secret(&cut) {
            Cow::Owned(WITHHELD.to_owned())
        } else {
            cut
        }
    }

    /// Replaces every span that reads as a form of a secret, leftmost first.
    fn cut<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let forms = || self.secrets.iter().flat_map(|s| s.forms.iter());
        let mut out: Option<String> = None;
        let mut at = 0;
        while let Some(c) = text[at..].chars().next() {
            match forms().find_map(|form| read_form(text, at, form)) {
                Some(end) => {
                    out.get_or_insert_with(|| text[..at].to_owned())
                        .push_str(MASK);
                    at = end;
                }
                None => {
                    if let Some(out) = &mut out {
                        out.push(c);
                    }
                    at += c.len_utf8();
                }
            }
        }
        out.map_or(Cow::Borrowed(text), Cow::Owned)
    }

    /// Whether a secret shows through up to [`DECODE_LAYERS`] layers of escapes.
    fn shows_secret(&self, text: &str) -> bool {
        let mut layer = Cow::Borrowed(text);
        for _ in 0..DECODE_LAYERS {
            let Some(next) = decode_layer(&layer) else {
                return false;
            };
            if self.secrets.iter().any(|s| s.appears_in(&next)) {
                return true;
            }
            layer = Cow::Owned(next);
        }
        false
    }
}

/// The runs of base64 characters that only `secret` determines, for each of its three
/// possible alignments, in the standard and the URL-safe alphabet.
fn base64_runs(secret: &[u8]) -> Vec<String> {
    let mut runs = Vec::new();
    for offset in 0..3 {
        let mut data = vec![0_u8; offset];
        data.extend_from_slice(secret);
        let encoded = STANDARD_NO_PAD.encode(&data);
        // Character i holds bits 6i..6i+6; the secret holds bits 8·offset..8·len.
        let first = (8 * offset).div_ceil(6);
        let last = 8 * data.len() / 6;
        let Some(run) = encoded.get(first..last) else {
            continue;
        };
        if run.len() < MIN_BASE64_RUN {
            continue;
        }
        let url_safe = run.replace('+', "-").replace('/', "_");
        if url_safe != run {
            runs.push(url_safe);
        }
        runs.push(run.to_owned());
    }
    runs
}

/// What an escape stands for.
enum Unit {
    Char(char),
    /// One byte of a percent-encoded UTF-8 sequence.
    Byte(u8),
}

/// The escape at `at`, if one starts there, and where it ends.
fn escape_at(text: &str, at: usize) -> Option<(Unit, usize)> {
    let rest = text.as_bytes().get(at..)?;
    match rest.first()? {
        b'\\' => json_escape(rest).map(|(c, len)| (Unit::Char(c), at + len)),
        b'%' => {
            let byte = hex(rest.get(1..3)?)?;
            Some((Unit::Byte(u8::try_from(byte).ok()?), at + 3))
        }
        b'&' => html_reference(rest).map(|(c, len)| (Unit::Char(c), at + len)),
        _ => None,
    }
}

/// The value of ASCII hex digits (either case); `None` for anything else.
fn hex(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

/// A JSON string escape at the start of `rest`: the character and the escape's length.
fn json_escape(rest: &[u8]) -> Option<(char, usize)> {
    let simple = match rest.get(1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let unit = hex(rest.get(2..6)?)?;
            if (0xD800..0xDC00).contains(&unit) && rest.get(6..8) == Some(b"\\u") {
                let low = hex(rest.get(8..12)?)?;
                if (0xDC00..0xE000).contains(&low) {
                    let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    return char::from_u32(code).map(|c| (c, 12));
                }
            }
            return char::from_u32(unit).map(|c| (c, 6));
        }
        _ => return None,
    };
    Some((simple, 2))
}

/// An HTML character reference at the start of `rest` (numeric, or one of the five
/// entities XML knows): the character and the reference's length.
fn html_reference(rest: &[u8]) -> Option<(char, usize)> {
    let end = rest.iter().take(12).position(|&b| b == b';')?;
    let name = rest.get(1..end)?;
    let c = match name {
        b"quot" => '"',
        b"amp" => '&',
        b"lt" => '<',
        b"gt" => '>',
        b"apos" => '\'',
        [b'#', b'x' | b'X', digits @ ..] => char::from_u32(hex(digits)?)?,
        [b'#', digits @ ..] if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) => {
            char::from_u32(std::str::from_utf8(digits).ok()?.parse().ok()?)?
        }
        _ => return None,
    };
    Some((c, end + 1))
}

/// Where the span that reads as `form` from `at` ends (the longest reading when several
/// do), if it does.
fn read_form(text: &str, at: usize, form: &str) -> Option<usize> {
    let rest = text.get(at..)?;
    let first = form.chars().next()?;
    if !rest.starts_with(first) && !rest.starts_with(['\\', '%', '&', '+']) {
        return None;
    }
    let mut frontier = vec![at];
    let mut next = Vec::new();
    for c in form.chars() {
        next.clear();
        for &position in &frontier {
            readings(text, position, c, &mut next);
        }
        if next.is_empty() {
            return None;
        }
        next.sort_unstable();
        next.dedup();
        std::mem::swap(&mut frontier, &mut next);
    }
    frontier.last().copied()
}

/// Pushes the end of every way `c` is written at `at`: raw, as one escape, as `+` for a
/// space, or as the percent escapes of its UTF-8 bytes.
fn readings(text: &str, at: usize, c: char, ends: &mut Vec<usize>) {
    let Some(rest) = text.get(at..) else {
        return;
    };
    if rest.starts_with(c) {
        ends.push(at + c.len_utf8());
    }
    if c == ' ' && rest.starts_with('+') {
        ends.push(at + 1);
    }
    match escape_at(text, at) {
        Some((Unit::Char(escaped), end)) if escaped == c => ends.push(end),
        Some((Unit::Byte(_), _)) => {
            let mut position = at;
            for &byte in c.encode_utf8(&mut [0; 4]).as_bytes() {
                match escape_at(text, position) {
                    Some((Unit::Byte(escaped), end)) if escaped == byte => position = end,
                    _ => return,
                }
            }
            ends.push(position);
        }
        _ => {}
    }
}

/// `text` with one layer of escapes decoded (percent-escaped bytes are read as UTF-8,
/// lossily), or `None` when it has none.
fn decode_layer(text: &str) -> Option<String> {
    if !text.contains(['\\', '%', '&']) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut bytes = Vec::new();
    let mut at = 0;
    let mut decoded = false;
    while let Some(c) = text[at..].chars().next() {
        let escape = escape_at(text, at);
        if let Some((Unit::Byte(byte), end)) = escape {
            bytes.push(byte);
            at = end;
            decoded = true;
            continue;
        }
        if !bytes.is_empty() {
            out.push_str(&String::from_utf8_lossy(&bytes));
            bytes.clear();
        }
        match escape {
            Some((Unit::Char(escaped), end)) => {
                out.push(escaped);
                at = end;
                decoded = true;
            }
            _ => {
                out.push(c);
                at += c.len_utf8();
            }
        }
    }
    out.push_str(&String::from_utf8_lossy(&bytes));
    decoded.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;

    /// A key with every character that escapes differently, and two outside ASCII (the
    /// property test in `tests/redaction.rs` covers random printable keys and every
    /// single-layer echo).
    const KEY: &str = "sk-a/b+c=d\"e\\f g&h<é😀";

    #[test]
    fn masks_every_occurrence_and_cuts_long_bodies() {
        let r = Redactor::new(["sk-secret", ""]);
        assert_eq!(
            r.redact("a sk-secret b sk-secret"),
            "a [REDACTED] b [REDACTED]"
        );
        let long = format!("{}sk-secret", "x".repeat(600));
        let excerpt = r.excerpt(&long);
        assert_eq!(excerpt.chars().count(), EXCERPT_CHARS + 1);
        assert!(!excerpt.contains("sk-"));
        assert_eq!(Redactor::new([" "]).redact("a b"), "a b");
        assert_eq!(format!("{r:?}"), "Redactor { secrets: 1 }");
    }

    #[test]
    fn mixed_escapes_and_surrogate_pairs_are_one_form() {
        let r = Redactor::new([KEY]);
        let mixed = r#"sk-a%2Fb\u002bc&#x3D;d\"e%5cf+g&amp;h&#60;%C3%a9\ud83d\uDE00"#;
        assert_eq!(r.redact(&format!("<{mixed}>")), "<[REDACTED]>");
        let spelled = r#"sk-a\/b+c=d\"e\\f g&h<\u00E9\uD83D\ude00"#;
        assert_eq!(r.redact(spelled), MASK);
    }

    #[test]
    fn an_escape_inside_an_escape_withholds_the_whole_text() {
        let r = Redactor::new(["sk-a/b"]);
        for nested in [
            r#"sk-a\\\/b"#,
            "sk-a%252Fb",
            "sk-a%5C%2Fb",
            "sk-a&amp;#47;b",
        ] {
            assert_eq!(r.redact(&format!("key {nested} rejected")), WITHHELD);
        }
        assert_eq!(r.excerpt("key sk-a%252Fb"), WITHHELD);
    }

    #[test]
    fn text_without_a_secret_is_left_alone() {
        let r = Redactor::new([KEY, "hdr-secret-value"]);
        let text = r#"HTTP 401 \/ %41 &amp; + "quoted" \u00e9 sk-a/b+c= truncated"#;
        assert_eq!(r.redact(text), text);
        assert!(matches!(r.clean(text), Cow::Borrowed(_)));
        assert_eq!(r.redact("hdr-secret-valu"), "hdr-secret-valu");
    }

    #[test]
    fn base64_runs_need_eight_characters() {
        assert!(base64_runs(b"short").is_empty());
        assert_eq!(base64_runs(b"12345678").len(), 3);
        let r = Redactor::new(["short"]);
        assert_eq!(
            r.redact(&STANDARD.encode("short")),
            STANDARD.encode("short")
        );
        let r = Redactor::new(["12345678"]);
        let basic = STANDARD.encode("user:12345678");
        assert!(r.redact(&format!("Basic {basic}")).contains(MASK));
    }

    #[test]
    fn json_bodies_and_errors_are_redacted_in_place() {
        let r = Redactor::new([KEY]);
        let mut body = serde_json::json!({
            "choices": [{"message": {"content": format!("echo {KEY}")}}],
            "n": 1,
        });
        if let Some(map) = body.as_object_mut() {
            map.insert(
                KEY.to_owned(),
                STANDARD.encode(format!("Bearer {KEY}")).into(),
            );
        }
        r.redact_json(&mut body);
        let text = body.to_string();
        assert!(!text.contains("sk-a"), "{text}");
        let bearer = STANDARD.encode(format!("Bearer {KEY}"));
        assert!(!text.contains(&bearer[12..20]), "{text}");
        assert_eq!(body["choices"][0]["message"]["content"], "echo [REDACTED]");
        assert_eq!(body["n"], 1);

        let mut error = ModelError::new(
            agent_application::ports::ModelErrorKind::Auth,
            r#"bad sk-a\/b+c=d\"e\\f g&h<é😀"#,
        );
        error.provider_code = Some("sk-a%2Fb%2Bc%3Dd%22e%5Cf%20g%26h%3C%C3%A9%F0%9F%98%80".into());
        let error = r.redact_error(error);
        assert_eq!(error.message, "bad [REDACTED]");
        assert_eq!(error.provider_code.as_deref(), Some(MASK));
    }
}
