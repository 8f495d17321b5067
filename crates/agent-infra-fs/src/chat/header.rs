//! The header line of a chat: names and the stable chat id (`chat_metadata.integrity`).

use agent_application::ports::ChatError;
use agent_domain::json::OrderedJson;
use agent_domain::run::parse_stable_chat_id;
use serde_json::{Map, Value};

/// A parsed header line.
#[derive(Debug)]
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

    pub(crate) fn character_name(&self) -> Option<String> {
        self.text("character_name")
    }

    pub(crate) fn user_name(&self) -> Option<String> {
        self.text("user_name")
    }

    /// The header line `original` with `chat_metadata.integrity` set to `id`; every other key
    /// keeps its value and place.
    pub(crate) fn with_integrity(&self, original: &[u8], id: &str) -> Result<Vec<u8>, ChatError> {
        self.with_metadata(original, &[("integrity".to_owned(), id.into())])
    }

    /// The header line `original` with the `chat_metadata` keys `entries` set (an existing
    /// key keeps its place, a new one goes last); every other key keeps its value and place.
    pub(crate) fn with_metadata(
        &self,
        original: &[u8],
        entries: &[(String, OrderedJson)],
    ) -> Result<Vec<u8>, ChatError> {
        self.metadata()?;
        let mut header = OrderedJson::from_slice(original)
            .map_err(|err| invalid(&format!("line 1 is not valid JSON: {err}")))?;
        let metadata = header
            .object_at("chat_metadata")
            .ok_or_else(|| invalid("line 1 is not a JSON object"))?;
        for (key, value) in entries {
            metadata.insert(key, value.clone());
        }
        Ok(header.to_js_vec())
    }

    fn metadata(&self) -> Result<Option<&Map<String, Value>>, ChatError> {
        match self.fields.get("chat_metadata") {
            None => Ok(None),
            Some(Value::Object(meta)) => Ok(Some(meta)),
            Some(_) => Err(invalid("chat_metadata is not an object")),
        }
    }

    fn text(&self, key: &str) -> Option<String> {
        self.fields
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
    }
}

fn invalid(detail: &str) -> ChatError {
    ChatError::InvalidHeader(detail.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integrity_is_validated() {
        let id = |line: &str| Header::parse(line.as_bytes()).unwrap().stable_chat_id();
        assert_eq!(
            id(r#"{"chat_metadata":{"integrity":" abc "}}"#),
            Ok(Some("abc".into()))
        );
        assert_eq!(id(r#"{"chat_metadata":{}}"#), Ok(None));
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
    }
}
