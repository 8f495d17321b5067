//! `tavern-agent`: the command-line host. It parses arguments, wires adapters to the
//! runtime and renders what comes back; no business rule lives here.

mod cli;
mod commands;
mod exit;
mod input;
mod render;
mod wiring;

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use crate::exit::{Exit, Failed, codes};

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    let json = wants_json(&args);
    let cli = match cli::Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(error) => return clap_failure(&error, json),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            let failed = Failed::new(
                Exit::Failure,
                codes::STARTUP_FAILED,
                format!("cannot start the async runtime: {err}"),
            );
            failed.print(json);
            return failed.exit.into();
        }
    };
    match runtime.block_on(commands::dispatch(cli)) {
        Ok(exit) => exit.into(),
        Err(failed) => {
            failed.print(json);
            failed.exit.into()
        }
    }
}

/// Whether the command line asks for JSON output: a `--json` flag before any `--`. Read
/// from the raw arguments so that even arguments clap refuses get a JSON error.
fn wants_json(args: &[OsString]) -> bool {
    args.iter()
        .skip(1)
        .take_while(|arg| *arg != "--")
        .any(|arg| arg == "--json")
}

/// Help and version go to stdout with status 0, as clap prints them. Anything else clap
/// refuses is a usage error (status 2) with the code `cli.usage`: clap's own text, then
/// its usage lines and hint in plain mode (with `--json`, the message only).
fn clap_failure(error: &clap::Error, json: bool) -> ExitCode {
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let _ = error.print();
        return Exit::Ok.into();
    }
    let rendered = error.render().to_string();
    let text = rendered
        .strip_prefix("error: ")
        .unwrap_or(&rendered)
        .trim_end();
    // What is wrong comes first; after a blank line, the usage lines and the hint, which
    // are for people only.
    let (message, usage) = text.split_once("\n\n").unwrap_or((text, ""));
    Failed::new(Exit::Usage, codes::USAGE, message).print(json);
    if !json && !usage.is_empty() {
        let _ = writeln!(std::io::stderr().lock(), "\n{usage}");
    }
    Exit::Usage.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn json_is_asked_by_a_flag_before_the_separator() {
        assert!(wants_json(&args(&["ta", "runs", "show", "x", "--json"])));
        assert!(!wants_json(&args(&[
            "ta", "runs", "file", "x", "--", "--json"
        ])));
        assert!(!wants_json(&args(&["--json", "runs", "list"])));
    }
}
