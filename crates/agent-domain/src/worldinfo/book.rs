//! [`WorldBook`]: a lorebook file (`worlds/<name>.json`) read into entries.

use super::entry::WorldEntry;
use super::error::WorldInfoError;
use crate::json::OrderedJson;

/// A lorebook: its name (the file stem) and its entries in the order SillyTavern enumerates
/// them.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldBook {
    pub name: String,
    /// In JavaScript's enumeration order of the `entries` object, which for the usual
    /// integer keys is ascending uid. Ties in later sorts keep this order.
    pub entries: Vec<WorldEntry>,
    /// Keys of `entries` members that could not be read (not an object, or no integer uid);
    /// they take no part in a scan. Worth a warning, never an error.
    pub unreadable: Vec<String>,
}

impl WorldBook {
    /// Reads the text of a lorebook file named `name`: `{"entries": {"<uid>": {...}}}`. Other
    /// top-level keys (`originalData`, …) are ignored and a missing `entries` means an empty
    /// book; entries are read tolerantly (see [`WorldEntry`]).
    ///
    /// # Errors
    ///
    /// `worldinfo.book_not_json` when the text is not JSON, `worldinfo.book_invalid` when it
    /// is not an object or its `entries` is not an object.
    pub fn parse(name: &str, text: &str) -> Result<Self, WorldInfoError> {
        let json = OrderedJson::parse(text).map_err(|e| WorldInfoError::BookNotJson {
            book: name.to_owned(),
            detail: e.to_string(),
        })?;
        let invalid = |detail| WorldInfoError::BookInvalid {
            book: name.to_owned(),
            detail,
        };
        let top = json
            .as_object()
            .ok_or_else(|| invalid("the top level is not an object"))?;
        let mut book = Self {
            name: name.to_owned(),
            entries: Vec::new(),
            unreadable: Vec::new(),
        };
        let members = match top.get("entries") {
            None | Some(OrderedJson::Null) => return Ok(book),
            Some(entries) => entries
                .as_object()
                .ok_or_else(|| invalid("`entries` is not an object"))?,
        };
        for (key, value) in members.iter() {
            match WorldEntry::from_member(key, value) {
                Some(entry) => book.entries.push(entry),
                None => book.unreadable.push(key.to_owned()),
            }
        }
        Ok(book)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn entries_are_enumerated_by_ascending_integer_key() {
        let book = WorldBook::parse(
            "Eldoria",
            r#"{"entries": {"10": {"uid": 10}, "2": {"uid": 2}, "x": {"uid": 5}, "0": {}},
                "originalData": {"name": "ignored"}}"#,
        )
        .unwrap();
        let uids: Vec<i64> = book.entries.iter().map(|e| e.uid).collect();
        assert_eq!(uids, [0, 2, 10, 5]);
        assert!(book.unreadable.is_empty());
    }

    #[test]
    fn unreadable_members_are_listed_not_fatal() {
        let book = WorldBook::parse(
            "b",
            r#"{"entries": {"1": {"uid": 1}, "2": "text", "k": {}}}"#,
        )
        .unwrap();
        assert_eq!(book.entries.len(), 1);
        assert_eq!(book.unreadable, ["2", "k"]);
    }

    #[test]
    fn a_book_without_entries_is_empty() {
        let book = WorldBook::parse("b", r#"{"entries": null}"#).unwrap();
        assert!(book.entries.is_empty());
        assert!(WorldBook::parse("b", "{}").unwrap().entries.is_empty());
    }

    #[test]
    fn files_that_are_not_lorebooks_are_refused() {
        let code = |text| WorldBook::parse("b", text).unwrap_err().code();
        assert_eq!(code("{"), "worldinfo.book_not_json");
        assert_eq!(code("[]"), "worldinfo.book_invalid");
        assert_eq!(code(r#"{"entries": []}"#), "worldinfo.book_invalid");
    }
}
