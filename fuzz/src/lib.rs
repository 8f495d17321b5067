//! What the fuzz targets share: the default writer's tools (the request every decoder
//! decodes through), the check every decoded response must pass, and a rig that runs one
//! builtin tool through `execute_builtin` on in-memory ports, as the runtime does.
//!
//! Targets call only public entry points; a finding is a bug in the crate that owns the
//! entry point, fixed there with a regression test (docs/fuzzing.md).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use agent_application::ports::ModelError;
use agent_application::testing::{MemoryChats, MemorySkills, MemoryWorkspace, SequenceRng};
use agent_application::tools::{
    InvocationScope, RunScope, SkillAccess, ToolContext, ToolExecution, ToolPorts, ToolSession,
    execute_builtin,
};
use agent_domain::event::ChatRef;
use agent_domain::model::AgentModelResponse;
use agent_domain::profile::{ProfileSource, default_writer, resolve};
use agent_domain::run::{InvocationId, RunId};
use agent_domain::tool::{
    AgentModelTool, BuiltinTool, ExitPolicy, InvocationToolSnapshot, SnapshotInputs, ToolChoice,
    ToolInvocation, ToolTurnContract, builtin_catalog, compile_snapshot,
};
use serde_json::Value;

/// The default writer's root snapshot, compiled once.
fn snapshot() -> &'static InvocationToolSnapshot {
    static SNAPSHOT: OnceLock<InvocationToolSnapshot> = OnceLock::new();
    SNAPSHOT.get_or_init(|| {
        let profile = resolve(&default_writer(), ProfileSource::BuiltIn).unwrap();
        let catalog = builtin_catalog().unwrap();
        compile_snapshot(SnapshotInputs {
            invocation_id: InvocationId::ROOT,
            policy: &profile.tool_policy(),
            exit_policy: ExitPolicy::RunFinishAllowed,
            builtins: &catalog,
            mcp: &BTreeMap::new(),
        })
        .unwrap()
        .snapshot
    })
}

/// The default writer's root tools as one request advertises them.
pub fn tools() -> &'static [AgentModelTool] {
    static TOOLS: OnceLock<Vec<AgentModelTool>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        ToolTurnContract::all(snapshot(), ToolChoice::Auto)
            .unwrap()
            .model_tools(snapshot())
            .unwrap()
    })
}

/// Feeds `data` as a JSON body to a provider decoder and checks what it decodes: every
/// tool call names a tool of the request, and the response survives a JSON round trip.
pub fn check_decoder(
    data: &[u8],
    decode: fn(&Value, &[AgentModelTool]) -> Result<AgentModelResponse, ModelError>,
) {
    let Ok(body) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let tools = tools();
    let Ok(response) = decode(&body, tools) else {
        return;
    };
    for call in response.tool_calls() {
        assert!(
            tools.iter().any(|tool| tool.tool_id == call.tool_id),
            "decoded a call to {} outside the request",
            call.tool_id
        );
    }
    let json = serde_json::to_value(&response).unwrap();
    let back: AgentModelResponse = serde_json::from_value(json).unwrap();
    assert_eq!(back, response, "the decoded response does not round-trip");
}

/// One run and root invocation of the default writer over in-memory ports, calling builtin
/// tools as the runtime does.
pub struct ToolRig {
    run: RunScope,
    invocation: InvocationScope,
    session: ToolSession,
    ports: ToolPorts,
    pub workspace: Arc<MemoryWorkspace>,
    calls: usize,
}

impl Default for ToolRig {
    fn default() -> Self {
        let workspace = Arc::new(MemoryWorkspace::new());
        let profile = resolve(&default_writer(), ProfileSource::BuiltIn).unwrap();
        Self {
            run: RunScope {
                run_id: RunId::parse("run_fuzz").unwrap(),
                chat: ChatRef::Character {
                    character_id: "Seraphina".into(),
                    file_name: "chat".into(),
                },
                input_message_count: 0,
                world_info: None,
            },
            invocation: InvocationScope {
                invocation_id: InvocationId::root(),
                roots: profile.tool_policy().roots,
                snapshot: Arc::new(snapshot().clone()),
                skills: SkillAccess {
                    resolved: Default::default(),
                    max_chars_per_call: 20_000,
                    max_chars_per_invocation: 80_000,
                },
            },
            session: ToolSession::default(),
            ports: ToolPorts {
                workspace: workspace.clone(),
                chats: Arc::new(MemoryChats::new()),
                skills: Arc::new(MemorySkills::new()),
                rng: Arc::new(SequenceRng::new(vec![1, 1_000_000, 7])),
            },
            workspace,
            calls: 0,
        }
    }
}

impl ToolRig {
    /// The run's id.
    pub fn run_id(&self) -> &RunId {
        &self.run.run_id
    }

    /// Calls `tool` with `arguments`; a fault (the run would stop) is a finding.
    pub fn call(&mut self, tool: BuiltinTool, arguments: Value) -> ToolExecution {
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
        let execution = futures::executor::block_on(execute_builtin(&mut ctx, &invocation))
            .unwrap_or_else(|fault| panic!("{tool:?} faulted: {fault:?}"));
        execution.result.validate_identity(&invocation).unwrap();
        execution
    }
}
