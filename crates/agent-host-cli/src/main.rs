//! `tavern-agent`: the command-line host. It parses arguments, wires adapters to the
//! runtime and renders what comes back; no business rule lives here.

mod cli;
mod commands;
mod exit;
mod render;
mod wiring;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::exit::Exit;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return Exit::Failure.into();
        }
    };
    match runtime.block_on(commands::dispatch(cli)) {
        Ok(exit) => exit.into(),
        Err(failed) => {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "error: {failed}");
            failed.exit.into()
        }
    }
}
