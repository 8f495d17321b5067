#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Chat writes stage their temp files in our own folder: SillyTavern's chat folder only ever
//! holds chats, and what a crashed writer left is removed by the next one.

mod chat_support;

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use agent_application::ports::{ChatCommitPort, CommitTarget};
use agent_infra_fs::chat::{FsChatCommitter, FsChatStore};
use chat_support::{Chat, chat_with, request};

const CHAT: &str = concat!(
    r#"{"user_name":"Ann","character_name":"Seraphina","chat_metadata":{"integrity":"stable-1"}}"#,
    "\n",
    r#"{"name":"Ann","is_user":true,"mes":"Hello","extra":{}}"#,
);

/// The names directly in `dir`, sorted.
pub fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|entry| entry.unwrap().file_name().into_string().unwrap())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// A temp id as our writers name them.
const HEX: &str = "0123456789abcdef0123456789abcdef";

fn set_age(path: &std::path::Path, age: Duration) {
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - age)
        .unwrap();
}

/// What a writer killed between staging and renaming leaves: its folder holding a whole
/// copy of the chat, and its lock file, which nobody holds any more.
fn plant_dead_writer(chat: &Chat, name: &str) {
    let staging = chat.data.staging();
    fs::create_dir_all(staging.join(name)).unwrap();
    fs::write(staging.join(name).join(format!("{HEX}.tmp")), CHAT).unwrap();
    File::create(staging.join(format!("{name}.lock"))).unwrap();
}

#[tokio::test]
async fn the_next_writer_removes_what_crashed_writers_left() {
    let chat = chat_with(CHAT.as_bytes());
    plant_dead_writer(&chat, "p4000000-dead");
    let folder = chat.path.parent().unwrap().to_path_buf();
    // Left beside the chat by older versions: one abandoned long ago, one just now.
    let abandoned = folder.join(format!(".chat.jsonl.tmp-{HEX}"));
    let recent = folder.join(format!(".other.jsonl.tmp-{HEX}"));
    fs::write(&abandoned, CHAT).unwrap();
    fs::write(&recent, CHAT).unwrap();
    set_age(&abandoned, Duration::from_secs(2 * 60 * 60));

    let committer = FsChatCommitter::new(chat.data.clone());
    committer
        .commit(request(&chat, "run_1", CommitTarget::NewReply, "Hi"))
        .await
        .unwrap();

    assert_eq!(
        names_in(&folder),
        [format!(".other.jsonl.tmp-{HEX}"), "chat.jsonl".to_owned()],
        "the abandoned temp is gone; one younger than an hour may still be written"
    );
    let staging = names_in(&chat.data.staging());
    assert_eq!(staging.len(), 2, "only the live writer: {staging:?}");
    assert!(
        staging.iter().all(|name| !name.contains("dead")),
        "{staging:?}"
    );
    let live = staging
        .iter()
        .find(|name| !name.ends_with(".lock"))
        .unwrap();
    assert!(names_in(&chat.data.staging().join(live)).is_empty());

    drop(committer);
    assert!(names_in(&chat.data.staging()).is_empty());
    assert!(fs::read_to_string(&chat.path).unwrap().contains("Hi"));
}

#[test]
fn nothing_but_the_chat_ever_appears_in_its_folder() {
    let chat = chat_with(
        CHAT.replace(r#","chat_metadata":{"integrity":"stable-1"}"#, "")
            .as_bytes(),
    );
    let folder = chat.path.parent().unwrap().to_path_buf();
    let committer = FsChatCommitter::new(chat.data.clone());
    let store = FsChatStore::new(chat.data.clone());
    let done = AtomicBool::new(false);
    let seen = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            let mut seen = BTreeSet::new();
            while !done.load(Ordering::Relaxed) {
                seen.extend(names_in(&folder));
            }
            seen
        });
        // Giving the chat its stable id rewrites it, and so does every commit.
        store.open_blocking(&chat.chat).unwrap();
        for i in 0..40 {
            let run = format!("run_{i}");
            committer
                .commit_blocking(&request(&chat, &run, CommitTarget::NewReply, "Hi"))
                .unwrap();
        }
        done.store(true, Ordering::Relaxed);
        watcher.join().unwrap()
    });
    assert_eq!(seen, BTreeSet::from(["chat.jsonl".to_owned()]));
    let text = fs::read_to_string(&chat.path).unwrap();
    assert_eq!(text.lines().count(), 42);
}
