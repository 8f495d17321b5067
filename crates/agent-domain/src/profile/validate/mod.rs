//! Pure validation of a profile document. Checks run in a fixed order and the first
//! failure wins, so one broken profile always reports the same error.
//!
//! Order: header, preset, model, instructions, plan, tools, delegation, run, skills,
//! workspace, output. `context` needs no check: a negative history count simply means
//! "no limit" and is normalised when the profile is resolved.
//!
//! What needs the outside world is not checked here: whether a referenced preset or LLM
//! connection exists, and whether an MCP tool is in the cached catalog.

mod header;
mod output;
mod roles;
mod skills;
mod tools;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use super::resolved::ResolvedArtifact;
use super::schema::AgentProfileDocument;
use super::{ProfileError, ProfileId};
use crate::tool::{BuiltinTool, DescriptionOverride, ToolId};
use crate::workspace::{RootAccess, WorkspacePath};

pub use header::PRESET_API_IDS;

/// Checks every rule of a profile document without resolving it (what saving a profile
/// and previewing one need).
pub fn validate(document: &AgentProfileDocument) -> Result<(), ProfileError> {
    check(document).map(|_| ())
}

/// What validation learned on the way, so resolution does not parse everything twice.
#[derive(Debug)]
pub(crate) struct Checked {
    pub id: ProfileId,
    pub tools: CheckedTools,
    pub roots: RootAccess,
    pub artifacts: Vec<ResolvedArtifact>,
    pub message_body_path: WorkspacePath,
}

/// Tool names parsed into ids.
#[derive(Debug)]
pub(crate) struct CheckedTools {
    pub allow: Vec<ToolId>,
    pub deny: Vec<ToolId>,
    pub descriptions: BTreeMap<ToolId, DescriptionOverride>,
    pub max_calls_per_tool: BTreeMap<ToolId, u32>,
}

impl CheckedTools {
    /// Allowed and not denied.
    pub fn is_visible(&self, id: &ToolId) -> bool {
        self.allow.contains(id) && !self.deny.contains(id)
    }

    pub fn is_builtin_visible(&self, tool: BuiltinTool) -> bool {
        self.is_visible(&tool.id())
    }
}

pub(crate) fn check(document: &AgentProfileDocument) -> Result<Checked, ProfileError> {
    let id = header::check_header(document)?;
    header::check_preset(&document.preset)?;
    header::check_model(&document.model)?;
    header::check_instructions(&document.instructions)?;
    header::check_plan(&document.plan)?;
    let tools = tools::check_tools(&document.tools)?;
    roles::check_delegation(&document.delegation, &tools)?;
    roles::check_run(&document.run, &document.delegation, &tools)?;
    skills::check_skills(&document.skills)?;
    let roots = output::check_workspace(&document.workspace)?;
    let (artifacts, message_body_path) = output::check_output(&document.output, &roots)?;
    Ok(Checked {
        id,
        tools,
        roots,
        artifacts,
        message_body_path,
    })
}
