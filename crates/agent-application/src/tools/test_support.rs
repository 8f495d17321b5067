//! The one harness every builtin tool test drives: a run, an invocation of the default
//! writer, a fresh session and in-memory ports, with calls going through
//! [`execute_builtin`] exactly as the runtime makes them.

use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use agent_domain::event::ChatRef;
use agent_domain::profile::{ProfileSource, default_writer, resolve};
use agent_domain::run::{InvocationId, RunId};
use agent_domain::tool::{
    BuiltinTool, ExitPolicy, SnapshotInputs, ToolInvocation, builtin_catalog, compile_snapshot,
};
use agent_domain::workspace::RootAccess;
use serde_json::Value;

use super::{
    InvocationScope, RunScope, SkillAccess, ToolContext, ToolExecution, ToolFault, ToolPorts,
    ToolSession, execute_builtin,
};
use crate::testing::{MemoryChats, MemorySkills, MemoryWorkspace, SequenceRng};

/// In-memory ports: an empty workspace, chat store and skill store, and dice that roll 1.
pub(crate) fn memory_ports() -> ToolPorts {
    ToolPorts {
        workspace: Arc::new(MemoryWorkspace::new()),
        chats: Arc::new(MemoryChats::new()),
        skills: Arc::new(MemorySkills::new()),
        rng: Arc::new(SequenceRng::new(vec![1])),
    }
}

/// A run (`run_1`, a character chat with an empty input prefix) and one root invocation.
pub(crate) struct ToolHarness {
    pub run: RunScope,
    pub invocation: InvocationScope,
    pub session: ToolSession,
    pub ports: ToolPorts,
    calls: usize,
}

impl ToolHarness {
    /// The default writer's tools with `roots`, over `ports`.
    pub fn new(roots: RootAccess, ports: ToolPorts) -> Self {
        let profile = resolve(&default_writer(), ProfileSource::BuiltIn).unwrap();
        let mut policy = profile.tool_policy();
        policy.roots = roots.clone();
        let catalog = builtin_catalog().unwrap();
        let snapshot = compile_snapshot(SnapshotInputs {
            invocation_id: InvocationId::ROOT,
            policy: &policy,
            exit_policy: ExitPolicy::RunFinishAllowed,
            builtins: &catalog,
            mcp: &BTreeMap::new(),
        })
        .unwrap()
        .snapshot;
        Self {
            run: RunScope {
                run_id: RunId::parse("run_1").unwrap(),
                chat: ChatRef::Character {
                    character_id: "Seraphina".into(),
                    file_name: "chat".into(),
                },
                input_message_count: 0,
                world_info: None,
            },
            invocation: InvocationScope {
                invocation_id: InvocationId::root(),
                roots,
                snapshot: Arc::new(snapshot),
                skills: SkillAccess {
                    resolved: Default::default(),
                    max_chars_per_call: 20_000,
                    max_chars_per_invocation: 80_000,
                },
            },
            session: ToolSession::default(),
            ports,
            calls: 0,
        }
    }

    /// Calls `tool` with `arguments` (call ids `call_1`, `call_2`, …) and checks the result
    /// answers exactly that call.
    pub async fn call(
        &mut self,
        tool: BuiltinTool,
        arguments: Value,
    ) -> Result<ToolExecution, ToolFault> {
        self.calls += 1;
        let invocation = ToolInvocation {
            call_id: format!("call_{}", self.calls),
            tool_id: tool.id(),
            arguments,
            provider_metadata: Value::Null,
        };
        let mut ctx = ToolContext {
            run: &self.run,
            invocation: &self.invocation,
            session: &mut self.session,
            ports: &self.ports,
        };
        let execution = execute_builtin(&mut ctx, &invocation).await;
        if let Ok(execution) = &execution {
            execution.result.validate_identity(&invocation).unwrap();
        }
        execution
    }
}

/// A [`ToolHarness`] plus the in-memory store a group of tools is tested against; each tool
/// group adds its own helpers in an `impl WithStore<ItsStore>` block.
pub(crate) struct WithStore<S> {
    inner: ToolHarness,
    pub store: Arc<S>,
}

impl<S> WithStore<S> {
    pub fn wrap(inner: ToolHarness, store: Arc<S>) -> Self {
        Self { inner, store }
    }
}

impl<S> Deref for WithStore<S> {
    type Target = ToolHarness;
    fn deref(&self) -> &ToolHarness {
        &self.inner
    }
}

impl<S> DerefMut for WithStore<S> {
    fn deref_mut(&mut self) -> &mut ToolHarness {
        &mut self.inner
    }
}
