//! `chats list | delete | orphans`: chats with their agent workspaces, deleting a chat with
//! its workspace, and removing workspaces whose chat is gone. The rules (what belongs to a
//! chat, when a workspace is in use, the order of removal) are `ChatWorkspaces`'s; this
//! module asks for a confirmation and renders (`docs/cli.md`, "chats").

use std::io::{self, BufRead, IsTerminal, Write};

use agent_application::chat_workspaces::{
    ChatDeletion, ChatOverview, ChatWorkspaceError, OrphanOutcome, Outcome, WorkspaceRemoval,
};
use agent_infra_fs::chat::ChatLocator;
use clap::Subcommand;
use serde::Serialize;

use super::resolve_chat;
use crate::exit::{CmdResult, Exit, Failed, OrCode, codes};
use crate::render::{json, table};
use crate::wiring::Host;

/// `tavern-agent chats …`.
#[derive(Debug, Subcommand)]
pub enum ChatsCommand {
    /// List every chat with its agent workspace, run count and disk use.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Delete a chat file and its agent workspace (persistent states, runs, their index
    /// records and summaries).
    #[command(
        after_help = "Exit status: 0 deleted, 1 in use or failed, 2 bad chat, unreadable \
                            header, or no --yes without a terminal."
    )]
    Delete {
        /// The chat: a `.jsonl` path, absolute or relative to `<data-dir>/chats/`.
        chat: String,
        /// Delete without asking (needed when stdin is not a terminal).
        #[arg(long)]
        yes: bool,
        #[arg(long)]
        json: bool,
    },
    /// List agent workspaces whose chat no longer exists; remove them with --delete.
    #[command(
        after_help = "Exit status: 0 when every orphan was removed (or only listed), 1 \
                            when one is in use or failed, 2 without --yes and a terminal."
    )]
    Orphans {
        /// Remove the orphans (each one a process is using is left, and reported).
        #[arg(long)]
        delete: bool,
        /// Remove without asking (needed with --delete when stdin is not a terminal).
        #[arg(long, requires = "delete")]
        yes: bool,
        #[arg(long)]
        json: bool,
    },
}

/// A chat that does not read or is missing is the caller's; anything else is a failure.
fn failed(error: ChatWorkspaceError) -> Failed {
    let exit = match &error {
        ChatWorkspaceError::Chat(_) => Exit::Usage,
        _ => Exit::Failure,
    };
    Failed::of(exit, &error)
}

pub async fn execute(host: &Host, command: ChatsCommand) -> CmdResult {
    let service = host.chat_workspaces();
    match command {
        ChatsCommand::List { json } => {
            let chats = service.list().await.map_err(failed)?;
            if json {
                #[derive(Serialize)]
                struct Listing<'a> {
                    chats: &'a [ChatOverview],
                }
                json::print_pretty(&Listing { chats: &chats })?;
            } else {
                let rows: Vec<Vec<String>> = chats
                    .iter()
                    .map(|chat| {
                        let workspace = match (&chat.workspace_id, &chat.error) {
                            (_, Some(error)) => format!("({})", error.code),
                            (Some(id), None) => id.to_string(),
                            (None, None) => "-".to_owned(),
                        };
                        vec![
                            chat.path.clone(),
                            workspace,
                            chat.runs.to_string(),
                            chat.disk.files.to_string(),
                            chat.disk.bytes.to_string(),
                        ]
                    })
                    .collect();
                print!(
                    "{}",
                    table::render(&["CHAT", "WORKSPACE", "RUNS", "FILES", "BYTES"], &rows)
                );
            }
        }
        ChatsCommand::Delete { chat, yes, json } => {
            let (chat_ref, _) = resolve_chat(&host.storage.data, &chat)?;
            let preview = service.preview_delete(&chat_ref).await.map_err(failed)?;
            show(&deletion_text(&preview), json, yes);
            confirm(yes, "Delete this chat and its agent workspace?")?;
            let deleted = service.delete(&chat_ref).await.map_err(failed)?;
            if json {
                json::print_pretty(&deleted)?;
            } else {
                println!("deleted {}", ChatLocator::arg_of(&deleted.chat));
            }
        }
        ChatsCommand::Orphans { delete, yes, json } => {
            let report = service.orphans().await.map_err(failed)?;
            if !delete {
                if json {
                    json::print_pretty(&report)?;
                } else {
                    print!("{}", orphans_text(&report.orphans));
                    for chat in &report.unreadable_chats {
                        println!(
                            "unreadable chat {}: {}: {}",
                            chat.path, chat.error.code, chat.error.message
                        );
                    }
                }
                return Ok(Exit::Ok);
            }
            if !report.orphans.is_empty() {
                show(&orphans_text(&report.orphans), json, yes);
                confirm(yes, "Remove these workspaces?")?;
            }
            let outcomes = service.delete_orphans().await.map_err(failed)?;
            return print_outcomes(&outcomes, json);
        }
    }
    Ok(Exit::Ok)
}

/// Shows what a deletion will remove: on stdout in plain mode; with `--json`, where stdout
/// is for the result and stderr for errors, only to a person about to be asked.
fn show(text: &str, json: bool, yes: bool) {
    if !json {
        print!("{text}");
    } else if !yes && io::stdin().is_terminal() {
        eprint!("{text}");
    }
}

/// Goes on with `--yes`; on a terminal, asks; otherwise refuses (`cli.confirmation_required`).
fn confirm(yes: bool, question: &str) -> CmdResult<()> {
    if yes {
        return Ok(());
    }
    let stdin = io::stdin();
    if !stdin.is_terminal() {
        return Err(Failed::new(
            Exit::Usage,
            codes::CONFIRMATION_REQUIRED,
            "stdin is not a terminal, so nothing can be confirmed: pass --yes to delete",
        ));
    }
    eprint!("{question} [y/N] ");
    io::stderr()
        .flush()
        .or_code(Exit::Failure, codes::OUTPUT_FAILED)?;
    let mut answer = String::new();
    stdin
        .lock()
        .read_line(&mut answer)
        .or_code(Exit::Failure, codes::CONFIRMATION_REQUIRED)?;
    if matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes") {
        Ok(())
    } else {
        Err(Failed::new(
            Exit::Failure,
            codes::NOT_CONFIRMED,
            "not confirmed; nothing was deleted",
        ))
    }
}

fn print_outcomes(outcomes: &[OrphanOutcome], json: bool) -> CmdResult {
    #[derive(Serialize)]
    struct Report<'a> {
        outcomes: &'a [OrphanOutcome],
    }
    if json {
        json::print_pretty(&Report { outcomes })?;
    } else if outcomes.is_empty() {
        println!("no orphaned workspaces");
    } else {
        for outcome in outcomes {
            let id = &outcome.workspace.workspace_id;
            match &outcome.error {
                None => println!("{id}: deleted"),
                Some(error) => println!(
                    "{id}: {}: {}: {}",
                    json::name_of(&outcome.outcome),
                    error.code,
                    error.message
                ),
            }
        }
    }
    let all_deleted = outcomes.iter().all(|o| o.outcome == Outcome::Deleted);
    Ok(if all_deleted { Exit::Ok } else { Exit::Failure })
}

/// What one workspace holds, on one line.
fn removal_line(workspace: &WorkspaceRemoval) -> String {
    let folder = if workspace.folder { "" } else { " (no folder)" };
    format!(
        "{}{folder}: {} runs, {} persistent states, {} files, {} bytes",
        workspace.workspace_id,
        workspace.runs.len(),
        workspace.persistent_states,
        workspace.disk.files,
        workspace.disk.bytes
    )
}

fn deletion_text(deletion: &ChatDeletion) -> String {
    let mut out = format!("chat:      {}\n", ChatLocator::arg_of(&deletion.chat));
    match (&deletion.stable_chat_id, &deletion.workspace) {
        (Some(id), Some(workspace)) => {
            out.push_str(&format!("stable id: {id}\n"));
            out.push_str(&format!("workspace: {}\n", removal_line(workspace)));
            for run in &workspace.runs {
                out.push_str(&format!("  run {run}\n"));
            }
        }
        (Some(id), None) => {
            out.push_str(&format!("stable id: {id}\n"));
            out.push_str(&format!(
                "workspace: kept: {} {} the same stable id\n",
                deletion.sharing_chats.join(", "),
                if deletion.sharing_chats.len() == 1 {
                    "has"
                } else {
                    "have"
                }
            ));
        }
        (None, _) => {
            out.push_str("workspace: none (the chat has no stable id: no run ever used it)\n")
        }
    }
    out
}

fn orphans_text(orphans: &[WorkspaceRemoval]) -> String {
    if orphans.is_empty() {
        return "no orphaned workspaces\n".to_owned();
    }
    let mut out = String::new();
    for orphan in orphans {
        out.push_str(&removal_line(orphan));
        if let Some(run) = orphan.busy_runs.first() {
            out.push_str(&format!(" (in use: run {run})"));
        }
        out.push('\n');
    }
    out
}
