//! SillyTavern's own user data, read as SillyTavern writes it: its settings, the persona
//! avatars, the lorebooks and the groups. Nothing here writes.
//!
//! ```text
//! <data>/settings.json            FsSillyTavernSettings   the document, untyped
//! <data>/User Avatars/<file>      FsPersonaAvatars        which persona images exist
//! <data>/worlds/<name>.json       FsLorebooks             world names; one book's text
//! <data>/groups/<id>.json         FsGroups                a group; the group of a chat
//! ```
//!
//! Documents that do not read are [`StoreError::Damaged`] with a `sillytavern.*` code naming
//! the file (and the line, for broken JSON); names that cannot be one plain file name are
//! refused before any path is built. Links are never followed: a linked document is an
//! integrity fault, and listings leave links out.

mod groups;
mod lorebooks;
mod personas;
mod settings;

pub use groups::FsGroups;
pub use lorebooks::FsLorebooks;
pub use personas::FsPersonaAvatars;
pub use settings::FsSillyTavernSettings;

use std::path::Path;

use agent_application::ports::StoreError;
use serde_json::{Map, Value};

use crate::dir_names::{EntryKind, names_in};
use crate::runs::store_io::read_file;

/// Whether `name` can be one plain path component: not empty, not `.` or `..`, and free of
/// path separators and NUL.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0'])
}

/// A document of another program that does not read.
fn damaged(code: &'static str, path: &Path, detail: impl std::fmt::Display) -> StoreError {
    StoreError::Damaged {
        code,
        message: format!("{}: {detail}", path.display()),
    }
}

/// A JSON object read from a file: its exact text and the parsed object.
#[derive(Debug)]
struct JsonObject {
    text: String,
    object: Map<String, Value>,
}

/// The JSON object at `path`; `None` when the file does not exist. Text that is not UTF-8,
/// not JSON or not an object is `Damaged` with `code`.
fn read_object(path: &Path, code: &'static str) -> Result<Option<JsonObject>, StoreError> {
    let Some(bytes) = read_file(path)? else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes).map_err(|err| damaged(code, path, err))?;
    match serde_json::from_str(&text) {
        Ok(Value::Object(object)) => Ok(Some(JsonObject { text, object })),
        Ok(_) => Err(damaged(code, path, "is not a JSON object")),
        Err(err) => Err(damaged(
            code,
            path,
            format_args!("is not valid JSON: {err}"),
        )),
    }
}

/// The names of the regular files directly in `dir` (no folders, no links, no names that
/// are not UTF-8), unsorted; empty when `dir` does not exist.
fn file_names(dir: &Path) -> Result<Vec<String>, StoreError> {
    names_in(dir, EntryKind::File)
}

/// The stem of `name` when it ends in `.json`, the extension matched ASCII
/// case-insensitively; `None` for other names and for a bare `.json`.
fn json_stem(name: &str) -> Option<&str> {
    let split = name.len().checked_sub(".json".len())?;
    let (stem, extension) = (name.get(..split)?, name.get(split..)?);
    (!stem.is_empty() && extension.eq_ignore_ascii_case(".json")).then_some(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_and_json_stems() {
        for name in ["Eldoria", "My World", "1750000000000", ".hidden", "森"] {
            assert!(is_plain_name(name), "{name}");
        }
        for name in ["", ".", "..", "a/b", "a\\b", "nul\0"] {
            assert!(!is_plain_name(name), "{name:?}");
        }
        assert_eq!(json_stem("Eldoria.json"), Some("Eldoria"));
        assert_eq!(json_stem("Eldoria.JSON"), Some("Eldoria"));
        assert_eq!(json_stem("森.json"), Some("森"));
        assert_eq!(json_stem(".json"), None);
        assert_eq!(json_stem("json"), None);
        assert_eq!(json_stem("é.jsonl"), None);
    }

    #[test]
    fn objects_are_read_or_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc.json");
        assert!(read_object(&path, "x.bad").unwrap().is_none());
        std::fs::write(&path, "{\n    \"a\": 1,\n    \"b\": \n}").unwrap();
        let err = read_object(&path, "x.bad").unwrap_err();
        assert!(matches!(err, StoreError::Damaged { code: "x.bad", .. }));
        let message = err.to_string();
        assert!(
            message.contains("doc.json") && message.contains("line 4"),
            "{message}"
        );
        std::fs::write(&path, "[1]").unwrap();
        let message = read_object(&path, "x.bad").unwrap_err().to_string();
        assert!(message.contains("not a JSON object"), "{message}");
        std::fs::write(&path, b"{\"a\": \"\xff\"}").unwrap();
        assert!(read_object(&path, "x.bad").is_err());
        std::fs::write(&path, "{\"a\": 1}").unwrap();
        let read = read_object(&path, "x.bad").unwrap().unwrap();
        assert_eq!((read.text.as_str(), read.object.len()), ("{\"a\": 1}", 1));
    }
}
