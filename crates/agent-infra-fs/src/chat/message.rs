//! Reading one message line: the fields a run sees, and the agent metadata the committer
//! checks.

use agent_application::ports::{ChatError, ChatMessage, ChatRole};
use agent_domain::json::OrderedJson;
use serde_json::{Map, Value};

/// Parses a message line, file line `line_number` (1-based), into its JSON object.
pub(crate) fn parse_line(line: &[u8], line_number: usize) -> Result<Map<String, Value>, ChatError> {
    let invalid = |detail: String| ChatError::InvalidMessage {
        line: line_number,
        detail,
    };
    match serde_json::from_slice(line) {
        Ok(Value::Object(fields)) => Ok(fields),
        Ok(_) => Err(invalid("not a JSON object".into())),
        Err(err) => Err(invalid(err.to_string())),
    }
}

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

/// User if `is_user`, system if `is_system`, otherwise assistant (SillyTavern's reading).
pub(crate) fn role(fields: &Map<String, Value>) -> ChatRole {
    role_by(|key| fields.get(key).and_then(Value::as_bool) == Some(true))
}

/// [`role`] of a message read for rewriting.
pub(crate) fn ordered_role(message: &OrderedJson) -> ChatRole {
    role_by(|key| message.get(key).and_then(OrderedJson::as_bool) == Some(true))
}

fn role_by(flag: impl Fn(&str) -> bool) -> ChatRole {
    if flag("is_user") {
        ChatRole::User
    } else if flag("is_system") {
        ChatRole::System
    } else {
        ChatRole::Assistant
    }
}

/// `extra.tauritavern.agent`, when it is an object.
pub(crate) fn agent(fields: &Map<String, Value>) -> Option<&Map<String, Value>> {
    fields
        .get("extra")?
        .get("tauritavern")?
        .get("agent")?
        .as_object()
}

/// The port's view of message `index`.
pub(crate) fn to_chat_message(index: usize, fields: &Map<String, Value>) -> ChatMessage {
    let text = |key: &str| match fields.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        // Old SillyTavern files store `send_date` as epoch milliseconds.
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let string = |key: &str| fields.get(key).and_then(Value::as_str).map(str::to_owned);
    ChatMessage {
        index,
        role: role(fields),
        name: text("name").unwrap_or_default(),
        text: text("mes").unwrap_or_default(),
        send_date: text("send_date"),
        is_system: fields.get("is_system").and_then(Value::as_bool) == Some(true),
        original_avatar: string("original_avatar"),
        force_avatar: string("force_avatar"),
        gen_id: fields
            .get("extra")
            .and_then(|extra| extra.get("gen_id"))
            .and_then(Value::as_f64),
        agent: agent(fields).map(|agent| Value::Object(agent.clone())),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn roles_follow_the_flags() {
        assert_eq!(
            role(&fields(json!({"is_user": true, "is_system": true}))),
            ChatRole::User
        );
        assert_eq!(
            role(&fields(json!({"is_user": false, "is_system": true}))),
            ChatRole::System
        );
        assert_eq!(
            role(&fields(json!({"is_user": "yes"}))),
            ChatRole::Assistant
        );
    }

    #[test]
    fn agent_metadata_is_read_only_when_it_is_an_object() {
        let with = fields(json!({"mes": "hi", "send_date": 1700000000000u64,
            "extra": {"tauritavern": {"agent": {"runId": "run_1"}}}}));
        let message = to_chat_message(3, &with);
        assert_eq!(message.agent, Some(json!({"runId": "run_1"})));
        assert_eq!(message.send_date.as_deref(), Some("1700000000000"));
        let without = fields(json!({"extra": {"tauritavern": {"agent": "run_1"}}}));
        assert_eq!(to_chat_message(0, &without).agent, None);
    }

    #[test]
    fn group_replies_carry_their_card_and_generation() {
        let reply = to_chat_message(
            1,
            &fields(json!({"name": "Seraphina", "is_user": false, "mes": "Hi.",
                "original_avatar": "Seraphina.png",
                "force_avatar": "/thumbnail?type=avatar&file=Seraphina.png",
                "extra": {"gen_id": 1780347600123.25_f64}})),
        );
        assert_eq!(reply.original_avatar.as_deref(), Some("Seraphina.png"));
        assert_eq!(
            reply.force_avatar.as_deref(),
            Some("/thumbnail?type=avatar&file=Seraphina.png")
        );
        assert_eq!(reply.gen_id, Some(1780347600123.25));
        assert!(!reply.is_system);
        let hidden = to_chat_message(
            2,
            &fields(
                json!({"is_user": true, "is_system": true, "original_avatar": 3,
                "extra": {"gen_id": "x"}}),
            ),
        );
        assert_eq!((hidden.role, hidden.is_system), (ChatRole::User, true));
        assert_eq!((hidden.original_avatar, hidden.gen_id), (None, None));
    }

    #[test]
    fn invalid_lines_name_their_line() {
        assert_eq!(
            parse_line(b"[]", 6),
            Err(ChatError::InvalidMessage {
                line: 6,
                detail: "not a JSON object".into()
            })
        );
        assert!(matches!(
            parse_ordered(b"{\"mes\":", 2),
            Err(ChatError::InvalidMessage { line: 2, .. })
        ));
        assert!(matches!(
            parse_ordered(b"[1]", 9),
            Err(ChatError::InvalidMessage { line: 9, .. })
        ));
        assert!(matches!(
            parse_line(b"7", 1),
            Err(ChatError::InvalidMessage { line: 1, .. })
        ));
    }
}
