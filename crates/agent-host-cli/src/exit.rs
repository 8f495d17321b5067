//! Exit statuses (`docs/cli.md`) and the error type that carries one out of a command,
//! with the stable `namespace.code` every printed error starts with.

use std::error::Error;
use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

use agent_domain::ErrorCode;
use agent_domain::event::RunStatus;

/// The exit statuses of `tavern-agent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Success; for `run`, `run_completed`.
    Ok,
    /// A subcommand other than `run` failed.
    Failure,
    /// Bad arguments or configuration, or a missing object; `run` created no run.
    Usage,
    /// `run_partial_success`: committed output stays in the chat, but the run failed later.
    PartialSuccess,
    /// `run_failed`.
    RunFailed,
    /// `run_cancelled` (Ctrl-C, SIGTERM or SIGHUP).
    Cancelled,
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Self::Ok => 0,
            Self::Failure => 1,
            Self::Usage => 2,
            Self::PartialSuccess => 3,
            Self::RunFailed => 4,
            Self::Cancelled => 130,
        }
    }

    /// The status `run` and `demo` exit with once the run ended in `status`.
    pub fn of_run(status: RunStatus) -> Self {
        match status {
            RunStatus::Completed => Self::Ok,
            RunStatus::PartialSuccess => Self::PartialSuccess,
            RunStatus::Cancelled => Self::Cancelled,
            _ => Self::RunFailed,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(exit.code())
    }
}

/// The codes of failures that belong to the command line itself rather than to a
/// library (`docs/cli.md`, "Errors").
pub mod codes {
    /// clap refused the arguments (unknown flag, missing value, conflicting flags).
    pub const USAGE: &str = "cli.usage";
    /// No data directory was given and the platform has none.
    pub const DATA_DIR_MISSING: &str = "cli.data_dir_missing";
    /// The profile takes its model from the caller and neither `--script` nor
    /// `--connection` was given.
    pub const MODEL_REQUIRED: &str = "cli.model_required";
    /// Writing the result to stdout failed (a closed pipe, a full disk).
    pub const OUTPUT_FAILED: &str = "cli.output_failed";
    /// The process could not set up its async runtime or signal handlers.
    pub const STARTUP_FAILED: &str = "cli.startup_failed";
    /// The automatic prune after a run took longer than its budget (a warning only).
    pub const AUTO_PRUNE_TIMEOUT: &str = "cli.auto_prune_timeout";
    /// A deletion needs `--yes`: stdin is not a terminal to ask on.
    pub const CONFIRMATION_REQUIRED: &str = "cli.confirmation_required";
    /// The person asked to confirm a deletion did not.
    pub const NOT_CONFIRMED: &str = "cli.not_confirmed";
    /// A second Ctrl-C (or SIGTERM, SIGHUP) stopped the command before its run ended.
    pub const INTERRUPTED: &str = "cli.interrupted";
}

/// A command that did not succeed: the status to exit with, the error's stable
/// `namespace.code`, and what to say.
#[derive(Debug)]
pub struct Failed {
    pub exit: Exit,
    pub code: &'static str,
    pub message: String,
}

impl Failed {
    /// A failure with its code and message.
    pub fn new(exit: Exit, code: &'static str, message: impl fmt::Display) -> Self {
        Self {
            exit,
            code,
            message: message.to_string(),
        }
    }

    /// The failure an error reports: its own code, and its message with its causes.
    pub fn of<E: ErrorCode + Error + ?Sized>(exit: Exit, error: &E) -> Self {
        Self::new(exit, error.code(), chain_text(error))
    }

    /// Prints the failure on stderr: `error: <code>: <message>`, or with `json` one
    /// compact object `{"code", "message"}` on one line.
    pub fn print(&self, json: bool) {
        print_error(json, self.code, &self.message);
    }
}

/// Prints an error line on stderr, in the shape every error of the binary has (see
/// [`Failed::print`]). A message that already starts with its code does not repeat it.
pub fn print_error(json: bool, code: &str, message: &str) {
    let message = message
        .strip_prefix(code)
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(message);
    let line = if json {
        serde_json::json!({"code": code, "message": message}).to_string()
    } else {
        format!("error: {code}: {message}")
    };
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// An error's message followed by those of its causes, leaving out a cause whose text the
/// message already holds (many errors print their source inside their own message).
fn chain_text(error: &(impl Error + ?Sized)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let part = cause.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = cause.source();
    }
    text
}

/// What every command returns.
pub type CmdResult<T = Exit> = Result<T, Failed>;

/// Attaches an exit status to an error that carries its own code.
pub trait OrExit<T> {
    /// Bad arguments, configuration, or a missing object: exit 2.
    fn or_usage(self) -> CmdResult<T>;
    /// Anything else: exit 1.
    fn or_failure(self) -> CmdResult<T>;
}

impl<T, E: ErrorCode + Error> OrExit<T> for Result<T, E> {
    fn or_usage(self) -> CmdResult<T> {
        self.map_err(|error| Failed::of(Exit::Usage, &error))
    }

    fn or_failure(self) -> CmdResult<T> {
        self.map_err(|error| Failed::of(Exit::Failure, &error))
    }
}

/// Attaches an exit status and a code to an error that has no code of its own (an I/O or
/// JSON error of the host itself).
pub trait OrCode<T> {
    fn or_code(self, exit: Exit, code: &'static str) -> CmdResult<T>;
}

impl<T, E: fmt::Display> OrCode<T> for Result<T, E> {
    fn or_code(self, exit: Exit, code: &'static str) -> CmdResult<T> {
        self.map_err(|error| Failed::new(exit, code, error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_statuses_map_to_the_contract() {
        assert_eq!(Exit::of_run(RunStatus::Completed).code(), 0);
        assert_eq!(Exit::of_run(RunStatus::PartialSuccess).code(), 3);
        assert_eq!(Exit::of_run(RunStatus::Failed).code(), 4);
        assert_eq!(Exit::of_run(RunStatus::Cancelled).code(), 130);
        assert_eq!(Exit::Usage.code(), 2);
        assert_eq!(Exit::Failure.code(), 1);
    }
}
