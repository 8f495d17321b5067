use std::sync::Arc;

use agent_domain::ErrorCode;
use agent_domain::event::{ChatRef, Presentation};
use agent_domain::model::{AgentModelMessage, ModelRole};
use agent_domain::profile::{
    AgentProfileDocument, ModelMode, PresetMode, PresetRef, ProfileSource, ResolvedAgentProfile,
    ToolName, default_writer, resolve,
};
use serde_json::json;

use crate::ports::{CharacterCard, ChatInfo, ChatRole, StoreError};
use crate::prompt::{
    DEFAULT_AGENT_SYSTEM_PROMPT, MAX_ASSEMBLED_HISTORY, PromptInput, PromptPorts,
    agent_system_prompt, assemble_prompt, validate_prompt_snapshot,
};
use crate::testing::{MemoryCharacters, MemoryChats};

struct Fixture {
    chats: Arc<MemoryChats>,
    characters: Arc<MemoryCharacters>,
    ports: PromptPorts,
}

fn fixture() -> Fixture {
    let chats = Arc::new(MemoryChats::new());
    let characters = Arc::new(MemoryCharacters::new());
    let ports = PromptPorts {
        chats: chats.clone(),
        characters: characters.clone(),
    };
    Fixture {
        chats,
        characters,
        ports,
    }
}

fn character_chat() -> ChatRef {
    ChatRef::Character {
        character_id: "Seraphina".into(),
        file_name: "Forest".into(),
    }
}

fn info(chat: &ChatRef, message_count: usize) -> ChatInfo {
    ChatInfo {
        chat: chat.clone(),
        stable_chat_id: "stable".into(),
        message_count,
        character_name: Some("Seraphina".into()),
        user_name: Some("Ann".into()),
        chat_metadata: serde_json::json!({}),
        create_date: None,
        has_header: true,
    }
}

fn profile_with(edit: impl FnOnce(&mut AgentProfileDocument)) -> ResolvedAgentProfile {
    let mut document = default_writer();
    edit(&mut document);
    resolve(&document, ProfileSource::File).unwrap()
}

fn writer() -> ResolvedAgentProfile {
    profile_with(|_| {})
}

fn card() -> CharacterCard {
    CharacterCard {
        name: "Seraphina".into(),
        description: "{{char}} guards the glade and its travellers, {{user}} among them.".into(),
        personality: "Gentle, watchful.".into(),
        scenario: String::new(),
        first_message: "Welcome to my glade.".into(),
        example_dialogue: "<START>\n{{user}}: Who are you?\n{{char}}: A friend.".into(),
        creator_notes: Some("Not for the model.".into()),
        ..CharacterCard::default()
    }
}

fn put_chat(fx: &Fixture, chat: &ChatRef, turns: &[(ChatRole, &str, &str)]) {
    for (role, name, text) in turns {
        fx.chats.push(chat, *role, name, text);
    }
}

fn texts(messages: &[AgentModelMessage]) -> Vec<(ModelRole, String)> {
    messages.iter().map(|m| (m.role, m.text())).collect()
}

#[tokio::test]
async fn a_character_chat_is_assembled_in_order() {
    let fx = fixture();
    let chat = character_chat();
    fx.characters.put("Seraphina", card());
    put_chat(
        &fx,
        &chat,
        &[
            (ChatRole::Assistant, "Seraphina", "Welcome to my glade."),
            (ChatRole::User, "Ann", "Is the lantern still lit?"),
            (ChatRole::System, "System", "hidden note"),
            (ChatRole::Assistant, "Seraphina", "It never goes out."),
            (ChatRole::User, "Ann", "Then lead the way."),
        ],
    );
    let snapshot = assemble_prompt(&fx.ports, &info(&chat, 5), 5, &writer())
        .await
        .unwrap();
    assert_eq!(fx.characters.loads(), ["Seraphina"]);
    assert_eq!(snapshot.world_info, None);
    insta::assert_json_snapshot!("assembled_character_chat", snapshot.raw);
    let roles: Vec<ModelRole> = snapshot.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            ModelRole::System,
            ModelRole::System,
            ModelRole::Assistant,
            ModelRole::User,
            ModelRole::Assistant,
            ModelRole::User,
            ModelRole::User,
        ]
    );
    let system = snapshot.messages[0].text();
    assert!(system.starts_with(DEFAULT_AGENT_SYSTEM_PROMPT), "{system}");
    assert!(system.contains("`output/main.md`"), "{system}");
    assert!(system.contains("`workspace_commit`") && system.contains("`workspace_finish`"));
    let card_text = snapshot.messages[1].text();
    assert!(card_text.starts_with(
        "Character: Seraphina\n\nSeraphina guards the glade and its travellers, Ann among them."
    ));
    assert!(!card_text.contains("Scenario") && !card_text.contains("Not for the model"));
    assert_eq!(
        snapshot.messages[6].text(),
        "Write Seraphina's next reply in the chat above. Work as your instructions above describe."
    );
}

#[tokio::test]
async fn the_assembled_raw_form_is_itself_a_valid_snapshot() {
    let fx = fixture();
    let chat = character_chat();
    fx.characters.put("Seraphina", card());
    put_chat(&fx, &chat, &[(ChatRole::User, "Ann", "Hello, 森の守り手.")]);
    let assembled = assemble_prompt(&fx.ports, &info(&chat, 1), 1, &writer())
        .await
        .unwrap();
    let again = validate_prompt_snapshot(&assembled.raw).unwrap();
    assert_eq!(again.messages, assembled.messages);
    assert_eq!(again.raw, assembled.raw);
    let via_input = PromptInput::Snapshot(assembled.raw.clone())
        .prepare(&fx.ports, &info(&chat, 1), 1, &writer())
        .await
        .unwrap();
    assert_eq!(via_input, again);
}

#[tokio::test]
async fn the_history_window_follows_the_profile() {
    let fx = fixture();
    let chat = character_chat();
    for i in 0..250 {
        let role = if i % 2 == 0 {
            ChatRole::User
        } else {
            ChatRole::Assistant
        };
        fx.chats.push(&chat, role, "x", &format!("message {i}"));
    }
    let history = |policy: i64, prefix: usize| {
        let fx = &fx;
        let chat = chat.clone();
        async move {
            let profile = profile_with(|d| d.context.initial_chat_history_messages = policy);
            let snapshot = assemble_prompt(&fx.ports, &info(&chat, 250), prefix, &profile)
                .await
                .unwrap();
            let messages = &snapshot.messages;
            let chat_turns: Vec<String> = messages[1..messages.len() - 1]
                .iter()
                .map(AgentModelMessage::text)
                .collect();
            (chat_turns, messages[messages.len() - 1].text())
        }
    };
    let (all, task) = history(-1, 250).await;
    assert_eq!(all.len(), MAX_ASSEMBLED_HISTORY);
    assert_eq!(all[0], "message 50");
    assert_eq!(all[MAX_ASSEMBLED_HISTORY - 1], "message 249");
    assert!(
        task.contains("Earlier messages of the chat are not shown here"),
        "{task}"
    );

    let (none, task) = history(0, 250).await;
    assert!(none.is_empty());
    assert!(task.contains("Earlier messages"), "{task}");

    let (three, _) = history(3, 250).await;
    assert_eq!(three, ["message 247", "message 248", "message 249"]);

    // Only the frozen prefix is read: a regenerate sets the last message aside.
    let (three, task) = history(3, 249).await;
    assert_eq!(three, ["message 246", "message 247", "message 248"]);
    assert!(
        task.starts_with("Write a new version of Seraphina's latest reply"),
        "{task}"
    );

    let (few, task) = history(500, 4).await;
    assert_eq!(few.len(), 4);
    assert!(!task.contains("Earlier messages"), "{task}");
}

#[tokio::test]
async fn hidden_and_blank_messages_do_not_count() {
    let fx = fixture();
    let chat = character_chat();
    put_chat(
        &fx,
        &chat,
        &[
            (ChatRole::User, "Ann", "one"),
            (ChatRole::Assistant, "Seraphina", "two"),
            (ChatRole::System, "System", "hidden"),
            (ChatRole::Assistant, "Seraphina", "  "),
            (ChatRole::User, "Ann", "three"),
        ],
    );
    let profile = profile_with(|d| d.context.initial_chat_history_messages = 2);
    let snapshot = assemble_prompt(&fx.ports, &info(&chat, 5), 5, &profile)
        .await
        .unwrap();
    let turns = texts(&snapshot.messages[1..3]);
    assert_eq!(
        turns,
        [
            (ModelRole::Assistant, "two".to_owned()),
            (ModelRole::User, "three".to_owned())
        ]
    );
}

#[tokio::test]
async fn group_chats_name_their_speakers_and_load_no_card() {
    let fx = fixture();
    let chat = ChatRef::Group {
        chat_id: "party".into(),
    };
    put_chat(
        &fx,
        &chat,
        &[
            (ChatRole::User, "Ann", "Where now?"),
            (ChatRole::Assistant, "Bram", "North."),
        ],
    );
    let mut info = info(&chat, 2);
    info.character_name = None;
    let snapshot = assemble_prompt(&fx.ports, &info, 2, &writer())
        .await
        .unwrap();
    assert!(fx.characters.loads().is_empty());
    assert_eq!(
        texts(&snapshot.messages[1..]),
        [
            (ModelRole::User, "Ann: Where now?".to_owned()),
            (ModelRole::Assistant, "Bram: North.".to_owned()),
            (
                ModelRole::User,
                "Write the next reply in the chat above. Work as your instructions above describe."
                    .to_owned()
            ),
        ]
    );
    assert_eq!(snapshot.raw["assembledBy"]["character"], json!(null));
}

#[tokio::test]
async fn without_a_card_the_header_or_folder_names_the_character() {
    let fx = fixture();
    let chat = character_chat();
    let mut info = info(&chat, 0);
    let snapshot = assemble_prompt(&fx.ports, &info, 0, &writer())
        .await
        .unwrap();
    assert_eq!(snapshot.messages.len(), 2);
    assert_eq!(
        snapshot.messages[1].text(),
        "The chat is empty. Write Seraphina's opening message. Work as your instructions above \
         describe."
    );
    info.character_name = Some(" ".into());
    let chat = ChatRef::Character {
        character_id: "Elowen".into(),
        file_name: "x".into(),
    };
    info.chat = chat;
    let snapshot = assemble_prompt(&fx.ports, &info, 0, &writer())
        .await
        .unwrap();
    assert!(snapshot.messages[1].text().contains("Elowen's opening"));
}

#[tokio::test]
async fn an_unreadable_card_fails_the_assembly() {
    let fx = fixture();
    fx.characters.fail_with(StoreError::Integrity(
        "characters/Seraphina.png: bad".into(),
    ));
    let chat = character_chat();
    let err = assemble_prompt(&fx.ports, &info(&chat, 0), 0, &writer())
        .await
        .unwrap_err();
    assert_eq!(err.code(), "agent.storage_integrity");
    assert!(err.to_string().contains("Seraphina.png"), "{err}");
}

#[tokio::test]
async fn a_missing_chat_fails_with_the_chat_code() {
    let fx = fixture();
    let chat = character_chat();
    let err = assemble_prompt(&fx.ports, &info(&chat, 3), 3, &writer())
        .await
        .unwrap_err();
    assert_eq!(err.code(), "chat.not_found");
}

#[tokio::test]
async fn profiles_shape_the_system_prompt() {
    let fx = fixture();
    let chat = character_chat();
    let custom = profile_with(|d| {
        d.instructions.agent_system_prompt = Some("You are a terse narrator.".into());
        d.run.presentation = Presentation::Background;
        d.tools.deny = vec![ToolName::new("workspace.finish")];
        d.run.direct_runnable = false;
        d.delegation.callable = true;
        d.delegation.allow_as_subagent = true;
    });
    assert_eq!(agent_system_prompt(&custom), "You are a terse narrator.");
    assert_eq!(agent_system_prompt(&writer()), DEFAULT_AGENT_SYSTEM_PROMPT);
    let snapshot = assemble_prompt(&fx.ports, &info(&chat, 0), 0, &custom)
        .await
        .unwrap();
    assert_eq!(
        snapshot.messages[0].text(),
        "You are a terse narrator.\n\n## This run\n- Your reply is the file `output/main.md` of \
         your workspace.\n- Publish it to the chat with `workspace_commit`.\n- This run works in \
         the background; publishing is optional."
    );

    let unconfigured = profile_with(|d| d.model.mode = ModelMode::RequiresConfiguration);
    let err = assemble_prompt(&fx.ports, &info(&chat, 0), 0, &unconfigured)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "agent.profile_model_requires_configuration");

    let preset = profile_with(|d| {
        d.preset.mode = PresetMode::Ref;
        d.preset.preset_ref = Some(PresetRef {
            api_id: "openai".into(),
            name: "Storyteller".into(),
        });
    });
    let err = assemble_prompt(&fx.ports, &info(&chat, 0), 0, &preset)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "agent.profile_preset_unsupported");
    assert!(err.to_string().contains("openai/Storyteller"), "{err}");
}
