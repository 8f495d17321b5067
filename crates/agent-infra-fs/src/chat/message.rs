//! Reading one message line: the fields a run sees, and the agent metadata the committer
//! checks.

use agent_application::ports::{ChatError, ChatMessage, ChatRole};
use agent_domain::json::OrderedJson;
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use serde_json::error::Category;

/// Parses a message line, file line `line_number` (1-based), keeping its key order, for
/// rewriting it.
pub(crate) fn parse_ordered(line: &[u8], line_number: usize) -> Result<OrderedJson, ChatError> {
    let invalid = |detail: String| ChatError::InvalidMessage {
        line: line_number,
        detail,
    };
    match OrderedJson::from_slice(line) {
        Ok(message) if message.is_object() => Ok(message),
        Ok(_) => Err(invalid("not a JSON object".into())),
        Err(err) => Err(invalid(err.to_string())),
    }
}

/// The role of a message read for rewriting (see [`role_by`]).
pub(crate) fn ordered_role(message: &OrderedJson) -> ChatRole {
    role_by(|key| message.get(key).and_then(OrderedJson::as_bool) == Some(true))
}

/// User if `is_user`, system if `is_system`, otherwise assistant (SillyTavern's reading).
fn role_by(flag: impl Fn(&str) -> bool) -> ChatRole {
    if flag("is_user") {
        ChatRole::User
    } else if flag("is_system") {
        ChatRole::System
    } else {
        ChatRole::Assistant
    }
}

/// Reads message line `line` (file line `line_number`, 1-based) as the port's view of
/// message `index`.
///
/// Only the fields the view needs are built; the others (`swipes`, `swipe_info`, …) are
/// scanned and skipped, so a line costs one pass and the allocations of what is kept. A key
/// given twice keeps its last value, as reading the object whole would.
pub(crate) fn read_message(
    line: &[u8],
    line_number: usize,
    index: usize,
) -> Result<ChatMessage, ChatError> {
    let fields: Needed = serde_json::from_slice(line).map_err(|err| ChatError::InvalidMessage {
        line: line_number,
        // Every field accepts any JSON, so a type error can only be the line's own.
        detail: if err.classify() == Category::Data {
            "not a JSON object".into()
        } else {
            err.to_string()
        },
    })?;
    Ok(fields.into_message(index))
}

/// The fields of a message line [`read_message`] keeps, each as written.
#[derive(Debug, Default)]
struct Needed {
    name: Option<Value>,
    mes: Option<Value>,
    send_date: Option<Value>,
    is_user: Option<Value>,
    is_system: Option<Value>,
    original_avatar: Option<Value>,
    force_avatar: Option<Value>,
    extra: Option<Value>,
}

/// The keys [`Needed`] keeps; any other is [`Key::Other`] and its value is skipped.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Key {
    Name,
    Mes,
    SendDate,
    IsUser,
    IsSystem,
    OriginalAvatar,
    ForceAvatar,
    Extra,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for Needed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(NeededVisitor)
    }
}

struct NeededVisitor;

impl<'de> Visitor<'de> for NeededVisitor {
    type Value = Needed;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Needed, A::Error> {
        let mut fields = Needed::default();
        while let Some(key) = map.next_key::<Key>()? {
            let slot = match key {
                Key::Name => &mut fields.name,
                Key::Mes => &mut fields.mes,
                Key::SendDate => &mut fields.send_date,
                Key::IsUser => &mut fields.is_user,
                Key::IsSystem => &mut fields.is_system,
                Key::OriginalAvatar => &mut fields.original_avatar,
                Key::ForceAvatar => &mut fields.force_avatar,
                Key::Extra => &mut fields.extra,
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value()?);
        }
        Ok(fields)
    }
}

impl Needed {
    fn into_message(self, index: usize) -> ChatMessage {
        let flag = |value: &Option<Value>| value.as_ref().and_then(Value::as_bool) == Some(true);
        let (is_user, is_system) = (flag(&self.is_user), flag(&self.is_system));
        let extra = self.extra.as_ref();
        ChatMessage {
            index,
            role: role_by(|key| if key == "is_user" { is_user } else { is_system }),
            name: text(self.name).unwrap_or_default(),
            text: text(self.mes).unwrap_or_default(),
            send_date: text(self.send_date),
            is_system,
            original_avatar: string(self.original_avatar),
            force_avatar: string(self.force_avatar),
            gen_id: extra
                .and_then(|extra| extra.get("gen_id"))
                .and_then(Value::as_f64),
            agent: extra
                .and_then(|extra| extra.get("tauritavern")?.get("agent"))
                .filter(|agent| agent.is_object())
                .cloned(),
        }
    }
}

/// A text field: a string, or a number as its digits (old SillyTavern files store
/// `send_date` as epoch milliseconds).
fn text(value: Option<Value>) -> Option<String> {
    match value? {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn string(value: Option<Value>) -> Option<String> {
    match value? {
        Value::String(s) => Some(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The view of `value` written as message line 4, index 3.
    fn read(value: Value) -> ChatMessage {
        read_message(value.to_string().as_bytes(), 4, 3).unwrap()
    }

    #[test]
    fn roles_follow_the_flags() {
        let role = |value: Value| read(value).role;
        assert_eq!(
            role(json!({"is_user": true, "is_system": true})),
            ChatRole::User
        );
        assert_eq!(
            role(json!({"is_user": false, "is_system": true})),
            ChatRole::System
        );
        assert_eq!(role(json!({"is_user": "yes"})), ChatRole::Assistant);
    }

    #[test]
    fn agent_metadata_is_read_only_when_it_is_an_object() {
        let message = read(json!({"mes": "hi", "send_date": 1700000000000u64,
            "extra": {"tauritavern": {"agent": {"runId": "run_1"}}}}));
        assert_eq!(message.index, 3);
        assert_eq!(message.agent, Some(json!({"runId": "run_1"})));
        assert_eq!(message.send_date.as_deref(), Some("1700000000000"));
        let without = read(json!({"extra": {"tauritavern": {"agent": "run_1"}}}));
        assert_eq!(without.agent, None);
        assert_eq!(read(json!({"extra": "x"})).agent, None);
    }

    #[test]
    fn group_replies_carry_their_card_and_generation() {
        let reply = read(json!({"name": "Seraphina", "is_user": false, "mes": "Hi.",
            "original_avatar": "Seraphina.png",
            "force_avatar": "/thumbnail?type=avatar&file=Seraphina.png",
            "extra": {"gen_id": 1780347600123.25_f64}}));
        assert_eq!(reply.original_avatar.as_deref(), Some("Seraphina.png"));
        assert_eq!(
            reply.force_avatar.as_deref(),
            Some("/thumbnail?type=avatar&file=Seraphina.png")
        );
        assert_eq!(reply.gen_id, Some(1780347600123.25));
        assert!(!reply.is_system);
        let hidden = read(
            json!({"is_user": true, "is_system": true, "original_avatar": 3,
            "extra": {"gen_id": "x"}}),
        );
        assert_eq!((hidden.role, hidden.is_system), (ChatRole::User, true));
        assert_eq!((hidden.original_avatar, hidden.gen_id), (None, None));
    }

    #[test]
    fn other_fields_are_skipped_and_a_repeated_key_keeps_its_last_value() {
        let line = br#"{"swipes":["a","b",{"deep":[1,2,{"mes":"no"}]}],"mes":"first","na\u006de":"Ann","mes":"last","swipe_info":[{"send_date":"x"}]}"#;
        let message = read_message(line, 1, 0).unwrap();
        assert_eq!(message.text, "last");
        assert_eq!(message.name, "Ann", "an escaped key is still the key");
        assert_eq!(
            message.send_date, None,
            "nested fields are not the message's"
        );
    }

    #[test]
    fn invalid_lines_name_their_line() {
        assert_eq!(
            read_message(b"[]", 6, 0),
            Err(ChatError::InvalidMessage {
                line: 6,
                detail: "not a JSON object".into()
            })
        );
        assert!(matches!(
            read_message(b"{\"mes\":", 2, 0),
            Err(ChatError::InvalidMessage { line: 2, ref detail }) if detail != "not a JSON object"
        ));
        assert!(matches!(
            parse_ordered(b"{\"mes\":", 2),
            Err(ChatError::InvalidMessage { line: 2, .. })
        ));
        assert!(matches!(
            parse_ordered(b"[1]", 9),
            Err(ChatError::InvalidMessage { line: 9, .. })
        ));
        assert!(matches!(
            read_message(b"7", 1, 0),
            Err(ChatError::InvalidMessage { line: 1, .. })
        ));
    }
}
