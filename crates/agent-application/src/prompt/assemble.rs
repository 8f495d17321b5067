//! The built-in prompt assembler, used when the host has no prompt snapshot. It follows the
//! order of SillyTavern's default Chat Completion prompt, with the agent's own system prompt
//! first and the task last:
//!
//! 1. system: the profile's Agent system prompt and a note on this run's reply file and
//!    publishing tools;
//! 2. system: world info placed before the character; the user's persona; the character
//!    card; world info placed after it; the Author's Note when it goes into the prompt; the
//!    example dialogue (with example-message world info around the card's); a group chat's
//!    members;
//! 3. the latest messages of the frozen prefix, per `context.initialChatHistoryMessages`
//!    (`-1`: all), with the in-chat injections (world info at depth, the character's depth
//!    prompt, the Author's Note) placed at their depths;
//! 4. user: what to write.
//!
//! Name macros (`{{user}}`, `{{char}}`, `{{group}}`, `{{outlet::…}}` and the legacy
//! spellings) are expanded in everything the prompt carries. World info is activated with
//! SillyTavern's rules over the prefix (see `lore`); the activation is captured with the
//! prompt, so `worldinfo.read_activated` serves it.

use std::sync::Arc;

use agent_domain::event::ChatRef;
use agent_domain::model::AgentModelMessage;
use agent_domain::profile::{PresetBinding, ResolvedAgentProfile};
use agent_domain::run::GenerationType;
use agent_domain::sillytavern::expand_macros;
use agent_domain::tool::BuiltinTool;
use serde_json::json;

use super::authors_note::{self, AuthorsNote, NoteTurn};
use super::card::{render_card, render_examples, render_persona};
use super::history::{newest, to_model_message, user_messages, visible_messages, wanted};
use super::injections::{depth_prompt, injections, insert};
use super::lore::{LoreRequest, LoreSources, RunLore, books, names_with_outlets, scan};
use super::openai::to_openai;
use super::system::{agent_system_prompt, run_note};
use super::{PromptError, PromptSnapshot};
use crate::ports::{ChatInfo, ChatStore, Clock, LoreEngines, Lorebooks, Rng};
use crate::scene::ChatScene;

/// The ports the assembler reads.
#[derive(Clone)]
pub struct PromptPorts {
    pub chats: Arc<dyn ChatStore>,
    pub lorebooks: Arc<dyn Lorebooks>,
    /// World info needs them; without them a chat whose lorebooks apply cannot be assembled.
    pub lore_engines: Option<Arc<dyn LoreEngines>>,
    pub rng: Arc<dyn Rng>,
    pub clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for PromptPorts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PromptPorts { .. }")
    }
}

/// What to assemble.
#[derive(Debug, Clone, Copy)]
pub struct PromptRequest<'a> {
    pub chat: &'a ChatInfo,
    pub scene: &'a ChatScene,
    /// The frozen prefix: the first messages the run may read.
    pub input_message_count: usize,
    /// What the run does.
    pub generation: GenerationType,
    /// What the host asked for: world-info entries limited to `regenerate` fire for a
    /// regenerate that became a normal reply, as SillyTavern's do.
    pub requested: GenerationType,
    pub profile: &'a ResolvedAgentProfile,
    /// The model the run calls; its tokenizer counts the world-info budget.
    pub model: Option<&'a str>,
    /// A preview (`prompt build`): world info neither reads nor writes timed effects.
    pub preview: bool,
}

/// An assembled prompt and the world info behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct AssembledPrompt {
    pub snapshot: PromptSnapshot,
    /// `None` when no lorebook applies to the chat.
    pub lore: Option<RunLore>,
}

/// Assembles the initial prompt of a run (see the module docs). A profile without a
/// configured model is refused (`agent.profile_model_requires_configuration`), as every
/// prompt assembly is; so is one that names a preset.
pub async fn assemble_prompt(
    ports: &PromptPorts,
    request: PromptRequest<'_>,
) -> Result<AssembledPrompt, PromptError> {
    let PromptRequest {
        chat,
        scene,
        input_message_count: prefix,
        profile,
        ..
    } = request;
    profile.ensure_model_configured()?;
    if let PresetBinding::Ref { preset, .. } = &profile.preset {
        return Err(PromptError::PresetUnsupported {
            api_id: preset.api_id.clone(),
            name: preset.name.clone(),
        });
    }
    let sources = LoreSources {
        lorebooks: ports.lorebooks.as_ref(),
        engines: ports.lore_engines.as_ref(),
        rng: ports.rng.as_ref(),
        clock: ports.clock.as_ref(),
    };
    let lore_request = LoreRequest {
        scene,
        generation: request.requested,
        model: request.model,
        preview: request.preview,
    };
    let want = wanted(profile.context.initial_chat_history_messages);
    let lore_books = books(&sources, &lore_request).await?;
    // The scan reads the whole prefix; without lorebooks only the history window is read.
    let visible = match lore_books {
        Some(_) => visible_messages(ports.chats.as_ref(), &chat.chat, prefix, None).await?,
        None => visible_messages(ports.chats.as_ref(), &chat.chat, prefix, want).await?,
    };
    let users = match authors_note::interval(scene) > 1 {
        true => user_messages(ports.chats.as_ref(), &chat.chat, prefix).await?,
        false => 0,
    };
    let note_turn = authors_note::this_turn(scene, users);
    let lore = match &lore_books {
        Some(lore_books) => {
            let scanned = scanned_prompts(scene, note_turn.as_ref());
            Some(scan(
                &sources,
                &lore_request,
                lore_books,
                &visible,
                scanned,
            )?)
        }
        None => None,
    };
    let history = newest(&visible, want);
    let is_group = matches!(chat.chat, ChatRef::Group { .. });
    let mut in_chat = injections(scene, lore.as_ref());
    let note = note_turn.map_or(AuthorsNote::None, |turn| turn.placed(lore.as_ref()));

    let mut messages = vec![AgentModelMessage::system(format!(
        "{}\n\n{}",
        agent_system_prompt(profile).trim_end(),
        run_note(profile)
    ))];
    for text in scene_prompts(scene, lore.as_ref(), &note) {
        messages.push(AgentModelMessage::system(text));
    }
    let mut history_messages: Vec<AgentModelMessage> = history
        .iter()
        .map(|message| to_model_message(message, is_group))
        .collect();
    if let AuthorsNote::InChat(injection) = &note {
        in_chat.push(injection.clone());
    }
    history_messages = insert(history_messages, in_chat);
    messages.extend(history_messages);
    let shown_all =
        history.first().is_none_or(|first| first.index == 0) && history.len() == visible.len();
    let task = Task {
        who: &scene.author.name,
        prefix,
        new_version: request.generation.adds_swipe(),
        older_hidden: !shown_all || (history.is_empty() && prefix > 0),
        can_read_chat: profile.is_tool_visible(&BuiltinTool::ChatReadMessages.id())
            || profile.is_tool_visible(&BuiltinTool::ChatSearch.id()),
    };
    messages.push(AgentModelMessage::user(task.instruction()));
    let names = names_with_outlets(scene, lore.as_ref());
    let messages: Vec<AgentModelMessage> = messages
        .into_iter()
        .map(|message| expand_message(message, &names))
        .collect();

    let mut raw = json!({
        "chatCompletionPayload": {"messages": to_openai(&messages), "stream": false},
        "assembledBy": {
            "assembler": "builtin",
            "profileId": profile.id.as_str(),
            "character": scene.author.name,
            "user": scene.user.name,
            "inputMessageCount": prefix,
            "historyMessages": history.len(),
        },
    });
    if let Some(group) = &scene.group {
        raw["assembledBy"]["group"] = json!(group.name);
    }
    let world_info = lore.as_ref().map(RunLore::read_activated_json);
    if let (Some(lore), Some(activation)) = (&lore, &world_info) {
        raw["assembledBy"]["worldInfo"] = lore.explanation();
        raw["worldInfoActivation"] = activation.clone();
    }
    Ok(AssembledPrompt {
        snapshot: PromptSnapshot {
            messages,
            world_info,
            raw,
        },
        lore,
    })
}

/// The prompts world info scans besides the chat when `allowWIScan` is on: the character's
/// depth prompt, then the Author's Note of this turn (without its world-info entries).
fn scanned_prompts(scene: &ChatScene, note: Option<&NoteTurn>) -> Vec<String> {
    if !authors_note::scanned_by_world_info(scene) {
        return Vec::new();
    }
    let depth = depth_prompt(scene).map(|prompt| prompt.prompt.clone());
    let note = note.map(|turn| turn.text.clone());
    depth.into_iter().chain(note).collect()
}

/// The system prompts about the scene, in SillyTavern's default order; empty ones left out.
fn scene_prompts(scene: &ChatScene, lore: Option<&RunLore>, note: &AuthorsNote) -> Vec<String> {
    let placement = lore.map(|lore| &lore.activation.placement);
    let card = scene.character.as_ref();
    let mut prompts: Vec<String> = Vec::new();
    let mut add = |text: Option<String>| {
        if let Some(text) = text.filter(|t| !t.trim().is_empty()) {
            prompts.push(text);
        }
    };
    add(placement.map(|p| p.before.clone()));
    add(render_persona(&scene.user.name, &scene.user.description));
    add(card.and_then(|card| render_card(card, &scene.author.name)));
    add(placement.map(|p| p.after.clone()));
    if let AuthorsNote::InPrompt(text) = note {
        add(Some(text.clone()));
    }
    add(render_examples(
        placement.map_or(&[][..], |p| &p.examples_top),
        card.map(|card| card.example_dialogue.as_str()),
        placement.map_or(&[][..], |p| &p.examples_bottom),
    ));
    if let Some(group) = &scene.group {
        let members: Vec<&str> = group.members.iter().map(|m| m.name.as_str()).collect();
        add(Some(format!(
            "This is the group chat \"{}\" with {}. You write {}'s replies.",
            group.name,
            members.join(", "),
            scene.author.name
        )));
    }
    prompts
}

/// `message` with its text parts' macros expanded.
fn expand_message(
    mut message: AgentModelMessage,
    names: &agent_domain::sillytavern::MacroNames,
) -> AgentModelMessage {
    for part in &mut message.parts {
        if let agent_domain::model::AgentModelContentPart::Text { text } = part {
            *text = expand_macros(text, names);
        }
    }
    message
}

/// The closing user message: what this generation asks for.
#[derive(Debug)]
struct Task<'a> {
    who: &'a str,
    prefix: usize,
    new_version: bool,
    older_hidden: bool,
    can_read_chat: bool,
}

impl Task<'_> {
    fn instruction(&self) -> String {
        let who = self.who;
        let mut text = match (self.new_version, self.prefix) {
            (false, 0) => format!("The chat is empty. Write {who}'s opening message."),
            (false, _) => format!("Write {who}'s next reply in the chat above."),
            (true, _) => format!(
                "Write a new version of {who}'s latest reply to the chat above. The previous \
                 version has been set aside and is not shown; write a fresh take on the moment."
            ),
        };
        if self.older_hidden && self.can_read_chat {
            text.push_str(
                " Earlier messages of the chat are not shown here; search or read the chat \
                 when you need them.",
            );
        }
        text.push_str(" Work as your instructions above describe.");
        text
    }
}
