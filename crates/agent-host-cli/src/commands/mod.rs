//! One module per subcommand. Each parses nothing (clap did), asks the services, and
//! renders what they answer.

pub mod chats;
pub mod connections;
pub mod demo;
pub mod doctor;
pub mod mcp;
pub mod model;
pub mod profiles;
pub mod prompt;
pub mod retention;
pub mod run;
pub mod runs;
pub mod serve;
pub mod skills;
pub mod tools;

use agent_infra_fs::chat::ChatLocator;
use agent_infra_fs::layout::DataDir;

use crate::cli::{Cli, Command};
use crate::exit::{CmdResult, OrExit};
use crate::wiring::{Host, data_dir, durability};

/// Runs the parsed command line.
pub async fn dispatch(cli: Cli) -> CmdResult {
    let Cli {
        data_dir: flag,
        durability: policy,
        command,
    } = cli;
    let policy = durability(policy)?;
    if let Command::Demo { multi_agent } = command {
        // The demo brings its own data directory.
        return demo::execute(policy, multi_agent).await;
    }
    let host = Host::open(data_dir(flag)?, policy);
    match command {
        Command::Run(args) => run::execute(&host, args).await,
        Command::Demo { multi_agent } => demo::execute(policy, multi_agent).await,
        Command::Runs { command } => runs::execute(&host, command).await,
        Command::Tools { command } => tools::execute(&host, command).await,
        Command::Profiles { command } => profiles::execute(&host, command).await,
        Command::Connections { command } => connections::execute(&host, command).await,
        Command::Mcp { command } => mcp::execute(&host, command).await,
        Command::Prompt { command } => prompt::execute(&host, command).await,
        Command::Skills { command } => skills::execute(&host, command).await,
        Command::Retention { command } => retention::execute(&host, command).await,
        Command::Chats { command } => chats::execute(&host, command).await,
        Command::Doctor { fix, json } => doctor::execute(&host, fix, json).await,
        Command::Serve(args) => serve::execute(host, args).await,
    }
}

/// Resolves a `--chat` path to the chat it names; a bad path is a usage error.
pub fn resolve_chat(
    data: &DataDir,
    raw: &str,
) -> CmdResult<(agent_domain::event::ChatRef, std::path::PathBuf)> {
    ChatLocator::resolve(data, raw).or_usage()
}
