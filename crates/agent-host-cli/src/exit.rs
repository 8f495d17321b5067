//! Exit statuses (`docs/cli.md`) and the error type that carries one out of a command.

use std::fmt;
use std::process::ExitCode;

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
    /// `run_cancelled` (Ctrl-C).
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

/// A command that did not succeed: what to say and which status to exit with.
#[derive(Debug)]
pub struct Failed {
    pub exit: Exit,
    pub error: anyhow::Error,
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#}", self.error)
    }
}

/// What every command returns.
pub type CmdResult<T = Exit> = Result<T, Failed>;

/// Builds a [`Failed`] with a message.
pub fn fail(exit: Exit, message: impl fmt::Display) -> Failed {
    Failed {
        exit,
        error: anyhow::anyhow!("{message}"),
    }
}

/// Attaches an exit status to any error.
pub trait OrExit<T> {
    /// Bad arguments, configuration, or a missing object: exit 2.
    fn or_usage(self) -> CmdResult<T>;
    /// Anything else: exit 1.
    fn or_failure(self) -> CmdResult<T>;
}

impl<T, E: Into<anyhow::Error>> OrExit<T> for Result<T, E> {
    fn or_usage(self) -> CmdResult<T> {
        self.map_err(|error| Failed {
            exit: Exit::Usage,
            error: error.into(),
        })
    }

    fn or_failure(self) -> CmdResult<T> {
        self.map_err(|error| Failed {
            exit: Exit::Failure,
            error: error.into(),
        })
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
