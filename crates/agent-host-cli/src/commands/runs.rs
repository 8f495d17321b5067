//! `runs list | events | show | file | turn | cancel | rollback`: reading and changing runs
//! through the runtime's Host ABI calls.

use std::io::{self, Write};

use agent_application::ports::{
    EventQuery, JournalError, RunCursor, RunListQuery, RunStore, StoreError,
};
use agent_application::runtime::{Guidance, ModelTurnView, RuntimeError};
use agent_domain::event::{ChatRef, JournalLine, RunRolledBackPayload};
use agent_domain::model::TokenUsage;
use agent_domain::run::{
    AgentInvocation, AgentRun, AgentTaskRecord, InvocationId, RunId, RunSummary, SlimmedRun,
};
use agent_domain::workspace::WorkspacePath;
use futures::StreamExt;
use serde_json::json;

use super::resolve_chat;
use crate::cli::RunsCommand;
use crate::exit::{CmdResult, Exit, Failed, OrCode, OrExit, codes};
use crate::render::{json, table};
use crate::wiring::Host;

pub async fn execute(host: &Host, command: RunsCommand) -> CmdResult {
    match command {
        RunsCommand::List {
            chat,
            status,
            limit,
            before,
            json,
        } => {
            let chat_ref = match chat {
                Some(raw) => Some(resolve_chat(&host.storage.data, &raw)?.0),
                None => None,
            };
            let before = match before {
                Some(raw) => Some(cursor_of(host, &raw).await?),
                None => None,
            };
            let query = RunListQuery {
                chat_ref,
                statuses: status.into_iter().map(Into::into).collect(),
                limit,
                before,
                ..RunListQuery::default()
            };
            let page = host.runtime.list_runs(&query).await.map_err(runtime)?;
            let next = page.next.as_ref().map(|cursor| cursor.run_id.to_string());
            if json {
                json::print_pretty(&serde_json::json!({"runs": page.runs, "next": next}))?;
            } else {
                print!("{}", runs_table(&page.runs));
                if let Some(next) = next {
                    println!("more: runs list --before {next}");
                }
            }
            Ok(Exit::Ok)
        }
        RunsCommand::Events {
            run_id,
            before_seq,
            after_seq,
            limit,
            follow,
            invocation,
            json,
        } => {
            let run = run_id_arg(&run_id)?;
            let invocation_id = invocation
                .as_deref()
                .map(InvocationId::parse)
                .transpose()
                .or_usage()?;
            let query = EventQuery {
                before_seq,
                after_seq,
                limit,
                invocation_id,
            };
            events(host, &run, query, follow, json).await
        }
        RunsCommand::Show { run_id, json } => {
            let run = run_id_arg(&run_id)?;
            let summary = host.runtime.run_summary(&run).await.map_err(runtime)?;
            let invocations = host.runtime.list_invocations(&run).await.map_err(runtime)?;
            let tasks = host.runtime.list_tasks(&run).await.map_err(runtime)?;
            if json {
                let mut shown =
                    serde_json::to_value(&summary).or_code(Exit::Failure, codes::OUTPUT_FAILED)?;
                shown["invocations"] = json!(invocations);
                shown["tasks"] = json!(tasks);
                json::print_pretty(&shown)?;
            } else {
                print!("{}", summary_text(&summary));
                print!("{}", agents_text(&invocations, &tasks));
            }
            Ok(Exit::Ok)
        }
        RunsCommand::File {
            run_id,
            path,
            at_seq,
            json,
        } => {
            let run = run_id_arg(&run_id)?;
            let path = WorkspacePath::parse(&path).or_usage()?;
            known(host, &run).await?;
            let (file, at) = match at_seq {
                None => {
                    let file = host.runtime.read_workspace_file(&run, &path).await;
                    (file.map_err(runtime)?, None)
                }
                Some(seq) => {
                    let read = host.runtime.read_workspace_file_at(&run, &path, seq).await;
                    let read = read.map_err(runtime)?;
                    let at = (seq, read.checkpoint_id, read.checkpoint_event_seq);
                    (read.file, Some(at))
                }
            };
            if json {
                let mut record = json!({
                    "runId": run.as_str(),
                    "path": path,
                    "text": file.text,
                    "sha256": file.sha256,
                    "bytes": file.bytes,
                });
                if let Some((seq, checkpoint_id, checkpoint_event_seq)) = at {
                    record["atSeq"] = json!(seq);
                    record["checkpointId"] = json!(checkpoint_id);
                    record["checkpointEventSeq"] = json!(checkpoint_event_seq);
                }
                json::print_pretty(&record)?;
            } else {
                let mut out = io::stdout().lock();
                out.write_all(file.text.as_bytes())
                    .and_then(|()| out.flush())
                    .or_code(Exit::Failure, codes::OUTPUT_FAILED)?;
            }
            Ok(Exit::Ok)
        }
        RunsCommand::Turn {
            run_id,
            round,
            invocation,
            json,
        } => {
            let run = run_id_arg(&run_id)?;
            let invocation = invocation
                .as_deref()
                .map(InvocationId::parse)
                .transpose()
                .or_usage()?;
            known(host, &run).await?;
            let view = host
                .runtime
                .read_model_turn(&run, invocation.as_ref(), round)
                .await
                .map_err(runtime)?;
            if json {
                json::print_pretty(&view)?;
            } else {
                print!("{}", turn_text(&view));
            }
            Ok(Exit::Ok)
        }
        RunsCommand::Cancel { run_id, json } => {
            let run = run_id_arg(&run_id)?;
            let status = host.runtime.cancel(&run).await.map_err(runtime)?;
            if json {
                json::print_compact(&json!({"runId": run.as_str(), "status": status}))?;
            } else {
                println!("{run}: {}", status.as_str());
            }
            Ok(Exit::Ok)
        }
        RunsCommand::Guide {
            run_id,
            text,
            client_id,
            json,
        } => {
            let run = run_id_arg(&run_id)?;
            let guidance = Guidance {
                text,
                client_guidance_id: client_id,
            };
            let receipt = host.runtime.guide(&run, guidance).await.map_err(runtime)?;
            if json {
                json::print_compact(&receipt)?;
            } else {
                println!("{run}: guidance {} pending", receipt.guidance_id);
            }
            Ok(Exit::Ok)
        }
        RunsCommand::Rollback { run_id, json } => {
            let run = run_id_arg(&run_id)?;
            let undone = host.runtime.rollback_run(&run).await.map_err(runtime)?;
            if json {
                json::print_compact(&undone)?;
            } else {
                print!("{}", rollback_text(&run, &undone));
            }
            Ok(Exit::Ok)
        }
    }
}

/// What a rollback changed, one line per message.
fn rollback_text(run: &RunId, undone: &RunRolledBackPayload) -> String {
    let mut out = format!("{run}: rolled back\n");
    for index in &undone.deleted_messages {
        out.push_str(&format!("- message {index}: deleted\n"));
    }
    for swipe in &undone.removed_swipes {
        let restored = if undone.restored_messages.contains(&swipe.message_index) {
            ", the message is as it was before the run"
        } else {
            ""
        };
        out.push_str(&format!(
            "- message {}: swipe {} removed{restored}\n",
            swipe.message_index, swipe.swipe_id
        ));
    }
    for key in &undone.restored_metadata {
        out.push_str(&format!(
            "- chat_metadata.{key}: as it was before the run
"
        ));
    }
    out
}

/// `runs events`: one page, or (with `--follow`) everything after `--after-seq` and then
/// new events until the run's terminal event.
async fn events(
    host: &Host,
    run: &RunId,
    query: EventQuery,
    follow: bool,
    json: bool,
) -> CmdResult {
    let mut out = io::stdout().lock();
    let mut print = |line: &JournalLine| -> CmdResult<()> {
        if json {
            json::write_line(&mut out, line)
        } else {
            writeln!(out, "{}", event_text(line))
        }
        .or_code(Exit::Failure, codes::OUTPUT_FAILED)
    };
    if !follow {
        let lines = host
            .runtime
            .read_events(run, &query)
            .await
            .map_err(runtime)?;
        for line in &lines {
            print(line)?;
        }
        // Not part of the journal: said on stderr so stdout stays the events alone.
        if let Ok(Some(summary)) = host.storage.runs.load_run_summary(run).await
            && let Some(slimmed) = &summary.slimmed
        {
            let _ = writeln!(
                io::stderr().lock(),
                "note: run {run} was slimmed {}",
                slimmed_note(slimmed)
            );
        }
        return Ok(Exit::Ok);
    }
    known(host, run).await?;
    let mut stream = host
        .storage
        .journal
        .follow(run, query.after_seq.unwrap_or(0))
        .await
        .or_failure()?;
    while let Some(line) = stream.next().await {
        let line = line.or_failure()?;
        let shown = query
            .invocation_id
            .as_ref()
            .is_none_or(|invocation| line.event.belongs_to(invocation.as_str()));
        if shown {
            print(&line)?;
        }
    }
    Ok(Exit::Ok)
}

/// Fails with exit 2 when the run does not exist (some reads would report a missing run
/// as a storage fault).
async fn known(host: &Host, run: &RunId) -> CmdResult<()> {
    host.runtime.load_run(run).await.map_err(runtime)?;
    Ok(())
}

/// A run id from the command line; a malformed one is a usage error.
/// The cursor `--before RUN_ID` names: the position of that run in the listing. A run id
/// that names no run is `agent.run_history_cursor_invalid`.
async fn cursor_of(host: &Host, raw: &str) -> CmdResult<RunCursor> {
    let invalid = |detail: String| {
        Failed::new(
            Exit::Usage,
            "agent.run_history_cursor_invalid",
            format!("--before {raw}: {detail}"),
        )
    };
    let id = RunId::parse(raw).map_err(|err| invalid(err.to_string()))?;
    let run = host
        .runtime
        .load_run(&id)
        .await
        .map_err(|err| invalid(err.to_string()))?;
    Ok(RunCursor {
        created_at: run.created_at,
        run_id: run.id,
    })
}

pub fn run_id_arg(raw: &str) -> CmdResult<RunId> {
    RunId::parse(raw).or_usage()
}

/// A runtime error: exit 2 when the request named something that does not exist or was
/// malformed, 1 when the storage failed.
pub fn runtime(error: RuntimeError) -> Failed {
    let caller_mistake = match &error {
        RuntimeError::Store(error) => {
            matches!(error, StoreError::NotFound(_) | StoreError::Invalid { .. })
        }
        RuntimeError::Journal(error) => matches!(
            error,
            JournalError::NotFound(_) | JournalError::InvalidQuery { .. }
        ),
        RuntimeError::Workspace(error) => !error.is_fatal(),
        RuntimeError::PathNotReadable(_)
        | RuntimeError::FileNotWrittenYet { .. }
        | RuntimeError::CheckpointsPruned { .. } => true,
        _ => false,
    };
    let exit = if caller_mistake {
        Exit::Usage
    } else {
        Exit::Failure
    };
    Failed::of(exit, &error)
}

fn runs_table(runs: &[AgentRun]) -> String {
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|run| {
            vec![
                run.id.to_string(),
                run.status.as_str().to_owned(),
                run.created_at.clone(),
                run.profile_id.clone().unwrap_or_else(|| "-".to_owned()),
                chat_label(&run.chat_ref),
            ]
        })
        .collect();
    table::render(&["RUN", "STATUS", "CREATED", "PROFILE", "CHAT"], &rows)
}

/// `Alice/chat.jsonl` or `group chats/<id>.jsonl`.
pub fn chat_label(chat: &ChatRef) -> String {
    match chat {
        ChatRef::Character {
            character_id,
            file_name,
        } => format!("{character_id}/{file_name}.jsonl"),
        ChatRef::Group { chat_id } => format!("group chats/{chat_id}.jsonl"),
        other => format!("{other:?}"),
    }
}

fn summary_text(s: &RunSummary) -> String {
    let mut rows: Vec<(&str, String)> = vec![
        ("run", s.run_id.to_string()),
        ("status", s.status.as_str().to_owned()),
        ("chat", chat_label(&s.chat_ref)),
        (
            "profile",
            s.profile_id.clone().unwrap_or_else(|| "-".to_owned()),
        ),
        (
            "generation",
            format!("{:?}", s.generation_type).to_lowercase(),
        ),
        (
            "presentation",
            format!("{:?}", s.presentation).to_lowercase(),
        ),
        ("created", s.created_at.clone()),
        ("updated", s.updated_at.clone()),
        ("rounds", s.model_rounds.to_string()),
        ("tool calls", s.tool_calls.to_string()),
        ("commits", s.commit_count.to_string()),
    ];
    if let Some(usage) = &s.usage {
        rows.push(("tokens", token_line(usage)));
    }
    if let Some(message) = &s.message_id {
        let index = s
            .message_index
            .map(|i| format!(" (index {i})"))
            .unwrap_or_default();
        rows.push(("message", format!("{message}{index}")));
    }
    if let Some(terminal) = &s.terminal {
        rows.push((
            "ended",
            format!(
                "{} (seq {}) at {}",
                terminal.event_type, terminal.seq, terminal.timestamp
            ),
        ));
    }
    if let Some(error) = &s.error {
        rows.push(("error", format!("{}: {}", error.code, error.message)));
    }
    rows.push(("workspace", s.workspace_id.to_string()));
    if let Some(slimmed) = &s.slimmed {
        rows.push(("slimmed", slimmed_note(slimmed)));
    }
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{k:<width$}  {v}\n"))
        .collect()
}

/// What retention removed from a slimmed run, and what is left to read.
fn slimmed_note(slimmed: &SlimmedRun) -> String {
    format!(
        "at {} by retention: {} files ({} bytes) removed; the journal, record and summary remain",
        slimmed.at, slimmed.removed_files, slimmed.removed_bytes
    )
}

/// The run's invocations and, when it delegated or handed off, its tasks.
fn agents_text(invocations: &[AgentInvocation], tasks: &[AgentTaskRecord]) -> String {
    let mut out = String::new();
    if invocations.len() > 1 || !tasks.is_empty() {
        let rows: Vec<Vec<String>> = invocations
            .iter()
            .map(|inv| {
                vec![
                    inv.id.to_string(),
                    format!("{:?}", inv.kind).to_lowercase(),
                    inv.profile_id.clone(),
                    format!("{:?}", inv.status).to_lowercase(),
                    inv.parent_invocation_id
                        .as_ref()
                        .map_or_else(|| "-".to_owned(), ToString::to_string),
                ]
            })
            .collect();
        out.push_str("\ninvocations\n");
        out.push_str(&table::render(
            &["ID", "KIND", "PROFILE", "STATUS", "PARENT"],
            &rows,
        ));
    }
    if !tasks.is_empty() {
        let rows: Vec<Vec<String>> = tasks
            .iter()
            .map(|task| {
                vec![
                    task.id.to_string(),
                    task.target_profile_id.clone(),
                    format!("{:?}", task.status).to_lowercase(),
                    task.error.clone().unwrap_or_default(),
                ]
            })
            .collect();
        out.push_str("\ntasks\n");
        out.push_str(&table::render(&["ID", "AGENT", "STATUS", "ERROR"], &rows));
    }
    out
}

/// `12000 in (10000 cached) · 800 out (300 reasoning)`: what the provider reported.
fn token_line(usage: &TokenUsage) -> String {
    let part = |total: u64, label: &str, detail: Option<(u64, &str)>| match detail {
        Some((n, what)) => format!("{total} {label} ({n} {what})"),
        None => format!("{total} {label}"),
    };
    format!(
        "{} · {}",
        part(
            usage.input_tokens,
            "in",
            usage.cached_input_tokens.map(|n| (n, "cached"))
        ),
        part(
            usage.output_tokens,
            "out",
            usage.reasoning_tokens.map(|n| (n, "reasoning"))
        ),
    )
}

/// `seq  time  level  type  payload` on one line.
fn event_text(line: &JournalLine) -> String {
    let payload = serde_json::to_value(&line.event)
        .ok()
        .and_then(|mut value| value.get_mut("payload").map(std::mem::take))
        .filter(|payload| !payload.is_null())
        .map(|payload| table::truncate(&payload.to_string(), 160))
        .unwrap_or_default();
    let level = json::name_of(&line.level);
    format!(
        "{:>5}  {}  {:<5}  {:<28}  {payload}",
        line.seq,
        line.timestamp,
        level,
        line.event_type()
    )
    .trim_end()
    .to_owned()
}

/// A model turn for people: the model, its text, its reasoning preview, its tool calls.
fn turn_text(view: &ModelTurnView) -> String {
    let mut out = format!(
        "run {} · {} · round {} · finish: {}\n",
        view.run_id, view.invocation_id, view.round, view.finish_reason
    );
    if let Some(model) = &view.model {
        out.push_str(&format!("model: {model}\n"));
    }
    if let Some(reasoning) = &view.reasoning {
        let more = if reasoning.truncated { "…" } else { "" };
        out.push_str(&format!(
            "reasoning ({} chars): {}{more}\n",
            reasoning.chars, reasoning.preview
        ));
    }
    if !view.assistant_text.is_empty() {
        out.push_str(&format!("text:\n{}\n", view.assistant_text.trim_end()));
    }
    for call in &view.tool_calls {
        out.push_str(&format!(
            "tool call {} {} ({}) {}\n",
            call.call_id, call.tool_id, call.alias, call.arguments_preview
        ));
    }
    out
}
