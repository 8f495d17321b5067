//! What a builtin tool may see and use during one call.

use std::sync::Arc;

use agent_domain::event::ChatRef;
use agent_domain::run::{InvocationId, RunId};
use agent_domain::tool::{InvocationToolSnapshot, ReadStateBook, ToolId};
use agent_domain::workspace::RootAccess;
use serde_json::Value;

use crate::ports::{ChatStore, Rng, SkillStore, WorkspaceStore};
use crate::skills::ResolvedSkills;

/// The ports builtin tools reach the world through.
#[derive(Clone)]
pub struct ToolPorts {
    pub workspace: Arc<dyn WorkspaceStore>,
    pub chats: Arc<dyn ChatStore>,
    pub skills: Arc<dyn SkillStore>,
    pub rng: Arc<dyn Rng>,
}

impl std::fmt::Debug for ToolPorts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToolPorts { .. }")
    }
}

/// Facts of the run, the same for every invocation in it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunScope {
    pub run_id: RunId,
    pub chat: ChatRef,
    /// The frozen chat prefix: chat tools see messages `0..input_message_count` only.
    pub input_message_count: usize,
    /// `worldInfoActivation` of the prompt snapshot, when the host captured one.
    pub world_info: Option<Value>,
}

/// Which skills an invocation may read, and how much.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillAccess {
    /// The invocation's scopes, their effective skills, and which of those the profile's
    /// `skills.visible` / `skills.deny` let it use ([`crate::skills::resolve_skills`]).
    pub resolved: ResolvedSkills,
    /// Characters one `skill_read` may return.
    pub max_chars_per_call: u64,
    /// Characters all skill reads and search snippets of the invocation may return.
    pub max_chars_per_invocation: u64,
}

/// Facts of one invocation, fixed when it starts.
#[derive(Debug, Clone)]
pub struct InvocationScope {
    pub invocation_id: InvocationId,
    pub roots: RootAccess,
    /// The frozen tool snapshot: tools name each other by the aliases found here.
    pub snapshot: Arc<InvocationToolSnapshot>,
    pub skills: SkillAccess,
}

impl InvocationScope {
    /// The alias this invocation uses for a builtin, for hints such as "read it with
    /// workspace_read_file"; falls back to the default alias when the tool is not offered.
    pub fn alias(&self, tool: agent_domain::tool::BuiltinTool) -> String {
        self.snapshot
            .alias_of(&tool.id())
            .map(str::to_owned)
            .unwrap_or_else(|| tool.model_alias())
    }

    /// Whether the invocation was given `tool`.
    pub fn offers(&self, tool: &ToolId) -> bool {
        self.snapshot.contains(tool)
    }
}

/// Mutable per-invocation state the tools share: what was read, and the skill budget used.
/// Not shared between invocations: a child or handoff target starts fresh.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolSession {
    pub read_state: ReadStateBook,
    pub skill_chars_used: u64,
}

/// Everything one builtin call may touch.
#[derive(Debug)]
pub struct ToolContext<'a> {
    pub run: &'a RunScope,
    pub invocation: &'a InvocationScope,
    pub session: &'a mut ToolSession,
    pub ports: &'a ToolPorts,
}
