#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Hostile paths against the workspace store: every raw string a model might send is first
//! parsed as a `WorkspacePath`; those that parse are read, written, appended and listed
//! in a workspace booby-trapped with symbolic links. Nothing may escape the run directory.

#![cfg(unix)]

mod workspace_support;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use agent_application::ports::{WorkspaceStore, WriteGuard};
use agent_domain::ErrorCode;
use agent_domain::workspace::WorkspacePath;
use agent_infra_fs::workspace::FsWorkspaceStore;
use workspace_support::{TestRun, test_run};

#[derive(Debug, Clone, Copy)]
enum Op {
    Read,
    Write,
    Append,
    List,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// `WorkspacePath::parse` refuses it (`workspace.invalid_path`); the store never sees it.
    InvalidPath,
    Ok,
    /// The store refuses it with this error code.
    Code(&'static str),
}

use Expect::{Code, InvalidPath};
use Op::{Append, List, Read, Write};

const INTEGRITY: Expect = Code("workspace.integrity_violation");
const NOT_FOUND: Expect = Code("workspace.file_not_found");
const READ_ONLY: Expect = Code("workspace.path_not_writable");
const IS_DIRECTORY: Expect = Code("workspace.path_is_directory");

const ROWS: &[(&str, Op, Expect)] = &[
    // Lexically hostile: never a workspace path.
    ("", Write, InvalidPath),
    (".", Read, InvalidPath),
    ("./", List, InvalidPath),
    ("./.", Read, InvalidPath),
    ("//", Read, InvalidPath),
    ("/", Write, InvalidPath),
    ("/x", Write, InvalidPath),
    ("/etc/passwd", Read, InvalidPath),
    ("/./output/main.md", Write, InvalidPath),
    ("\\", Write, InvalidPath),
    ("\\x", Write, InvalidPath),
    ("\\\\server\\share", Read, InvalidPath),
    ("C:\\x", Write, InvalidPath),
    ("c:/x", Write, InvalidPath),
    ("C:", Read, InvalidPath),
    ("z:relative", Append, InvalidPath),
    ("\0", Read, InvalidPath),
    ("output/a\0b.md", Write, InvalidPath),
    ("..", List, InvalidPath),
    ("../x", Write, InvalidPath),
    ("..\\x", Append, InvalidPath),
    ("./..", Read, InvalidPath),
    ("../../outside/secret.txt", Read, InvalidPath),
    ("output/..", Read, InvalidPath),
    ("output/../x", Write, InvalidPath),
    ("output/./../x", Write, InvalidPath),
    ("output//..//x", Write, InvalidPath),
    ("output/../../etc/passwd", Read, InvalidPath),
    ("output/sub/../../..", Write, InvalidPath),
    ("a\\..\\b", Write, InvalidPath),
    ("output\\..\\..\\x", Write, InvalidPath),
    (
        "tool-results/../input/prompt_snapshot.json",
        Read,
        InvalidPath,
    ),
    ("output/link_dir/../../x", Write, InvalidPath),
    // Links: refused wherever they are, pointing outside or inside.
    ("output/link_dir", Read, INTEGRITY),
    ("output/link_dir", List, INTEGRITY),
    ("output/link_dir/x.md", Write, INTEGRITY),
    ("output/link_dir/inner.txt", Read, INTEGRITY),
    ("output/link_dir/new/x.md", Append, INTEGRITY),
    ("output/link_file", Read, INTEGRITY),
    ("output/link_file", Write, INTEGRITY),
    ("output/link_file", Append, INTEGRITY),
    ("output/inside_link", Read, INTEGRITY),
    ("output/inside_link", Write, INTEGRITY),
    ("output", List, INTEGRITY),
    ("scratch", List, INTEGRITY),
    ("scratch/a.md", Write, INTEGRITY),
    ("scratch/a.md", Read, INTEGRITY),
    ("scratch\\b.md", Append, INTEGRITY),
    ("persist/deep/link/y.md", Write, INTEGRITY),
    ("persist", List, INTEGRITY),
    // The runtime's results: readable, never writable.
    ("tool-results/call_x.json", Read, Expect::Ok),
    ("tool-results", List, Expect::Ok),
    ("tool-results/x.md", Write, READ_ONLY),
    ("tool-results/call_x.json", Append, READ_ONLY),
    ("tool-results", Write, READ_ONLY),
    // Hidden runtime storage: absent to reads, read-only to writes.
    ("input/prompt_snapshot.json", Read, NOT_FOUND),
    ("input/prompt_snapshot.json", Write, READ_ONLY),
    ("input", List, NOT_FOUND),
    ("events.jsonl", Read, NOT_FOUND),
    ("events.jsonl", Append, READ_ONLY),
    ("checkpoints/cp_000001/checkpoint.json", Write, READ_ONLY),
    ("run.json", Write, READ_ONLY),
    ("Output/x.md", Write, READ_ONLY),
    ("output_extra/x.md", Write, READ_ONLY),
    (".hidden", Read, NOT_FOUND),
    // Ordinary paths still work, normalised.
    ("output\\win.md", Write, Expect::Ok),
    ("output/./notes//a.md", Write, Expect::Ok),
    ("./output/real.md", Read, Expect::Ok),
    ("output/new/dir/file.md", Append, Expect::Ok),
    ("output", Write, IS_DIRECTORY),
    ("output/real.md/x", Write, NOT_FOUND),
];

/// Every file and folder below `root` with its bytes, without following links.
fn tree(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    fn visit(root: &Path, dir: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        for entry in fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let name = path.strip_prefix(root).unwrap().display().to_string();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                out.insert(name, None);
                visit(root, &path, out);
            } else if kind.is_symlink() {
                out.insert(
                    name,
                    Some(
                        fs::read_link(&path)
                            .unwrap()
                            .into_os_string()
                            .into_encoded_bytes(),
                    ),
                );
            } else {
                out.insert(name, Some(fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    visit(root, root, &mut out);
    out
}

/// A run whose workspace links outwards and inwards, and an outside folder to protect.
async fn booby_trapped(run: &TestRun, outside: &Path) -> FsWorkspaceStore {
    let store = FsWorkspaceStore::new(run.locator.clone());
    store.initialize(&run.run).await.unwrap();
    let dir = &run.run_dir;
    fs::write(outside.join("secret.txt"), "secret").unwrap();
    fs::create_dir_all(outside.join("dir")).unwrap();
    fs::write(outside.join("dir/inner.txt"), "inner").unwrap();
    fs::create_dir_all(outside.join("scratch_target")).unwrap();

    fs::write(dir.join("output/real.md"), "real").unwrap();
    symlink(outside.join("dir"), dir.join("output/link_dir")).unwrap();
    symlink(outside.join("secret.txt"), dir.join("output/link_file")).unwrap();
    symlink(dir.join("output/real.md"), dir.join("output/inside_link")).unwrap();
    fs::create_dir_all(dir.join("persist/deep")).unwrap();
    symlink(outside.join("dir"), dir.join("persist/deep/link")).unwrap();
    fs::remove_dir(dir.join("scratch")).unwrap();
    symlink(outside.join("scratch_target"), dir.join("scratch")).unwrap();
    fs::write(dir.join("tool-results/call_x.json"), "{}\n").unwrap();
    fs::create_dir_all(dir.join("input")).unwrap();
    fs::write(dir.join("input/prompt_snapshot.json"), "{}\n").unwrap();
    fs::write(dir.join("events.jsonl"), "").unwrap();
    store
}

async fn outcome(store: &FsWorkspaceStore, run: &TestRun, path: &WorkspacePath, op: Op) -> Expect {
    let result = match op {
        Read => store.read(&run.run, path).await.map(drop),
        Write => store
            .write(&run.run, path, "pwned", WriteGuard::Unchecked)
            .await
            .map(drop),
        Append => store.append(&run.run, path, "pwned").await.map(drop),
        List => store.list(&run.run, Some(path), 4, 100).await.map(drop),
    };
    match result {
        Ok(()) => Expect::Ok,
        Err(err) => Code(err.code()),
    }
}

#[tokio::test]
async fn hostile_paths_are_refused_and_nothing_escapes_the_run_directory() {
    assert!(ROWS.len() >= 40);
    let run = test_run();
    let outside = tempfile::tempdir().unwrap();
    let store = booby_trapped(&run, outside.path()).await;
    let outside_before = tree(outside.path());
    let data_root = run.locator.data_dir().root().to_path_buf();
    let beside_run_before: Vec<String> = tree(&data_root)
        .into_keys()
        .filter(|name| !data_root.join(name).starts_with(&run.run_dir))
        .collect();

    let mut failures = Vec::new();
    for &(raw, op, expected) in ROWS {
        let got = match WorkspacePath::parse(raw) {
            Err(err) => {
                assert_eq!(err.code(), "workspace.invalid_path", "{raw:?}");
                InvalidPath
            }
            Ok(path) => outcome(&store, &run, &path, op).await,
        };
        if got != expected {
            failures.push(format!(
                "{raw:?} {op:?}: expected {expected:?}, got {got:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    let root = store.list(&run.run, None, 1, 100).await.unwrap_err();
    assert_eq!(
        root.code(),
        "workspace.integrity_violation",
        "the root holds a linked `scratch`"
    );

    assert_eq!(
        tree(outside.path()),
        outside_before,
        "something was written outside"
    );
    // Writing stages temps, so the process's writer lock appears in `.staging/` (`stale.rs`).
    let staging = data_root.join("_tauritavern/agent-workspaces/.staging");
    let beside_run_after: Vec<String> = tree(&data_root)
        .into_keys()
        .filter(|name| {
            let path = data_root.join(name);
            !path.starts_with(&run.run_dir) && !path.starts_with(&staging)
        })
        .collect();
    assert_eq!(beside_run_after, beside_run_before);
    assert_eq!(
        fs::read_to_string(run.run_dir.join("output/real.md")).unwrap(),
        "real"
    );
    assert_eq!(
        fs::read_to_string(run.run_dir.join("output/win.md")).unwrap(),
        "pwned"
    );
    assert_eq!(
        fs::read_to_string(run.run_dir.join("output/notes/a.md")).unwrap(),
        "pwned"
    );
}
