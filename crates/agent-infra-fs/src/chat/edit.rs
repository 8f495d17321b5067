//! How a commit changes a message, following what SillyTavern's `saveReply` writes for the
//! same action, so the chat looks as if SillyTavern (or TauriTavern) had written it.
//!
//! * A new reply has SillyTavern's keys in its order: `extra`, `name`, `is_user`,
//!   `send_date`, `mes`, `title`, `gen_started`, `gen_finished`, in a group chat
//!   `force_avatar` and `original_avatar`, then `swipe_info`, `swipe_id`, `swipes`.
//! * A new swipe first stores the message's current text and metadata in its current swipe
//!   slot, drops the previous generation's `gen_started` / `gen_finished` and transient
//!   `extra` keys, then adds the run's text as a new, selected swipe; earlier swipes stay.
//! * A later commit of the run replaces the text of the swipe the run wrote.
//!
//! Every change refreshes `extra` (`api`, `model`, `reasoning…`, the agent record under
//! `tauritavern.agent`) and copies it into the current swipe's `swipe_info` entry, where
//! SillyTavern reads it back when the user swipes. Keys the message already had keep their
//! places; new keys go last, as a JavaScript assignment puts them.

use agent_application::ports::{ChatCommitRequest, ChatError};
use agent_domain::json::OrderedJson;
use agent_domain::run::{RollbackStrategy, RunId, StateId};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// `extra` keys of one generation that SillyTavern clears before swiping to a new one.
const TRANSIENT_EXTRA: [&str; 10] = [
    "memory",
    "display_text",
    "media",
    "inline_image",
    "files",
    "fileLength",
    "generationType",
    "negative",
    "title",
    "append_title",
];

/// What JavaScript's `encodeURIComponent` leaves as it is.
const URI_COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// The line of a new reply: the run's first commit of a `normal` generation.
pub(crate) fn new_reply(request: &ChatCommitRequest) -> Result<OrderedJson, ChatError> {
    let extra = extra(
        request,
        OrderedJson::object(),
        RollbackStrategy::DeleteMessage,
    )?;
    let mut reply = OrderedJson::object();
    reply.insert("extra", extra.clone());
    reply.insert("name", request.author.name.as_str());
    reply.insert("is_user", false);
    reply.insert("send_date", request.committed_at.as_str());
    reply.insert("mes", request.text.as_str());
    reply.insert("title", "");
    reply.insert("gen_started", request.generation_started.as_str());
    reply.insert("gen_finished", request.committed_at.as_str());
    if let Some(avatar) = &request.author.avatar {
        reply.insert("force_avatar", force_avatar(avatar));
        reply.insert("original_avatar", avatar.as_str());
    }
    reply.insert(
        "swipe_info",
        OrderedJson::Array(vec![swipe_info(request, extra)]),
    );
    reply.insert("swipe_id", 0u64);
    reply.insert(
        "swipes",
        OrderedJson::Array(vec![request.text.as_str().into()]),
    );
    Ok(reply)
}

/// The run's first commit of a `regenerate` or `swipe`: its text becomes a new swipe of
/// `message`, selected. Returns the new swipe's id.
pub(crate) fn add_swipe(
    message: &mut OrderedJson,
    request: &ChatCommitRequest,
    line: usize,
) -> Result<u64, ChatError> {
    let current_text = message
        .get("mes")
        .cloned()
        .unwrap_or_else(|| OrderedJson::from(""));
    let mut swipes = match message.get("swipes") {
        None | Some(OrderedJson::Null) => Vec::new(),
        Some(OrderedJson::Array(items)) => items.clone(),
        Some(_) => return Err(invalid(line, "`swipes` is not an array")),
    };
    let mut infos = match message.get("swipe_info") {
        None | Some(OrderedJson::Null) => Vec::new(),
        Some(OrderedJson::Array(items)) => items.clone(),
        Some(_) => return Err(invalid(line, "`swipe_info` is not an array")),
    };
    if swipes.is_empty() {
        swipes.push(current_text.clone());
    }
    if infos.len() > swipes.len() {
        return Err(invalid(line, "`swipe_info` has more entries than `swipes`"));
    }
    infos.resize(swipes.len(), OrderedJson::object());
    // Store the message as it is into its current swipe, as SillyTavern does before swiping.
    let current = swipe_id(message).unwrap_or(0);
    if current >= swipes.len() {
        return Err(invalid(
            line,
            &format!(
                "`swipe_id` {current} is out of range for {} swipes",
                swipes.len()
            ),
        ));
    }
    swipes[current] = current_text;
    let mut old_extra = message
        .get("extra")
        .filter(|extra| extra.is_object())
        .cloned()
        .unwrap_or_else(OrderedJson::object);
    store_in_swipe(message, &mut infos[current], &old_extra);
    // A fresh generation: no stale timings or per-generation extras.
    for key in ["gen_started", "gen_finished"] {
        message.remove(key);
    }
    for key in TRANSIENT_EXTRA {
        old_extra.remove(key);
    }
    let new_id = swipes.len() as u64;
    let extra = extra(
        request,
        old_extra,
        RollbackStrategy::DeleteSwipe { swipe_id: new_id },
    )?;
    message.insert("extra", extra.clone());
    message.insert("send_date", request.committed_at.as_str());
    message.insert("mes", request.text.as_str());
    message.insert("title", "");
    message.insert("gen_started", request.generation_started.as_str());
    message.insert("gen_finished", request.committed_at.as_str());
    swipes.push(request.text.as_str().into());
    infos.push(swipe_info(request, extra));
    message.insert("swipes", OrderedJson::Array(swipes));
    message.insert("swipe_info", OrderedJson::Array(infos));
    message.insert("swipe_id", new_id);
    Ok(new_id)
}

/// A later commit of the run: new text for the swipe the run wrote, with fresh metadata.
/// The record keeps the rollback strategy the first commit wrote. Returns that strategy.
pub(crate) fn revise(
    message: &mut OrderedJson,
    request: &ChatCommitRequest,
    id: &str,
) -> Result<RollbackStrategy, ChatError> {
    let mismatch = || ChatError::MessageMismatch(id.to_owned());
    let record = agent_record(message).ok_or_else(mismatch)?;
    if record.get("runId").and_then(OrderedJson::as_str) != Some(request.run_id.as_str()) {
        return Err(mismatch());
    }
    // The first commit wrote the strategy; a record without a readable one was changed by
    // someone else since.
    let rollback = record
        .get("rollback")
        .and_then(|r| serde_json::from_value::<RollbackStrategy>(r.to_value()).ok())
        .ok_or_else(mismatch)?;
    let old_extra = message
        .get("extra")
        .cloned()
        .unwrap_or_else(OrderedJson::object);
    let extra = extra(request, old_extra, rollback.clone())?;
    message.insert("extra", extra);
    message.insert("send_date", request.committed_at.as_str());
    message.insert("mes", request.text.as_str());
    message.insert("gen_started", request.generation_started.as_str());
    message.insert("gen_finished", request.committed_at.as_str());
    sync_current_swipe(message);
    Ok(rollback)
}

/// Records the persistent state the run promoted; `false` when `run` did not write this
/// message.
pub(crate) fn record_state(
    message: &mut OrderedJson,
    run: &RunId,
    state: &StateId,
    base: Option<&StateId>,
    change_count: u32,
) -> bool {
    let Some(record) = agent_record_mut(message) else {
        return false;
    };
    if record.get("runId").and_then(OrderedJson::as_str) != Some(run.as_str()) {
        return false;
    }
    record.insert("persistStateId", state.as_str());
    record.insert("persistBaseStateId", base.map(StateId::as_str));
    record.insert("persistStateStatus", "committed");
    record.insert("persistChangeCount", u64::from(change_count));
    sync_current_swipe(message);
    true
}

/// `extra.tauritavern.agent` of a message, when it is an object.
pub(crate) fn agent_record(message: &OrderedJson) -> Option<&OrderedJson> {
    message
        .get("extra")?
        .get("tauritavern")?
        .get("agent")
        .filter(|record| record.is_object())
}

fn agent_record_mut(message: &mut OrderedJson) -> Option<&mut OrderedJson> {
    message
        .get_mut("extra")?
        .get_mut("tauritavern")?
        .get_mut("agent")
        .filter(|record| record.is_object())
}

/// `base` with this generation's metadata: `api`, `model`, `reasoning…`, in a group chat
/// `gen_id`, and the agent record (with `rollback`) under `tauritavern.agent`.
fn extra(
    request: &ChatCommitRequest,
    mut base: OrderedJson,
    rollback: RollbackStrategy,
) -> Result<OrderedJson, ChatError> {
    base.insert("api", request.model.api.as_str());
    base.insert("model", request.model.model.as_str());
    base.insert("reasoning", request.reasoning.as_str());
    base.insert("reasoning_duration", OrderedJson::Null);
    base.insert("reasoning_signature", OrderedJson::Null);
    if let Some(id) = request.author.generation_id {
        base.insert("gen_id", id);
    }
    let mut record = request.record.clone();
    record.rollback = Some(rollback);
    let record = OrderedJson::from_serialize(&record)
        .map_err(|err| ChatError::Io(format!("cannot write the agent record: {err}")))?;
    if let Some(tauritavern) = base.object_at("tauritavern") {
        tauritavern.insert("agent", record);
    }
    Ok(base)
}

/// A `swipe_info` entry for this generation.
fn swipe_info(request: &ChatCommitRequest, extra: OrderedJson) -> OrderedJson {
    let mut info = OrderedJson::object();
    info.insert("send_date", request.committed_at.as_str());
    info.insert("gen_started", request.generation_started.as_str());
    info.insert("gen_finished", request.committed_at.as_str());
    info.insert("extra", extra);
    info
}

/// Writes the message's `send_date`, timings and `extra` into `info` (its swipe's entry).
fn store_in_swipe(message: &OrderedJson, info: &mut OrderedJson, extra: &OrderedJson) {
    if !info.is_object() {
        *info = OrderedJson::object();
    }
    for key in ["send_date", "gen_started", "gen_finished"] {
        match message.get(key) {
            Some(value) => info.insert(key, value.clone()),
            None => {
                info.remove(key);
            }
        }
    }
    info.insert("extra", extra.clone());
}

/// Copies the current text and metadata into the current swipe, where SillyTavern reads
/// them when the user swipes.
fn sync_current_swipe(message: &mut OrderedJson) {
    let Some(current) = swipe_id(message) else {
        return;
    };
    let mes = message.get("mes").cloned();
    let extra = message
        .get("extra")
        .cloned()
        .unwrap_or_else(OrderedJson::object);
    let snapshot = message.clone();
    if let (Some(mes), Some(slot)) = (
        mes,
        message
            .get_mut("swipes")
            .and_then(OrderedJson::as_array_mut)
            .and_then(|swipes| swipes.get_mut(current)),
    ) {
        *slot = mes;
    }
    if let Some(info) = message
        .get_mut("swipe_info")
        .and_then(OrderedJson::as_array_mut)
        .and_then(|infos| infos.get_mut(current))
    {
        store_in_swipe(&snapshot, info, &extra);
    }
}

pub(crate) fn swipe_id(message: &OrderedJson) -> Option<usize> {
    message.get("swipe_id")?.as_u64()?.try_into().ok()
}

/// SillyTavern's `force_avatar` of a group member's reply.
fn force_avatar(avatar: &str) -> String {
    format!(
        "/thumbnail?type=avatar&file={}",
        utf8_percent_encode(avatar, URI_COMPONENT)
    )
}

fn invalid(line: usize, detail: &str) -> ChatError {
    ChatError::InvalidMessage {
        line,
        detail: detail.to_owned(),
    }
}
