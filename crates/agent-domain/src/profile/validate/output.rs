//! `workspace` and `output` rules: which roots the agent sees and writes, and which files
//! it publishes.

use super::super::ProfileError;
use super::super::id::is_simple_name;
use super::super::resolved::ResolvedArtifact;
use super::super::schema::{ArtifactTarget, OutputBlock, WorkspaceBlock};
use super::header::is_blank;
use crate::workspace::{RootAccess, WorkspacePath, WorkspaceRoot};

/// Roots come back in the universe's fixed order, duplicates dropped.
pub(super) fn check_workspace(workspace: &WorkspaceBlock) -> Result<RootAccess, ProfileError> {
    if workspace.visible_roots.is_empty() {
        return Err(ProfileError::WorkspaceVisibleEmpty);
    }
    let visible = parse_roots("workspace.visibleRoots", &workspace.visible_roots)?;
    let writable = parse_roots("workspace.writableRoots", &workspace.writable_roots)?;
    if let Some(index) = writable.iter().position(|root| !visible.contains(root)) {
        return Err(ProfileError::WorkspaceRootInvalid {
            field: "workspace.writableRoots",
            root: workspace.writable_roots[index].clone(),
            reason: "a writable root must also be visible",
        });
    }
    Ok(RootAccess {
        visible: in_universe_order(&visible),
        writable: in_universe_order(&writable),
    })
}

/// Parsed roots in document order (so an error can point at the written name).
fn parse_roots(field: &'static str, names: &[String]) -> Result<Vec<WorkspaceRoot>, ProfileError> {
    names
        .iter()
        .map(|name| {
            WorkspaceRoot::parse(name).map_err(|_| ProfileError::WorkspaceRootInvalid {
                field,
                root: name.clone(),
                reason: "it is not one of output, scratch, plan, summaries, persist",
            })
        })
        .collect()
}

fn in_universe_order(roots: &[WorkspaceRoot]) -> Vec<WorkspaceRoot> {
    WorkspaceRoot::ALL
        .into_iter()
        .filter(|root| roots.contains(root))
        .collect()
}

pub(super) fn check_output(
    output: &OutputBlock,
    roots: &RootAccess,
) -> Result<(Vec<ResolvedArtifact>, WorkspacePath), ProfileError> {
    if output.artifacts.is_empty() {
        return Err(ProfileError::OutputEmpty);
    }
    let mut artifacts: Vec<ResolvedArtifact> = Vec::with_capacity(output.artifacts.len());
    for artifact in &output.artifacts {
        if !is_simple_name(&artifact.id) {
            return Err(ProfileError::ArtifactIdInvalid {
                id: artifact.id.clone(),
            });
        }
        if artifacts.iter().any(|seen| seen.id == artifact.id) {
            return Err(ProfileError::OutputDuplicateId {
                id: artifact.id.clone(),
            });
        }
        let denied = |reason: String| ProfileError::OutputPathDenied {
            id: artifact.id.clone(),
            path: artifact.path.clone(),
            reason,
        };
        let path = WorkspacePath::parse(&artifact.path).map_err(|err| denied(err.to_string()))?;
        if artifacts.iter().any(|seen| seen.path == path) {
            return Err(ProfileError::OutputDuplicatePath {
                path: path.to_string(),
            });
        }
        if is_blank(&artifact.kind) {
            return Err(ProfileError::OutputKindRequired {
                id: artifact.id.clone(),
            });
        }
        if !(roots.is_visible(&path) && roots.is_writable(&path)) {
            return Err(denied(
                "it must be a file below a root that is both visible and writable".to_owned(),
            ));
        }
        artifacts.push(ResolvedArtifact {
            id: artifact.id.clone(),
            path,
            kind: artifact.kind.clone(),
            target: artifact.target,
            required: artifact.required,
            assembly_order: artifact.assembly_order,
        });
    }
    let message_body = single_message_body(&artifacts)?;
    Ok((artifacts, message_body))
}

/// The path of the one artifact that becomes the chat message body.
pub(super) fn single_message_body(
    artifacts: &[ResolvedArtifact],
) -> Result<WorkspacePath, ProfileError> {
    let mut bodies = artifacts
        .iter()
        .filter(|artifact| artifact.target == ArtifactTarget::MessageBody);
    let first = bodies
        .next()
        .ok_or(ProfileError::OutputMessageBodyMissing)?;
    if let Some(second) = bodies.next() {
        return Err(ProfileError::OutputDuplicateMessageBody {
            first: first.id.clone(),
            second: second.id.clone(),
        });
    }
    Ok(first.path.clone())
}
