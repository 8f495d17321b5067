//! Reading a script from JSON text.
//!
//! Parsing goes one level at a time (script, turn, tool call, error) from a
//! `serde_json::Value`, each level a `deny_unknown_fields` struct, so every error carries
//! the script path of the object it is about (`turns[2].tool_calls[0]: unknown field
//! `nme`, …`) instead of a bare serde message with no location.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use agent_domain::profile::ProfileId;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::ScriptError;
use super::script::{Answer, Failure, FailureKind, ListKey, Outcome, Script, ScriptedCall, Turn};

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a script object")]
struct RawScript {
    #[serde(default)]
    turns: Vec<Value>,
    #[serde(default)]
    agents: BTreeMap<String, Vec<Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a turn object")]
struct RawTurn {
    text: Option<String>,
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Vec<Value>,
    delay_ms: Option<u64>,
    error: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a tool call object")]
struct RawCall {
    id: Option<String>,
    name: String,
    arguments: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "an error object")]
struct RawFailure {
    kind: FailureKind,
    message: Option<String>,
    retry_after_ms: Option<u64>,
}

/// The longest `delay_ms` a turn may ask for: 10 minutes. A longer one is a typo (or a
/// hostile script) that would hold a run for days.
pub(crate) const MAX_DELAY_MS: u64 = 10 * 60 * 1000;

/// Parses and checks a whole script.
pub(crate) fn parse(text: &str) -> Result<Script, ScriptError> {
    let raw: RawScript = serde_json::from_str(text)
        .map_err(|err| ScriptError::invalid("script", err.to_string()))?;
    let turns = parse_list(&ListKey::Turns, raw.turns)?;
    let mut agents = HashMap::new();
    for (key, list) in raw.agents {
        let id = ProfileId::parse_field(&key, "profile id")
            .map_err(|err| ScriptError::invalid(format!("agents.{key}"), err.to_string()))?;
        let name = ListKey::Agent(id.as_str().to_owned());
        let list = parse_list(&name, list)?;
        if agents.insert(id.as_str().to_owned(), list).is_some() {
            return Err(ScriptError::invalid(
                name.to_string(),
                "this profile has two lists (their keys differ only in surrounding whitespace)",
            ));
        }
    }
    if turns.is_empty() && agents.values().all(Vec::is_empty) {
        return Err(ScriptError::invalid(
            "script",
            "the script has no turns: give `turns`, `agents.<profileId>` or both",
        ));
    }
    Ok(Script { turns, agents })
}

fn parse_list(name: &ListKey, list: Vec<Value>) -> Result<Vec<Turn>, ScriptError> {
    list.into_iter()
        .enumerate()
        .map(|(index, value)| parse_turn(&format!("{name}[{index}]"), value))
        .collect()
}

fn parse_turn(at: &str, value: Value) -> Result<Turn, ScriptError> {
    let raw: RawTurn = level(at, value)?;
    if let Some(ms) = raw.delay_ms.filter(|ms| *ms > MAX_DELAY_MS) {
        return Err(ScriptError::invalid(
            format!("{at}.delay_ms"),
            format!("{ms} ms is longer than the limit of {MAX_DELAY_MS} ms (10 minutes)"),
        ));
    }
    let delay = raw.delay_ms.map(Duration::from_millis);
    let has_answer = raw.text.is_some() || raw.reasoning.is_some() || !raw.tool_calls.is_empty();
    let outcome = match raw.error {
        Some(_) if has_answer => {
            return Err(ScriptError::invalid(
                at,
                "a turn with `error` fails the call, so it cannot also have `text`, \
                 `reasoning` or `tool_calls`",
            ));
        }
        Some(error) => Outcome::Fail(parse_failure(&format!("{at}.error"), error)?),
        None if !has_answer => {
            return Err(ScriptError::invalid(
                at,
                "a turn needs at least one of `text`, `reasoning`, `tool_calls` or `error`",
            ));
        }
        None => Outcome::Answer(Answer {
            reasoning: raw.reasoning,
            text: raw.text,
            tool_calls: raw
                .tool_calls
                .into_iter()
                .enumerate()
                .map(|(index, call)| parse_call(&format!("{at}.tool_calls[{index}]"), call))
                .collect::<Result<_, _>>()?,
        }),
    };
    Ok(Turn { delay, outcome })
}

fn parse_call(at: &str, value: Value) -> Result<ScriptedCall, ScriptError> {
    let raw: RawCall = level(at, value)?;
    let arguments = match raw.arguments {
        None => Value::Object(Map::new()),
        Some(arguments @ (Value::Object(_) | Value::String(_))) => arguments,
        Some(other) => {
            return Err(ScriptError::invalid(
                format!("{at}.arguments"),
                format!(
                    "arguments are a JSON object or a string of raw arguments, not {}",
                    json_kind(&other)
                ),
            ));
        }
    };
    Ok(ScriptedCall {
        id: raw.id,
        name: raw.name,
        arguments,
    })
}

fn parse_failure(at: &str, value: Value) -> Result<Failure, ScriptError> {
    let raw: RawFailure = level(at, value)?;
    Ok(Failure {
        kind: raw.kind,
        message: raw
            .message
            .unwrap_or_else(|| raw.kind.default_message().to_owned()),
        retry_after_ms: raw.retry_after_ms,
    })
}

/// Deserializes one level of the script, locating any error at `at`.
fn level<T: DeserializeOwned>(at: &str, value: Value) -> Result<T, ScriptError> {
    serde_json::from_value(value).map_err(|err| ScriptError::invalid(at, err.to_string()))
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_domain::ErrorCode;
    use pretty_assertions::assert_eq;

    fn error(text: &str) -> String {
        let err = parse(text).unwrap_err();
        assert_eq!(err.code(), "script.invalid");
        err.to_string()
    }

    #[test]
    fn reads_every_field() {
        let script = parse(
            r#"{"turns": [
                {"reasoning": "hm", "text": "hi", "delay_ms": 5,
                 "tool_calls": [{"id": "c1", "name": "a", "arguments": {"x": 1}},
                                {"name": "b", "arguments": "{oops"},
                                {"name": "c"}]},
                {"error": {"kind": "rate_limit", "message": "slow down", "retry_after_ms": 10}},
                {"error": {"kind": "fatal"}}
            ], "agents": {"reviewer": [{"text": "ok"}], "idle": []}}"#,
        )
        .unwrap();
        assert_eq!(script.turns.len(), 3);
        assert_eq!(script.turns[0].delay, Some(Duration::from_millis(5)));
        let longest = format!(r#"{{"turns": [{{"text": "a", "delay_ms": {MAX_DELAY_MS}}}]}}"#);
        assert_eq!(
            parse(&longest).unwrap().turns[0].delay,
            Some(Duration::from_secs(600))
        );
        let Outcome::Answer(answer) = &script.turns[0].outcome else {
            panic!("an answer");
        };
        assert_eq!(answer.reasoning.as_deref(), Some("hm"));
        assert_eq!(answer.text.as_deref(), Some("hi"));
        let args: Vec<_> = answer.tool_calls.iter().map(|c| &c.arguments).collect();
        assert_eq!(
            args,
            [
                &serde_json::json!({"x": 1}),
                &Value::from("{oops"),
                &serde_json::json!({})
            ]
        );
        assert_eq!(answer.tool_calls[0].id.as_deref(), Some("c1"));
        assert_eq!(answer.tool_calls[1].id, None);
        let Outcome::Fail(failure) = &script.turns[1].outcome else {
            panic!("a failure");
        };
        assert_eq!(failure.kind, FailureKind::RateLimit);
        assert_eq!(failure.message, "slow down");
        assert_eq!(failure.retry_after_ms, Some(10));
        let Outcome::Fail(failure) = &script.turns[2].outcome else {
            panic!("a failure");
        };
        assert_eq!(failure.message, "scripted fatal provider error");
        assert_eq!(
            script.list_for("reviewer").0,
            ListKey::Agent("reviewer".into())
        );
        assert!(script.list_for("idle").1.is_empty());
        assert_eq!(script.list_for("default-writer").0, ListKey::Turns);
    }

    #[test]
    fn errors_name_the_place_and_the_problem() {
        let cases = [
            (
                r#"{"turns": [{"text": "a"}], "turn": []}"#,
                "invalid script at script: unknown field `turn`, expected `turns` or `agents` at line 1 column 33",
            ),
            (
                r#"{"turns": [{"text": "a"}, {"text": "b"}, {"tool_calls": [{"nme": "x"}]}]}"#,
                "invalid script at turns[2].tool_calls[0]: unknown field `nme`, expected one of `id`, `name`, `arguments`",
            ),
            (
                r#"{"agents": {"reviewer": [{"error": {"kind": "boom"}}]}}"#,
                "invalid script at agents.reviewer[0].error: unknown variant `boom`, expected one of `rate_limit`, `transient`, `fatal`",
            ),
            (
                r#"{"turns": [{"text": "a"}, {}]}"#,
                "invalid script at turns[1]: a turn needs at least one of `text`, `reasoning`, `tool_calls` or `error`",
            ),
            (
                r#"{"turns": [{"tool_calls": [], "delay_ms": 5}]}"#,
                "invalid script at turns[0]: a turn needs at least one of `text`, `reasoning`, `tool_calls` or `error`",
            ),
            (
                r#"{"turns": [{"text": "a", "error": {"kind": "transient"}}]}"#,
                "invalid script at turns[0]: a turn with `error` fails the call, so it cannot also have `text`, `reasoning` or `tool_calls`",
            ),
            (
                r#"{"turns": [{"tool_calls": [{"name": "x", "arguments": [1]}]}]}"#,
                "invalid script at turns[0].tool_calls[0].arguments: arguments are a JSON object or a string of raw arguments, not an array",
            ),
            (
                r#"{"turns": [{"tool_calls": [{"arguments": {}}]}]}"#,
                "invalid script at turns[0].tool_calls[0]: missing field `name`",
            ),
            (
                r#"{"turns": ["hello"]}"#,
                "invalid script at turns[0]: invalid type: string \"hello\", expected a turn object",
            ),
            (
                r#"{"agents": {"Reviewer": [{"text": "a"}]}}"#,
                "invalid script at agents.Reviewer: profile id `Reviewer` may only contain lower-case ASCII letters, digits, `-` and `_`",
            ),
            (
                r#"{"agents": {"a": [{"text": "x"}], " a": []}}"#,
                "invalid script at agents.a: this profile has two lists (their keys differ only in surrounding whitespace)",
            ),
            (
                r#"{"turns": [{"text": "a", "delay_ms": 600001}]}"#,
                "invalid script at turns[0].delay_ms: 600001 ms is longer than the limit of 600000 ms (10 minutes)",
            ),
            (
                r#"{"agents": {"a": []}}"#,
                "invalid script at script: the script has no turns: give `turns`, `agents.<profileId>` or both",
            ),
            (
                "{\"turns\": [\n{\"text\": \"a\"}\n",
                "invalid script at script: EOF while parsing a list at line 3 column 0",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(error(text), expected, "{text}");
        }
    }
}
