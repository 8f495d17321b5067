//! `skills list`: the skills of every scope, and every skill that cannot be read.

use agent_application::ports::StoreError;
use agent_application::skills::{SkillCatalog, skill_catalog};

use crate::cli::SkillsCommand;
use crate::exit::{CmdResult, Exit, Failed};
use crate::render::{json, table};
use crate::wiring::Host;

/// The widest description shown in the table.
const DESCRIPTION_WIDTH: usize = 72;

pub async fn execute(host: &Host, command: SkillsCommand) -> CmdResult {
    match command {
        SkillsCommand::List { json } => {
            let catalog = skill_catalog(host.skills().as_ref())
                .await
                .map_err(store_error)?;
            if json {
                json::print_pretty(&catalog)?;
            } else {
                print!("{}", render(&catalog));
            }
        }
    }
    Ok(Exit::Ok)
}

/// The table of skills, then the problems, one per line, each starting with its code.
fn render(catalog: &SkillCatalog) -> String {
    let mut out = String::new();
    if catalog.skills.is_empty() {
        out.push_str("no skills installed\n");
    } else {
        let rows: Vec<Vec<String>> = catalog
            .skills
            .iter()
            .map(|skill| {
                let first_line = skill.description.lines().next().unwrap_or_default();
                let shown = if skill.description.contains('\n') {
                    format!("{first_line}…")
                } else {
                    first_line.to_owned()
                };
                vec![
                    skill.name.clone(),
                    skill.scope.label(),
                    table::truncate(&shown, DESCRIPTION_WIDTH),
                ]
            })
            .collect();
        out.push_str(&table::render(&["NAME", "SCOPE", "DESCRIPTION"], &rows));
    }
    if !catalog.problems.is_empty() {
        let count = catalog.problems.len();
        let noun = if count == 1 { "problem" } else { "problems" };
        out.push_str(&format!("\n{count} {noun}:\n"));
        for problem in &catalog.problems {
            out.push_str(&format!("{problem}\n"));
        }
    }
    out
}

/// The store could not be read at all (exit 1), with its code.
fn store_error(error: StoreError) -> Failed {
    Failed::of(Exit::Failure, &error)
}
