//! SillyTavern lorebooks ("worlds"): one JSON document per world, read as stored.

use std::cmp::Ordering;

use async_trait::async_trait;
use serde_json::Value;

use super::StoreError;

/// The code of a lorebook file that does not read ([`StoreError::Damaged`]).
pub const WORLD_INVALID: &str = "sillytavern.world_invalid";
/// The code of a name that cannot name a lorebook file ([`StoreError::Invalid`]).
pub const INVALID_WORLD_NAME: &str = "sillytavern.invalid_world_name";

/// One lorebook file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lorebook {
    /// The world name: the file stem.
    pub name: String,
    /// The file's text exactly as stored. Object keys keep their file order here, and only
    /// here: SillyTavern hashes an entry as `JSON.stringify` writes it, so a reader that needs
    /// key order (timed effects) parses this text with an order-preserving parser.
    pub text: String,
    /// The parsed document (`{"entries": {"<uid>": {...}, ...}, ...}`), a JSON object.
    /// `serde_json::Value` sorts object keys, so iterate `entries` by numeric uid as
    /// SillyTavern does, and never hash this.
    pub value: Value,
}

/// Read access to the lorebooks of the data directory.
#[async_trait]
pub trait Lorebooks: Send + Sync {
    /// The world names: the stems of the `*.json` files of the worlds folder (the extension
    /// matched case-insensitively, as SillyTavern does), each once, in
    /// [`compare_world_names`] order. Empty when the folder does not exist.
    async fn list(&self) -> Result<Vec<String>, StoreError>;

    /// The lorebook `name`; `None` when there is none. A name that cannot be a plain file
    /// name is [`StoreError::Invalid`] with [`INVALID_WORLD_NAME`]; a file that is not a JSON
    /// object is [`StoreError::Damaged`] with [`WORLD_INVALID`], naming the file and line.
    async fn load(&self, name: &str) -> Result<Option<Lorebook>, StoreError>;
}

/// The order of world names: an approximation of SillyTavern's `a.localeCompare(b)` without
/// a collation table. Names compare by their lower-case form, and names equal but for case
/// put lower case first (as ICU's default tertiary strength does); unlike ICU, accented
/// letters, digits and punctuation sort by code point (`_x` after `10 Towns`, `é` after `z`).
pub fn compare_world_names(a: &str, b: &str) -> Ordering {
    a.to_lowercase()
        .cmp(&b.to_lowercase())
        .then_with(|| b.cmp(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sort_roughly_like_locale_compare() {
        let mut names = vec![
            "beta", "Alpha", "alpha", "Zed", "aB", "Ab", "_x", "10 Towns",
        ];
        names.sort_by(|a, b| compare_world_names(a, b));
        assert_eq!(
            names,
            [
                "10 Towns", "_x", "aB", "Ab", "alpha", "Alpha", "beta", "Zed"
            ]
        );
    }
}
