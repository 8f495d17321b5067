//! The default writer's tools as one request advertises them: what the gateway
//! tests and benches encode. One file, included by both (`#[path]`).

// Each including target uses one of the two functions.
#![allow(dead_code)]

use std::collections::BTreeMap;

use agent_domain::profile::{ProfileSource, default_writer, resolve};
use agent_domain::tool::{
    AgentModelTool, ExitPolicy, SnapshotInputs, ToolChoice, ToolTurnContract, builtin_catalog,
    compile_snapshot,
};

/// The default writer's root tools.
pub fn tools() -> Vec<AgentModelTool> {
    tools_under(ExitPolicy::RunFinishAllowed)
}

/// The default writer's tools under `exit_policy`: root-like invocations may finish the
/// run, return-mode children get `task_return` instead.
pub fn tools_under(exit_policy: ExitPolicy) -> Vec<AgentModelTool> {
    let profile = resolve(&default_writer(), ProfileSource::BuiltIn).unwrap();
    let catalog = builtin_catalog().unwrap();
    let snapshot = compile_snapshot(SnapshotInputs {
        invocation_id: "inv_root",
        policy: &profile.tool_policy(),
        exit_policy,
        builtins: &catalog,
        mcp: &BTreeMap::new(),
    })
    .unwrap()
    .snapshot;
    ToolTurnContract::all(&snapshot, ToolChoice::Auto)
        .unwrap()
        .model_tools(&snapshot)
        .unwrap()
}
