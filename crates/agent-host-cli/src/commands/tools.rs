//! `tools list`.

use agent_domain::tool::{BuiltinTool, ToolDescriptor};

use crate::cli::ToolsCommand;
use crate::exit::{CmdResult, Exit};
use crate::render::{json, table};
use crate::wiring::Host;

pub fn execute(host: &Host, command: ToolsCommand) -> CmdResult {
    match command {
        ToolsCommand::List { json } => {
            let tools: Vec<ToolDescriptor> = host.runtime.tools_list();
            if json {
                json::print_pretty(&tools)?;
            } else {
                let rows: Vec<Vec<String>> = tools
                    .iter()
                    .map(|tool| {
                        vec![
                            tool.id.to_string(),
                            BuiltinTool::from_id(&tool.id)
                                .map(BuiltinTool::model_alias)
                                .unwrap_or_default(),
                            tool.title.clone(),
                        ]
                    })
                    .collect();
                print!("{}", table::render(&["ID", "ALIAS", "TITLE"], &rows));
            }
            Ok(Exit::Ok)
        }
    }
}
