//! `prompt build`: the prompt snapshot a run on a chat would start from, in the shape
//! `run --prompt-snapshot` reads back.

use std::sync::Arc;

use agent_application::ports::{CharacterCards, ChatError, ChatStore};
use agent_application::prompt::{PromptError, PromptPorts, assemble_prompt};
use agent_domain::run::{GenerationType, input_message_count};

use super::profiles::profile_error;
use super::resolve_chat;
use crate::cli::PromptCommand;
use crate::exit::{CmdResult, Exit, Failed, OrExit};
use crate::render::json;
use crate::wiring::Host;

pub async fn execute(host: &Host, command: PromptCommand) -> CmdResult {
    let PromptCommand::Build {
        chat,
        profile,
        generation_type,
        json,
    } = command;
    let (chat, _) = resolve_chat(&host.storage.data, &chat)?;
    let profile = host
        .profiles()
        .resolve(profile.as_deref())
        .await
        .map_err(profile_error)?;
    let chats: Arc<dyn ChatStore> = host.storage.chats.clone();
    let info = chats.open(&chat).await.map_err(chat_error)?;
    let generation: GenerationType = generation_type.into();
    // The prefix the run would freeze: the chat's length and the role of its last message
    // decide it (the same domain rule the runtime applies).
    let total = info.message_count;
    let last_role = if total == 0 {
        None
    } else {
        chats
            .read_messages(&chat, total - 1..total)
            .await
            .map_err(chat_error)?
            .last()
            .map(|message| message.role)
    };
    let count = input_message_count(generation, total, last_role).or_usage()?;
    let characters: Arc<dyn CharacterCards> = host.characters();
    let ports = PromptPorts { chats, characters };
    let snapshot = assemble_prompt(&ports, &info, count, &profile)
        .await
        .map_err(prompt_error)?;
    if json {
        json::print_compact(&snapshot.raw).or_failure()?;
    } else {
        json::print_pretty(&snapshot.raw).or_failure()?;
    }
    Ok(Exit::Ok)
}

/// A chat error: exit 2 for a missing chat or a path that cannot name one, else 1.
fn chat_error(error: ChatError) -> Failed {
    let exit = if is_callers(&error) {
        Exit::Usage
    } else {
        Exit::Failure
    };
    Failed {
        exit,
        error: anyhow::Error::new(error),
    }
}

fn is_callers(error: &ChatError) -> bool {
    matches!(
        error,
        ChatError::NotFound(_) | ChatError::InvalidPath(_) | ChatError::NoTarget(_)
    )
}

/// An assembly error: exit 2 when the profile or the chat named is unusable, else 1.
fn prompt_error(error: PromptError) -> Failed {
    let exit = match &error {
        PromptError::Profile(_) => Exit::Usage,
        PromptError::Chat(chat) if is_callers(chat) => Exit::Usage,
        _ => Exit::Failure,
    };
    Failed {
        exit,
        error: anyhow::Error::new(error),
    }
}
