//! `worldinfo.read_activated`: the world-info entries activated for this generation
//! (`docs/spec-map.md`, World info tools). Reference: `docs/tools.md`.
//!
//! Without arguments the tool lists the entries (refs, names, sizes; no text); with
//! `entries` it reads the texts of the named ones, by lines, under the same per-call budget
//! as `chat_read_messages`.

mod activation;

use agent_domain::text::{LineWindow, RangeNamespace, ReadBudget, TextMetrics};
use agent_domain::tool::BuiltinTool;
use serde_json::{Value, json};

use self::activation::{ActivatedEntry, Activation};
use super::chat::batch::{BatchItem, BatchReader, LineRange};
use super::{Args, ToolContext, ToolFailure, ToolFault, ToolOutcome};

const MAX_ENTRIES: usize = 20;
const ITEM_ARGS: &[&str] = &["ref", "start_line", "line_count"];

/// One requested entry.
struct EntryRequest {
    reference: String,
    range: LineRange,
}

pub(super) async fn read_activated(
    ctx: &mut ToolContext<'_>,
    args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    let requests = parse(args)?;
    let activation = match Activation::from_snapshot(ctx.run.world_info.as_ref()) {
        Ok(Some(activation)) => activation,
        Ok(None) => {
            return Err(ToolFailure::recoverable(
                "worldinfo.activation_unavailable",
                "No world info activation was captured for this generation, so there are no \
                 activated entries to read. Continue without world info.",
            ));
        }
        Err(reason) => {
            return Err(ToolFailure::Fatal(ToolFault {
                code: "agent.invalid_worldinfo_activation_snapshot",
                message: format!(
                    "the prompt snapshot's worldInfoActivation is malformed: {reason}"
                ),
            }));
        }
    };
    let alias = ctx.invocation.alias(BuiltinTool::WorldInfoReadActivated);
    match requests {
        None => Ok(index(&activation, &alias)),
        Some(requests) => read(&activation, &requests, &alias),
    }
}

/// `None` for the index, or the entries to read.
fn parse(raw: &Value) -> Result<Option<Vec<EntryRequest>>, ToolFailure> {
    let args = Args::parse(raw, &["entries"])?;
    let Some(items) = args.optional_object_list("entries", ITEM_ARGS, 1, MAX_ENTRIES)? else {
        return Ok(None);
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| parse_item(item).map_err(|e| e.prefixed(&format!("entries[{i}]: "))))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn parse_item(item: &Args) -> Result<EntryRequest, ToolFailure> {
    Ok(EntryRequest {
        reference: item.required_str("ref")?,
        range: LineRange::parse(item)?,
    })
}

/// Audit fields every entry result shares.
fn entry_fields(entry: &ActivatedEntry) -> Value {
    json!({
        "ref": entry.reference,
        "name": entry.name,
        "world": entry.world,
        "uid": entry.uid,
        "position": entry.position,
        "constant": entry.constant,
    })
}

/// Lines in `text`, split the way reads split it.
fn line_count(text: &str) -> u64 {
    LineWindow::select(text, None, Some(1), &ReadBudget::chars(0))
        .map_or(0, |window| window.total_lines)
}

/// The list of activated entries: refs, names and sizes, no text.
fn index(activation: &Activation, alias: &str) -> ToolOutcome {
    let count = activation.entries.len();
    let mut content = match count {
        0 => "No world info entries were activated for this generation.".to_owned(),
        n => format!(
            "{n} world info {} activated for this generation. Read texts with {alias} \
             entries=[{{\"ref\": \"<ref>\"}}].",
            if n == 1 { "entry was" } else { "entries were" }
        ),
    };
    let mut entries = Vec::new();
    for (number, entry) in activation.entries.iter().enumerate() {
        let metrics = TextMetrics::of(&entry.content);
        let lines = line_count(&entry.content);
        let mut line = format!("\n{}. {} | {}", number + 1, entry.reference, entry.name);
        if !entry.world.is_empty() {
            line.push_str(&format!(" | world={}", entry.world));
        }
        if let Some(position) = &entry.position {
            line.push_str(&format!(" | position={position}"));
        }
        if entry.constant {
            line.push_str(" | constant");
        }
        line.push_str(&format!(" | lines={lines} | chars={}", metrics.chars));
        content.push_str(&line);
        let mut fields = entry_fields(entry);
        fields["totalLines"] = json!(lines);
        fields["totalChars"] = json!(metrics.chars);
        fields["totalWords"] = json!(metrics.words);
        entries.push(fields);
    }
    let structured = json!({
        "mode": "index",
        "timestampMs": activation.timestamp_ms,
        "trigger": activation.trigger,
        "totalEntries": count,
        "entries": entries,
    });
    let refs = activation
        .entries
        .iter()
        .map(|e| e.reference.clone())
        .collect();
    ToolOutcome::read(content, structured, refs)
}

/// The texts of the requested entries, by lines.
fn read(
    activation: &Activation,
    requests: &[EntryRequest],
    alias: &str,
) -> Result<ToolOutcome, ToolFailure> {
    let mut found = Vec::new();
    for request in requests {
        let entry = activation.find(&request.reference).ok_or_else(|| {
            ToolFailure::recoverable(
                "worldinfo.entry_not_found",
                format!(
                    "No activated world info entry has ref `{}`. Call {alias} without \
                     arguments for the list of refs.",
                    request.reference
                ),
            )
        })?;
        found.push(entry);
    }
    let mut reader = BatchReader::new(ReadBudget::worldinfo_entry);
    for (i, (request, entry)) in requests.iter().zip(found).enumerate() {
        let item = BatchItem {
            label: json!(entry.reference),
            header: format!("entry {} | {}", entry.reference, entry.name),
            text: &entry.content,
            range: request.range,
            base_ref: entry.reference.clone(),
            continue_with: format!("{alias} ref={}", entry.reference),
            fields: entry_fields(entry),
        };
        reader.read(item).map_err(|e| {
            ToolFailure::recoverable(
                e.code_in(RangeNamespace::WorldInfo),
                format!("entries[{i}] ({}): {e}", entry.reference),
            )
        })?;
    }
    let read = reader.read_count();
    let lead = if reader.unread_count() == 0 {
        format!("Read {read} activated world info {}.", entry_noun(read))
    } else {
        format!(
            "Read {read} of {} requested world info entries.",
            requests.len()
        )
    };
    let structured = json!({
        "mode": "content",
        "timestampMs": activation.timestamp_ms,
        "trigger": activation.trigger,
        "totalEntries": activation.entries.len(),
    });
    Ok(reader.finish(lead, structured, "entries", "entries", alias))
}

fn entry_noun(n: usize) -> &'static str {
    if n == 1 { "entry" } else { "entries" }
}

#[cfg(test)]
mod tests;
