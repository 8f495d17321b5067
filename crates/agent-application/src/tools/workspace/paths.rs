//! From a `path` argument to a [`WorkspacePath`] the invocation may see or write.

use agent_domain::ErrorCode;
use agent_domain::workspace::{
    RUNTIME_RESULTS_ROOT, RootAccess, WorkspacePath, WorkspacePathError, WorkspaceRoot,
};

use super::errors::{Access, is_directory, store_failure};
use crate::ports::EntryKind;
use crate::tools::args::invalid;
use crate::tools::{Args, InvocationScope, ToolContext, ToolFailure};

const NOT_VISIBLE: &str = "workspace.path_not_visible";
const NOT_WRITABLE: &str = "workspace.path_not_writable";

/// The required file `path`, trimmed and normalised. A missing or non-string value is a
/// malformed call; a string that is not a workspace path is `workspace.invalid_path`.
pub(super) fn file_path(args: &Args) -> Result<WorkspacePath, ToolFailure> {
    let raw = args
        .optional_str("path")?
        .ok_or_else(|| invalid("`path` is required"))?;
    WorkspacePath::parse(raw.trim()).map_err(|error| invalid_path(&raw, &error))
}

/// The optional `path` of a listing or search. Omitted, `null`, blank, `.` and `./` all
/// mean the whole workspace (`None`).
pub(super) fn scope_path(args: &Args) -> Result<Option<WorkspacePath>, ToolFailure> {
    let Some(raw) = args.optional_str("path")? else {
        return Ok(None);
    };
    match WorkspacePath::parse(raw.trim()) {
        Ok(path) => Ok(Some(path)),
        Err(WorkspacePathError::Empty) => Ok(None),
        Err(error) => Err(invalid_path(&raw, &error)),
    }
}

/// Refuses a path outside the invocation's visible roots and `tool-results/`.
pub(super) fn ensure_visible(
    path: &WorkspacePath,
    scope: &InvocationScope,
) -> Result<(), ToolFailure> {
    if scope.roots.is_visible(path) {
        return Ok(());
    }
    Err(ToolFailure::recoverable(
        NOT_VISIBLE,
        format!(
            "`{path}` is outside the folders you can see: {}.",
            folder_list(&visible_roots(&scope.roots))
        ),
    ))
}

/// Refuses a path the invocation may not write: outside its writable roots, or under the
/// read-only `tool-results/`. A writable root itself is a folder, not a file.
pub(super) fn ensure_writable(
    path: &WorkspacePath,
    scope: &InvocationScope,
) -> Result<(), ToolFailure> {
    let root = WorkspaceRoot::of_path(path);
    if !root.is_some_and(|root| scope.roots.writable.contains(&root)) {
        return Err(not_writable(path, &scope.roots));
    }
    if !scope.roots.is_writable(path) {
        return Err(is_directory(path, scope));
    }
    Ok(())
}

fn not_writable(path: &WorkspacePath, roots: &RootAccess) -> ToolFailure {
    let refusal = if path.first_segment() == RUNTIME_RESULTS_ROOT {
        format!("`{RUNTIME_RESULTS_ROOT}/` is read-only")
    } else {
        format!("You cannot write `{path}`")
    };
    let allowed = if roots.writable.is_empty() {
        "this task has no writable folders".to_owned()
    } else {
        format!("you can write files under {}", folder_list(&roots.writable))
    };
    ToolFailure::recoverable(NOT_WRITABLE, format!("{refusal}; {allowed}."))
}

/// The top-level folders the invocation sees: its visible roots, then `tool-results/`.
pub(super) fn visible_roots(roots: &RootAccess) -> Vec<WorkspacePath> {
    let names = roots.visible.iter().map(|root| root.as_str());
    names
        .chain([RUNTIME_RESULTS_ROOT])
        .filter_map(|name| WorkspacePath::parse(name).ok())
        .collect()
}

/// The visible top-level folders that exist in this run's workspace.
pub(super) async fn existing_visible_roots(
    ctx: &ToolContext<'_>,
) -> Result<Vec<WorkspacePath>, ToolFailure> {
    let mut existing = Vec::new();
    for root in visible_roots(&ctx.invocation.roots) {
        let kind = ctx
            .ports
            .workspace
            .kind_of(&ctx.run.run_id, &root)
            .await
            .map_err(|error| store_failure(error, Access::Browse, ctx.invocation))?;
        if kind == Some(EntryKind::Directory) {
            existing.push(root);
        }
    }
    Ok(existing)
}

/// `output/, scratch/`.
fn folder_list<T: std::fmt::Display>(folders: &[T]) -> String {
    let names: Vec<String> = folders.iter().map(|folder| format!("{folder}/")).collect();
    names.join(", ")
}

fn invalid_path(raw: &str, error: &WorkspacePathError) -> ToolFailure {
    ToolFailure::recoverable(
        error.code(),
        format!(
            "`{raw}` is not a valid workspace path: {error}. Use a relative path such as \
             output/main.md."
        ),
    )
}
