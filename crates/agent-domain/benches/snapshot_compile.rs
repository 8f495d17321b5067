//! How long one invocation spends compiling its tool snapshot: 200 tools (the builtins plus
//! MCP tools from five servers, with alias collisions and long names).

#![allow(clippy::panic)]

use std::hint::black_box;

use agent_domain::tool::{ExitPolicy, SnapshotInputs, builtin_catalog, compile_snapshot};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "../tests/support/two_hundred_tools.rs"]
mod two_hundred_tools;

use two_hundred_tools::{TOOLS, inputs};

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
