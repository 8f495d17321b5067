//! `tavern-agent`: the command-line host. It parses arguments, wires adapters to the
//! runtime and renders what comes back; no business rule lives here.

use std::process::ExitCode;

use agent_domain::tool::{ToolDescriptor, builtin_catalog};
use clap::{Parser, Subcommand};

/// Run TauriTavern-style agents on SillyTavern chats from the terminal.
#[derive(Debug, Parser)]
#[command(name = "tavern-agent", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Inspect the tools an agent can be given.
    Tools {
        #[command(subcommand)]
        command: ToolsCommand,
    },
}

#[derive(Debug, Subcommand)]
enum ToolsCommand {
    /// List the builtin tools with their canonical ids and model aliases.
    List {
        /// Print JSON (one array of descriptors) instead of a table.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Tools {
            command: ToolsCommand::List { json },
        } => {
            let catalog = builtin_catalog()?;
            let descriptors: Vec<&ToolDescriptor> = catalog.iter().collect();
            if json {
                println!("{}", serde_json::to_string_pretty(&descriptors)?);
            } else {
                for d in descriptors {
                    println!("{:<40} {}", d.id, d.title);
                }
            }
            Ok(())
        }
    }
}
