//! `prompt build`: the prompt snapshot a run on a chat would start from, in the shape
//! `run --prompt-snapshot` reads back, and (on stderr, for people) which world-info entries
//! fired and why. `prompt prepare`: the request the run's first model round would send,
//! from the runtime's [`prepare_request`](agent_application::runtime::AgentRuntime::prepare_request).

use std::io::{self, Write};

use agent_application::prompt::RunLore;
use agent_application::runtime::{PreparedRequest, PreviewPrompt, RunRequest, StartRunError};
use agent_domain::event::Presentation;
use agent_domain::model::AgentModelContentPart;
use serde_json::Value;

use super::resolve_chat;
use super::run::prompt_input;
use crate::cli::PromptCommand;
use crate::exit::{CmdResult, Exit, Failed};
use crate::render::json;
use crate::wiring::Host;

pub async fn execute(host: &Host, command: PromptCommand) -> CmdResult {
    match command {
        PromptCommand::Build {
            chat,
            profile,
            generation_type,
            model,
            scene,
            json,
        } => {
            let preview = PreviewPrompt {
                chat: resolve_chat(&host.storage.data, &chat)?.0,
                profile_id: profile,
                generation_type: generation_type.into(),
                model,
                scene: scene.into(),
            };
            build(host, preview, json).await
        }
        PromptCommand::Prepare {
            chat,
            profile,
            model,
            prompt_snapshot,
            generation_type,
            background,
            scene,
            json,
        } => {
            let (chat, _) = resolve_chat(&host.storage.data, &chat)?;
            let prompt = prompt_input(prompt_snapshot.as_deref())?;
            let chosen = super::model::choose(host, &model, profile.as_deref()).await?;
            let request = RunRequest {
                chat,
                profile_id: profile,
                generation_type: generation_type.into(),
                presentation: background.then_some(Presentation::Background),
                prompt,
                model_label: chosen.run.label,
                model_binding: chosen.run.binding,
                scene: scene.into(),
            };
            let prepared = host
                .runtime
                .prepare_request(request)
                .await
                .map_err(preview_error)?;
            if json {
                json::print_pretty(&prepared)?;
            } else {
                print!("{}", prepared_text(&prepared));
            }
            Ok(Exit::Ok)
        }
    }
}

async fn build(host: &Host, preview: PreviewPrompt, json: bool) -> CmdResult {
    let assembled = host
        .runtime
        .preview_prompt(preview)
        .await
        .map_err(preview_error)?;
    if json {
        json::print_compact(&assembled.snapshot.raw)?;
    } else {
        json::print_pretty(&assembled.snapshot.raw)?;
        let mut err = io::stderr().lock();
        let _ = err.write_all(world_info_text(assembled.lore.as_ref()).as_bytes());
    }
    Ok(Exit::Ok)
}

/// The prepared request for people: who and what, the model, the tools, then every
/// message in full.
fn prepared_text(prepared: &PreparedRequest) -> String {
    let binding = &prepared.binding;
    let request = &prepared.request;
    let mut out = format!(
        "profile      {} ({}, {}, {} chat message{} read)\n",
        prepared.profile_id,
        json::name_of(&prepared.presentation),
        prepared.generation_type.as_str(),
        prepared.input_message_count,
        if prepared.input_message_count == 1 {
            ""
        } else {
            "s"
        },
    );
    out.push_str(&format!(
        "model        {}{} · {} · {}\n",
        json::name_of(&binding.mode),
        binding
            .connection
            .as_deref()
            .map(|name| format!(" {name}"))
            .unwrap_or_default(),
        binding.provider_format.as_deref().unwrap_or("-"),
        binding.model_id.as_deref().unwrap_or("-"),
    ));
    out.push_str(&format!(
        "tool choice  {}\n",
        serde_json::to_string(&request.tool_choice).unwrap_or_default()
    ));
    out.push_str(&format!("tools        {}\n", request.tools.len()));
    let width = |text: &str| text.chars().count();
    let alias_width = request
        .tools
        .iter()
        .map(|t| width(&t.alias))
        .max()
        .unwrap_or(0);
    let ids: Vec<String> = request
        .tools
        .iter()
        .map(|t| t.tool_id.to_string())
        .collect();
    let id_width = ids.iter().map(|id| width(id)).max().unwrap_or(0);
    for (tool, id) in request.tools.iter().zip(&ids) {
        let summary = tool.description.lines().next().unwrap_or_default();
        out.push_str(&format!(
            "  {:<alias_width$}  {id:<id_width$}  {summary}\n",
            tool.alias
        ));
    }
    for diagnostic in &prepared.snapshot_diagnostics {
        out.push_str(&format!(
            "  left out {}: {}: {}\n",
            diagnostic.tool_id, diagnostic.code, diagnostic.message
        ));
    }
    out.push_str(&format!("messages     {}\n", request.messages.len()));
    for message in request.messages.iter() {
        out.push_str(&format!("--- {}\n", json::name_of(&message.role)));
        for part in &message.parts {
            match part {
                AgentModelContentPart::Text { text } => {
                    out.push_str(text);
                    if !text.ends_with('\n') {
                        out.push('\n');
                    }
                }
                other => out.push_str(&format!("[{}]\n", part_kind(other))),
            }
        }
    }
    out
}

/// The kind of a non-text content part, as its JSON names it.
fn part_kind(part: &AgentModelContentPart) -> String {
    serde_json::to_value(part)
        .ok()
        .and_then(|value| value.get("type").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_else(|| "part".to_owned())
}

/// A refused preview: exit 2 when the chat, profile or data named is unusable (as `run`
/// does), with the error's code first.
fn preview_error(error: StartRunError) -> Failed {
    let exit = match &error {
        StartRunError::Store(_) | StartRunError::Journal(_) => Exit::Failure,
        _ => Exit::Usage,
    };
    Failed::of(exit, &error)
}

/// Which world-info entries fired and why, and which were passed over, for people.
fn world_info_text(lore: Option<&RunLore>) -> String {
    let Some(lore) = lore else {
        return "world info: no lorebook applies to this chat\n".to_owned();
    };
    let activation = &lore.activation;
    let mut out = format!(
        "world info: {} of {} entries fired from {} (budget {} tokens{}, {} pass{})\n",
        activation.activated.len(),
        activation.activated.len() + activation.skipped.len(),
        lore.books.join(", "),
        activation.budget,
        if activation.budget_overflowed {
            ", reached"
        } else {
            ""
        },
        activation.passes,
        if activation.passes == 1 { "" } else { "es" },
    );
    let explanation = lore.explanation();
    for entry in list(&explanation, "activated") {
        out.push_str(&format!(
            "  fired   {} \"{}\" at {}: {}\n",
            text(&entry["ref"]),
            text(&entry["name"]),
            text(&entry["position"]),
            cause(&entry["cause"]),
        ));
    }
    for entry in list(&explanation, "skipped") {
        out.push_str(&format!(
            "  skipped {} \"{}\": {}\n",
            text(&entry["ref"]),
            text(&entry["name"]),
            reason(&entry["reason"]),
        ));
    }
    out
}

fn list<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value[key].as_array().map_or(&[], Vec::as_slice)
}

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "-".to_owned(),
        other => other.to_string(),
    }
}

/// An activation cause in words.
fn cause(cause: &Value) -> String {
    match cause["kind"].as_str() {
        Some("keys") => {
            let mut words = format!("key \"{}\" matched", text(&cause["primary"]));
            if let Some(matched) = cause["secondary"]["matched"].as_array()
                && !matched.is_empty()
            {
                let keys: Vec<String> = matched.iter().map(text).collect();
                words.push_str(&format!(", with {}", keys.join(", ")));
            }
            words
        }
        Some(kind) => kind.to_owned(),
        None => text(cause),
    }
}

/// A skip reason in words.
fn reason(reason: &Value) -> String {
    match reason["kind"].as_str() {
        Some("noKeyMatch") => "no key matched".to_owned(),
        Some("secondaryLogic") => format!(
            "key \"{}\" matched but the secondary keys did not",
            text(&reason["primary"])
        ),
        Some("groupLoser") => format!(
            "another entry of group \"{}\" won ({})",
            text(&reason["group"]),
            text(&reason["rule"])
        ),
        Some("probability") => format!(
            "probability {} not met (rolled {})",
            text(&reason["probability"]),
            text(&reason["roll"])
        ),
        Some("budget") => "the token budget was full".to_owned(),
        Some(kind) => kind.to_owned(),
        None => text(reason),
    }
}
