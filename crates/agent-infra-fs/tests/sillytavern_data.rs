#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! SillyTavern's own user data read through its ports: `settings.json`, persona avatars,
//! lorebooks and groups, on a fixture folder shaped like a SillyTavern 1.18 user folder
//! (`tests/fixtures/sillytavern-user/`, files written as SillyTavern writes them) with one
//! group and its chats still in the 1.12 format.

use std::fs;
use std::path::{Path, PathBuf};

use agent_application::ports::{
    GROUP_INVALID, Group, Groups, INVALID_GROUP_ID, INVALID_WORLD_NAME, Lorebooks, PersonaAvatars,
    SETTINGS_INVALID, SillyTavernSettings, StoreError, WORLD_INVALID,
};
use agent_domain::ErrorCode;
use agent_infra_fs::FsStorage;
use agent_infra_fs::layout::DataDir;
use agent_infra_fs::user_data::{FsGroups, FsLorebooks, FsPersonaAvatars, FsSillyTavernSettings};
use serde_json::{Value, json};
use tempfile::TempDir;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sillytavern-user")
}

/// A copy of the fixture folder to change.
fn copy() -> (TempDir, DataDir) {
    let dir = tempfile::tempdir().unwrap();
    let options = fs_extra::dir::CopyOptions::new()
        .content_only(true)
        .overwrite(true);
    fs_extra::dir::copy(fixture(), dir.path(), &options).unwrap();
    let data = DataDir::new(dir.path());
    (dir, data)
}

fn damaged(err: StoreError, code: &str, file: &str) -> String {
    assert_eq!(err.code(), code, "{err}");
    let message = err.to_string();
    assert!(message.contains(file), "{message}");
    message
}

#[tokio::test]
async fn settings_read_as_sillytavern_wrote_them() {
    let settings = FsSillyTavernSettings::new(DataDir::new(fixture()));
    let settings = settings.load().await.unwrap().unwrap();
    let power = &settings["power_user"];
    // What persona, world info and context budgets are resolved from.
    let parts = json!({
            "username": settings["username"],
            "user_avatar": settings["user_avatar"],
            "personas": power["personas"],
            "persona_descriptions": power["persona_descriptions"],
            "default_persona": power["default_persona"],
            "world_info": settings["world_info_settings"]["world_info"],
            "world_info_depth": settings["world_info_settings"]["world_info_depth"],
            "openai_max_context": settings["oai_settings"]["openai_max_context"],
            "openai_max_tokens": settings["oai_settings"]["openai_max_tokens"],
    });
    insta::assert_json_snapshot!("settings_parts", parts);
}

#[tokio::test]
async fn missing_and_broken_settings() {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    let settings = FsSillyTavernSettings::new(data.clone());
    assert_eq!(settings.load().await.unwrap(), None);
    // Our own settings file is not SillyTavern's.
    fs::create_dir_all(data.tauritavern()).unwrap();
    fs::write(data.settings_file(), "{}").unwrap();
    assert_eq!(settings.load().await.unwrap(), None);

    fs::write(
        data.sillytavern_settings_file(),
        "{\n    \"username\": \"Ann\",\n    \"power_user\": {\n        \"personas\": {,\n    }\n}",
    )
    .unwrap();
    let message = damaged(
        settings.load().await.unwrap_err(),
        SETTINGS_INVALID,
        "settings.json",
    );
    assert!(message.contains("line 4"), "{message}");
    fs::write(data.sillytavern_settings_file(), "[]").unwrap();
    damaged(
        settings.load().await.unwrap_err(),
        SETTINGS_INVALID,
        "settings.json",
    );
}

#[tokio::test]
async fn persona_avatars_are_the_files_there_are() {
    let (_dir, data) = copy();
    let avatars = FsPersonaAvatars::new(data.clone());
    assert_eq!(
        avatars.list().await.unwrap(),
        ["knight.png", "user-default.png"]
    );
    assert!(avatars.exists("knight.png").await.unwrap());
    assert!(!avatars.exists("gone.png").await.unwrap());
    for odd in ["", "..", "../settings.json", "User Avatars/knight.png"] {
        assert!(!avatars.exists(odd).await.unwrap(), "{odd}");
    }
    let folder = data.persona_avatars();
    fs::write(folder.join(".DS_Store"), b"").unwrap();
    fs::create_dir(folder.join("thumbs")).unwrap();
    fs::remove_file(folder.join("knight.png")).unwrap();
    assert_eq!(avatars.list().await.unwrap(), ["user-default.png"]);
    assert!(!avatars.exists("knight.png").await.unwrap());
    assert!(!avatars.exists("thumbs").await.unwrap());

    let empty = FsPersonaAvatars::new(DataDir::new(data.root().join("nowhere")));
    assert!(empty.list().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_lorebook_keeps_its_text_and_key_order() {
    let books = FsLorebooks::new(DataDir::new(fixture()));
    assert_eq!(books.list().await.unwrap(), ["Eldoria"]);
    let book = books.load("Eldoria").await.unwrap().unwrap();
    let path = fixture().join("worlds/Eldoria.json");
    assert_eq!(book.name, "Eldoria");
    assert_eq!(book.text, fs::read_to_string(path).unwrap());
    // The text keeps the file's order of entries and of their fields; the parsed value
    // does not (serde_json sorts keys), which is why the text is handed over.
    let first_keys: Vec<&str> = ["\"0\": {", "\"1\": {", "\"2\": {", "\"10\": {"]
        .into_iter()
        .filter(|key| book.text.contains(key))
        .collect();
    assert_eq!(first_keys.len(), 4);
    let at = |needle: &str| book.text.find(needle).unwrap();
    assert!(at("\"2\": {") < at("\"10\": {"));
    assert!(at("\"uid\": 0") < at("\"key\": [") && at("\"key\": [") < at("\"content\""));
    let entries = book.value["entries"].as_object().unwrap();
    assert_eq!(entries.keys().collect::<Vec<_>>(), ["0", "1", "10", "2"]);
    assert_eq!(
        entries["1"]["characterFilter"],
        json!({"isExclude": false, "names": ["Seraphina"], "tags": []})
    );
    assert_eq!(books.load("Knightly Orders").await.unwrap(), None);
}

#[tokio::test]
async fn lorebook_names_listing_and_damage() {
    let (_dir, data) = copy();
    let worlds = data.worlds();
    for (name, text) in [
        ("glade lore.JSON", "{\"entries\": {}}"),
        ("Alpha.json", "{\"entries\": {}}"),
        ("alpha.json", "{\"entries\": {}}"),
        (
            "Broken.json",
            "{\n    \"entries\": {\n        \"0\": {\n    }\n",
        ),
        ("Array.json", "[]"),
        ("notes.txt", "not a book"),
        (".json", "{}"),
    ] {
        fs::write(worlds.join(name), text).unwrap();
    }
    fs::create_dir(worlds.join("Folder.json")).unwrap();
    let books = FsLorebooks::new(data);
    assert_eq!(
        books.list().await.unwrap(),
        ["alpha", "Alpha", "Array", "Broken", "Eldoria", "glade lore"]
    );
    let glade = books.load("glade lore").await.unwrap().unwrap();
    assert_eq!(glade.text, "{\"entries\": {}}");

    let message = damaged(
        books.load("Broken").await.unwrap_err(),
        WORLD_INVALID,
        "Broken.json",
    );
    assert!(message.contains("line 5"), "{message}");
    damaged(
        books.load("Array").await.unwrap_err(),
        WORLD_INVALID,
        "Array.json",
    );
    for name in ["", ".", "..", "../settings", "a/b", "a\\b", "nul\0"] {
        let err = books.load(name).await.unwrap_err();
        assert_eq!(err.code(), INVALID_WORLD_NAME, "{name:?}");
    }
}

/// The typed fields of a group, for snapshots.
fn typed(group: &Group) -> Value {
    json!({
        "id": group.id,
        "name": group.name,
        "members": group.members,
        "disabled_members": group.disabled_members,
        "chat_id": group.chat_id,
        "chats": group.chats,
    })
}

#[tokio::test]
async fn groups_load_and_are_found_by_their_chats() {
    let groups = FsGroups::new(DataDir::new(fixture()));
    let council = groups.load("1750000000000").await.unwrap().unwrap();
    let typed_council = typed(&council);
    insta::assert_json_snapshot!("group_current_format", typed_council);
    assert_eq!(council.raw["activation_strategy"], 0);
    assert_eq!(council.chat_metadata("2026-06-01@21h00m00s123ms"), None);

    let found = groups
        .find_by_chat("2026-06-01@21h00m00s123ms")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found, council);

    // A 1.12-format group keeps its chats' metadata in the group file.
    let old = groups
        .find_by_chat("2024-09-01@08h00m00s")
        .await
        .unwrap()
        .unwrap();
    let metadata = json!({
        "group": typed(&old),
        "current_chat_metadata": old.chat_metadata("2024-09-28@10h11m12s"),
        "past_chat_metadata": old.chat_metadata("2024-09-01@08h00m00s"),
    });
    insta::assert_json_snapshot!("group_old_format", metadata);
    assert_eq!(
        groups.find_by_chat("2020-01-01@00h00m00s").await.unwrap(),
        None
    );
    assert_eq!(groups.load("1").await.unwrap(), None);
}

#[tokio::test]
async fn broken_groups_and_bad_ids() {
    let (_dir, data) = copy();
    let groups = FsGroups::new(data.clone());
    fs::write(data.groups().join("1600000000000.json"), "{\"id\": ").unwrap();
    fs::write(
        data.groups().join("1650000000000.json"),
        json!({"id": "1650000000000", "members": ["a.png", 7], "chats": []}).to_string(),
    )
    .unwrap();

    // Another group claims the chat: the broken files do not matter.
    let found = groups.find_by_chat("2024-09-28@10h11m12s").await.unwrap();
    assert_eq!(found.unwrap().id, "1700000000000");
    // Nobody claims it: a broken file might have, so it is reported.
    let message = damaged(
        groups
            .find_by_chat("2020-01-01@00h00m00s")
            .await
            .unwrap_err(),
        GROUP_INVALID,
        "1600000000000.json",
    );
    assert!(message.contains("line 1"), "{message}");
    let message = damaged(
        groups.load("1650000000000").await.unwrap_err(),
        GROUP_INVALID,
        "1650000000000.json",
    );
    assert!(message.contains("`members[1]`"), "{message}");

    for id in ["", ".", "..", "../settings", "a/b", "nul\0"] {
        let err = groups.load(id).await.unwrap_err();
        assert_eq!(err.code(), INVALID_GROUP_ID, "{id:?}");
    }
}

#[tokio::test]
async fn storage_wires_the_sillytavern_readers() {
    let storage = FsStorage::open(DataDir::new(fixture()));
    let settings = storage.sillytavern_settings.load().await.unwrap().unwrap();
    assert_eq!(settings["username"], "Ann");
    assert!(
        storage
            .persona_avatars
            .exists("user-default.png")
            .await
            .unwrap()
    );
    assert_eq!(storage.lorebooks.list().await.unwrap(), ["Eldoria"]);
    assert!(
        storage
            .groups
            .load("1700000000000")
            .await
            .unwrap()
            .is_some()
    );
}

#[tokio::test]
async fn the_user_data_ports_reach_the_same_folder() {
    let ports = FsStorage::open(DataDir::new(fixture())).user_data_ports();
    assert!(ports.settings.load().await.unwrap().is_some());
    assert_eq!(
        ports.persona_avatars.list().await.unwrap(),
        ["knight.png", "user-default.png"]
    );
    assert_eq!(ports.lorebooks.list().await.unwrap(), ["Eldoria"]);
    assert!(
        ports
            .groups
            .find_by_chat("2024-09-28@10h11m12s")
            .await
            .unwrap()
            .is_some()
    );
    assert!(ports.characters.list().await.unwrap().is_empty());
}
