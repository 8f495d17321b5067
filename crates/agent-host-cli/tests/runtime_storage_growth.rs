//! What a large write costs on disk: the workspace file plus one blob, however many audit
//! documents and checkpoints carry the same bytes (docs/storage/workspace.md).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(unix)]

mod runtime_support;

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use agent_domain::event::RunStatus;
use runtime_support::World;
use serde_json::json;

/// The size written: large enough that fixed costs (records, the journal) vanish beside it.
const SIZE: usize = 100 * 1024 * 1024;

/// Bytes allocated on disk under `dir`, each file counted once however many links it has.
fn disk_usage(dir: &Path) -> u64 {
    fn walk(dir: &Path, seen: &mut HashSet<(u64, u64)>) -> u64 {
        let mut total = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let meta = entry.as_ref().unwrap().metadata().unwrap();
            if meta.is_dir() {
                total += walk(&entry.unwrap().path(), seen);
            } else if seen.insert((meta.dev(), meta.ino())) {
                total += meta.blocks() * 512;
            }
        }
        total
    }
    walk(dir, &mut HashSet::new())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_write_costs_at_most_twice_its_size() {
    let world = World::new();
    let before = disk_usage(world.dir.path());
    let line = "The keeper climbs the hundred steps every dusk, and the lamp is lit.\n";
    let big = line.repeat(SIZE / line.len());
    let script = json!({"turns": [
        {"tool_calls": [
            {"name": "workspace_write_file", "arguments": {"path": "scratch/big.log", "content": big}},
        ]},
        {"text": "Done.", "tool_calls": [
            {"name": "workspace_write_file", "arguments": {
                "path": "output/main.md", "content": "The keeper, Mara, climbs the steps."
            }},
            {"name": "workspace_commit", "arguments": {}},
            {"name": "workspace_finish", "arguments": {}},
        ]},
    ]});
    drop(big);
    let finished = world.run(&script).await;
    assert_eq!(
        finished.outcome.status,
        RunStatus::Completed,
        "{:?}",
        finished.outcome.failure
    );
    let grown = disk_usage(world.dir.path()) - before;
    let size = (SIZE - SIZE % line.len()) as u64;
    // The written file and one blob, shared by the tool arguments, the model response and
    // the checkpoint.
    println!(
        "a {size}-byte write grew the data dir by {grown} bytes ({:.2}x)",
        grown as f64 / size as f64
    );
    assert!(grown <= 2 * size, "grew by {grown} bytes");
}
