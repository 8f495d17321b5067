//! `workspace.list_files`: the files and folders the invocation can see.

use serde_json::{Value, json};

use super::errors::{Access, store_failure};
use super::paths::{ensure_visible, existing_visible_roots, scope_path};
use crate::ports::{EntryKind, ListedEntry, Listing};
use crate::tools::{Args, ToolContext, ToolFailure, ToolOutcome};

/// Folder levels listed when `depth` is omitted.
pub(super) const DEFAULT_LIST_DEPTH: u64 = 2;
/// Deepest listing a call may ask for.
pub(super) const MAX_LIST_DEPTH: u64 = 4;
/// Entries one listing shows.
pub(super) const MAX_LIST_ENTRIES: usize = 200;

pub(in crate::tools) async fn list_files(
    ctx: &mut ToolContext<'_>,
    args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    let args = Args::parse(args, &["path", "depth"])?;
    let target = scope_path(&args)?;
    let depth = list_depth(&args)?;
    let listing = match &target {
        Some(path) => {
            ensure_visible(path, ctx.invocation)?;
            ctx.ports
                .workspace
                .list(&ctx.run.run_id, Some(path), depth, MAX_LIST_ENTRIES)
                .await
                .map_err(|error| store_failure(error, Access::Browse, ctx.invocation))?
        }
        None => list_root(ctx, depth).await?,
    };
    Ok(outcome(&listing, target.as_ref().map(|p| p.as_str())))
}

fn list_depth(args: &Args) -> Result<u32, ToolFailure> {
    let depth = args
        .optional_u64("depth", 1, u64::MAX)?
        .unwrap_or(DEFAULT_LIST_DEPTH);
    if depth > MAX_LIST_DEPTH {
        return Err(ToolFailure::recoverable(
            "workspace.list_depth_too_large",
            format!(
                "depth {depth} is too deep; use at most {MAX_LIST_DEPTH}, and list a subfolder \
                 to look further down."
            ),
        ));
    }
    Ok(depth as u32)
}

/// The workspace root: each visible top-level folder that exists, with its contents one
/// level less deep. Hidden runtime storage never appears.
///
/// Each folder's listing holds its first [`MAX_LIST_ENTRIES`] entries in the store's order
/// (folders first, then by path), so the first entries of the merged, re-sorted listing
/// are exactly those of the whole root.
async fn list_root(ctx: &ToolContext<'_>, depth: u32) -> Result<Listing, ToolFailure> {
    let mut entries = Vec::new();
    let mut truncated = false;
    for root in existing_visible_roots(ctx).await? {
        if depth > 1 {
            let below = ctx
                .ports
                .workspace
                .list(&ctx.run.run_id, Some(&root), depth - 1, MAX_LIST_ENTRIES)
                .await
                .map_err(|error| store_failure(error, Access::Browse, ctx.invocation))?;
            truncated |= below.truncated;
            entries.extend(below.entries);
        }
        entries.push(ListedEntry {
            path: root,
            kind: EntryKind::Directory,
        });
    }
    entries.sort_by(|a, b| (a.kind, &a.path).cmp(&(b.kind, &b.path)));
    truncated |= entries.len() > MAX_LIST_ENTRIES;
    entries.truncate(MAX_LIST_ENTRIES);
    Ok(Listing { entries, truncated })
}

fn outcome(listing: &Listing, target: Option<&str>) -> ToolOutcome {
    let lines: Vec<String> = listing
        .entries
        .iter()
        .map(|entry| match entry.kind {
            EntryKind::Directory => format!("{}/", entry.path),
            EntryKind::File => entry.path.to_string(),
        })
        .collect();
    let mut content = if lines.is_empty() {
        match target {
            Some(path) => format!("`{path}` has no files yet."),
            None => "The workspace has no files yet.".to_owned(),
        }
    } else {
        lines.join("\n")
    };
    if listing.truncated {
        content.push_str(&format!(
            "\n\nOnly the first {MAX_LIST_ENTRIES} entries are shown; list a subfolder or use \
             a smaller depth to see the rest."
        ));
    }
    let entries: Vec<Value> = listing
        .entries
        .iter()
        .map(|entry| json!({"path": entry.path, "kind": kind_name(entry.kind)}))
        .collect();
    let structured = json!({"entries": entries, "truncated": listing.truncated});
    ToolOutcome::read(content, structured, Vec::new())
}

fn kind_name(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Directory => "directory",
        EntryKind::File => "file",
    }
}
