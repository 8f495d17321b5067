//! The inputs of the `snapshot_compile` bench: 200 tools (every profile-allowable builtin plus
//! MCP tools from five servers). Two registrations are both called "GitHub" and serve the
//! same native names, one server has a long name and one a non-ASCII name, and native names
//! grow by one byte per round, so alias collisions (`__2`) and 64-byte truncation are both
//! exercised.
//!
//! Shared by the bench and by the test that pins the compiled result, so an optimisation of
//! the compiler cannot change what it compiles without a test noticing.

use std::collections::BTreeMap;
use std::sync::Arc;

use agent_domain::tool::{BuiltinTool, McpToolEntry, ToolDescriptor, ToolId, ToolPolicy};
use agent_domain::workspace::RootAccess;
use serde_json::{Value, json};

/// How many tools the compiled snapshot holds.
pub const TOOLS: usize = 200;

/// The profile's tool policy and the cached MCP entries it selects.
pub fn inputs() -> (ToolPolicy, BTreeMap<ToolId, McpToolEntry>) {
    let mut allow: Vec<ToolId> = BuiltinTool::ALL
        .into_iter()
        .filter(|t| !t.is_runtime_only())
        .map(BuiltinTool::id)
        .collect();
    let mut mcp = BTreeMap::new();
    let servers = [
        "GitHub",
        "GitHub",
        "Local files",
        "a very long server display name indeed",
        "日本語",
    ];
    let mut n = 0;
    while allow.len() < TOOLS {
        let server = servers[n % servers.len()];
        let registration = format!("00000000-0000-4000-8000-{:012x}", n % servers.len());
        let round = n / servers.len();
        let native = format!("tool.action_{round}_{}", "x".repeat(round % 40));
        let id = ToolId::mcp(&registration, &native).unwrap_or_else(|e| panic!("{e}"));
        mcp.insert(
            id.clone(),
            McpToolEntry::Available {
                server_display_name: server.to_owned(),
                descriptor: Arc::new(ToolDescriptor {
                    id: id.clone(),
                    title: native.clone(),
                    description: format!("Does thing number {n}."),
                    input_schema: json!({"type": "object", "properties": {"q": {"type": "string"}}}),
                    output_schema: None,
                    annotations: Value::Null,
                }),
            },
        );
        allow.push(id);
        n += 1;
    }
    let policy = ToolPolicy {
        allow,
        deny: Vec::new(),
        descriptions: BTreeMap::new(),
        max_calls_per_invocation: 80,
        max_calls_per_tool: BTreeMap::new(),
        mcp_result_inline_char_limit: 50_000,
        roots: RootAccess::full(),
    };
    (policy, mcp)
}
