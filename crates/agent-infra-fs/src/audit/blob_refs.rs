//! Large strings of audit documents kept as blobs (see `docs/storage/workspace.md`).
//!
//! A `write` of a 100 MB file carries the text in the model's response and in the call's
//! arguments; stored inline, each audit document would be another copy of it. So a string
//! of [`INLINE_LIMIT`] bytes or more is stored as a blob of the run (the same blob a
//! checkpoint of the written file uses) and the document holds a reference instead,
//! wrapped in an envelope that lists where the references are:
//!
//! ```json
//! {"blobRefs": ["/content"], "document": {"path": "scratch/big.md", "content": {"sha256": "…", "bytes": 104857600}}}
//! ```
//!
//! A document without large strings is written as it is. One that happens to have the
//! envelope's shape itself (an object of exactly `blobRefs` and `document`) is wrapped with
//! no references, so a reader can always tell the two apart. Readers unwrap envelopes and
//! read plain documents as they are, which is also every document written before blobs.

use agent_application::ports::StoreError;
use serde_json::{Map, Value, json};

use crate::blobs;
use crate::durability::Syncer;
use crate::layout::RunDir;

/// Strings this long (in UTF-8 bytes) or longer are stored as blobs.
pub(crate) const INLINE_LIMIT: usize = 64 * 1024;

const REFS: &str = "blobRefs";
const DOCUMENT: &str = "document";

/// Whether `value` is an object of exactly the envelope's two keys.
fn envelope_shaped(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|map| map.len() == 2 && map.contains_key(REFS) && map.contains_key(DOCUMENT))
}

/// The document to write for `value`: itself, or an envelope around it with its large
/// strings stored as blobs.
pub(crate) fn externalize(
    run_dir: &RunDir,
    mut value: Value,
    syncer: &Syncer,
) -> Result<Value, StoreError> {
    let mut refs = Vec::new();
    let mut pointer = String::new();
    replace_large(run_dir, &mut value, &mut pointer, &mut refs, syncer)?;
    if refs.is_empty() && !envelope_shaped(&value) {
        return Ok(value);
    }
    let mut envelope = Map::new();
    envelope.insert(REFS.to_owned(), json!(refs));
    envelope.insert(DOCUMENT.to_owned(), value);
    Ok(Value::Object(envelope))
}

/// Walks `value`, storing every large string as a blob and putting its reference in its
/// place; `pointer` is the JSON pointer of `value`, `refs` collects the replaced ones.
fn replace_large(
    run_dir: &RunDir,
    value: &mut Value,
    pointer: &mut String,
    refs: &mut Vec<String>,
    syncer: &Syncer,
) -> Result<(), StoreError> {
    match value {
        Value::String(text) if text.len() >= INLINE_LIMIT => {
            let sha256 = blobs::put(run_dir, text.as_bytes(), syncer)?;
            *value = json!({"sha256": sha256, "bytes": text.len()});
            refs.push(pointer.clone());
        }
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&index.to_string());
                replace_large(run_dir, item, pointer, refs, syncer)?;
                pointer.truncate(len);
            }
        }
        Value::Object(fields) => {
            for (key, item) in fields.iter_mut() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                replace_large(run_dir, item, pointer, refs, syncer)?;
                pointer.truncate(len);
            }
        }
        _ => {}
    }
    Ok(())
}

/// The document `stored` stands for: an envelope's document with its blobs read back, or
/// `stored` itself. `shown` names the file in errors.
pub(crate) fn resolve(run_dir: &RunDir, stored: Value, shown: &str) -> Result<Value, StoreError> {
    if !envelope_shaped(&stored) {
        return Ok(stored);
    }
    let damaged = |detail: String| StoreError::Integrity(format!("`{shown}`: {detail}"));
    let Value::Object(mut envelope) = stored else {
        return Err(damaged("is not an object".to_owned()));
    };
    let refs = match envelope.remove(REFS) {
        Some(Value::Array(refs)) => refs,
        _ => return Err(damaged(format!("`{REFS}` is not a list"))),
    };
    let mut document = envelope.remove(DOCUMENT).unwrap_or(Value::Null);
    for pointer in refs {
        let pointer = pointer
            .as_str()
            .ok_or_else(|| damaged(format!("`{REFS}` holds a non-string")))?;
        let slot = document
            .pointer_mut(pointer)
            .ok_or_else(|| damaged(format!("no value at `{pointer}`")))?;
        let sha256 = slot
            .get("sha256")
            .and_then(Value::as_str)
            .ok_or_else(|| damaged(format!("no blob reference at `{pointer}`")))?;
        let bytes = blobs::read(run_dir, sha256)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| damaged(format!("the blob at `{pointer}` is not text")))?;
        *slot = Value::String(text);
    }
    Ok(document)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::sha256_hex;

    fn run_dir() -> (tempfile::TempDir, RunDir) {
        let dir = tempfile::tempdir().unwrap();
        let run_dir = RunDir(dir.path().to_path_buf());
        (dir, run_dir)
    }

    #[test]
    fn large_strings_become_references_and_come_back() {
        let (_dir, run_dir) = run_dir();
        let big = "x".repeat(INLINE_LIMIT);
        let doc = json!({"path": "a.md", "content": big, "list": [1, big], "a/b~": big});
        let stored = externalize(&run_dir, doc.clone(), &Syncer::strict()).unwrap();
        let sha = sha256_hex(big.as_bytes());
        let mut refs: Vec<&str> = stored["blobRefs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        refs.sort_unstable();
        assert_eq!(refs, ["/a~1b~0", "/content", "/list/1"]);
        assert_eq!(
            stored["document"]["content"],
            json!({"sha256": sha, "bytes": INLINE_LIMIT})
        );
        assert_eq!(stored["document"]["path"], "a.md");
        assert_eq!(resolve(&run_dir, stored, "doc").unwrap(), doc);
        let blobs = run_dir.blobs().join("sha256").join(&sha[..2]);
        assert_eq!(std::fs::read_dir(blobs).unwrap().count(), 1);
    }

    #[test]
    fn small_documents_stay_as_they_are_and_lookalikes_are_wrapped() {
        let (_dir, run_dir) = run_dir();
        let small = json!({"content": "x".repeat(INLINE_LIMIT - 1)});
        let stored = externalize(&run_dir, small.clone(), &Syncer::strict()).unwrap();
        assert_eq!(stored, small);
        assert!(!run_dir.blobs().exists());
        assert_eq!(resolve(&run_dir, stored, "doc").unwrap(), small);

        let lookalike = json!({"blobRefs": ["/x"], "document": {"x": {"sha256": "0"}}});
        let stored = externalize(&run_dir, lookalike.clone(), &Syncer::strict()).unwrap();
        assert_eq!(stored, json!({"blobRefs": [], "document": lookalike}));
        assert_eq!(resolve(&run_dir, stored, "doc").unwrap(), lookalike);
    }

    #[test]
    fn broken_envelopes_are_integrity_faults() {
        let (_dir, run_dir) = run_dir();
        let missing = sha256_hex(b"never stored");
        for bad in [
            json!({"blobRefs": "x", "document": {}}),
            json!({"blobRefs": [1], "document": {}}),
            json!({"blobRefs": ["/nope"], "document": {}}),
            json!({"blobRefs": ["/x"], "document": {"x": "text"}}),
        ] {
            let err = resolve(&run_dir, bad.clone(), "doc").unwrap_err();
            assert!(matches!(err, StoreError::Integrity(_)), "{bad}: {err:?}");
        }
        let dangling = json!({"blobRefs": ["/x"], "document": {"x": {"sha256": missing}}});
        assert!(matches!(
            resolve(&run_dir, dangling, "doc"),
            Err(StoreError::NotFound(_))
        ));
    }
}
