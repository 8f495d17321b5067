//! [`WorldInfoError`]: why a lorebook could not be read, each with a stable code.
//!
//! Everything else in world info is tolerant on purpose (a wrong-typed field takes its
//! default, a broken timed-effect record is dropped), the way SillyTavern treats the same
//! data; only a file that is not a lorebook at all is refused.

use crate::error::ErrorCode;

/// Why a lorebook file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WorldInfoError {
    /// The text is not JSON.
    #[error("lorebook `{book}` is not valid JSON: {detail}")]
    BookNotJson { book: String, detail: String },
    /// The JSON is not an object, or its `entries` is present but not an object.
    #[error("lorebook `{book}` is not a lorebook: {detail}")]
    BookInvalid { book: String, detail: &'static str },
}

impl ErrorCode for WorldInfoError {
    fn code(&self) -> &'static str {
        match self {
            Self::BookNotJson { .. } => "worldinfo.book_not_json",
            Self::BookInvalid { .. } => "worldinfo.book_invalid",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_worldinfo_codes() {
        let not_json = WorldInfoError::BookNotJson {
            book: "b".into(),
            detail: "d".into(),
        };
        let invalid = WorldInfoError::BookInvalid {
            book: "b".into(),
            detail: "d",
        };
        assert_eq!(not_json.code(), "worldinfo.book_not_json");
        assert_eq!(invalid.code(), "worldinfo.book_invalid");
        assert_eq!(invalid.to_string(), "lorebook `b` is not a lorebook: d");
    }
}
