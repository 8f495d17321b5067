use std::sync::Arc;

use serde_json::{Value, json};

use super::*;
use crate::ports::{CharacterCard, ChatError, StoreError};
use crate::testing::{
    FixedClock, MemoryCharacters, MemoryChats, MemoryGroups, MemoryLorebooks, MemoryPersonaAvatars,
    MemorySillyTavernSettings,
};

struct World {
    cards: Arc<MemoryCharacters>,
    settings: Arc<MemorySillyTavernSettings>,
    avatars: Arc<MemoryPersonaAvatars>,
    groups: Arc<MemoryGroups>,
    chats: MemoryChats,
}

impl World {
    fn new() -> Self {
        Self {
            cards: Arc::new(MemoryCharacters::new()),
            settings: Arc::new(MemorySillyTavernSettings::new()),
            avatars: Arc::new(MemoryPersonaAvatars::new()),
            groups: Arc::new(MemoryGroups::new()),
            chats: MemoryChats::new(),
        }
    }

    fn ports(&self) -> UserDataPorts {
        UserDataPorts {
            characters: self.cards.clone(),
            settings: self.settings.clone(),
            persona_avatars: self.avatars.clone(),
            lorebooks: Arc::new(MemoryLorebooks::new()),
            groups: self.groups.clone(),
        }
    }

    fn card(&self, id: &str, name: &str) {
        self.cards.put(
            id,
            CharacterCard {
                name: name.into(),
                ..CharacterCard::default()
            },
        );
    }

    async fn gather(
        &self,
        info: &ChatInfo,
        request: &SceneRequest,
    ) -> Result<ChatScene, SceneError> {
        let frame = SceneFrame {
            prefix: info.message_count,
            swipes_next: false,
        };
        self.gather_on(info, frame, request).await
    }

    async fn gather_on(
        &self,
        info: &ChatInfo,
        frame: SceneFrame,
        request: &SceneRequest,
    ) -> Result<ChatScene, SceneError> {
        gather(
            &self.ports(),
            &self.chats,
            &FixedClock::default(),
            info,
            frame,
            request,
        )
        .await
    }
}

fn info(chat: ChatRef, metadata: Value, count: usize) -> ChatInfo {
    ChatInfo {
        chat,
        stable_chat_id: "stable".into(),
        message_count: count,
        character_name: None,
        user_name: None,
        chat_metadata: metadata,
        create_date: None,
        has_header: true,
    }
}

fn one_to_one() -> ChatRef {
    ChatRef::Character {
        character_id: "Seraphina".into(),
        file_name: "chat".into(),
    }
}

fn settings() -> Value {
    json!({
        "username": "Ann",
        "user_avatar": "user-default.png",
        "power_user": {
            "personas": {"user-default.png": "Ann", "knight.png": "Sir Aldric"},
            "persona_descriptions": {"knight.png": {"description": "A knight.", "lorebook": "Knights"}},
        },
    })
}

#[tokio::test]
async fn names_come_from_the_card_and_the_locked_persona_not_the_header() {
    let world = World::new();
    world.card("Seraphina", " <b>Seraphina</b> ");
    world.settings.put(settings());
    world.avatars.put("knight.png");
    let mut chat = info(one_to_one(), json!({"persona": "knight.png"}), 0);
    chat.character_name = Some("Old Name".into());
    let scene = world.gather(&chat, &SceneRequest::default()).await.unwrap();
    assert_eq!(scene.author.name, "Seraphina");
    assert_eq!(
        (scene.user.name.as_str(), scene.user.lorebook.as_deref()),
        ("Sir Aldric", Some("Knights"))
    );
    assert_eq!(scene.macro_names().group, "Seraphina");

    let renamed = SceneRequest {
        user_name: Some("Kit".into()),
        ..SceneRequest::default()
    };
    assert_eq!(
        world.gather(&chat, &renamed).await.unwrap().user.name,
        "Kit"
    );
}

#[tokio::test]
async fn without_a_card_or_settings_the_header_names_are_used() {
    let world = World::new();
    let mut chat = info(one_to_one(), json!({}), 0);
    assert_eq!(
        world
            .gather(&chat, &SceneRequest::default())
            .await
            .unwrap()
            .author
            .name,
        "Seraphina",
        "the character folder"
    );
    chat.character_name = Some("Sera".into());
    chat.user_name = Some("Old Ann".into());
    let scene = world.gather(&chat, &SceneRequest::default()).await.unwrap();
    assert_eq!(
        (scene.author.name.as_str(), scene.user.name.as_str()),
        ("Sera", "Old Ann")
    );
}

#[tokio::test]
async fn a_group_run_speaks_as_the_last_speaker_or_the_member_asked_for() {
    let world = World::new();
    world.card("Seraphina", "Seraphina");
    world.card("Bram", "Bram");
    world.groups.put(Group {
        id: "1716".into(),
        name: "Fireside".into(),
        members: vec!["Seraphina.png".into(), "Bram.png".into()],
        disabled_members: Vec::new(),
        chat_id: Some("g1".into()),
        chats: vec!["g1".into()],
        raw: json!({}),
    });
    let chat_ref = ChatRef::Group {
        chat_id: "g1".into(),
    };
    world.chats.push(&chat_ref, ChatRole::User, "Ann", "Hello!");
    let mut reply = ChatMessage::new(1, ChatRole::Assistant, "Bram", "Ale!");
    reply.original_avatar = Some("Bram.png".into());
    let user = ChatMessage::new(0, ChatRole::User, "Ann", "Hello!");
    world.chats.put(&chat_ref, vec![user, reply]);
    let chat = info(chat_ref, json!({}), 2);
    let scene = world.gather(&chat, &SceneRequest::default()).await.unwrap();
    assert_eq!(scene.author.name, "Bram");
    assert_eq!(scene.author.avatar.as_deref(), Some("Bram.png"));
    assert!(scene.author.generation_id.is_some());
    assert_eq!(
        scene.character.as_ref().map(|c| c.name.as_str()),
        Some("Bram")
    );
    assert_eq!(scene.macro_names().group, "Seraphina, Bram");

    let as_seraphina = SceneRequest {
        speak_as: Some("seraphina".into()),
        ..SceneRequest::default()
    };
    assert_eq!(
        world
            .gather(&chat, &as_seraphina)
            .await
            .unwrap()
            .author
            .name,
        "Seraphina"
    );
    let stranger = SceneRequest {
        speak_as: Some("Nobody".into()),
        ..SceneRequest::default()
    };
    let err = world.gather(&chat, &stranger).await.unwrap_err();
    assert_eq!(agent_domain::ErrorCode::code(&err), "chat.member_not_found");

    // Swiping Bram's reply speaks as Bram, whoever spoke before it; asking for another
    // member is refused.
    let mut earlier = ChatMessage::new(1, ChatRole::Assistant, "Seraphina", "Welcome.");
    earlier.original_avatar = Some("Seraphina.png".into());
    let mut swiped = ChatMessage::new(2, ChatRole::Assistant, "Bram", "Ale!");
    swiped.original_avatar = Some("Bram.png".into());
    let user = ChatMessage::new(0, ChatRole::User, "Ann", "Hello!");
    world.chats.put(&chat.chat, vec![user, earlier, swiped]);
    let chat = info(chat.chat.clone(), json!({}), 3);
    let swipe = SceneFrame {
        prefix: 2,
        swipes_next: true,
    };
    let scene = world
        .gather_on(&chat, swipe, &SceneRequest::default())
        .await
        .unwrap();
    assert_eq!(scene.author.name, "Bram");
    let err = world
        .gather_on(&chat, swipe, &as_seraphina)
        .await
        .unwrap_err();
    assert_eq!(agent_domain::ErrorCode::code(&err), "chat.member_mismatch");
    // Without the swipe, the last speaker of the prefix (Seraphina) would have spoken.
    let reply = SceneFrame {
        prefix: 2,
        swipes_next: false,
    };
    let scene = world
        .gather_on(&chat, reply, &SceneRequest::default())
        .await
        .unwrap();
    assert_eq!(scene.author.name, "Seraphina");
}

#[tokio::test]
async fn damaged_settings_refuse_with_their_code() {
    let world = World::new();
    world.settings.fail_with(StoreError::Damaged {
        code: "sillytavern.settings_invalid",
        message: "settings.json line 3".into(),
    });
    let err = world
        .gather(&info(one_to_one(), json!({}), 0), &SceneRequest::default())
        .await
        .unwrap_err();
    assert_eq!(
        agent_domain::ErrorCode::code(&err),
        "sillytavern.settings_invalid"
    );
    let missing = World::new();
    let group = info(
        ChatRef::Group {
            chat_id: "gone".into(),
        },
        json!({}),
        3,
    );
    let err = missing
        .gather(&group, &SceneRequest::default())
        .await
        .unwrap_err();
    assert_eq!(
        err,
        SceneError::Chat(ChatError::NotFound(format!("{:?}", group.chat)))
    );
}
