//! `prompt build`: the prompt snapshot a run on a chat would start from, in the shape
//! `run --prompt-snapshot` reads back, and (on stderr, for people) which world-info entries
//! fired and why.

use std::io::{self, Write};

use agent_application::prompt::RunLore;
use agent_application::runtime::{PreviewPrompt, StartRunError};
use serde_json::Value;

use super::resolve_chat;
use crate::cli::PromptCommand;
use crate::exit::{CmdResult, Exit, Failed};
use crate::render::json;
use crate::wiring::Host;

pub async fn execute(host: &Host, command: PromptCommand) -> CmdResult {
    let PromptCommand::Build {
        chat,
        profile,
        generation_type,
        model,
        scene,
        json,
    } = command;
    let (chat, _) = resolve_chat(&host.storage.data, &chat)?;
    let preview = PreviewPrompt {
        chat,
        profile_id: profile,
        generation_type: generation_type.into(),
        model,
        scene: scene.into(),
    };
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
