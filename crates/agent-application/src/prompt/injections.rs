//! In-chat injections: prompts SillyTavern places at a depth in the chat history rather than
//! before it: world-info entries "at depth", the character's depth prompt (creator's note)
//! and the Author's Note (which `authors_note` decides).
//!
//! Depth `d` puts a prompt before the last `d` messages of the history (0: after the last).
//! At one depth, prompts of one role are joined with a newline in SillyTavern's key order
//! (the Author's Note, then the depth prompt, then world info), and the role blocks follow
//! as assistant, user, system, so the system block is nearest the end.

use std::collections::BTreeMap;

use agent_domain::model::AgentModelMessage;
use agent_domain::worldinfo::PromptRole;

use super::lore::RunLore;
use crate::ports::{ChatRole, DepthPrompt};
use crate::scene::ChatScene;

/// The character depth prompt's key.
const DEPTH_PROMPT_KEY: &str = "DEPTH_PROMPT";
/// SillyTavern's default depth of the Author's Note and the depth prompt.
pub(super) const DEFAULT_DEPTH: usize = 4;

/// One prompt to place in the chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Injection {
    pub depth: usize,
    pub role: PromptRole,
    /// Orders prompts of one depth and role.
    pub key: String,
    pub text: String,
}

/// The in-chat prompts of a scene besides the Author's Note: world info at depth and the
/// character's depth prompt.
pub(super) fn injections(scene: &ChatScene, lore: Option<&RunLore>) -> Vec<Injection> {
    let mut injections = Vec::new();
    if let Some(lore) = lore {
        for block in &lore.activation.placement.depth {
            injections.push(Injection {
                depth: usize::try_from(block.depth).unwrap_or(0),
                role: block.role,
                key: block.prompt_key(),
                text: block.content(),
            });
        }
    }
    if let Some(prompt) = depth_prompt(scene) {
        injections.push(Injection {
            depth: usize::try_from(prompt.depth).unwrap_or(DEFAULT_DEPTH),
            role: prompt_role(prompt.role),
            key: DEPTH_PROMPT_KEY.to_owned(),
            text: prompt.prompt.clone(),
        });
    }
    injections
}

/// The character's depth prompt, unless blank.
pub(super) fn depth_prompt(scene: &ChatScene) -> Option<&DepthPrompt> {
    scene
        .character
        .as_ref()
        .and_then(|card| card.depth_prompt.as_ref())
        .filter(|prompt| !prompt.prompt.trim().is_empty())
}

/// `history` with `injections` in place.
pub(super) fn insert(
    history: Vec<AgentModelMessage>,
    injections: Vec<Injection>,
) -> Vec<AgentModelMessage> {
    let len = history.len();
    // By position in the history, then role block; each block's prompts keep their keys.
    let mut blocks: BTreeMap<(usize, u8), Vec<(String, String)>> = BTreeMap::new();
    let mut roles: BTreeMap<(usize, u8), PromptRole> = BTreeMap::new();
    for injection in injections {
        let at = (len - injection.depth.min(len), block_rank(injection.role));
        blocks
            .entry(at)
            .or_default()
            .push((injection.key, injection.text));
        roles.insert(at, injection.role);
    }
    let mut out = Vec::with_capacity(len + blocks.len());
    let mut blocks = blocks.into_iter().peekable();
    let mut emit_at = |position: usize, out: &mut Vec<AgentModelMessage>| {
        while let Some(((at, rank), _)) = blocks.peek() {
            if *at != position {
                break;
            }
            let key = (*at, *rank);
            if let Some((_, mut prompts)) = blocks.next() {
                prompts.sort_by(|a, b| a.0.cmp(&b.0));
                let text: Vec<String> = prompts.into_iter().map(|(_, text)| text).collect();
                let role = roles.get(&key).copied().unwrap_or(PromptRole::System);
                out.push(message(role, text.join("\n")));
            }
        }
    };
    for (index, item) in history.into_iter().enumerate() {
        emit_at(index, &mut out);
        out.push(item);
    }
    emit_at(len, &mut out);
    out
}

/// The order of role blocks at one depth: assistant, user, then system nearest the end.
fn block_rank(role: PromptRole) -> u8 {
    match role {
        PromptRole::Assistant => 0,
        PromptRole::User => 1,
        PromptRole::System => 2,
    }
}

fn message(role: PromptRole, text: String) -> AgentModelMessage {
    match role {
        PromptRole::User => AgentModelMessage::user(text),
        PromptRole::Assistant => AgentModelMessage::assistant(text),
        PromptRole::System => AgentModelMessage::system(text),
    }
}

fn prompt_role(role: ChatRole) -> PromptRole {
    match role {
        ChatRole::User => PromptRole::User,
        ChatRole::Assistant => PromptRole::Assistant,
        ChatRole::System => PromptRole::System,
    }
}

#[cfg(test)]
mod tests {
    use agent_domain::model::ModelRole;

    use super::*;

    fn injection(depth: usize, role: PromptRole, key: &str, text: &str) -> Injection {
        Injection {
            depth,
            role,
            key: key.into(),
            text: text.into(),
        }
    }

    #[test]
    fn prompts_go_before_the_last_depth_messages_in_sillytaverns_block_order() {
        let history = vec![
            AgentModelMessage::user("u1"),
            AgentModelMessage::assistant("a1"),
            AgentModelMessage::user("u2"),
        ];
        let placed = insert(
            history,
            vec![
                injection(1, PromptRole::System, "customDepthWI_1_0", "wi"),
                injection(1, PromptRole::System, "2_floating_prompt", "note"),
                injection(1, PromptRole::User, "customDepthWI_1_1", "as user"),
                injection(0, PromptRole::System, DEPTH_PROMPT_KEY, "last"),
                injection(9, PromptRole::Assistant, "customDepthWI_9_2", "deep"),
            ],
        );
        let shown: Vec<(ModelRole, String)> = placed.iter().map(|m| (m.role, m.text())).collect();
        assert_eq!(
            shown,
            [
                (ModelRole::Assistant, "deep".to_owned()),
                (ModelRole::User, "u1".to_owned()),
                (ModelRole::Assistant, "a1".to_owned()),
                (ModelRole::User, "as user".to_owned()),
                (ModelRole::System, "note\nwi".to_owned()),
                (ModelRole::User, "u2".to_owned()),
                (ModelRole::System, "last".to_owned()),
            ]
        );
    }
}
