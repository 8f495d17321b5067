use std::sync::Arc;

use agent_domain::ErrorCode;
use agent_domain::event::{ChatRef, Presentation};
use agent_domain::model::{AgentModelMessage, ModelRole};
use agent_domain::profile::{
    AgentProfileDocument, ModelMode, PresetMode, PresetRef, ProfileSource, ResolvedAgentProfile,
    ToolName, default_writer, resolve,
};
use agent_domain::run::GenerationType;
use agent_domain::sillytavern::{GroupMember, Persona};
use agent_domain::worldinfo::{KeyRegex, KeyRegexEngine, TokenCounter};
use serde_json::{Value, json};

use crate::ports::{
    CharacterCard, ChatInfo, ChatMessage, ChatRole, DepthPrompt, EngineUnavailable, LoreEngines,
    ReplyAuthor,
};
use crate::prompt::{
    AssembledPrompt, DEFAULT_AGENT_SYSTEM_PROMPT, PromptPorts, PromptRequest, agent_system_prompt,
    assemble_prompt, validate_prompt_snapshot,
};
use crate::scene::{ChatScene, GroupScene};
use crate::testing::{FixedClock, MemoryChats, MemoryLorebooks, SequenceRng};

/// Regex keys never compile (they match as plain text); a token is a word.
struct WordEngines;

struct NoRegex;

impl KeyRegexEngine for NoRegex {
    fn compile(&self, _pattern: &str, _flags: &str) -> Option<Box<dyn KeyRegex>> {
        None
    }
}

struct Words;

impl TokenCounter for Words {
    fn count_tokens(&self, text: &str) -> usize {
        text.split_whitespace().count()
    }
}

impl LoreEngines for WordEngines {
    fn regex(&self) -> &(dyn KeyRegexEngine + Send + Sync) {
        &NoRegex
    }

    fn tokenizer(
        &self,
        _model: Option<&str>,
    ) -> Result<Arc<dyn TokenCounter + Send + Sync>, EngineUnavailable> {
        Ok(Arc::new(Words))
    }
}

struct Fixture {
    chats: Arc<MemoryChats>,
    lorebooks: Arc<MemoryLorebooks>,
    ports: PromptPorts,
}

fn fixture() -> Fixture {
    let chats = Arc::new(MemoryChats::new());
    let lorebooks = Arc::new(MemoryLorebooks::new());
    let ports = PromptPorts {
        chats: chats.clone(),
        lorebooks: lorebooks.clone(),
        lore_engines: Some(Arc::new(WordEngines)),
        rng: Arc::new(SequenceRng::new(vec![1])),
        clock: Arc::new(FixedClock::default()),
    };
    Fixture {
        chats,
        lorebooks,
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
        character_name: None,
        user_name: None,
        chat_metadata: json!({}),
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
        avatar: "Seraphina.png".into(),
        name: "Seraphina".into(),
        description: "{{char}} guards the glade and its travellers, {{user}} among them.".into(),
        personality: "Gentle, watchful.".into(),
        first_message: "Welcome to my glade.".into(),
        example_dialogue: "<START>\n{{user}}: Who are you?\n{{char}}: A friend.".into(),
        creator_notes: Some("Not for the model.".into()),
        world: Some("Eldoria".into()),
        ..CharacterCard::default()
    }
}

fn scene() -> ChatScene {
    ChatScene {
        user: Persona {
            avatar: Some("user-default.png".into()),
            name: "Ann".into(),
            description: "<USER> is a wandering herbalist.".into(),
            lorebook: None,
        },
        character: Some(card()),
        author: ReplyAuthor {
            name: "Seraphina".into(),
            ..ReplyAuthor::default()
        },
        group: None,
        chat_metadata: json!({}),
        settings: None,
    }
}

fn put_chat(fx: &Fixture, chat: &ChatRef, turns: &[(ChatRole, &str, &str)]) {
    for (role, name, text) in turns {
        fx.chats.push(chat, *role, name, text);
    }
}

async fn assemble(
    fx: &Fixture,
    chat: &ChatInfo,
    scene: &ChatScene,
    profile: &ResolvedAgentProfile,
) -> Result<AssembledPrompt, crate::prompt::PromptError> {
    assemble_prompt(
        &fx.ports,
        PromptRequest {
            chat,
            scene,
            input_message_count: chat.message_count,
            generation: GenerationType::Normal,
            requested: GenerationType::Normal,
            profile,
            model: None,
            preview: false,
        },
    )
    .await
}

fn texts(messages: &[AgentModelMessage]) -> Vec<(ModelRole, String)> {
    messages.iter().map(|m| (m.role, m.text())).collect()
}

#[tokio::test]
async fn a_character_chat_is_assembled_in_order() {
    let fx = fixture();
    let chat = character_chat();
    put_chat(
        &fx,
        &chat,
        &[
            (
                ChatRole::Assistant,
                "Seraphina",
                "Welcome to my glade, {{user}}.",
            ),
            (ChatRole::User, "Ann", "Is the lantern still lit?"),
            (ChatRole::System, "System", "hidden note"),
            (ChatRole::Assistant, "Seraphina", "It never goes out."),
            (ChatRole::User, "Ann", "Then lead the way."),
        ],
    );
    let assembled = assemble(&fx, &info(&chat, 5), &scene(), &writer())
        .await
        .unwrap();
    assert_eq!(assembled.lore, None, "no lorebook exists");
    let snapshot = assembled.snapshot;
    assert_eq!(snapshot.world_info, None);
    insta::assert_json_snapshot!("assembled_character_chat", snapshot.raw);
    let system = snapshot.messages[0].text();
    assert!(system.starts_with(DEFAULT_AGENT_SYSTEM_PROMPT), "{system}");
    assert!(system.contains("`workspace_commit`") && system.contains("`workspace_finish`"));
    assert_eq!(
        snapshot.messages[1].text(),
        "About Ann (the user):\nAnn is a wandering herbalist."
    );
    assert!(snapshot.messages[2].text().starts_with(
        "Character: Seraphina\n\nSeraphina guards the glade and its travellers, Ann among them."
    ));
    assert_eq!(
        snapshot.messages[3].text(),
        "Example dialogue:\n<START>\nAnn: Who are you?\nSeraphina: A friend."
    );
    assert_eq!(snapshot.messages[4].text(), "Welcome to my glade, Ann.");
    assert_eq!(
        snapshot.messages.last().unwrap().text(),
        "Write Seraphina's next reply in the chat above. Work as your instructions above describe."
    );
}

#[tokio::test]
async fn the_assembled_raw_form_is_itself_a_valid_snapshot() {
    let fx = fixture();
    let chat = character_chat();
    put_chat(&fx, &chat, &[(ChatRole::User, "Ann", "Hello, 森の守り手.")]);
    let assembled = assemble(&fx, &info(&chat, 1), &scene(), &writer())
        .await
        .unwrap();
    let again = validate_prompt_snapshot(&assembled.snapshot.raw).unwrap();
    assert_eq!(again.messages, assembled.snapshot.messages);
    assert_eq!(again.raw, assembled.snapshot.raw);
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
    let history = |assembled: &AssembledPrompt| {
        assembled
            .snapshot
            .messages
            .iter()
            .filter(|m| m.text().starts_with("message "))
            .count()
    };
    for (policy, expected) in [(0, 0), (3, 3), (-1, 250)] {
        let profile = profile_with(|d| d.context.initial_chat_history_messages = policy);
        let assembled = assemble(&fx, &info(&chat, 250), &scene(), &profile)
            .await
            .unwrap();
        assert_eq!(history(&assembled), expected, "policy {policy}");
        let task = assembled.snapshot.messages.last().unwrap().text();
        assert_eq!(
            task.contains("Earlier messages of the chat are not shown"),
            expected < 250,
            "{task}"
        );
    }
}

#[tokio::test]
async fn hidden_and_blank_messages_do_not_count() {
    let fx = fixture();
    let chat = character_chat();
    let mut hidden_user = ChatMessage::new(0, ChatRole::User, "Ann", "hidden by /hide");
    hidden_user.is_system = true;
    fx.chats.put(
        &chat,
        vec![
            ChatMessage::new(0, ChatRole::User, "Ann", "first"),
            hidden_user,
            ChatMessage::new(0, ChatRole::Assistant, "Seraphina", "  "),
            ChatMessage::new(0, ChatRole::Assistant, "Seraphina", "second"),
        ],
    );
    let profile = profile_with(|d| d.context.initial_chat_history_messages = 2);
    let assembled = assemble(&fx, &info(&chat, 4), &scene(), &profile)
        .await
        .unwrap();
    let shown: Vec<String> = assembled.snapshot.messages[4..6]
        .iter()
        .map(|m| m.text())
        .collect();
    assert_eq!(shown, ["first", "second"]);
}

#[tokio::test]
async fn group_chats_name_their_speakers_and_their_members() {
    let fx = fixture();
    let chat = ChatRef::Group {
        chat_id: "2026-05-20@12h00m00s000ms".into(),
    };
    put_chat(
        &fx,
        &chat,
        &[
            (ChatRole::User, "Ann", "Who keeps watch, {{char}}?"),
            (ChatRole::Assistant, "Bram", "Not me."),
        ],
    );
    let mut group_scene = scene();
    group_scene.author = ReplyAuthor {
        name: "Bram".into(),
        avatar: Some("Bram.png".into()),
        generation_id: Some(1),
    };
    group_scene.character = Some(CharacterCard {
        avatar: "Bram.png".into(),
        name: "Bram".into(),
        description: "A bard of {{group}}.".into(),
        ..CharacterCard::default()
    });
    group_scene.group = Some(GroupScene {
        id: "1716".into(),
        name: "Fireside".into(),
        members: ["Seraphina", "Bram"]
            .map(|name| GroupMember {
                avatar: format!("{name}.png"),
                name: name.into(),
                disabled: false,
            })
            .to_vec(),
    });
    let assembled = assemble(&fx, &info(&chat, 2), &group_scene, &writer())
        .await
        .unwrap();
    let shown = texts(&assembled.snapshot.messages);
    assert_eq!(
        shown[1..],
        [
            (ModelRole::System, "About Ann (the user):\nAnn is a wandering herbalist.".to_owned()),
            (ModelRole::System, "Character: Bram\n\nA bard of Seraphina, Bram.".to_owned()),
            (
                ModelRole::System,
                "This is the group chat \"Fireside\" with Seraphina, Bram. You write Bram's replies."
                    .to_owned()
            ),
            (ModelRole::User, "Ann: Who keeps watch, Bram?".to_owned()),
            (ModelRole::Assistant, "Bram: Not me.".to_owned()),
            (
                ModelRole::User,
                "Write Bram's next reply in the chat above. Work as your instructions above describe."
                    .to_owned()
            ),
        ]
    );
    assert_eq!(assembled.snapshot.raw["assembledBy"]["group"], "Fireside");
}

/// A lorebook with one entry per position, keyed on the chat.
fn eldoria() -> Value {
    let entry = |uid: u32, key: &str, position: u32, extra: Value| {
        let mut entry = json!({"uid": uid, "key": [key], "keysecondary": [], "comment": format!("entry {uid}"),
            "content": format!("Lore {uid} about {{{{char}}}}."), "constant": false, "selective": true,
            "selectiveLogic": 0, "order": 100, "position": position, "disable": false,
            "probability": 100, "useProbability": true, "depth": 1, "role": 0});
        if let (Value::Object(entry), Value::Object(extra)) = (&mut entry, extra) {
            entry.extend(extra);
        }
        (uid.to_string(), entry)
    };
    let entries: serde_json::Map<String, Value> = [
        entry(0, "lantern", 0, json!({})),
        entry(1, "lantern", 1, json!({})),
        entry(2, "lantern", 4, json!({"depth": 1})),
        entry(
            3,
            "lantern",
            5,
            json!({"content": "<START>\n{{user}}: What is that light?"}),
        ),
        entry(4, "lantern", 7, json!({"outletName": "Lights"})),
        entry(5, "lantern", 2, json!({})),
        entry(6, "dragon", 0, json!({})),
        entry(
            7,
            "lantern",
            0,
            json!({"sticky": 2, "content": "Sticky lore."}),
        ),
    ]
    .into_iter()
    .collect();
    json!({"entries": entries})
}

#[tokio::test]
async fn world_info_reaches_its_places_in_the_prompt() {
    let fx = fixture();
    fx.lorebooks.put("Eldoria", &eldoria().to_string());
    let chat = character_chat();
    put_chat(
        &fx,
        &chat,
        &[
            (ChatRole::User, "Ann", "Is the lantern still lit?"),
            (ChatRole::Assistant, "Seraphina", "It never goes out."),
        ],
    );
    let mut scene = scene();
    scene.chat_metadata = json!({"note_prompt": "Keep it short.", "note_depth": 0});
    let mut with_outlet = card();
    with_outlet.scenario = "Lights: {{outlet::Lights}}".into();
    with_outlet.depth_prompt = Some(DepthPrompt {
        prompt: "Stay in character.".into(),
        depth: 1,
        role: ChatRole::System,
    });
    scene.character = Some(with_outlet);
    let assembled = assemble(&fx, &info(&chat, 2), &scene, &writer())
        .await
        .unwrap();
    let lore = assembled.lore.as_ref().unwrap();
    assert_eq!(lore.books, ["Eldoria"]);
    let fired: Vec<i64> = lore.activation.activated.iter().map(|e| e.uid).collect();
    assert!(
        !fired.contains(&6),
        "the dragon is not mentioned: {fired:?}"
    );
    assert_eq!(fired.len(), 7);
    let timed = lore
        .timed_state
        .as_ref()
        .expect("the sticky entry starts a record");
    assert!(
        timed
            .to_js_string()
            .starts_with(r#"{"sticky":{"Eldoria.7":{"hash":"#)
    );
    insta::assert_json_snapshot!(
        "world_info_placement",
        texts(&assembled.snapshot.messages[1..])
            .into_iter()
            .map(|(role, text)| json!([format!("{role:?}"), text]))
            .collect::<Vec<_>>()
    );
    let activation = assembled.snapshot.world_info.as_ref().unwrap();
    assert_eq!(activation["entries"].as_array().unwrap().len(), 7);
    assert_eq!(assembled.snapshot.raw["worldInfoActivation"], *activation);
    assert_eq!(
        assembled.snapshot.raw["assembledBy"]["worldInfo"]["skipped"][0]["reason"]["kind"],
        "noKeyMatch"
    );

    // A preview activates the same entries and records no timed effect.
    let preview = assemble_prompt(
        &fx.ports,
        PromptRequest {
            chat: &info(&chat, 2),
            scene: &scene,
            input_message_count: 2,
            generation: GenerationType::Normal,
            requested: GenerationType::Normal,
            profile: &writer(),
            model: None,
            preview: true,
        },
    )
    .await
    .unwrap();
    assert_eq!(preview.lore.unwrap().timed_state, None);
}

#[tokio::test]
async fn lorebooks_without_engines_are_refused_and_damaged_ones_named() {
    let mut fx = fixture();
    fx.lorebooks.put("Eldoria", &eldoria().to_string());
    fx.ports.lore_engines = None;
    let chat = character_chat();
    let err = assemble(&fx, &info(&chat, 0), &scene(), &writer())
        .await
        .unwrap_err();
    assert_eq!(err.code(), "worldinfo.engines_unavailable");
    let fx = fixture();
    fx.lorebooks.put("Eldoria", "{\"entries\": \"none\"}");
    let err = assemble(&fx, &info(&chat, 0), &scene(), &writer())
        .await
        .unwrap_err();
    assert_eq!(err.code(), "worldinfo.book_invalid");
}

#[tokio::test]
async fn a_missing_chat_fails_with_the_chat_code() {
    let fx = fixture();
    let chat = character_chat();
    let err = assemble(&fx, &info(&chat, 3), &scene(), &writer())
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
    let assembled = assemble(&fx, &info(&chat, 0), &scene(), &custom)
        .await
        .unwrap();
    assert_eq!(
        assembled.snapshot.messages[0].text(),
        "You are a terse narrator.\n\n## This run\n- Your reply is the file `output/main.md` of \
         your workspace.\n- Publish it to the chat with `workspace_commit`.\n- This run works in \
         the background; publishing is optional."
    );

    let unconfigured = profile_with(|d| d.model.mode = ModelMode::RequiresConfiguration);
    let err = assemble(&fx, &info(&chat, 0), &scene(), &unconfigured)
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
    let err = assemble(&fx, &info(&chat, 0), &scene(), &preset)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "agent.profile_preset_unsupported");
    assert!(err.to_string().contains("openai/Storyteller"), "{err}");
}

#[tokio::test]
async fn the_authors_note_follows_its_interval_and_world_info_may_scan_it() {
    let fx = fixture();
    fx.lorebooks.put("Eldoria", &eldoria().to_string());
    let chat = character_chat();
    let mut hidden = ChatMessage::new(2, ChatRole::User, "Ann", "(an aside)");
    hidden.is_system = true;
    let messages = vec![
        ChatMessage::new(0, ChatRole::User, "Ann", "Hello."),
        ChatMessage::new(1, ChatRole::Assistant, "Seraphina", "Welcome."),
        hidden,
    ];
    fx.chats.put(&chat, messages);
    let mut scene = scene();
    scene.chat_metadata = json!({"note_prompt": "Beware the dragon.", "note_interval": 2});
    let fired = |assembled: &AssembledPrompt| -> Vec<i64> {
        let lore = assembled.lore.as_ref().unwrap();
        lore.activation.activated.iter().map(|e| e.uid).collect()
    };
    let has_note = |assembled: &AssembledPrompt| {
        texts(&assembled.snapshot.messages)
            .iter()
            .any(|(_, text)| text.contains("Beware the dragon."))
    };

    // Two user messages (one hidden, which SillyTavern counts too) reach the interval.
    let assembled = assemble(&fx, &info(&chat, 3), &scene, &writer())
        .await
        .unwrap();
    assert!(has_note(&assembled));
    assert!(!fired(&assembled).contains(&6), "not scanned by default");
    // One user message does not.
    let assembled = assemble(&fx, &info(&chat, 2), &scene, &writer())
        .await
        .unwrap();
    assert!(!has_note(&assembled));

    // With `allowWIScan`, the note of this turn and the depth prompt are scanned.
    scene.settings = Some(json!({"extension_settings": {"note": {"allowWIScan": true}}}));
    let assembled = assemble(&fx, &info(&chat, 3), &scene, &writer())
        .await
        .unwrap();
    assert!(fired(&assembled).contains(&6), "{:?}", fired(&assembled));
    let assembled = assemble(&fx, &info(&chat, 2), &scene, &writer())
        .await
        .unwrap();
    assert!(!fired(&assembled).contains(&6), "the note is not inserted");
    let mut with_depth = card();
    with_depth.depth_prompt = Some(DepthPrompt {
        prompt: "A dragon sleeps nearby.".into(),
        depth: 2,
        role: ChatRole::System,
    });
    scene.character = Some(with_depth);
    let assembled = assemble(&fx, &info(&chat, 2), &scene, &writer())
        .await
        .unwrap();
    assert!(
        fired(&assembled).contains(&6),
        "the depth prompt is scanned"
    );
}

#[tokio::test]
async fn world_info_triggers_see_the_generation_type_asked_for() {
    let fx = fixture();
    let book = json!({"entries": {"0": {"uid": 0, "key": ["lantern"], "content": "Regenerated lore.",
        "position": 0, "order": 100, "triggers": ["regenerate"], "probability": 100}}});
    fx.lorebooks.put("Eldoria", &book.to_string());
    let chat = character_chat();
    put_chat(&fx, &chat, &[(ChatRole::User, "Ann", "The lantern?")]);
    let scene = scene();
    let run = |requested| {
        let fx = &fx;
        let scene = &scene;
        let chat = &chat;
        async move {
            assemble_prompt(
                &fx.ports,
                PromptRequest {
                    chat: &info(chat, 1),
                    scene,
                    input_message_count: 1,
                    generation: GenerationType::Normal,
                    requested,
                    profile: &writer(),
                    model: None,
                    preview: true,
                },
            )
            .await
            .unwrap()
            .lore
            .unwrap()
            .activation
            .activated
            .len()
        }
    };
    assert_eq!(run(GenerationType::Normal).await, 0);
    // A regenerate of a chat ending with the user's message is a normal reply, but its
    // world info still fires as a regenerate's.
    assert_eq!(run(GenerationType::Regenerate).await, 1);
}
