//! Keeping secrets out of everything a failed call leaves behind.
//!
//! Providers sometimes echo request headers or keys in their error bodies, and transport
//! errors may quote the URL. Every message this crate builds from upstream text passes
//! through a [`Redactor`] holding the connection's secrets, so a key can never reach an
//! event, a log line or a `Debug` print.

/// How many characters of an upstream body an error message keeps.
pub const EXCERPT_CHARS: usize = 500;

/// What a secret is replaced with.
const MASK: &str = "[REDACTED]";

/// Replaces every occurrence of the connection's secrets in text taken from upstream.
#[derive(Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
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
                .collect(),
        }
    }

    /// `text` with every secret masked.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), MASK);
            }
        }
        out
    }

    /// A redacted excerpt of an upstream body, at most [`EXCERPT_CHARS`] characters (plus
    /// an ellipsis when cut). Redaction happens before cutting so a key that straddles the
    /// cut can never leave a recognisable prefix behind.
    pub fn excerpt(&self, body: &str) -> String {
        let clean = self.redact(body.trim());
        if clean.chars().count() <= EXCERPT_CHARS {
            clean
        } else {
            let cut: String = clean.chars().take(EXCERPT_CHARS).collect();
            format!("{cut}…")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
