//! Reading one message line: the fields a run sees, and the agent metadata the committer
//! checks.

use agent_application::ports::{ChatError, ChatMessage, ChatRole};
use agent_domain::json::OrderedJson;
use serde_json::{Map, Value};

/// The file line (1-based) of message `index`: the header is line 1.
pub(crate) fn line_of(index: usize) -> usize {
    index + 2
}

/// Parses a message line into its JSON object.
pub(crate) fn parse(line: &[u8], index: usize) -> Result<Map<String, Value>, ChatError> {
    let invalid = |detail: String| ChatError::InvalidMessage {
        line: line_of(index),
        detail,
    };
    match serde_json::from_slice(line) {
        Ok(Value::Object(fields)) => Ok(fields),
        Ok(_) => Err(invalid("not a JSON object".into())),
        Err(err) => Err(invalid(err.to_string())),
    }
}

/// Parses a message line keeping its key order, for rewriting it.
pub(crate) fn parse_ordered(line: &[u8], index: usize) -> Result<OrderedJson, ChatError> {
    let invalid = |detail: String| ChatError::InvalidMessage {
        line: line_of(index),
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
    ChatMessage {
        index,
        role: role(fields),
        name: text("name").unwrap_or_default(),
        text: text("mes").unwrap_or_default(),
        send_date: text("send_date"),
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
    fn invalid_lines_name_their_line() {
        assert_eq!(
            parse(b"[]", 4),
            Err(ChatError::InvalidMessage {
                line: 6,
                detail: "not a JSON object".into()
            })
        );
        assert!(matches!(
            parse(b"{\"mes\":", 0),
            Err(ChatError::InvalidMessage { line: 2, .. })
        ));
    }
}
