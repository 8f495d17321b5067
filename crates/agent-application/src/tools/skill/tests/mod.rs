//! Tests of the skill tools, called end to end through [`execute_builtin`] over
//! [`MemorySkills`].

mod budget;
mod list;
mod read;
mod search;

use std::sync::Arc;

use agent_domain::profile::SkillsPolicy;
use agent_domain::tool::{AgentToolResult, BuiltinTool};
use agent_domain::workspace::RootAccess;
use serde_json::Value;

use crate::ports::{SkillRef, SkillScope};
use crate::skills::resolve_skills;
use crate::testing::MemorySkills;
use crate::tools::ToolFault;
use crate::tools::test_support::{ToolHarness, WithStore, memory_ports};

pub(super) const STYLE: &str = "Use short lines.\nRhyme sparingly.\nEnd on an image.\n";

pub(super) fn profile_scope() -> SkillScope {
    SkillScope::Profile {
        profile_id: "writer".into(),
    }
}

pub(super) fn character_scope() -> SkillScope {
    SkillScope::Character {
        character_id: "Seraphina".into(),
    }
}

/// Global `poetry` (shadowed by the profile's) and `alchemy`; the character's `voice`,
/// which holds a link.
pub(super) fn store() -> MemorySkills {
    let skills = MemorySkills::new();
    let global_poetry = skills.add(&SkillScope::Global, "poetry", "Global poems.");
    skills.put(&global_poetry, "refs/style.md", "global only\n");
    skills.add(
        &SkillScope::Global,
        "alchemy",
        "Brews potions.\n  Carefully.",
    );
    let poetry = skills.add(&profile_scope(), "poetry", "Writes poems.");
    skills.put(&poetry, "refs/style.md", STYLE);
    skills.put(
        &poetry,
        "refs/deep/meter.md",
        "Iambs have a short then a long beat.\n",
    );
    skills.put(&poetry, "logo.bin", vec![0xff, 0x00, 0xfe]);
    skills.put(&poetry, "empty.md", "");
    let voice = skills.add(&character_scope(), "voice", "Speaks softly.");
    skills.link(&voice, "refs/outside");
    skills
}

pub(super) fn poetry() -> SkillRef {
    SkillRef::new(profile_scope(), "poetry")
}

/// A policy with the default budgets.
pub(super) fn policy(visible: &[&str], deny: &[&str]) -> SkillsPolicy {
    SkillsPolicy {
        visible: visible.iter().map(|s| s.to_string()).collect(),
        deny: deny.iter().map(|s| s.to_string()).collect(),
        max_read_chars_per_call: 20_000,
        max_read_chars_per_run: 80_000,
    }
}

/// One invocation over the global, profile and character scopes.
pub(super) type Harness = WithStore<MemorySkills>;

impl Harness {
    /// Every skill visible, default budgets.
    pub async fn new() -> Self {
        Self::with(store(), policy(&["*"], &[])).await
    }

    pub async fn with(skills: MemorySkills, policy: SkillsPolicy) -> Self {
        let scopes = [SkillScope::Global, profile_scope(), character_scope()];
        let resolved = resolve_skills(&skills, &scopes, &policy).await.unwrap();
        let skills = Arc::new(skills);
        let mut ports = memory_ports();
        ports.skills = skills.clone();
        let mut inner = ToolHarness::new(RootAccess::full(), ports);
        inner.invocation.skills.resolved = resolved;
        inner.invocation.skills.max_chars_per_call = u64::from(policy.max_read_chars_per_call);
        inner.invocation.skills.max_chars_per_invocation = u64::from(policy.max_read_chars_per_run);
        Self::wrap(inner, skills)
    }

    /// Sets the budgets: characters per call and per invocation.
    pub fn budgets(mut self, per_call: u64, per_invocation: u64) -> Self {
        self.invocation.skills.max_chars_per_call = per_call;
        self.invocation.skills.max_chars_per_invocation = per_invocation;
        self
    }

    /// Calls `tool` with `args`; a runtime fault is returned as `Err`.
    pub async fn try_call(
        &mut self,
        tool: BuiltinTool,
        args: Value,
    ) -> Result<AgentToolResult, ToolFault> {
        ToolHarness::call(self, tool, args)
            .await
            .map(|execution| execution.result)
    }

    /// Calls `tool` and expects a successful result.
    pub async fn ok(&mut self, tool: BuiltinTool, args: Value) -> AgentToolResult {
        let result = self.try_call(tool, args).await.unwrap();
        assert!(!result.is_error, "{}", result.content);
        result
    }

    /// Calls `tool` and expects a recoverable error; returns its code and message.
    pub async fn error(&mut self, tool: BuiltinTool, args: Value) -> (String, String) {
        let result = self.try_call(tool, args).await.unwrap();
        assert!(result.is_error, "expected an error: {}", result.content);
        (result.error_code.unwrap(), result.content)
    }

    /// Characters charged so far.
    pub fn used(&self) -> u64 {
        self.session.skill_chars_used
    }
}
