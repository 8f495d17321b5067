//! `workspace.write_file`: replace a whole file or append to it, guarded by read-state.

use agent_domain::event::WriteMode;
use agent_domain::text::TextMetrics;
use agent_domain::workspace::WorkspacePath;
use serde_json::{Value, json};

use super::errors::{Access, store_failure};
use super::paths::{ensure_writable, file_path};
use super::wording::count;
use crate::ports::{WorkspaceError, WriteGuard, WriteReceipt};
use crate::tools::{Args, ToolContext, ToolEffect, ToolFailure, ToolOutcome};

pub(in crate::tools) async fn write_file(
    ctx: &mut ToolContext<'_>,
    args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    let args = Args::parse(args, &["path", "content", "mode"])?;
    let path = file_path(&args)?;
    ensure_writable(&path, ctx.invocation)?;
    let content = args.required_raw_str("content")?;
    let mode = write_mode(&args)?;
    let receipt = match mode {
        WriteMode::Replace => replace(ctx, &path, &content).await?,
        WriteMode::Append => append(ctx, &path, &content).await?,
    };
    Ok(outcome(path, mode, &content, receipt))
}

/// `mode`: `replace` (the default) or `append`, case-insensitive.
fn write_mode(args: &Args) -> Result<WriteMode, ToolFailure> {
    let mode = match args.raw("mode") {
        None | Some(Value::Null) => Some(WriteMode::Replace),
        Some(Value::String(raw)) => match raw.trim().to_lowercase().as_str() {
            "replace" => Some(WriteMode::Replace),
            "append" => Some(WriteMode::Append),
            _ => None,
        },
        Some(_) => None,
    };
    mode.ok_or_else(|| {
        ToolFailure::recoverable(
            "workspace.write_mode_invalid",
            "mode must be `replace` or `append`.",
        )
    })
}

/// Replaces the whole file. An existing file must have been read (or written) in this
/// invocation at its current version; the write is guarded so a concurrent change or
/// creation is refused rather than overwritten.
async fn replace(
    ctx: &mut ToolContext<'_>,
    path: &WorkspacePath,
    content: &str,
) -> Result<WriteReceipt, ToolFailure> {
    let store = &ctx.ports.workspace;
    let current = match store.read(&ctx.run.run_id, path).await {
        Ok(file) => Some(file.sha256),
        Err(WorkspaceError::NotFound(_)) => None,
        Err(error) => return Err(store_failure(error, Access::File, ctx.invocation)),
    };
    ctx.session
        .read_state
        .check_replace_write(path, current.as_deref())
        .map_err(|error| ToolFailure::from_code(&error))?;
    let guard = match current {
        Some(sha256) => WriteGuard::MustMatchSha256(sha256),
        None => WriteGuard::MustNotExist,
    };
    let receipt = store
        .write(&ctx.run.run_id, path, content, guard)
        .await
        .map_err(|error| store_failure(error, Access::File, ctx.invocation))?;
    ctx.session
        .read_state
        .record_replace_write(path, &receipt.sha256);
    Ok(receipt)
}

/// Appends verbatim, creating a missing file. The file becomes fully known only when this
/// call created it or the model knew the whole previous version.
async fn append(
    ctx: &mut ToolContext<'_>,
    path: &WorkspacePath,
    content: &str,
) -> Result<WriteReceipt, ToolFailure> {
    let receipt = ctx
        .ports
        .workspace
        .append(&ctx.run.run_id, path, content)
        .await
        .map_err(|error| store_failure(error, Access::File, ctx.invocation))?;
    ctx.session
        .read_state
        .record_append(path, receipt.previous_sha256.as_deref(), &receipt.sha256);
    Ok(receipt)
}

/// One line for the model; sizes and the new version for the audit. `chars` and `words`
/// measure the text this call wrote (the whole file for `replace`, the added text for
/// `append`); `bytes` is the size of the whole file afterwards.
fn outcome(
    path: WorkspacePath,
    mode: WriteMode,
    content: &str,
    receipt: WriteReceipt,
) -> ToolOutcome {
    let metrics = TextMetrics::of(content);
    let chars = count(metrics.chars, "character", "characters");
    let summary = match mode {
        WriteMode::Replace => format!("Wrote {chars} to {path}."),
        WriteMode::Append => format!("Appended {chars} to {path}."),
    };
    let structured = json!({
        "path": path,
        "mode": mode,
        "chars": metrics.chars,
        "words": metrics.words,
        "sha256": receipt.sha256,
        "bytes": receipt.bytes,
    });
    ToolOutcome {
        content: summary,
        structured,
        resource_refs: vec![format!("workspace:{path}")],
        effect: ToolEffect::FileWritten {
            path,
            mode,
            receipt,
            metrics,
        },
    }
}
