//! `cargo xtask ci`: the CI gate, a fixed list of steps run in order from the workspace root;
//! the first failing step stops the run.

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::{crash, fuzz, layering};

/// Kills in each short crash campaign CI runs, one per durability policy (about a minute
/// each on a busy 2-core machine).
const CI_KILLS: u32 = 20;

#[derive(Debug)]
enum Action {
    /// `cargo <args>` with inherited stdio.
    Cargo(&'static [&'static str]),
    /// The in-process layering check.
    Layering,
    /// A short crash campaign (`cargo xtask crash`) under this durability policy, with a
    /// fresh seed each time.
    Crash(&'static str),
    /// A smoke run of every fuzz target, this many seconds each.
    Fuzz(u64),
}

#[derive(Debug)]
struct Step {
    name: &'static str,
    action: Action,
}

const STEPS: &[Step] = &[
    Step {
        name: "fmt",
        action: Action::Cargo(&["fmt", "--all", "--", "--check"]),
    },
    Step {
        name: "clippy",
        action: Action::Cargo(&[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]),
    },
    Step {
        name: "layering",
        action: Action::Layering,
    },
    Step {
        name: "test",
        action: Action::Cargo(&["test", "--workspace"]),
    },
    Step {
        name: "crash (normal)",
        action: Action::Crash("normal"),
    },
    Step {
        name: "crash (strict)",
        action: Action::Crash("strict"),
    },
    Step {
        name: "fuzz",
        action: Action::Fuzz(fuzz::CI_SECONDS),
    },
];

impl Step {
    fn describe(&self) -> String {
        match self.action {
            Action::Cargo(args) => format!("cargo {}", args.join(" ")),
            Action::Layering => "cargo xtask layering".to_owned(),
            Action::Crash(policy) => {
                format!("cargo xtask crash {CI_KILLS} --durability {policy}")
            }
            Action::Fuzz(seconds) => format!("cargo xtask fuzz {seconds}"),
        }
    }
}

pub fn run(manifest_path: &Path, offline: bool) -> Result<()> {
    let root = manifest_path.parent().unwrap_or(Path::new("."));
    let total = STEPS.len();
    for (index, step) in STEPS.iter().enumerate() {
        let number = index + 1;
        println!(
            "==> ci [{number}/{total}] {}: {}",
            step.name,
            step.describe()
        );
        let result = match step.action {
            Action::Cargo(args) => run_cargo(root, args),
            Action::Layering => layering::run(manifest_path, offline),
            Action::Crash(policy) => crash::run(
                manifest_path,
                offline,
                &crash::Options {
                    kills: Some(CI_KILLS),
                    durability: Some(policy.to_owned()),
                    ..crash::Options::default()
                },
            ),
            Action::Fuzz(seconds) => fuzz::run(manifest_path, seconds),
        };
        result.with_context(|| format!("ci step {number}/{total} `{}` failed", step.name))?;
    }
    println!("==> ci passed ({total} steps)");
    Ok(())
}

fn run_cargo(root: &Path, args: &[&str]) -> Result<()> {
    let status = crate::cargo()
        .args(args)
        .current_dir(root)
        .status()
        .with_context(|| format!("could not run `cargo {}`", args.join(" ")))?;
    if !status.success() {
        bail!("`cargo {}` exited with {status}", args.join(" "));
    }
    Ok(())
}
