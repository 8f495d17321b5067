//! The header line of a chat: its metadata (with the stable chat id,
//! `chat_metadata.integrity`), its creation date and the names it was saved with.
//!
//! Which line is the header follows SillyTavern: the first line when it carries
//! `chat_metadata` (every file 1.18 writes) or when it is not a message at all (the oldest
//! one-to-one chats, whose header has only `user_name`, `character_name` and `create_date`).
//! A first line that is a message (it has `mes`) and no `chat_metadata` means there is no
//! header: group chats written before SillyTavern moved their metadata into the chat file
//! (1.12 and earlier) hold only messages, and keep their metadata in the group file.

use agent_application::ports::ChatError;
use agent_domain::json::OrderedJson;
use agent_domain::run::parse_stable_chat_id;
use serde_json::{Map, Value};

/// What SillyTavern 1.18 writes in place of the deprecated header names.
const UNUSED_NAME: &str = "unused";

/// A parsed header line.
#[derive(Debug, Default)]
pub(crate) struct Header {
    fields: Map<String, Value>,
}

impl Header {
    pub(crate) fn parse(line: &[u8]) -> Result<Self, ChatError> {
        match serde_json::from_slice(line) {
            Ok(Value::Object(fields)) => Ok(Self { fields }),
            Ok(_) => Err(invalid("line 1 is not a JSON object")),
            Err(err) => Err(invalid(&format!("line 1 is not valid JSON: {err}"))),
        }
    }

    /// Whether the first line of a chat file, `line`, is its header (see the module docs).
    /// A first line that is not a JSON object is an invalid header.
    pub(crate) fn is_header_line(line: &[u8]) -> Result<bool, ChatError> {
        let fields = Self::parse(line)?.fields;
        Ok(fields.contains_key("chat_metadata") || !fields.contains_key("mes"))
    }

    /// The validated `chat_metadata.integrity`, or `None` when the chat has none yet.
    pub(crate) fn stable_chat_id(&self) -> Result<Option<String>, ChatError> {
        match self.metadata()?.and_then(|meta| meta.get("integrity")) {
            None => Ok(None),
            Some(Value::String(raw)) => parse_stable_chat_id(raw)
                .map(Some)
                .map_err(|err| invalid(&format!("chat_metadata.integrity: {err}"))),
            Some(_) => Err(invalid("chat_metadata.integrity is not a string")),
        }
    }

    /// `chat_metadata` as an object (`{}` when absent or `null`).
    pub(crate) fn chat_metadata(&self) -> Result<Value, ChatError> {
        Ok(Value::Object(self.metadata()?.cloned().unwrap_or_default()))
    }

    /// `create_date`, written by SillyTavern before 1.18 (a humanized date, or epoch
    /// milliseconds in the oldest files).
    pub(crate) fn create_date(&self) -> Option<String> {
        match self.fields.get("create_date")? {
            Value::String(date) => Some(date.clone()),
            Value::Number(millis) => Some(millis.to_string()),
            _ => None,
        }
    }

    /// `character_name`, when it names someone (see [`Self::user_name`]).
    pub(crate) fn character_name(&self) -> Option<String> {
        self.name("character_name")
    }

    /// `user_name`, when it names someone: SillyTavern 1.18 writes `"unused"` in both name
    /// fields, which, like a blank name, is not a name.
    pub(crate) fn user_name(&self) -> Option<String> {
        self.name("user_name")
    }

    /// The header line `original` with `chat_metadata.integrity` set to `id`; every other key
    /// keeps its value and place.
    pub(crate) fn with_integrity(&self, original: &[u8], id: &str) -> Result<Vec<u8>, ChatError> {
        let integrity = OrderedJson::from(id);
        Ok(self
            .with_metadata(original, &[("integrity", Some(&integrity))])?
            .0)
    }

    /// The header line `original` with the `chat_metadata` keys of `edits` set (`Some`; an
    /// existing key keeps its place, a new one goes last) or removed (`None`), and the value
    /// each key had before (`None`: absent). Every other key keeps its value and place.
    pub(crate) fn with_metadata(
        &self,
        original: &[u8],
        edits: &[(&str, Option<&OrderedJson>)],
    ) -> Result<(Vec<u8>, Vec<Option<OrderedJson>>), ChatError> {
        self.metadata()?;
        let mut header = OrderedJson::from_slice(original)
            .map_err(|err| invalid(&format!("line 1 is not valid JSON: {err}")))?;
        let metadata = header
            .object_at("chat_metadata")
            .ok_or_else(|| invalid("line 1 is not a JSON object"))?;
        let mut before = Vec::with_capacity(edits.len());
        for (key, value) in edits {
            before.push(metadata.get(key).cloned());
            match value {
                Some(value) => metadata.insert(key, (*value).clone()),
                None => {
                    metadata.remove(key);
                }
            }
        }
        Ok((header.to_js_vec(), before))
    }

    /// `chat_metadata` of the header line `original`, as JavaScript reads it (`{}` when
    /// absent or `null`).
    pub(crate) fn metadata_values(&self, original: &[u8]) -> Result<OrderedJson, ChatError> {
        self.metadata()?;
        let header = OrderedJson::from_slice(original)
            .map_err(|err| invalid(&format!("line 1 is not valid JSON: {err}")))?;
        Ok(header
            .get("chat_metadata")
            .filter(|meta| meta.is_object())
            .cloned()
            .unwrap_or_else(OrderedJson::object))
    }

    fn metadata(&self) -> Result<Option<&Map<String, Value>>, ChatError> {
        match self.fields.get("chat_metadata") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(meta)) => Ok(Some(meta)),
            Some(_) => Err(invalid("chat_metadata is not an object")),
        }
    }

    fn name(&self, key: &str) -> Option<String> {
        self.fields
            .get(key)
            .and_then(Value::as_str)
            .filter(|name| !name.trim().is_empty() && *name != UNUSED_NAME)
            .map(str::to_owned)
    }
}

fn invalid(detail: &str) -> ChatError {
    ChatError::InvalidHeader(detail.to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn header(line: &str) -> Header {
        Header::parse(line.as_bytes()).unwrap()
    }

    #[test]
    fn integrity_is_validated() {
        let id = |line: &str| header(line).stable_chat_id();
        assert_eq!(
            id(r#"{"chat_metadata":{"integrity":" abc "}}"#),
            Ok(Some("abc".into()))
        );
        assert_eq!(id(r#"{"chat_metadata":{}}"#), Ok(None));
        assert_eq!(id(r#"{"chat_metadata":null}"#), Ok(None));
        assert_eq!(id(r#"{"user_name":"u"}"#), Ok(None));
        for bad in [
            r#"{"chat_metadata":{"integrity":7}}"#,
            r#"{"chat_metadata":{"integrity":" "}}"#,
            r#"{"chat_metadata":[]}"#,
        ] {
            assert!(matches!(id(bad), Err(ChatError::InvalidHeader(_))), "{bad}");
        }
        assert!(matches!(
            Header::parse(b"[1]"),
            Err(ChatError::InvalidHeader(_))
        ));
    }

    #[test]
    fn integrity_is_added_in_place() {
        let line =
            br#"{"user_name":"U","chat_metadata":{"note_prompt":"","zz":1},"character_name":"C"}"#;
        let added = Header::parse(line)
            .unwrap()
            .with_integrity(line, "id-1")
            .unwrap();
        assert_eq!(
            String::from_utf8(added).unwrap(),
            r#"{"user_name":"U","chat_metadata":{"note_prompt":"","zz":1,"integrity":"id-1"},"character_name":"C"}"#
        );
        let bare = br#"{"user_name":"U"}"#;
        let added = Header::parse(bare)
            .unwrap()
            .with_integrity(bare, "id-2")
            .unwrap();
        assert_eq!(
            added,
            br#"{"user_name":"U","chat_metadata":{"integrity":"id-2"}}"#
        );
        let null = br#"{"chat_metadata":null,"user_name":"U"}"#;
        let added = Header::parse(null)
            .unwrap()
            .with_integrity(null, "id-3")
            .unwrap();
        assert_eq!(
            added,
            br#"{"chat_metadata":{"integrity":"id-3"},"user_name":"U"}"#
        );
    }

    #[test]
    fn unused_and_blank_names_are_no_names() {
        let current = header(
            r#"{"chat_metadata":{"world_info":"Eldoria"},"user_name":"unused","character_name":"unused"}"#,
        );
        assert_eq!(current.user_name(), None);
        assert_eq!(current.character_name(), None);
        assert_eq!(current.create_date(), None);
        assert_eq!(
            current.chat_metadata().unwrap(),
            json!({"world_info": "Eldoria"})
        );

        let old = header(
            r#"{"user_name":"Ann","character_name":" ","create_date":"2024-09-28@10h11m12s"}"#,
        );
        assert_eq!(old.user_name().as_deref(), Some("Ann"));
        assert_eq!(old.character_name(), None);
        assert_eq!(old.create_date().as_deref(), Some("2024-09-28@10h11m12s"));
        assert_eq!(old.chat_metadata().unwrap(), json!({}));
        assert_eq!(
            header(r#"{"create_date":1695000000000}"#)
                .create_date()
                .as_deref(),
            Some("1695000000000")
        );
    }

    #[test]
    fn a_first_line_is_a_header_unless_it_is_a_bare_message() {
        let is_header = |line: &str| Header::is_header_line(line.as_bytes());
        assert_eq!(
            is_header(r#"{"chat_metadata":{},"user_name":"unused"}"#),
            Ok(true)
        );
        assert_eq!(
            is_header(r#"{"user_name":"Ann","character_name":"Seraphina","create_date":"x"}"#),
            Ok(true)
        );
        assert_eq!(
            is_header(r#"{"name":"Seraphina","is_user":false,"mes":"Hi."}"#),
            Ok(false)
        );
        assert_eq!(is_header(r#"{"mes":"","chat_metadata":{}}"#), Ok(true));
        assert!(is_header("[]").is_err());
    }
}
