#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Resolving `--chat` paths to chats and back.

use std::fs;

use agent_application::ports::ChatError;
use agent_domain::event::ChatRef;
use agent_infra_fs::chat::ChatLocator;
use agent_infra_fs::layout::DataDir;
use tempfile::TempDir;

fn data_dir() -> (TempDir, DataDir) {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    fs::create_dir_all(data.chats().join("Alice")).unwrap();
    fs::create_dir_all(data.group_chats()).unwrap();
    fs::write(data.chats().join("Alice/first chat.jsonl"), "{}").unwrap();
    (dir, data)
}

fn character(character_id: &str, file_name: &str) -> ChatRef {
    ChatRef::Character {
        character_id: character_id.into(),
        file_name: file_name.into(),
    }
}

fn refused(data: &DataDir, raw: &str) -> String {
    match ChatLocator::resolve(data, raw) {
        Err(ChatError::InvalidPath(reason)) => reason,
        other => panic!("`{raw}` should be refused, got {other:?}"),
    }
}

#[test]
fn relative_paths_are_relative_to_the_chats_folder() {
    let (_dir, data) = data_dir();
    let expected = (
        character("Alice", "first chat"),
        data.chats().join("Alice/first chat.jsonl"),
    );
    for raw in [
        "Alice/first chat.jsonl",
        "./Alice/first chat.jsonl",
        "chats/Alice/first chat.jsonl",
    ] {
        assert_eq!(ChatLocator::resolve(&data, raw).unwrap(), expected, "{raw}");
    }
    // A chat that does not exist yet still resolves; reading it reports "not found".
    let (chat, path) = ChatLocator::resolve(&data, "Bob/new.v2.jsonl").unwrap();
    assert_eq!(chat, character("Bob", "new.v2"));
    assert_eq!(path, data.chats().join("Bob/new.v2.jsonl"));
}

#[test]
fn group_chats_resolve_relative_to_the_data_dir_or_absolute() {
    let (_dir, data) = data_dir();
    let expected = (
        ChatRef::Group {
            chat_id: "1718000000000".into(),
        },
        data.group_chats().join("1718000000000.jsonl"),
    );
    assert_eq!(
        ChatLocator::resolve(&data, "group chats/1718000000000.jsonl").unwrap(),
        expected
    );
    let absolute = data.group_chats().join("1718000000000.jsonl");
    assert_eq!(
        ChatLocator::resolve(&data, absolute.to_str().unwrap()).unwrap(),
        expected
    );
}

#[test]
fn absolute_paths_must_lie_under_the_chat_folders() {
    let (dir, data) = data_dir();
    let inside = data.chats().join("Alice/first chat.jsonl");
    assert_eq!(
        ChatLocator::resolve(&data, inside.to_str().unwrap()).unwrap(),
        (character("Alice", "first chat"), inside)
    );
    let outside = tempfile::tempdir().unwrap();
    for path in [
        outside.path().join("Alice/x.jsonl"),
        dir.path().join("_tauritavern/x.jsonl"),
        dir.path().join("x.jsonl"),
        dir.path().join("chats/../group chats/x.jsonl"),
    ] {
        refused(&data, path.to_str().unwrap());
    }
}

#[test]
fn parent_components_are_refused() {
    let (_dir, data) = data_dir();
    for raw in [
        "../x.jsonl",
        "../chats/Alice/x.jsonl",
        "Alice/../Bob/x.jsonl",
        "group chats/../x.jsonl",
    ] {
        assert!(refused(&data, raw).contains(".."), "{raw}");
    }
}

#[test]
fn paths_of_the_wrong_shape_are_refused() {
    let (_dir, data) = data_dir();
    for raw in [
        "",
        "x.jsonl",
        "Alice/x.txt",
        "Alice/.jsonl",
        "Alice/sub/x.jsonl",
        "group chats/a/b.jsonl",
    ] {
        refused(&data, raw);
    }
    fs::create_dir_all(data.chats().join("Alice/dir.jsonl")).unwrap();
    assert!(refused(&data, "Alice/dir.jsonl").contains("not a file"));
}

#[cfg(unix)]
#[test]
fn symlinks_are_refused() {
    let (_dir, data) = data_dir();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("x.jsonl"), "{}").unwrap();
    std::os::unix::fs::symlink(outside.path(), data.chats().join("Linked")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("x.jsonl"),
        data.chats().join("Alice/link.jsonl"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("x.jsonl"),
        data.group_chats().join("g.jsonl"),
    )
    .unwrap();
    for raw in ["Linked/x.jsonl", "Alice/link.jsonl", "group chats/g.jsonl"] {
        assert!(refused(&data, raw).contains("symbolic link"), "{raw}");
    }
}

#[test]
fn chats_map_back_to_their_files() {
    let (_dir, data) = data_dir();
    assert_eq!(
        ChatLocator::path_of(&data, &character("Alice", "first chat")).unwrap(),
        data.chats().join("Alice/first chat.jsonl")
    );
    assert_eq!(
        ChatLocator::path_of(
            &data,
            &ChatRef::Group {
                chat_id: "g".into()
            }
        )
        .unwrap(),
        data.group_chats().join("g.jsonl")
    );
    let bad: [ChatRef; 4] = [
        character("..", "x"),
        character("Alice", "../../x"),
        character("", "x"),
        ChatRef::Group {
            chat_id: "a/b".into(),
        },
    ];
    for chat in bad {
        assert!(
            matches!(
                ChatLocator::path_of(&data, &chat),
                Err(ChatError::InvalidPath(_))
            ),
            "{chat:?}"
        );
    }
}
