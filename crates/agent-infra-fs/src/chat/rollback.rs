//! Undoing a run on the chat (`tavern-agent runs rollback`), by the strategy the run's
//! record on each message names, with TauriTavern's checks and codes.
//!
//! * `deleteMessage`: the run created the message; it is removed.
//! * `deleteSwipe`: the run added swipe `swipeId`; that swipe is removed as SillyTavern
//!   removes one (the next swipe is selected, or the previous one when it was the last, and
//!   the message shows it). When what remains is the message as it was before the run (same
//!   swipes, same selection, same text), the line the run started from is written back byte
//!   for byte instead, so an undo leaves no trace.
//!
//! Every target is checked before anything changes, and all of them change in one atomic
//! rewrite, highest index first.

use std::collections::BTreeMap;

use agent_application::ports::{
    ChatError, ChatRollbackReport, ChatRollbackRequest, MetadataChange, RollbackError,
};
use agent_domain::json::OrderedJson;

use super::committer::line;
use super::document::ChatDocument;
use super::edit::{agent_record, swipe_id};
use super::header::Header;
use super::lock::Rewrite;
use super::message::parse_ordered;

/// The checked plan of a rollback and the file after it.
pub(super) fn plan(
    doc: &ChatDocument,
    request: &ChatRollbackRequest,
) -> Result<Rewrite<ChatRollbackReport>, ChatError> {
    let mut targets = BTreeMap::new();
    for target in &request.targets {
        let index = target
            .message_id
            .parse::<usize>()
            .ok()
            .filter(|index| *index < doc.message_count())
            .ok_or_else(|| RollbackError::TargetMissing(target.message_id.clone()))?;
        targets.insert(index, target.previous_message.as_deref());
    }
    let mut edits = BTreeMap::new();
    let mut report = ChatRollbackReport::default();
    for (&index, previous) in targets.iter().rev() {
        let raw = doc
            .message(index)
            .ok_or_else(|| RollbackError::TargetMissing(index.to_string()))?;
        let mut message = parse_ordered(raw, doc.line_number(index))?;
        match strategy(&message, request.run_id.as_str(), index)? {
            Strategy::DeleteMessage => {
                edits.insert(index, None);
                report.deleted_messages.push(index);
            }
            Strategy::DeleteSwipe(swipe) => {
                delete_swipe(&mut message, swipe, index)?;
                let line = match previous.filter(|before| is_restored(before, &message)) {
                    Some(before) => {
                        report.restored_messages.push(index);
                        before.as_bytes().to_vec()
                    }
                    None => line(&message),
                };
                edits.insert(index, Some(line));
                report.removed_swipes.push((index, swipe as u64));
            }
        }
    }
    let mut bytes = doc.with_edits(&edits);
    if !request.metadata.is_empty() {
        (bytes, report.restored_metadata) = restore_metadata(bytes, &request.metadata)?;
    }
    Ok((report, Some(bytes)))
}

/// `bytes` (a whole chat) with each `chat_metadata` key the run set back as it was, while it
/// still holds what the run wrote; the keys restored.
fn restore_metadata(
    bytes: Vec<u8>,
    changes: &[MetadataChange],
) -> Result<(Vec<u8>, Vec<String>), ChatError> {
    let doc = ChatDocument::parse(bytes)?;
    let Some(line) = doc.header() else {
        return Ok((doc.into_bytes(), Vec::new()));
    };
    let header = Header::parse(line)?;
    let current = header.metadata_values(line)?;
    let unchanged: Vec<&MetadataChange> = changes
        .iter()
        .filter(|change| current.get(&change.key) == Some(&change.after))
        .collect();
    if unchanged.is_empty() {
        return Ok((doc.into_bytes(), Vec::new()));
    }
    let edits: Vec<(&str, Option<&OrderedJson>)> = unchanged
        .iter()
        .map(|change| (change.key.as_str(), change.before.as_ref()))
        .collect();
    let (restored, _) = header.with_metadata(line, &edits)?;
    let keys = unchanged.iter().map(|change| change.key.clone()).collect();
    Ok((doc.with_header(&restored), keys))
}

enum Strategy {
    DeleteMessage,
    DeleteSwipe(usize),
}

/// The strategy of message `index`, which `run` must have written.
fn strategy(message: &OrderedJson, run: &str, index: usize) -> Result<Strategy, RollbackError> {
    let record = agent_record(message).ok_or(RollbackError::RunMismatch { index })?;
    if record.get("runId").and_then(OrderedJson::as_str) != Some(run) {
        return Err(RollbackError::RunMismatch { index });
    }
    let rollback = record
        .get("rollback")
        .filter(|rollback| rollback.is_object())
        .ok_or(RollbackError::StrategyMissing { index })?;
    match rollback.get("strategy").and_then(OrderedJson::as_str) {
        None | Some("") => Err(RollbackError::StrategyMissing { index }),
        Some("deleteMessage") => Ok(Strategy::DeleteMessage),
        Some("deleteSwipe") => {
            let raw = rollback.get("swipeId");
            raw.and_then(OrderedJson::as_u64)
                .and_then(|id| usize::try_from(id).ok())
                .map(Strategy::DeleteSwipe)
                .ok_or_else(|| RollbackError::SwipeIdInvalid {
                    index,
                    swipe_id: raw.map_or_else(|| "(none)".to_owned(), |v| v.to_value().to_string()),
                })
        }
        Some(other) => Err(RollbackError::StrategyUnsupported {
            index,
            strategy: other.to_owned(),
        }),
    }
}

/// Removes swipe `swipe` of `message` as SillyTavern's `deleteSwipe` does.
fn delete_swipe(
    message: &mut OrderedJson,
    swipe: usize,
    index: usize,
) -> Result<(), RollbackError> {
    let count = message
        .get("swipes")
        .and_then(OrderedJson::as_array)
        .map(Vec::len)
        .filter(|count| *count > 1)
        .ok_or(RollbackError::SwipeStateInvalid { index })?;
    if swipe >= count {
        return Err(RollbackError::SwipeIdInvalid {
            index,
            swipe_id: swipe.to_string(),
        });
    }
    let current = swipe_id(message).unwrap_or(0);
    if current >= count {
        return Err(RollbackError::SwipeStateInvalid { index });
    }
    let selected = match swipe.cmp(&current) {
        std::cmp::Ordering::Less => current - 1,
        std::cmp::Ordering::Greater => current,
        std::cmp::Ordering::Equal => swipe.min(count - 2),
    };
    if let Some(swipes) = message
        .get_mut("swipes")
        .and_then(OrderedJson::as_array_mut)
    {
        swipes.remove(swipe);
    }
    let infos = message
        .get_mut("swipe_info")
        .and_then(OrderedJson::as_array_mut);
    let info = match infos {
        Some(infos) if swipe < infos.len() => {
            infos.remove(swipe);
            infos.get(selected).cloned()
        }
        Some(infos) => infos.get(selected).cloned(),
        None => None,
    };
    message.insert("swipe_id", selected);
    if swipe == current {
        show_swipe(message, selected, info);
    }
    Ok(())
}

/// Makes swipe `selected` the message's shown text and metadata.
fn show_swipe(message: &mut OrderedJson, selected: usize, info: Option<OrderedJson>) {
    let text = message
        .get("swipes")
        .and_then(OrderedJson::as_array)
        .and_then(|swipes| swipes.get(selected))
        .cloned()
        .unwrap_or_else(|| OrderedJson::from(""));
    message.insert("mes", text);
    let info = info.unwrap_or_else(OrderedJson::object);
    for key in ["send_date", "gen_started", "gen_finished"] {
        match info.get(key) {
            Some(value) => message.insert(key, value.clone()),
            None if key == "send_date" => {}
            None => {
                message.remove(key);
            }
        }
    }
    let extra = info
        .get("extra")
        .filter(|extra| extra.is_object())
        .cloned()
        .unwrap_or_else(OrderedJson::object);
    message.insert("extra", extra);
}

/// Whether `after` is the message `before` was: the same swipe texts (a message without
/// swipes has its text as its only one), the same one selected, the same text shown.
fn is_restored(before: &str, after: &OrderedJson) -> bool {
    let Ok(before) = OrderedJson::from_slice(before.as_bytes()) else {
        return false;
    };
    let texts = |message: &OrderedJson| match message.get("swipes").and_then(OrderedJson::as_array)
    {
        Some(swipes) if !swipes.is_empty() => swipes.clone(),
        _ => vec![message.get("mes").cloned().unwrap_or(OrderedJson::Null)],
    };
    texts(&before) == texts(after)
        && swipe_id(&before).unwrap_or(0) == swipe_id(after).unwrap_or(0)
        && before.get("mes") == after.get("mes")
}
