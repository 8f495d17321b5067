//! How a commit changes a message, following what SillyTavern writes for the same action.
//!
//! Every message an agent writes carries `extra.tauritavern.agent` = `{runId,
//! persistStateStatus}`; the committer later finds its message by that run id. A message's
//! current swipe is mirrored the way SillyTavern keeps it: `swipes[swipe_id]` holds the text
//! and `swipe_info[swipe_id]` the `send_date` and a copy of `extra`, so swiping back and forth
//! in SillyTavern shows the right text with the right metadata.

use agent_application::ports::{ChatError, CommitMode};
use agent_domain::run::{RunId, StateId};
use serde::Serialize;
use serde_json::{Map, Value, json};

/// `extra.api` of the messages we write.
const API: &str = "tavern-agent";

/// The text a run publishes, and when.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Generation<'a> {
    pub(crate) run_id: &'a RunId,
    pub(crate) text: &'a str,
    pub(crate) send_date: &'a str,
}

impl Generation<'_> {
    /// `extra` of a freshly generated text (keys in alphabetical order, so the written order
    /// does not depend on how `serde_json` orders maps).
    fn extra(&self) -> Value {
        json!({
            "api": API,
            "tauritavern": {"agent": {"persistStateStatus": "not_committed", "runId": self.run_id}},
        })
    }
}

/// The line of a new assistant reply (a `normal` run), shaped like SillyTavern's own replies.
pub(crate) fn new_reply(name: &str, generation: &Generation<'_>) -> Result<Vec<u8>, ChatError> {
    #[derive(Serialize)]
    struct Reply<'a> {
        name: &'a str,
        is_user: bool,
        is_system: bool,
        send_date: &'a str,
        mes: &'a str,
        extra: &'a Value,
        swipes: [&'a str; 1],
        swipe_id: usize,
        swipe_info: [SwipeInfo<'a>; 1],
    }
    #[derive(Serialize)]
    struct SwipeInfo<'a> {
        send_date: &'a str,
        extra: &'a Value,
    }
    let extra = generation.extra();
    let reply = Reply {
        name,
        is_user: false,
        is_system: false,
        send_date: generation.send_date,
        mes: generation.text,
        extra: &extra,
        swipes: [generation.text],
        swipe_id: 0,
        swipe_info: [SwipeInfo {
            send_date: generation.send_date,
            extra: &extra,
        }],
    };
    serde_json::to_vec(&reply)
        .map_err(|err| ChatError::Io(format!("cannot write the reply: {err}")))
}

/// `regenerate`: the run's text replaces the message's current text (and current swipe),
/// with a fresh `extra` as SillyTavern gives a regenerated reply (the old one described the
/// replaced text: its model, reasoning, display text). A hidden message becomes visible.
/// Keys outside `extra` stay.
pub(crate) fn regenerate(fields: &mut Map<String, Value>, generation: &Generation<'_>) {
    fields.insert("extra".into(), generation.extra());
    if fields.get("is_system") == Some(&Value::Bool(true)) {
        fields.insert("is_system".into(), false.into());
    }
    fields.insert("mes".into(), generation.text.into());
    fields.insert("send_date".into(), generation.send_date.into());
    sync_current_swipe(fields);
}

/// `swipe`: the run's text becomes a new swipe of the message and the current one, with a
/// fresh `extra`. The previous swipe's `extra` and `send_date` are kept in its `swipe_info`
/// entry when that entry has none, so nothing the message carried is lost.
pub(crate) fn add_swipe(
    fields: &mut Map<String, Value>,
    generation: &Generation<'_>,
    line: usize,
) -> Result<(), ChatError> {
    let current = fields
        .get("mes")
        .cloned()
        .unwrap_or_else(|| Value::String(String::new()));
    let mut swipes = match fields.get("swipes") {
        None | Some(Value::Null) => vec![current],
        Some(Value::Array(items)) if items.is_empty() => vec![current],
        Some(Value::Array(items)) => items.clone(),
        Some(_) => return Err(invalid(line, "`swipes` is not an array")),
    };
    let mut infos = match fields.get("swipe_info") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.clone(),
        Some(_) => return Err(invalid(line, "`swipe_info` is not an array")),
    };
    if infos.len() > swipes.len() {
        return Err(invalid(line, "`swipe_info` has more entries than `swipes`"));
    }
    infos.resize(swipes.len(), Value::Object(Map::new()));
    let previous = swipe_id(fields).unwrap_or(0).min(swipes.len() - 1);
    if let Some(Value::Object(info)) = infos.get_mut(previous) {
        for key in ["extra", "send_date"] {
            if let Some(value) = fields.get(key)
                && !info.contains_key(key)
            {
                info.insert(key.into(), value.clone());
            }
        }
    }
    let extra = generation.extra();
    swipes.push(generation.text.into());
    infos.push(json!({"extra": extra.clone(), "send_date": generation.send_date}));
    let current = swipes.len() - 1;
    fields.insert("extra".into(), extra);
    fields.insert("mes".into(), generation.text.into());
    fields.insert("send_date".into(), generation.send_date.into());
    fields.insert("swipe_id".into(), current.into());
    fields.insert("swipe_info".into(), infos.into());
    fields.insert("swipes".into(), swipes.into());
    Ok(())
}

/// A later commit of the same run: `replace` sets the text; `append` adds it after the
/// current text, separated by a blank line (`old + "\n\n" + new`; just `new` when the message
/// is empty).
pub(crate) fn revise(fields: &mut Map<String, Value>, mode: CommitMode, text: &str) {
    let mes = match (mode, fields.get("mes").and_then(Value::as_str)) {
        (CommitMode::Append, Some(old)) if !old.is_empty() => format!("{old}\n\n{text}"),
        _ => text.to_owned(),
    };
    fields.insert("mes".into(), mes.into());
    sync_current_swipe(fields);
}

/// The agent metadata of a message `run` wrote, for changing it.
fn own_agent<'a>(
    fields: &'a mut Map<String, Value>,
    run: &RunId,
) -> Option<&'a mut Map<String, Value>> {
    let agent = fields
        .get_mut("extra")?
        .get_mut("tauritavern")?
        .get_mut("agent")?
        .as_object_mut()?;
    (agent.get("runId").and_then(Value::as_str) == Some(run.as_str())).then_some(agent)
}

/// Records the persistent state the run promoted; `false` when `run` did not write this
/// message.
pub(crate) fn record_state(fields: &mut Map<String, Value>, run: &RunId, state: &StateId) -> bool {
    let Some(agent) = own_agent(fields, run) else {
        return false;
    };
    agent.insert("persistStateId".into(), state.as_str().into());
    agent.insert("persistStateStatus".into(), "committed".into());
    sync_current_swipe(fields);
    true
}

/// Copies the current text and metadata into the current swipe, where SillyTavern reads them
/// when the user swipes.
fn sync_current_swipe(fields: &mut Map<String, Value>) {
    let Some(current) = swipe_id(fields) else {
        return;
    };
    let [mes, extra, send_date] = ["mes", "extra", "send_date"].map(|key| fields.get(key).cloned());
    if let (Some(mes), Some(slot)) = (
        mes,
        fields.get_mut("swipes").and_then(|s| s.get_mut(current)),
    ) {
        *slot = mes;
    }
    if let Some(Value::Object(info)) = fields
        .get_mut("swipe_info")
        .and_then(|s| s.get_mut(current))
    {
        for (key, value) in [("extra", extra), ("send_date", send_date)] {
            if let Some(value) = value {
                info.insert(key.into(), value);
            }
        }
    }
}

fn swipe_id(fields: &Map<String, Value>) -> Option<usize> {
    fields.get("swipe_id")?.as_u64()?.try_into().ok()
}

fn invalid(line: usize, detail: &str) -> ChatError {
    ChatError::InvalidMessage {
        line,
        detail: detail.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn generation<'a>(run: &'a RunId, text: &'a str) -> Generation<'a> {
        Generation {
            run_id: run,
            text,
            send_date: "NOW",
        }
    }

    fn fields(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn a_new_reply_is_shaped_like_sillytavern_writes_it() {
        let run = RunId::parse("run_1").unwrap();
        let line = new_reply("Seraphina", &generation(&run, "Hi")).unwrap();
        let extra = r#"{"api":"tavern-agent","tauritavern":{"agent":{"persistStateStatus":"not_committed","runId":"run_1"}}}"#;
        assert_eq!(
            String::from_utf8(line).unwrap(),
            format!(
                r#"{{"name":"Seraphina","is_user":false,"is_system":false,"send_date":"NOW","mes":"Hi","extra":{extra},"swipes":["Hi"],"swipe_id":0,"swipe_info":[{{"send_date":"NOW","extra":{extra}}}]}}"#
            )
        );
    }

    #[test]
    fn a_swipe_keeps_the_previous_swipe_and_its_metadata() {
        let run = RunId::parse("run_2").unwrap();
        let mut message =
            fields(json!({"mes": "old", "send_date": "then", "extra": {"model": "m"}}));
        add_swipe(&mut message, &generation(&run, "new"), 2).unwrap();
        assert_eq!(
            Value::Object(message),
            json!({
                "mes": "new", "send_date": "NOW", "swipe_id": 1, "swipes": ["old", "new"],
                "extra": {"api": "tavern-agent", "tauritavern": {"agent": {"persistStateStatus": "not_committed", "runId": "run_2"}}},
                "swipe_info": [
                    {"extra": {"model": "m"}, "send_date": "then"},
                    {"send_date": "NOW", "extra": {"api": "tavern-agent", "tauritavern": {"agent": {"persistStateStatus": "not_committed", "runId": "run_2"}}}},
                ],
            })
        );
    }

    #[test]
    fn malformed_swipes_are_refused_not_overwritten() {
        let run = RunId::parse("run_2").unwrap();
        for bad in [
            json!({"swipes": "x"}),
            json!({"swipes": ["a"], "swipe_info": [{}, {}]}),
        ] {
            let mut message = fields(bad);
            assert!(matches!(
                add_swipe(&mut message, &generation(&run, "new"), 5),
                Err(ChatError::InvalidMessage { line: 5, .. })
            ));
        }
    }

    #[test]
    fn regenerate_replaces_the_current_swipe_and_its_extra() {
        let run = RunId::parse("run_3").unwrap();
        let mut message = fields(json!({
            "mes": "b", "is_system": true, "swipe_id": 1, "swipes": ["a", "b"], "swipe_info": [{}, {}],
            "extra": {"display_text": "old", "tauritavern": {"agent": {"runId": "run_old"}}}, "custom": 1,
        }));
        regenerate(&mut message, &generation(&run, "c"));
        let extra = json!({"api": "tavern-agent", "tauritavern": {"agent": {"persistStateStatus": "not_committed", "runId": "run_3"}}});
        assert_eq!(
            Value::Object(message),
            json!({
                "mes": "c", "is_system": false, "send_date": "NOW", "swipe_id": 1, "swipes": ["a", "c"],
                "swipe_info": [{}, {"extra": extra, "send_date": "NOW"}], "extra": extra, "custom": 1,
            })
        );
    }

    #[test]
    fn revisions_append_after_a_blank_line_and_states_need_the_same_run() {
        let run = RunId::parse("run_4").unwrap();
        let mut message =
            fields(json!({"mes": "", "extra": {"tauritavern": {"agent": {"runId": "run_4"}}}}));
        revise(&mut message, CommitMode::Append, "one");
        revise(&mut message, CommitMode::Append, "two");
        assert_eq!(message["mes"], "one\n\ntwo");
        revise(&mut message, CommitMode::Replace, "three");
        assert_eq!(message["mes"], "three");
        let state = StateId::parse("state_1").unwrap();
        assert!(!record_state(
            &mut message,
            &RunId::parse("run_5").unwrap(),
            &state
        ));
        assert!(record_state(&mut message, &run, &state));
        assert_eq!(
            message["extra"]["tauritavern"]["agent"],
            json!({"runId": "run_4", "persistStateId": "state_1", "persistStateStatus": "committed"})
        );
    }
}
