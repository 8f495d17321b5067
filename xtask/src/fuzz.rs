//! `cargo xtask fuzz [SECONDS]`: every cargo-fuzz target in `fuzz/`, one after the other,
//! for SECONDS each, from the seeds checked into `fuzz/corpus/<target>/`.
//!
//! It installs what it needs on a fresh machine (the nightly toolchain, `cargo-fuzz`), builds
//! every target once into `<target dir>/fuzz`, runs each with a scratch corpus beside the
//! build (so the checked-in seeds never grow), and fails when any target found a crash, a
//! panic, a timeout or an out-of-memory input, naming the artifact that reproduces it
//! (cargo-fuzz writes them to `fuzz/artifacts/<target>/`).
//! `docs/fuzzing.md` says what each target checks.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

/// How long each target runs when no SECONDS is given.
pub const DEFAULT_SECONDS: u64 = 60;

/// How long each target runs in `cargo xtask ci`.
pub const CI_SECONDS: u64 = 10;

/// One input running longer than this is a hang.
const INPUT_TIMEOUT_SECS: u64 = 10;

/// Memory one fuzzing process may use before an input counts as out of memory.
const RSS_LIMIT_MB: u64 = 2048;

/// Build flags shared by `build` and `run` (they must agree, or `run` rebuilds). The crates
/// forbid `unsafe`, so AddressSanitizer would only slow the build and the runs down; the
/// findings here are panics, overflows (debug assertions stay on) and hangs.
const BUILD_FLAGS: &[&str] = &["--release", "--debug-assertions", "--sanitizer", "none"];

/// `cargo` from `PATH`: rustup's proxy, which understands `+nightly` (the `$CARGO` that runs
/// xtask is a toolchain's own cargo, which does not).
fn rustup_cargo() -> Command {
    let mut command = Command::new("cargo");
    // Chosen toolchains must not leak in from the cargo that started us.
    command.env_remove("RUSTUP_TOOLCHAIN").env_remove("RUSTC");
    command
}

/// Whether `cargo <args>` runs and exits successfully (its output discarded).
fn succeeds(args: &[&str]) -> bool {
    rustup_cargo()
        .args(args)
        .output()
        .is_ok_and(|output| output.status.success())
}

/// Runs `command`, failing with `what` when it does not succeed.
fn run_checked(mut command: Command, what: &str) -> Result<()> {
    let status = command
        .status()
        .with_context(|| format!("could not run {what}"))?;
    if !status.success() {
        bail!("{what} exited with {status}");
    }
    Ok(())
}

/// Installs the nightly toolchain and `cargo-fuzz` when missing.
fn ensure_tools() -> Result<()> {
    if !succeeds(&["+nightly", "--version"]) {
        println!("==> fuzz: installing the nightly toolchain");
        let mut rustup = Command::new("rustup");
        rustup.args(["toolchain", "install", "nightly", "--profile", "minimal"]);
        run_checked(rustup, "`rustup toolchain install nightly`")?;
    }
    if !succeeds(&["fuzz", "--version"]) {
        println!("==> fuzz: installing cargo-fuzz");
        let mut install = rustup_cargo();
        install.args(["install", "cargo-fuzz", "--locked"]);
        run_checked(install, "`cargo install cargo-fuzz --locked`")?;
    }
    Ok(())
}

/// The fuzz targets, as `cargo fuzz list` names them.
fn targets(fuzz_dir: &Path) -> Result<Vec<String>> {
    let output = rustup_cargo()
        .args(["+nightly", "fuzz", "list"])
        .current_dir(fuzz_dir)
        .output()
        .context("could not run `cargo fuzz list`")?;
    if !output.status.success() {
        bail!(
            "`cargo fuzz list` failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let list = String::from_utf8(output.stdout).context("`cargo fuzz list` printed non-UTF-8")?;
    Ok(list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect())
}

/// The target directory the fuzz build uses: `$CARGO_TARGET_DIR/fuzz`, else
/// `<workspace>/target/fuzz`, so it is cached beside the workspace's own build.
fn fuzz_target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), PathBuf::from)
        .join("fuzz")
}

/// The reproducers libFuzzer left for `target` in `artifacts`, newest last.
fn artifacts_of(artifacts: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(artifacts) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_file())
        .collect();
    found.sort();
    found
}

/// Builds every target, then runs each for `seconds`; fails naming every target that found
/// something, with the artifact to reproduce it with `cargo fuzz run <target> <artifact>`.
pub fn run(manifest_path: &Path, seconds: u64) -> Result<()> {
    let root = manifest_path.parent().unwrap_or(Path::new("."));
    let fuzz_dir = root.join("fuzz");
    ensure_tools()?;
    let target_dir = fuzz_target_dir(root);
    let target_dir_arg = target_dir.display().to_string();
    let targets = targets(&fuzz_dir)?;

    let started = Instant::now();
    println!(
        "==> fuzz: building {} targets into {target_dir_arg}",
        targets.len()
    );
    let mut build = rustup_cargo();
    build
        .args(["+nightly", "fuzz", "build"])
        .args(BUILD_FLAGS)
        .args(["--target-dir", &target_dir_arg])
        .current_dir(&fuzz_dir);
    run_checked(build, "`cargo fuzz build`")?;
    println!("==> fuzz: built in {:.0?}", started.elapsed());

    let mut findings = Vec::new();
    for target in &targets {
        let scratch = target_dir.join("corpus").join(target);
        let artifacts = fuzz_dir.join("artifacts").join(target);
        std::fs::create_dir_all(&scratch)
            .with_context(|| format!("could not create {}", scratch.display()))?;
        let before = artifacts_of(&artifacts);
        println!("==> fuzz: {target} for {seconds} s");
        let status = rustup_cargo()
            .args(["+nightly", "fuzz", "run", target])
            .args(BUILD_FLAGS)
            .args(["--target-dir", &target_dir_arg])
            .arg(&scratch)
            .arg(fuzz_dir.join("corpus").join(target))
            .arg("--")
            .arg(format!("-max_total_time={seconds}"))
            .arg(format!("-timeout={INPUT_TIMEOUT_SECS}"))
            .arg(format!("-rss_limit_mb={RSS_LIMIT_MB}"))
            .current_dir(&fuzz_dir)
            .status()
            .with_context(|| format!("could not run `cargo fuzz run {target}`"))?;
        let new: Vec<PathBuf> = artifacts_of(&artifacts)
            .into_iter()
            .filter(|path| !before.contains(path))
            .collect();
        if !status.success() || !new.is_empty() {
            let found = new
                .iter()
                .map(|path| path.display().to_string())
                .collect::<Vec<_>>()
                .join(", ");
            findings.push(format!("{target} ({status}): {found}"));
        }
    }
    println!(
        "==> fuzz: {} targets in {:.0?}",
        targets.len(),
        started.elapsed()
    );
    if !findings.is_empty() {
        bail!(
            "fuzzing found {} failing target(s); reproduce with `cd fuzz && cargo +nightly \
             fuzz run <target> <artifact>`:\n  {}",
            findings.len(),
            findings.join("\n  ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifacts_are_listed_sorted_and_a_missing_dir_has_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(artifacts_of(&dir.path().join("absent")).is_empty());
        for name in ["crash-b", "crash-a"] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        let names: Vec<_> = artifacts_of(dir.path())
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["crash-a", "crash-b"]);
    }

    #[test]
    fn every_target_has_seeds() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let manifest = std::fs::read_to_string(root.join("fuzz/Cargo.toml")).unwrap();
        let names: Vec<&str> = manifest
            .lines()
            .filter_map(|l| l.strip_prefix("name = \""))
            .filter_map(|l| l.strip_suffix('"'))
            .filter(|name| *name != "tavern-agent-fuzz")
            .collect();
        assert!(names.len() >= 12, "{names:?}");
        for name in names {
            let seeds = root.join("fuzz/corpus").join(name);
            assert!(
                std::fs::read_dir(&seeds).is_ok_and(|mut d| d.next().is_some()),
                "{name} has no seeds in {}",
                seeds.display()
            );
        }
    }
}
