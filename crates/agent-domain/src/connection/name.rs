//! [`ConnectionName`]: the validated name of a connection, also its file name.

use std::fmt;

use super::ConnectionError;

/// Connection names are at most this many characters (all ASCII, so also bytes).
pub const MAX_CONNECTION_NAME_CHARS: usize = 64;

/// A connection name: 1 to 64 characters of `[A-Za-z0-9._-]`, the first a letter or digit.
///
/// The name is the file name (`<name>.json`), so the alphabet keeps it a single, plain path
/// segment on every platform: no separators, no `..`, no hidden files, nothing to quote.
/// Stores take a `ConnectionName`, never a raw string, so no path can be built from a name
/// that was not checked. Names are compared exactly (case matters), but two names that
/// differ only in case cannot both exist ([`clashes_with`](Self::clashes_with)): they would
/// be one file on macOS and Windows.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConnectionName(String);

impl ConnectionName {
    /// Whether `existing` (a stored connection's name) differs from this one only in case,
    /// which stores refuse for `create` and `replace` alike.
    pub fn clashes_with(&self, existing: &str) -> bool {
        self.0 != existing && self.0.eq_ignore_ascii_case(existing)
    }

    /// Checks `raw` as given; surrounding whitespace is refused rather than trimmed so the
    /// name on disk is always exactly the name that was typed.
    pub fn parse(raw: &str) -> Result<Self, ConnectionError> {
        let invalid = |reason| ConnectionError::InvalidName {
            name: raw.to_owned(),
            reason,
        };
        let Some(first) = raw.chars().next() else {
            return Err(invalid("is empty"));
        };
        if raw.chars().count() > MAX_CONNECTION_NAME_CHARS {
            return Err(invalid("is longer than 64 characters"));
        }
        if !first.is_ascii_alphanumeric() {
            return Err(invalid("must start with an ASCII letter or digit"));
        }
        let alphabet = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        if !raw.chars().all(alphabet) {
            return Err(invalid("has a character outside the allowed set"));
        }
        Ok(Self(raw.to_owned()))
    }

    /// The name text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ConnectionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn plain_names_are_accepted() {
        for raw in ["openai", "GPT-4o_mini", "local.llama", "0", "a..b", "x-"] {
            assert_eq!(ConnectionName::parse(raw).unwrap().as_str(), raw);
        }
        assert!(ConnectionName::parse(&"a".repeat(MAX_CONNECTION_NAME_CHARS)).is_ok());
    }

    #[test]
    fn names_that_are_not_plain_file_names_are_refused() {
        let long = "a".repeat(MAX_CONNECTION_NAME_CHARS + 1);
        for raw in [
            "",
            " openai",
            "openai ",
            ".hidden",
            "..",
            "../escape",
            "a/b",
            "a\\b",
            "-flag",
            "_x",
            "naïve",
            "a:b",
            "a\0b",
            long.as_str(),
        ] {
            let err = ConnectionName::parse(raw).unwrap_err();
            assert_eq!(err.code(), "connection.invalid_name", "{raw:?}");
        }
    }
}
