//! `chat.read_messages`: read messages of the frozen prefix by index, by lines.

use agent_domain::text::{RangeNamespace, ReadBudget};
use agent_domain::tool::BuiltinTool;
use serde_json::{Value, json};

use super::super::args::invalid;
use super::super::{Args, ToolContext, ToolFailure, ToolOutcome};
use super::batch::{BatchItem, BatchReader, LineRange};
use super::prefix::{FrozenPrefix, message_ref, messages, role_name};
use crate::ports::ChatMessage;

const MAX_MESSAGES: usize = 20;
const ITEM_ARGS: &[&str] = &["index", "start_line", "line_count"];

/// One requested message.
struct MessageRequest {
    index: usize,
    range: LineRange,
}

fn parse(raw: &Value) -> Result<Vec<MessageRequest>, ToolFailure> {
    let args = Args::parse(raw, &["messages"])?;
    let items = args
        .optional_object_list("messages", ITEM_ARGS, 1, MAX_MESSAGES)?
        .ok_or_else(|| {
            invalid("`messages` is required: a list of {index, start_line?, line_count?}")
        })?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| parse_item(item).map_err(|e| e.prefixed(&format!("messages[{i}]: "))))
        .collect()
}

fn parse_item(item: &Args) -> Result<MessageRequest, ToolFailure> {
    let index = item
        .optional_u64("index", 0, u64::MAX)?
        .ok_or_else(|| invalid("`index` is required"))?;
    Ok(MessageRequest {
        index: usize::try_from(index).unwrap_or(usize::MAX),
        range: LineRange::parse(item)?,
    })
}

pub(in crate::tools) async fn read_messages(
    ctx: &mut ToolContext<'_>,
    args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    let requests = parse(args)?;
    let prefix = FrozenPrefix::open(ctx).await?;
    if let Some(missing) = requests.iter().find(|r| r.index >= prefix.len) {
        return Err(not_found(missing.index, prefix.len));
    }
    let alias = ctx.invocation.alias(BuiltinTool::ChatReadMessages);
    let mut reader = BatchReader::new(ReadBudget::chat_message);
    for (i, request) in requests.iter().enumerate() {
        let index = request.index;
        if reader.exhausted() {
            reader.skip(json!(index));
            continue;
        }
        let message = prefix.read_one(ctx, index).await?;
        let item = BatchItem {
            label: json!(index),
            header: header(&message),
            text: &message.text,
            range: request.range,
            base_ref: message_ref(index),
            continue_with: format!("{alias} index={index}"),
            fields: json!({
                "index": index,
                "role": role_name(message.role),
                "name": message.name,
                "sendDate": message.send_date,
            }),
        };
        reader.read(item).map_err(|e| {
            ToolFailure::recoverable(
                e.code_in(RangeNamespace::Chat),
                format!("messages[{i}] (message {index}): {e}"),
            )
        })?;
    }

    let total = prefix.len;
    let read = reader.read_count();
    let lead = if reader.unread_count() == 0 {
        format!(
            "Read {} of the current chat, which has {}.",
            messages(read),
            messages(total)
        )
    } else {
        format!(
            "Read {read} of {} requested messages of the current chat, which has {}.",
            requests.len(),
            messages(total)
        )
    };
    let structured = json!({"totalMessages": total});
    Ok(reader.finish(lead, structured, "messages", "messages", &alias))
}

/// `message <index> <role> <name>`, without the name when it is blank.
fn header(message: &ChatMessage) -> String {
    let role = role_name(message.role);
    let name = message.name.trim();
    if name.is_empty() {
        format!("message {} {role}", message.index)
    } else {
        format!("message {} {role} {name}", message.index)
    }
}

fn not_found(index: usize, total: usize) -> ToolFailure {
    let message = match total {
        0 => format!("message index {index} does not exist: the current chat has no messages"),
        n => format!(
            "message index {index} does not exist in this chat; total messages: {n} \
             (indexes 0-{})",
            n - 1
        ),
    };
    ToolFailure::recoverable("chat.message_not_found", message)
}

#[cfg(test)]
mod tests;
