//! How long one invocation spends compiling its tool snapshot: 200 tools (the builtins plus
#![allow(clippy::panic)]
//! MCP tools from five servers, with alias collisions and long names).

use std::collections::BTreeMap;
use std::hint::black_box;

use agent_domain::tool::{
    BuiltinTool, ExitPolicy, McpToolEntry, SnapshotInputs, ToolDescriptor, ToolId, ToolPolicy,
    builtin_catalog, compile_snapshot,
};
use agent_domain::workspace::RootAccess;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

const TOOLS: usize = 200;

fn inputs() -> (ToolPolicy, BTreeMap<ToolId, McpToolEntry>) {
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
        let native = format!("tool.action_{}_{}", n / servers.len(), "x".repeat(n % 40));
        let id = ToolId::mcp(&registration, &native).unwrap_or_else(|e| panic!("{e}"));
        mcp.insert(
            id.clone(),
            McpToolEntry::Available {
                server_display_name: server.to_owned(),
                descriptor: ToolDescriptor {
                    id: id.clone(),
                    title: native.clone(),
                    description: format!("Does thing number {n}."),
                    input_schema: json!({"type": "object", "properties": {"q": {"type": "string"}}}),
                    output_schema: None,
                    annotations: Value::Null,
                },
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

fn bench(c: &mut Criterion) {
    let catalog = builtin_catalog().unwrap_or_else(|e| panic!("{e}"));
    let (policy, mcp) = inputs();
    c.bench_function("compile_snapshot_200_tools", |b| {
        b.iter(|| {
            let out = compile_snapshot(SnapshotInputs {
                invocation_id: "inv_root",
                policy: black_box(&policy),
                exit_policy: ExitPolicy::RunFinishAllowed,
                builtins: &catalog,
                mcp: &mcp,
            })
            .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(out.snapshot.bindings().len(), TOOLS);
            out
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
