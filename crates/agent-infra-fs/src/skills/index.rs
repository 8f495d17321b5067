//! `skills/index/skills.json`: TauriTavern's skill index, version 2, read and written in
//! its exact format.
//!
//! ```json
//! {
//!   "version": 2,
//!   "skills": [
//!     {
//!       "scope": {"kind": "global"},
//!       "name": "pdf-tools",
//!       "description": "…",
//!       "displayName": "…", "sourceKind": "…", "license": "…", "author": "…", "version": "…",
//!       "tags": [],
//!       "installedHash": "<sha256 hex>",
//!       "fileCount": 3, "totalBytes": 1234, "hasScripts": false, "hasBinary": false,
//!       "installedAt": "2026-05-21T08:00:00.123Z",
//!       "sourceRefs": [{"kind": "…", "id": "…", "label": "…", "installedHash": "…"}]
//!     }
//!   ]
//! }
//! ```
//!
//! * Fields are written in that order. `displayName`, `sourceKind`, `license`, `author`
//!   and `version` only when set; `tags` always; `sourceRefs` only when not empty. A missing
//!   `scope` reads as global, missing `tags` and `sourceRefs` as empty.
//! * Entries are sorted by the scope's stable key (byte order), then by name; no two share a
//!   scope and a name; names and scopes follow the skill rules; `installedAt` is RFC 3339.
//! * The file is pretty JSON with two-space indents and no final newline, replaced
//!   atomically (temp file + rename).
//! * Keys TauriTavern does not know, in an entry, a source ref or the top-level object, are
//!   kept when the index is rewritten (after the known ones, sorted by name), so data written
//!   by a newer TauriTavern is not lost. TauriTavern itself ignores them.
//!
//! Older shapes are recognised, never written: TauriTavern's version 1 (the same object
//! with entries that have no `scope`, for the flat `installed/<name>/` layout) and the bare
//! array `[{name, description, files}]` earlier versions of tavern-agent wrote. A version
//! this code does not know is left alone.

use std::collections::BTreeSet;
use std::io;
use std::path::Path;

use agent_application::ports::{SkillScope, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::scopes::{index_order, scope_problem, stable_key};
use crate::atomic::write_atomic;
use crate::profiles::is_simple_name;
use crate::runs::store_io::{io_error, read_file};

/// The index version this code reads and writes.
pub(crate) const INDEX_VERSION: u64 = 2;

/// The whole index document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct IndexFile {
    pub version: u64,
    pub skills: Vec<IndexEntry>,
    /// Top-level keys this code does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl IndexFile {
    /// An empty version 2 index.
    pub(crate) fn empty() -> Self {
        Self {
            version: INDEX_VERSION,
            skills: Vec::new(),
            extra: Map::new(),
        }
    }

    /// The entry of skill `name` in `scope`.
    pub(crate) fn find(&self, scope: &SkillScope, name: &str) -> Option<&IndexEntry> {
        self.skills
            .iter()
            .find(|entry| &entry.scope == scope && entry.name == name)
    }

    /// Sorts the entries the way TauriTavern writes them.
    pub(crate) fn sort(&mut self) {
        self.skills
            .sort_by(|a, b| index_order((&a.scope, &a.name), (&b.scope, &b.name)));
    }

    /// What TauriTavern would refuse in this index, if anything.
    pub(crate) fn problem(&self) -> Option<String> {
        let mut seen = BTreeSet::new();
        for entry in &self.skills {
            if !is_simple_name(&entry.name) {
                return Some(format!(
                    "index entry `{}` does not have a valid skill name",
                    entry.name
                ));
            }
            if let Some(problem) = scope_problem(&entry.scope) {
                return Some(format!("index entry `{}`: {problem}", entry.name));
            }
            if !is_rfc3339(&entry.installed_at) {
                return Some(format!(
                    "index entry `{}`: installedAt `{}` is not an RFC 3339 time",
                    entry.name, entry.installed_at
                ));
            }
            if !seen.insert((stable_key(&entry.scope), entry.name.as_str())) {
                return Some(format!(
                    "the index lists {}/{} twice",
                    entry.scope.label(),
                    entry.name
                ));
            }
        }
        None
    }

    /// The file's bytes: pretty JSON, two-space indents, no final newline.
    pub(crate) fn to_bytes(&self) -> io::Result<Vec<u8>> {
        serde_json::to_vec_pretty(self).map_err(io::Error::other)
    }
}

fn global() -> SkillScope {
    SkillScope::Global
}

/// One installed skill, as TauriTavern records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct IndexEntry {
    #[serde(default = "global")]
    pub scope: SkillScope,
    pub name: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    pub installed_hash: String,
    pub file_count: u64,
    pub total_bytes: u64,
    pub has_scripts: bool,
    pub has_binary: bool,
    /// Kept as written; checked to be RFC 3339.
    pub installed_at: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_refs: Vec<SourceRef>,
    /// Keys this code does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Where an installed skill came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SourceRef {
    pub kind: String,
    pub id: String,
    pub label: String,
    pub installed_hash: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What `index/skills.json` holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StoredIndex {
    /// There is no index file.
    Absent,
    /// A valid version 2 index.
    Current(IndexFile),
    /// TauriTavern's version 1, for the flat layout; entries read as global.
    V1(IndexFile),
    /// The bare array earlier versions of tavern-agent wrote, for the flat layout.
    BareArray,
    /// A version this code does not know.
    Unsupported(u64),
    /// Not an index: why.
    Invalid(String),
}

impl StoredIndex {
    /// Whether the index belongs to the flat `installed/<name>/` layout.
    pub(crate) fn is_legacy(&self) -> bool {
        matches!(self, Self::V1(_) | Self::BareArray)
    }
}

/// Reads and classifies the index at `path`. Only the disk refusing is an error.
pub(crate) fn read(path: &Path) -> Result<StoredIndex, StoreError> {
    let Some(bytes) = read_file(path)? else {
        return Ok(StoredIndex::Absent);
    };
    Ok(classify(&bytes))
}

/// What the bytes of an index file are.
pub(crate) fn classify(bytes: &[u8]) -> StoredIndex {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(err) => return StoredIndex::Invalid(format!("the skill index is not JSON: {err}")),
    };
    let version = match &value {
        Value::Array(_) => return StoredIndex::BareArray,
        Value::Object(object) => object.get("version").and_then(Value::as_u64),
        _ => None,
    };
    let Some(version) = version else {
        return StoredIndex::Invalid(
            "the skill index is not an object with a numeric `version`".to_owned(),
        );
    };
    if version != 1 && version != INDEX_VERSION {
        return StoredIndex::Unsupported(version);
    }
    let index: IndexFile = match serde_json::from_value(value) {
        Ok(index) => index,
        Err(err) => {
            return StoredIndex::Invalid(format!(
                "the skill index (version {version}) does not read: {err}"
            ));
        }
    };
    if let Some(problem) = index.problem() {
        return StoredIndex::Invalid(problem);
    }
    if version == 1 {
        StoredIndex::V1(index)
    } else {
        StoredIndex::Current(index)
    }
}

/// The scopes an index names, read as loosely as possible: for an index this code cannot
/// use (an unknown version), so the skills of its scopes can still be listed.
pub(crate) fn named_scopes(path: &Path) -> Result<Vec<SkillScope>, StoreError> {
    let Some(bytes) = read_file(path)? else {
        return Ok(Vec::new());
    };
    let value: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let entries = value
        .get("skills")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    Ok(entries
        .iter()
        .filter_map(|entry| entry.get("scope").cloned())
        .filter_map(|scope| serde_json::from_value(scope).ok())
        .collect())
}

/// Sorts, checks and atomically writes `index` to `path` as version 2.
pub(crate) fn write(path: &Path, index: &mut IndexFile) -> Result<(), StoreError> {
    index.version = INDEX_VERSION;
    index.sort();
    if let Some(problem) = index.problem() {
        return Err(StoreError::Integrity(format!(
            "refusing to write a skill index TauriTavern would reject: {problem}"
        )));
    }
    let bytes = index.to_bytes().map_err(|err| io_error(path, err))?;
    write_atomic(path, &bytes).map_err(|err| io_error(path, err))
}

/// Whether `text` is an RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS`, an optional fraction,
/// then `Z` or an offset `±HH:MM` (`t`, `z` and a space for `T` are accepted too).
pub(crate) fn is_rfc3339(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        b.get(range.clone())
            .filter(|part| part.iter().all(u8::is_ascii_digit))
            .map(|part| part.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0')))
    };
    let shape = b.len() >= 20
        && b[4] == b'-'
        && b[7] == b'-'
        && matches!(b[10], b'T' | b't' | b' ')
        && b[13] == b':'
        && b[16] == b':';
    if !shape {
        return false;
    }
    let in_range =
        |part: Option<u32>, low: u32, high: u32| part.is_some_and(|n| (low..=high).contains(&n));
    if digits(0..4).is_none()
        || !in_range(digits(5..7), 1, 12)
        || !in_range(digits(8..10), 1, 31)
        || !in_range(digits(11..13), 0, 23)
        || !in_range(digits(14..16), 0, 59)
        || !in_range(digits(17..19), 0, 60)
    {
        return false;
    }
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let count = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if count == 0 {
            return false;
        }
        rest = &fraction[count..];
    }
    match rest {
        "Z" | "z" => true,
        offset => {
            let o = offset.as_bytes();
            o.len() == 6
                && matches!(o[0], b'+' | b'-')
                && o[3] == b':'
                && in_range(offset.get(1..3).and_then(|h| h.parse().ok()), 0, 23)
                && in_range(offset.get(4..6).and_then(|m| m.parse().ok()), 0, 59)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_times() {
        for good in [
            "2026-05-21T08:00:00Z",
            "2026-05-21T08:00:00.123Z",
            "2026-05-21T08:00:00.123456789Z",
            "2026-05-21t08:00:00+02:00",
            "2026-05-21 08:00:00-05:30",
        ] {
            assert!(is_rfc3339(good), "{good}");
        }
        for bad in [
            "",
            "2026-05-21",
            "2026-05-21T08:00:00",
            "2026-13-21T08:00:00Z",
            "2026-05-21T08:00:00.Z",
            "2026-05-21T08:00:00+0200",
            "May 21, 2026",
        ] {
            assert!(!is_rfc3339(bad), "{bad}");
        }
    }

    /// TauriTavern's own file, read and written back unchanged, is the same bytes.
    const TAURITAVERN_V2: &[u8] = include_bytes!(
        "../../tests/fixtures/skills/tauritavern-v2/_tauritavern/skills/index/skills.json"
    );

    #[test]
    fn an_unchanged_index_round_trips_byte_for_byte() {
        let StoredIndex::Current(mut index) = classify(TAURITAVERN_V2) else {
            panic!("the fixture is a version 2 index");
        };
        assert_eq!(index.skills.len(), 2);
        assert_eq!(index.skills[1].source_refs[0].kind, "url");
        assert_eq!(index.to_bytes().unwrap(), TAURITAVERN_V2);
        let sorted = index.clone();
        index.skills.reverse();
        index.sort();
        assert_eq!(index, sorted);
    }

    #[test]
    fn unknown_keys_are_kept() {
        let text = br#"{"version": 2, "generator": "tt-next", "skills": [
            {"name": "x", "description": "y", "installedHash": "00", "fileCount": 1,
             "totalBytes": 1, "hasScripts": false, "hasBinary": false,
             "installedAt": "2026-05-21T08:00:00Z", "pinned": true,
             "sourceRefs": [{"kind": "url", "id": "u", "label": "u", "installedHash": "00",
                             "fetchedAt": "then"}]}]}"#;
        let StoredIndex::Current(index) = classify(text) else {
            panic!("a version 2 index");
        };
        let written: Value = serde_json::from_slice(&index.to_bytes().unwrap()).unwrap();
        assert_eq!(written["generator"], "tt-next");
        assert_eq!(written["skills"][0]["pinned"], true);
        assert_eq!(written["skills"][0]["sourceRefs"][0]["fetchedAt"], "then");
        // A missing scope reads as global and is written out.
        assert_eq!(
            written["skills"][0]["scope"],
            serde_json::json!({"kind": "global"})
        );
        assert_eq!(written["skills"][0]["tags"], serde_json::json!([]));
    }

    #[test]
    fn what_tauritavern_would_reject_is_invalid() {
        let entry = |name: &str, scope: &str, at: &str| {
            format!(
                r#"{{"scope": {scope}, "name": "{name}", "description": "d",
                    "installedHash": "00", "fileCount": 1, "totalBytes": 1,
                    "hasScripts": false, "hasBinary": false, "installedAt": "{at}"}}"#
            )
        };
        let global = r#"{"kind": "global"}"#;
        let cases = [
            vec![entry("Bad Name", global, "2026-05-21T08:00:00Z")],
            vec![entry(
                "x",
                r#"{"kind": "character", "characterId": " "}"#,
                "2026-05-21T08:00:00Z",
            )],
            vec![entry("x", r#"{"kind": "planet"}"#, "2026-05-21T08:00:00Z")],
            vec![entry("x", global, "yesterday")],
            vec![
                entry("x", global, "2026-05-21T08:00:00Z"),
                entry("x", global, "2026-05-22T08:00:00Z"),
            ],
        ];
        for skills in cases {
            let text = format!(r#"{{"version": 2, "skills": [{}]}}"#, skills.join(","));
            assert!(
                matches!(classify(text.as_bytes()), StoredIndex::Invalid(_)),
                "{text}"
            );
        }
    }

    #[test]
    fn shapes_are_told_apart() {
        assert_eq!(classify(b"[]"), StoredIndex::BareArray);
        assert_eq!(
            classify(br#"[{"name": "x", "description": "y", "files": []}]"#),
            StoredIndex::BareArray
        );
        assert_eq!(
            classify(br#"{"version": 3, "skills": "whatever"}"#),
            StoredIndex::Unsupported(3)
        );
        assert!(matches!(classify(b"{"), StoredIndex::Invalid(_)));
        assert!(matches!(
            classify(br#"{"skills": []}"#),
            StoredIndex::Invalid(_)
        ));
        assert!(matches!(
            classify(br#"{"version": 2, "skills": [{"name": "x"}]}"#),
            StoredIndex::Invalid(_)
        ));
        assert_eq!(
            classify(br#"{"version": 2, "skills": []}"#),
            StoredIndex::Current(IndexFile::empty())
        );
        assert!(matches!(
            classify(br#"{"version": 1, "skills": []}"#),
            StoredIndex::V1(_)
        ));
    }
}
