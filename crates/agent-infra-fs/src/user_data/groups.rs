//! [`FsGroups`]: SillyTavern's groups, `<data>/groups/<id>.json`.

use std::path::Path;

use agent_application::ports::{GROUP_INVALID, Group, Groups, INVALID_GROUP_ID, StoreError};
use async_trait::async_trait;
use serde_json::{Map, Value};

use super::{damaged, file_names, is_plain_name, read_object};
use crate::layout::{DataDir, record_file};
use crate::runs::store_io::blocking;

/// The groups of one data directory, read-only.
#[derive(Debug, Clone)]
pub struct FsGroups {
    data: DataDir,
}

impl FsGroups {
    pub fn new(data: DataDir) -> Self {
        Self { data }
    }

    /// [`Groups::load`] without the async wrapper (blocking).
    pub fn load_blocking(&self, group_id: &str) -> Result<Option<Group>, StoreError> {
        if !is_plain_name(group_id) {
            return Err(StoreError::Invalid {
                code: INVALID_GROUP_ID,
                message: format!("`{group_id}` cannot name a group: it must be a plain file name"),
            });
        }
        load_group(&self.data.groups(), group_id)
    }

    /// [`Groups::find_by_chat`] without the async wrapper (blocking).
    pub fn find_by_chat_blocking(&self, chat_id: &str) -> Result<Option<Group>, StoreError> {
        let dir = self.data.groups();
        // SillyTavern reads `*.json` here with the extension in lower case.
        let mut ids: Vec<String> = file_names(&dir)?
            .into_iter()
            .filter_map(|name| name.strip_suffix(".json").map(str::to_owned))
            .filter(|id| !id.is_empty())
            .collect();
        ids.sort();
        let mut unreadable = None;
        for id in ids {
            match load_group(&dir, &id) {
                Ok(Some(group)) if group.has_chat(chat_id) => return Ok(Some(group)),
                Ok(_) => {}
                Err(err) => {
                    unreadable.get_or_insert(err);
                }
            }
        }
        unreadable.map_or(Ok(None), Err)
    }
}

fn load_group(dir: &Path, id: &str) -> Result<Option<Group>, StoreError> {
    let path = record_file(dir, id);
    let Some(read) = read_object(&path, GROUP_INVALID)? else {
        return Ok(None);
    };
    parse_group(id, read.object)
        .map(Some)
        .map_err(|detail| damaged(GROUP_INVALID, &path, detail))
}

/// The typed fields of a group file `stem.json`; the error names the field.
fn parse_group(stem: &str, raw: Map<String, Value>) -> Result<Group, String> {
    let text = |key: &str| match raw.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(format!("`{key}` of the group is not a string")),
    };
    let texts = |key: &str| match raw.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(text) => Ok(text.clone()),
                _ => Err(format!("`{key}[{i}]` of the group is not a string")),
            })
            .collect(),
        Some(_) => Err(format!("`{key}` of the group is not a list of strings")),
    };
    let object_or_null = |value: Option<&Value>, key: &str| match value {
        None | Some(Value::Null | Value::Object(_)) => Ok(()),
        Some(_) => Err(format!("`{key}` of the group is not an object")),
    };
    object_or_null(raw.get("chat_metadata"), "chat_metadata")?;
    object_or_null(raw.get("past_metadata"), "past_metadata")?;
    if let Some(Value::Object(past)) = raw.get("past_metadata") {
        for (chat_id, metadata) in past {
            object_or_null(Some(metadata), &format!("past_metadata.{chat_id}"))?;
        }
    }
    Ok(Group {
        id: text("id")?.unwrap_or_else(|| stem.to_owned()),
        name: text("name")?.unwrap_or_default(),
        members: texts("members")?,
        disabled_members: texts("disabled_members")?,
        chat_id: text("chat_id")?.filter(|id| !id.is_empty()),
        chats: texts("chats")?,
        raw: Value::Object(raw),
    })
}

#[async_trait]
impl Groups for FsGroups {
    async fn load(&self, group_id: &str) -> Result<Option<Group>, StoreError> {
        let (groups, id) = (self.clone(), group_id.to_owned());
        blocking(move || groups.load_blocking(&id), StoreError::Io).await
    }

    async fn find_by_chat(&self, chat_id: &str) -> Result<Option<Group>, StoreError> {
        let (groups, id) = (self.clone(), chat_id.to_owned());
        blocking(move || groups.find_by_chat_blocking(&id), StoreError::Io).await
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(value: Value) -> Result<Group, String> {
        let Value::Object(raw) = value else {
            unreachable!()
        };
        parse_group("1750000000000", raw)
    }

    #[test]
    fn missing_fields_are_empty_and_the_id_falls_back_to_the_stem() {
        let group = parse(json!({"name": null, "chat_id": ""})).unwrap();
        assert_eq!(group.id, "1750000000000");
        assert_eq!(group.name, "");
        assert!(group.members.is_empty() && group.chats.is_empty());
        assert_eq!(group.chat_id, None);
    }

    #[test]
    fn fields_of_the_wrong_type_are_named() {
        for (value, field) in [
            (json!({"members": "Seraphina.png"}), "`members`"),
            (json!({"members": ["a.png", 3]}), "`members[1]`"),
            (json!({"chat_id": 17}), "`chat_id`"),
            (json!({"chat_metadata": []}), "`chat_metadata`"),
            (json!({"past_metadata": {"c1": 1}}), "`past_metadata.c1`"),
        ] {
            let err = parse(value).unwrap_err();
            assert!(err.contains(field), "{err}");
        }
    }

    #[test]
    fn old_groups_keep_chat_metadata_per_chat() {
        let group = parse(json!({
            "chat_id": "now", "chats": ["old", "now", "bare"],
            "chat_metadata": {"note_prompt": "current"},
            "past_metadata": {"old": {"note_prompt": "past"}, "now": {"note_prompt": "stale"}}
        }))
        .unwrap();
        let note = |chat: &str| {
            group
                .chat_metadata(chat)
                .map(|meta| meta["note_prompt"].clone())
        };
        assert_eq!(note("now"), Some(json!("current")));
        assert_eq!(note("old"), Some(json!("past")));
        assert_eq!(note("bare"), None);
        assert!(group.has_chat("bare") && group.has_chat("now") && !group.has_chat("x"));
    }
}
