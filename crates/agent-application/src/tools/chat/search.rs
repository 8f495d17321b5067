//! `chat.search`: rank the messages of the frozen prefix against a query.

use std::ops::Range;

use agent_domain::text::search::Query;
use agent_domain::tool::BuiltinTool;
use serde_json::{Value, json};

use super::super::args::invalid;
use super::super::{Args, ToolContext, ToolFailure, ToolOutcome};
use super::prefix::{FrozenPrefix, message_ref, messages, role_name};
use super::rank::{ChatHit, ChatSearchFilter, HitRanker};
use crate::ports::ChatRole;

/// Messages read from the chat at a time, newest page first.
const PAGE: usize = 1_000;
const DEFAULT_LIMIT: u64 = 20;
const MAX_LIMIT: u64 = 50;
const MAX_SCAN: u64 = 100_000;

const ARGS: &[&str] = &[
    "query",
    "limit",
    "role",
    "start_message",
    "end_message",
    "scan_limit",
];

/// A checked `chat_search` call.
struct SearchRequest {
    query: Query,
    limit: usize,
    filter: ChatSearchFilter,
    start: usize,
    end: Option<usize>,
    scan_limit: Option<usize>,
}

/// The messages one search scans, or why it scans none.
type Scope = Result<Range<usize>, String>;

impl SearchRequest {
    fn parse(raw: &Value) -> Result<Self, ToolFailure> {
        let args = Args::parse(raw, ARGS)?;
        let query = Query::parse(&args.required_str("query")?)
            .ok_or_else(|| invalid("`query` is required"))?;
        let limit = args
            .optional_u64("limit", 1, MAX_LIMIT)?
            .unwrap_or(DEFAULT_LIMIT);
        let role = args
            .optional_choice("role", &["user", "assistant", "system"])?
            .map(|role| match role {
                "user" => ChatRole::User,
                "assistant" => ChatRole::Assistant,
                _ => ChatRole::System,
            });
        let start = args.optional_u64("start_message", 0, u64::MAX)?;
        let end = args.optional_u64("end_message", 0, u64::MAX)?;
        if let (Some(start), Some(end)) = (start, end)
            && start > end
        {
            return Err(invalid(format!(
                "`start_message` ({start}) must not be after `end_message` ({end})"
            )));
        }
        let scan_limit = args.optional_u64("scan_limit", 1, MAX_SCAN)?;
        Ok(Self {
            query,
            limit: to_usize(limit),
            filter: ChatSearchFilter { role },
            start: start.map_or(0, to_usize),
            end: end.map(to_usize),
            scan_limit: scan_limit.map(to_usize),
        })
    }

    /// The `[start_message, end_message]` window of the `visible` prefix, narrowed to its
    /// newest `scan_limit` messages.
    fn scope(&self, visible: usize) -> Scope {
        if visible == 0 {
            return Err("the current chat has no messages".to_owned());
        }
        if self.start >= visible {
            return Err(format!(
                "start_message {} is past the last message, {}",
                self.start,
                visible - 1
            ));
        }
        let end = self
            .end
            .map_or(visible, |end| end.saturating_add(1).min(visible));
        let start = match self.scan_limit {
            Some(scan) => self.start.max(end.saturating_sub(scan)),
            None => self.start,
        };
        Ok(start..end)
    }
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// `range` in pages of [`PAGE`] messages, newest page first.
fn pages_newest_first(range: Range<usize>) -> impl Iterator<Item = Range<usize>> {
    let mut end = range.end;
    std::iter::from_fn(move || {
        (end > range.start).then(|| {
            let start = end.saturating_sub(PAGE).max(range.start);
            let page = start..end;
            end = start;
            page
        })
    })
}

pub(in crate::tools) async fn search(
    ctx: &mut ToolContext<'_>,
    args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    let request = SearchRequest::parse(args)?;
    let prefix = FrozenPrefix::open(ctx).await?;
    let scope = request.scope(prefix.len);
    let mut ranker = HitRanker::new(&request.query, request.filter, request.limit);
    if let Ok(range) = &scope {
        for page in pages_newest_first(range.clone()) {
            ranker.offer_all(&prefix.read(ctx, page).await?);
        }
    }
    let matched = ranker.matched();
    let hits = ranker.finish();
    let read_alias = ctx.invocation.alias(BuiltinTool::ChatReadMessages);
    let content = render(&request, &scope, matched, &hits, &read_alias);
    let scanned = scope.as_ref().map_or(0, ExactSizeIterator::len);
    let structured = json!({
        "query": request.query.text(),
        "hits": hits.iter().map(hit_json).collect::<Vec<_>>(),
        "matched": matched,
        "scanned": scanned,
    });
    let refs = hits.iter().map(|hit| message_ref(hit.index)).collect();
    Ok(ToolOutcome::read(content, structured, refs))
}

/// The score as shown: three decimals.
fn rounded(score: f64) -> f64 {
    (score * 1_000.0).round() / 1_000.0
}

fn hit_json(hit: &ChatHit) -> Value {
    json!({
        "index": hit.index,
        "role": role_name(hit.role),
        "score": rounded(hit.score),
        "snippet": hit.snippet,
        "chars": hit.metrics.chars,
        "words": hit.metrics.words,
        "ref": message_ref(hit.index),
    })
}

fn render(
    request: &SearchRequest,
    scope: &Scope,
    matched: usize,
    hits: &[ChatHit],
    read_alias: &str,
) -> String {
    let query = request.query.text();
    let range = match scope {
        Err(why) => return format!("No messages to search for `{query}`: {why}."),
        Ok(range) => range,
    };
    if hits.is_empty() {
        let kind =
            (request.filter.role).map_or(String::new(), |role| format!("{} ", role_name(role)));
        return format!(
            "No messages matched `{query}` in the current chat (searched {kind}messages {}-{}).",
            range.start,
            range.end.saturating_sub(1)
        );
    }
    let shown = if matched > hits.len() {
        format!("; showing the best {}", hits.len())
    } else {
        String::new()
    };
    let mut out = format!(
        "`{query}` matched {} in the current chat{shown}. \
         Read a whole message with {read_alias} and its index.",
        messages(matched)
    );
    for hit in hits {
        out.push_str(&format!(
            "\n\nmessage {} {} score {:.3} ref {}\n{}",
            hit.index,
            role_name(hit.role),
            hit.score,
            message_ref(hit.index),
            hit.snippet
        ));
    }
    out
}

#[cfg(test)]
mod tests;
