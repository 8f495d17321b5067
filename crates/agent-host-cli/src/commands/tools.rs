//! `tools list`: the builtin tools, then the cached MCP tools a profile could be given.

use agent_domain::tool::{BuiltinTool, ToolDescriptor};

use crate::cli::ToolsCommand;
use crate::exit::{CmdResult, Exit, Failed};
use crate::render::{json, table};
use crate::wiring::Host;

pub async fn execute(host: &Host, command: ToolsCommand) -> CmdResult {
    match command {
        ToolsCommand::List { json } => {
            let mut tools: Vec<(String, ToolDescriptor)> = host
                .runtime
                .tools_list()
                .into_iter()
                .map(|tool| {
                    let alias = BuiltinTool::from_id(&tool.id)
                        .map(BuiltinTool::model_alias)
                        .unwrap_or_default();
                    (alias, tool)
                })
                .collect();
            // Reading the registry is the only way this fails: a storage fault.
            let mcp = host
                .mcp()
                .usable_tools()
                .await
                .map_err(|error| Failed::of(Exit::Failure, &error))?;
            tools.extend(mcp);
            if json {
                let descriptors: Vec<&ToolDescriptor> = tools.iter().map(|(_, t)| t).collect();
                json::print_pretty(&descriptors)?;
            } else {
                let rows: Vec<Vec<String>> = tools
                    .iter()
                    .map(|(alias, tool)| {
                        vec![tool.id.to_string(), alias.clone(), tool.title.clone()]
                    })
                    .collect();
                print!("{}", table::render(&["ID", "ALIAS", "TITLE"], &rows));
            }
            Ok(Exit::Ok)
        }
    }
}
