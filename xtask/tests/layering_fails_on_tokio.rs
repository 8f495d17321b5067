//! The real gate, end to end: a skeleton copy of this workspace (manifests, lock file and empty
//! target sources, member list taken from `cargo metadata`) passes `xtask layering`, and fails
//! it, naming `agent-domain` and `tokio`, once `agent-domain` gains a tokio dependency.

// Test helpers outside `#[test]` fns: failing loudly is the point.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo")))
}

fn real_manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("Cargo.toml")
}

fn real_metadata() -> Value {
    let output = cargo()
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
            "--manifest-path",
        ])
        .arg(real_manifest())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn copy_file(from: &Path, to: &Path) {
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    fs::copy(from, to)
        .unwrap_or_else(|e| panic!("copy {} -> {}: {e}", from.display(), to.display()));
}

/// Copies the workspace skeleton into `dst` and returns the copied manifest of `agent-domain`.
fn copy_skeleton(dst: &Path) -> PathBuf {
    let metadata = real_metadata();
    let root = PathBuf::from(metadata["workspace_root"].as_str().unwrap());
    copy_file(&root.join("Cargo.toml"), &dst.join("Cargo.toml"));
    if root.join("Cargo.lock").is_file() {
        copy_file(&root.join("Cargo.lock"), &dst.join("Cargo.lock"));
    }

    let mut domain_manifest = None;
    let packages = metadata["packages"].as_array().unwrap();
    assert!(
        packages.len() > 1,
        "expected the workspace members in {metadata}"
    );
    for package in packages {
        let manifest = Path::new(package["manifest_path"].as_str().unwrap());
        let copied = dst.join(manifest.strip_prefix(&root).unwrap());
        copy_file(manifest, &copied);
        if package["name"] == "agent-domain" {
            domain_manifest = Some(copied);
        }
        // Every target source must exist for cargo to accept the manifest; empty ones will do.
        for target in package["targets"].as_array().unwrap() {
            let source = Path::new(target["src_path"].as_str().unwrap());
            let stub = dst.join(source.strip_prefix(&root).unwrap());
            fs::create_dir_all(stub.parent().unwrap()).unwrap();
            let is_bin = target["kind"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k == "bin");
            fs::write(&stub, if is_bin { "fn main() {}\n" } else { "" }).unwrap();
        }
    }
    domain_manifest.expect("agent-domain is a workspace member")
}

fn add_tokio(manifest: &Path) {
    let text = fs::read_to_string(manifest).unwrap();
    let patched = if text.lines().any(|l| l.trim() == "[dependencies]") {
        text.lines()
            .flat_map(|line| {
                let extra = (line.trim() == "[dependencies]").then_some("tokio.workspace = true");
                std::iter::once(line).chain(extra)
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    } else {
        format!("{text}\n[dependencies]\ntokio.workspace = true\n")
    };
    assert_ne!(text, patched);
    fs::write(manifest, patched).unwrap();
}

fn run_layering(workspace: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["layering", "--offline", "--manifest-path"])
        .arg(workspace.join("Cargo.toml"))
        .output()
        .unwrap()
}

fn describe(output: &Output) -> String {
    format!(
        "status: {}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn unmodified_copy_passes() {
    let dir = tempfile::tempdir().unwrap();
    copy_skeleton(dir.path());
    let output = run_layering(dir.path());
    assert!(output.status.success(), "{}", describe(&output));
}

#[test]
fn layering_fails_when_agent_domain_gains_tokio() {
    let dir = tempfile::tempdir().unwrap();
    let domain_manifest = copy_skeleton(dir.path());
    add_tokio(&domain_manifest);

    let output = run_layering(dir.path());
    assert!(!output.status.success(), "{}", describe(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr
            .lines()
            .any(|l| l.contains("agent-domain") && l.contains("`tokio`")),
        "{}",
        describe(&output)
    );
}
