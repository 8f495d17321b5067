//! Test fixtures shared by the control-plane unit tests.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use super::*;
use crate::workspace::RootAccess;

pub const UUID_A: &str = "11111111-1111-4111-8111-111111111111";

pub fn id(raw: &str) -> ToolId {
    ToolId::parse(raw).unwrap()
}

pub fn policy(allow: &[&str]) -> ToolPolicy {
    ToolPolicy {
        allow: allow.iter().map(|s| id(s)).collect(),
        deny: Vec::new(),
        descriptions: BTreeMap::new(),
        max_calls_per_invocation: 80,
        max_calls_per_tool: BTreeMap::new(),
        mcp_result_inline_char_limit: 50_000,
        roots: RootAccess::full(),
    }
}

pub fn mcp_descriptor(tool: &ToolId, schema: Value) -> Arc<ToolDescriptor> {
    Arc::new(ToolDescriptor {
        id: tool.clone(),
        title: tool.native_name().to_owned(),
        description: format!("MCP tool {}", tool.native_name()),
        input_schema: schema,
        output_schema: None,
        annotations: Value::Null,
    })
}

pub fn object_schema() -> Value {
    json!({"type": "object", "properties": {"q": {"type": "string"}}})
}

pub fn compile(
    policy: &ToolPolicy,
    exit: ExitPolicy,
    mcp: &BTreeMap<ToolId, McpToolEntry>,
) -> Result<SnapshotCompilation, SnapshotError> {
    let catalog = builtin_catalog().unwrap();
    compile_snapshot(SnapshotInputs {
        invocation_id: "inv_root",
        policy,
        exit_policy: exit,
        builtins: &catalog,
        mcp,
    })
}

pub fn snapshot(allow: &[&str]) -> InvocationToolSnapshot {
    compile(
        &policy(allow),
        ExitPolicy::RunFinishAllowed,
        &BTreeMap::new(),
    )
    .unwrap()
    .snapshot
}
