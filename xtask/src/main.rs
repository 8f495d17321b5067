//! `cargo xtask <command>`: the project's development tasks, starting with the CI gate.

mod bench;
mod ci;
mod crash;
mod fuzz;
mod layering;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Result, bail};

const USAGE: &str = "\
usage: cargo xtask <command> [--manifest-path <PATH>] [--offline] [-- <criterion args>...]
       cargo xtask crash [N] [--seed S] [--release] [--durability POLICY] [--keep] [--keep-going]
       cargo xtask fuzz [SECONDS]

commands:
  ci         fmt check, clippy (-D warnings), layering check, tests, a 30-kill crash campaign,
             a 10 s smoke run of every fuzz target; stops at the first failure
  layering   only the layering check (crate dependency rules + source scan of the pure crates)
  bench      every criterion benchmark with short settings (installs ripgrep if it can), then
             a table of the medians; arguments after `--` go to criterion (e.g. a filter)
  crash      the crash campaign: N (default 30) scripted runs of the tavern-agent binary,
             each SIGKILLed at a random point (--seed replays the plan), then every storage
             invariant checked (docs/crash-testing.md); --durability is passed to every run,
             --keep keeps the campaign folder, --keep-going reports every failure at the end
  fuzz       every cargo-fuzz target in fuzz/ for SECONDS each (default 60), installing
             nightly and cargo-fuzz if missing; fails on any crash, naming its artifact
             (docs/fuzzing.md)
  help       print this message

options:
  --manifest-path <PATH>  the workspace's Cargo.toml (or its directory); default: this workspace
  --offline               pass --offline to `cargo metadata` (and to `cargo bench`)
";

#[derive(Debug, Default, PartialEq, Eq)]
struct Options {
    command: Option<String>,
    manifest_path: Option<PathBuf>,
    offline: bool,
    /// Everything after `--`, for `bench` to pass to criterion.
    passthrough: Vec<String>,
    /// The arguments of `crash` (its count and options).
    crash_args: Vec<String>,
    /// `fuzz`'s SECONDS.
    fuzz_seconds: Option<String>,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Options> {
    let mut options = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if let Some(path) = arg.strip_prefix("--manifest-path=") {
            options.manifest_path = Some(PathBuf::from(path));
        } else if arg == "--manifest-path" {
            let Some(path) = args.next() else {
                bail!("--manifest-path needs a value");
            };
            options.manifest_path = Some(PathBuf::from(path));
        } else if arg == "--offline" {
            options.offline = true;
        } else if arg == "--" {
            options.passthrough.extend(args.by_ref());
        } else if arg == "-h" || arg == "--help" {
            options.command = Some("help".to_owned());
        } else if options.command.as_deref() == Some("crash") {
            options.crash_args.push(arg);
        } else if arg.starts_with('-') {
            bail!("unknown option `{arg}`");
        } else if options.command.as_deref() == Some("fuzz") && options.fuzz_seconds.is_none() {
            options.fuzz_seconds = Some(arg);
        } else if let Some(command) = &options.command {
            bail!("unexpected argument `{arg}` after command `{command}`");
        } else {
            options.command = Some(arg);
        }
    }
    if !options.passthrough.is_empty() && options.command.as_deref() != Some("bench") {
        bail!("arguments after `--` are only for `bench`");
    }
    Ok(options)
}

/// The workspace manifest: `--manifest-path` (a `Cargo.toml` or its directory), else the
/// workspace this xtask belongs to.
fn workspace_manifest(option: Option<PathBuf>) -> PathBuf {
    match option {
        Some(path) if path.is_dir() => path.join("Cargo.toml"),
        Some(path) => path,
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap_or(Path::new(env!("CARGO_MANIFEST_DIR")))
            .join("Cargo.toml"),
    }
}

/// A `cargo` command: the cargo that runs us (`$CARGO`), else `cargo` from `PATH`.
fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo")))
}

/// `fuzz`'s SECONDS: a positive whole number, [`fuzz::DEFAULT_SECONDS`] when absent.
fn fuzz_seconds(operand: Option<&str>) -> Result<u64> {
    match operand {
        None => Ok(fuzz::DEFAULT_SECONDS),
        Some(raw) => match raw.parse::<u64>() {
            Ok(seconds) if seconds > 0 => Ok(seconds),
            _ => bail!("fuzz SECONDS must be a positive whole number, not `{raw}`"),
        },
    }
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(error) => {
            eprintln!("error: {error:#}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let manifest = workspace_manifest(options.manifest_path);
    let result = match options.command.as_deref() {
        None | Some("help") => {
            print!("{USAGE}");
            Ok(())
        }
        Some("ci") => ci::run(&manifest, options.offline),
        Some("layering") => layering::run(&manifest, options.offline),
        Some("bench") => bench::run(&manifest, options.offline, &options.passthrough),
        Some("crash") => crash::parse_options(&options.crash_args)
            .and_then(|crash| crash::run(&manifest, options.offline, &crash)),
        Some("fuzz") => fuzz_seconds(options.fuzz_seconds.as_deref())
            .and_then(|seconds| fuzz::run(&manifest, seconds)),
        Some(other) => {
            eprintln!("error: unknown command `{other}`\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options> {
        parse_args(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn parses_command_and_options_in_any_order() {
        let options =
            parse(&["--offline", "layering", "--manifest-path", "/x/Cargo.toml"]).unwrap();
        assert_eq!(
            options,
            Options {
                command: Some("layering".to_owned()),
                manifest_path: Some(PathBuf::from("/x/Cargo.toml")),
                offline: true,
                passthrough: Vec::new(),
                crash_args: Vec::new(),
                fuzz_seconds: None,
            }
        );
        let crash = parse(&["crash", "12", "--seed", "5", "--offline"]).unwrap();
        assert_eq!(crash.crash_args, ["12", "--seed", "5"]);
        assert!(crash.offline);
        let bench = parse(&["bench", "--", "chat_search", "--sample-size", "10"]).unwrap();
        assert_eq!(bench.command.as_deref(), Some("bench"));
        assert_eq!(bench.passthrough, ["chat_search", "--sample-size", "10"]);
        let fuzz = parse(&["fuzz", "120", "--offline"]).unwrap();
        assert_eq!(fuzz.fuzz_seconds.as_deref(), Some("120"));
        assert_eq!(fuzz_seconds(fuzz.fuzz_seconds.as_deref()).unwrap(), 120);
        assert_eq!(fuzz_seconds(None).unwrap(), fuzz::DEFAULT_SECONDS);
        assert_eq!(parse(&[]).unwrap(), Options::default());
        assert_eq!(parse(&["--help"]).unwrap().command.as_deref(), Some("help"));
    }

    #[test]
    fn rejects_bad_arguments() {
        assert!(parse(&["--bogus"]).is_err());
        assert!(parse(&["ci", "extra"]).is_err());
        assert!(parse(&["layering", "--manifest-path"]).is_err());
        assert!(parse(&["ci", "--", "x"]).is_err());
        assert!(parse(&["fuzz", "1", "2"]).is_err());
        assert!(fuzz_seconds(Some("0")).is_err());
        assert!(fuzz_seconds(Some("ten")).is_err());
    }

    #[test]
    fn default_manifest_is_this_workspace() {
        let manifest = workspace_manifest(None);
        assert!(manifest.ends_with("Cargo.toml"));
        assert!(manifest.parent().unwrap().join("xtask").is_dir());
    }
}
