//! The chat JSONL reader on any file: the bytes are written as a SillyTavern character chat,
//! then opened (which may stamp the header with a chat id) and read whole. Neither panics,
//! and an opened chat yields exactly the message count it reported.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use agent_domain::event::ChatRef;
use agent_infra_fs::chat::FsChatStore;
use agent_infra_fs::layout::DataDir;
use libfuzzer_sys::fuzz_target;

/// A data directory for the whole fuzzing session, in the system temp dir.
fn data_dir() -> &'static (tempfile::TempDir, PathBuf) {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let chats = dir.path().join("chats").join("Seraphina");
        std::fs::create_dir_all(&chats).unwrap();
        (dir, chats.join("fuzz.jsonl"))
    })
}

fuzz_target!(|data: &[u8]| {
    let (dir, file) = data_dir();
    std::fs::write(file, data).unwrap();
    let store = FsChatStore::new(DataDir::new(dir.path()));
    let chat = ChatRef::Character {
        character_id: "Seraphina".into(),
        file_name: "fuzz".into(),
    };
    let Ok(info) = store.open_blocking(&chat) else {
        return;
    };
    let messages = store.read_messages_blocking(&chat, 0..usize::MAX);
    if let Ok(messages) = messages {
        assert_eq!(messages.len(), info.message_count, "{info:?}");
    }
});
