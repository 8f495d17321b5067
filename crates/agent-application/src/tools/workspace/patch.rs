//! `workspace.apply_patch`: exact replacement of text the model has read.

use agent_domain::text::TextMetrics;
use agent_domain::tool::{ReadStateError, check_patch_strings};
use serde_json::{Value, json};

use super::errors::{Access, store_failure};
use super::paths::{ensure_writable, file_path};
use super::wording::count;
use crate::ports::{WorkspaceError, WriteGuard};
use crate::tools::{Args, ToolContext, ToolEffect, ToolFailure, ToolOutcome};

pub(in crate::tools) async fn apply_patch(
    ctx: &mut ToolContext<'_>,
    args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    let args = Args::parse(args, &["path", "old_string", "new_string", "replace_all"])?;
    let old_string = args.required_raw_str("old_string")?;
    let new_string = args.required_raw_str("new_string")?;
    let replace_all = args.optional_bool("replace_all")?.unwrap_or(false);
    check_patch_strings(&old_string, &new_string)
        .map_err(|error| ToolFailure::from_code(&error))?;
    let path = file_path(&args)?;
    ensure_writable(&path, ctx.invocation)?;

    let store = &ctx.ports.workspace;
    let file = store
        .read(&ctx.run.run_id, &path)
        .await
        .map_err(|error| store_failure(error, Access::File, ctx.invocation))?;
    let matches = file.text.matches(old_string.as_str()).count();
    ctx.session
        .read_state
        .check_patch(&path, &file.sha256, &old_string, replace_all, matches)
        .map_err(|error| ToolFailure::from_code(&error))?;
    let (text, replacements) = if replace_all {
        (file.text.replace(&old_string, &new_string), matches)
    } else {
        (file.text.replacen(&old_string, &new_string, 1), 1)
    };

    let guard = WriteGuard::MustMatchSha256(file.sha256.clone());
    let receipt = match store.write(&ctx.run.run_id, &path, &text, guard).await {
        Ok(receipt) => receipt,
        Err(WorkspaceError::VersionMismatch { .. } | WorkspaceError::AlreadyExists(_)) => {
            let book = &mut ctx.session.read_state;
            let partial = book.get(&path).is_some_and(|state| !state.full);
            book.record_failed_patch(&path);
            let stale = ReadStateError::PatchStale { path, partial };
            return Err(ToolFailure::from_code(&stale));
        }
        Err(error) => return Err(store_failure(error, Access::File, ctx.invocation)),
    };
    ctx.session
        .read_state
        .record_patch(&path, &old_string, &new_string, &receipt.sha256);

    let metrics = TextMetrics::of(&text);
    let content = format!(
        "Patched {path} ({}).",
        count(replacements, "replacement", "replacements")
    );
    let structured = json!({
        "path": path,
        "replacements": replacements,
        "chars": metrics.chars,
        "words": metrics.words,
        "oldSha256": file.sha256,
        "sha256": receipt.sha256,
    });
    Ok(ToolOutcome {
        content,
        structured,
        resource_refs: vec![format!("workspace:{path}")],
        effect: ToolEffect::FilePatched {
            path,
            receipt,
            replacements,
            metrics,
        },
    })
}
