#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `FsProfileStore` and `FsSettingsStore`.

use std::fs;

use agent_application::ports::{ProfileStore, SettingsStore, StoreError, StoredProfile};
use agent_domain::ErrorCode;
use agent_infra_fs::layout::DataDir;
use agent_infra_fs::profiles::{FsProfileStore, FsSettingsStore};
use pretty_assertions::assert_eq;
use serde_json::json;

fn data() -> (tempfile::TempDir, DataDir) {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    (dir, data)
}

fn profile(id: &str, text: &str) -> StoredProfile {
    StoredProfile {
        id: id.into(),
        text: text.into(),
    }
}

#[tokio::test]
async fn profiles_save_load_list_and_delete() {
    let (_dir, data) = data();
    let store = FsProfileStore::new(data.clone());
    assert!(store.list().await.unwrap().is_empty());
    assert_eq!(store.load("writer").await.unwrap(), None);

    store.save("writer", "{\"v\":1}").await.unwrap();
    store.save("writer", "{\"v\":2}").await.unwrap();
    store.save("a-critic_2", "{}").await.unwrap();
    assert_eq!(
        store.load("writer").await.unwrap(),
        Some(profile("writer", "{\"v\":2}"))
    );
    assert_eq!(
        fs::read_to_string(data.profiles_dir().join("writer.json")).unwrap(),
        "{\"v\":2}"
    );
    // The staging folder holds nothing once a save is done.
    assert_eq!(fs::read_dir(data.profiles_staging()).unwrap().count(), 0);

    // Files that are not profiles by name are left alone.
    fs::write(data.profiles_dir().join("README.txt"), "hi").unwrap();
    fs::write(data.profiles_dir().join("Not An Id.json"), "{}").unwrap();
    let listed = store.list().await.unwrap();
    assert_eq!(
        listed,
        [profile("a-critic_2", "{}"), profile("writer", "{\"v\":2}")]
    );

    assert!(store.delete("writer").await.unwrap());
    assert!(!store.delete("writer").await.unwrap());
    assert_eq!(store.load("writer").await.unwrap(), None);
}

#[tokio::test]
async fn profile_ids_are_checked_before_touching_the_disk() {
    let (dir, data) = data();
    let store = FsProfileStore::new(data);
    let long = "x".repeat(129);
    for bad in ["", "Writer", "../escape", "a b", " writer", long.as_str()] {
        let err = store.save(bad, "{}").await.unwrap_err();
        assert_eq!(err.code(), "agent.profile_id_invalid", "{bad:?}");
        assert_eq!(
            store.load(bad).await.unwrap_err().code(),
            "agent.profile_id_invalid"
        );
        assert_eq!(
            store.delete(bad).await.unwrap_err().code(),
            "agent.profile_id_invalid"
        );
    }
    assert!(store.save(&"x".repeat(128), "{}").await.is_ok());
    assert!(!dir.path().join("escape.json").exists());
}

#[tokio::test]
async fn a_profile_that_is_not_text_is_an_integrity_fault() {
    let (_dir, data) = data();
    let store = FsProfileStore::new(data.clone());
    fs::create_dir_all(data.profiles_dir()).unwrap();
    fs::write(data.profiles_dir().join("bin.json"), [0xff, 0xfe]).unwrap();
    assert!(matches!(
        store.load("bin").await,
        Err(StoreError::Integrity(_))
    ));
}

#[tokio::test]
async fn settings_default_to_an_empty_object_and_round_trip() {
    let (_dir, data) = data();
    let store = FsSettingsStore::new(data.clone());
    assert_eq!(store.load().await.unwrap(), json!({}));
    let settings = json!({"retention": {"keepRecentTerminalRuns": 20}});
    store.save(&settings).await.unwrap();
    assert_eq!(store.load().await.unwrap(), settings);

    fs::write(data.settings_file(), "{ broken").unwrap();
    let err = store.load().await.unwrap_err();
    assert!(
        matches!(&err, StoreError::Integrity(m) if m.contains("settings.json")),
        "{err}"
    );
}
