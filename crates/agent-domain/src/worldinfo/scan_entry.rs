//! [`ScanEntry`]: an entry ready to scan — its book, its decorators split off, and the hash
//! that names it in timed-effect records.
//!
//! The hash is cyrb53 (seed 0) of `JSON.stringify` of the entry object SillyTavern builds
//! while collecting entries: `uid` first, then `world` (the book name), then the file's other
//! fields in file order, then `decorators` (the decorator lines, as an array), with `content`
//! holding the decorator-free text in its original place (or after `decorators` when the file
//! has none). A field named `world` inside a file entry, which SillyTavern never writes, is
//! ignored here and the book name is used.

use super::decorators::parse_decorators;
use super::entry::WorldEntry;
use super::hash::cyrb53;
use crate::json::{JsObject, OrderedJson};

/// An entry of one of the selected books, prepared for the scan.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanEntry {
    /// The book (world) the entry belongs to.
    pub world: String,
    pub entry: WorldEntry,
    /// Decorator lines lifted from the content (see `parse_decorators`).
    pub decorators: Vec<String>,
    /// The content without its decorator lines, before macro expansion.
    pub content: String,
    /// cyrb53 of the entry's JSON text; timed effects find their entry by it.
    pub hash: u64,
}

impl ScanEntry {
    /// Prepares `entry` of the book `world`.
    pub fn new(world: &str, entry: &WorldEntry) -> Self {
        let (decorators, content) = parse_decorators(&entry.content);
        let hash = cyrb53(&hash_input(world, entry, &decorators, &content), 0);
        Self {
            world: world.to_owned(),
            entry: entry.clone(),
            decorators,
            content,
            hash,
        }
    }

    /// `<world>.<uid>`: how SillyTavern keys activated entries and timed-effect records.
    pub fn key(&self) -> String {
        format!("{}.{}", self.world, self.entry.uid)
    }

    /// Whether the content carried the decorator line `name` exactly.
    pub fn has_decorator(&self, name: &str) -> bool {
        self.decorators.iter().any(|d| d == name)
    }
}

/// The JSON text the hash is computed over (see the module documentation).
fn hash_input(world: &str, entry: &WorldEntry, decorators: &[String], content: &str) -> String {
    let mut object = JsObject::new();
    if let Some(uid) = entry.raw.get("uid") {
        object.insert("uid", uid.clone());
    }
    object.insert("world", OrderedJson::String(world.to_owned()));
    for (key, value) in entry.raw.iter() {
        if key != "uid" && key != "world" {
            object.insert(key, value.clone());
        }
    }
    let decorators = decorators
        .iter()
        .map(|d| OrderedJson::String(d.clone()))
        .collect();
    object.insert("decorators", OrderedJson::Array(decorators));
    object.insert("content", OrderedJson::String(content.to_owned()));
    OrderedJson::Object(object).to_js_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldinfo::WorldBook;

    fn first_entry(json: &str) -> WorldEntry {
        WorldBook::parse("Eldoria", json).unwrap().entries.remove(0)
    }

    #[test]
    fn the_hash_input_follows_javascripts_key_order() {
        let entry = first_entry(
            r#"{"entries": {"0": {"key": ["capital"], "uid": 0,
                "content": "@@activate\nAlden is the capital.", "world": "elsewhere",
                "extra": {"b": 1, "a": [1.5, null]}}}}"#,
        );
        let scan = ScanEntry::new("Eldoria", &entry);
        assert_eq!(
            hash_input("Eldoria", &entry, &scan.decorators, &scan.content),
            r#"{"uid":0,"world":"Eldoria","key":["capital"],"content":"Alden is the capital.","extra":{"b":1,"a":[1.5,null]},"decorators":["@@activate"]}"#
        );
        assert_eq!(scan.key(), "Eldoria.0");
        assert!(scan.has_decorator("@@activate"));
    }

    #[test]
    fn content_goes_last_when_the_file_has_none_and_uid_is_omitted_when_missing() {
        let entry = first_entry(r#"{"entries": {"4": {"key": []}}}"#);
        let scan = ScanEntry::new("W", &entry);
        assert_eq!(
            hash_input("W", &entry, &scan.decorators, &scan.content),
            r#"{"world":"W","key":[],"decorators":[],"content":""}"#
        );
        assert_eq!(scan.key(), "W.4");
    }

    /// The reference value is what SillyTavern's code computes for the same file entry (node
    /// v20): `getStringHash(JSON.stringify({uid, world, ...rest, decorators, content}))`.
    #[test]
    fn the_hash_matches_javascript() {
        let entry = first_entry(
            r#"{"entries": {"0": {"uid": 0, "key": ["capital"],
                "content": "Alden is the capital."}}}"#,
        );
        assert_eq!(
            ScanEntry::new("Eldoria", &entry).hash,
            7_257_779_205_221_688
        );
    }
}
