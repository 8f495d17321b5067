//! Which chat a path names, and which file a chat lives in.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use agent_application::ports::ChatError;
use agent_domain::event::ChatRef;

use crate::layout::DataDir;

const EXTENSION: &str = ".jsonl";

/// Maps chat file paths to [`ChatRef`]s and back, so a run is tied to a chat by identity
/// rather than by whatever path spelling the user typed.
///
/// Paths never leave the data directory's `chats/` and `group chats/` folders: `..` is
/// refused, and so is a symlink for the character folder or the chat file.
#[derive(Debug, Clone, Copy)]
pub struct ChatLocator;

impl ChatLocator {
    /// Resolves a `--chat` path.
    ///
    /// * `<character>/<file>.jsonl` → a character chat; a relative path is relative to
    ///   `<data>/chats/`, except that one starting with `chats/` or `group chats/` is
    ///   relative to the data directory.
    /// * `group chats/<id>.jsonl` → a group chat.
    /// * An absolute path must lie under `<data>/chats/` or `<data>/group chats/` (compared
    ///   lexically, after making a relative data directory absolute).
    pub fn resolve(data: &DataDir, raw_path: &str) -> Result<(ChatRef, PathBuf), ChatError> {
        let refuse = |reason: &str| ChatError::InvalidPath(format!("`{raw_path}`: {reason}"));
        let raw = Path::new(raw_path);
        let chat = if raw.is_absolute() {
            let under = |root: PathBuf| {
                let root = std::path::absolute(&root).unwrap_or(root);
                raw.strip_prefix(root).ok().map(Path::to_path_buf)
            };
            if let Some(rest) = under(data.chats()) {
                character_chat(&segments(&rest).map_err(refuse)?)
            } else if let Some(rest) = under(data.group_chats()) {
                group_chat(&segments(&rest).map_err(refuse)?)
            } else {
                Err("an absolute chat path must lie under the data directory's `chats/` or `group chats/`")
            }
        } else {
            match segments(raw).map_err(refuse)?.as_slice() {
                ["group chats", rest @ ..] => group_chat(rest),
                ["chats", rest @ ..] if rest.len() == 2 => character_chat(rest),
                all => character_chat(all),
            }
        }
        .map_err(refuse)?;
        let path = Self::path_of(data, &chat)?;
        Ok((chat, path))
    }

    /// The file `chat` is stored in, refusing names that are not plain file names and
    /// symlinks on the way.
    pub fn path_of(data: &DataDir, chat: &ChatRef) -> Result<PathBuf, ChatError> {
        let (folder, file) = match chat {
            ChatRef::Character {
                character_id,
                file_name,
            } => {
                plain_name(character_id)?;
                let folder = data.chats().join(character_id);
                (Some(folder.clone()), folder.join(file_of(file_name)?))
            }
            ChatRef::Group { chat_id } => (None, data.group_chats().join(file_of(chat_id)?)),
            _ => {
                return Err(ChatError::InvalidPath(format!(
                    "unsupported chat kind: {chat:?}"
                )));
            }
        };
        if let Some(folder) = folder {
            no_symlink(&folder, fs::Metadata::is_dir, "a folder")?;
        }
        no_symlink(&file, fs::Metadata::is_file, "a file")?;
        Ok(file)
    }

    /// The chat as `--chat` names it: `<character>/<file>.jsonl`, `group chats/<id>.jsonl`.
    pub fn arg_of(chat: &ChatRef) -> String {
        match chat {
            ChatRef::Character {
                character_id,
                file_name,
            } => format!("{character_id}/{file_name}{EXTENSION}"),
            ChatRef::Group { chat_id } => format!("group chats/{chat_id}{EXTENSION}"),
            _ => format!("{chat:?}"),
        }
    }

    /// Every chat of the data directory: `chats/<character>/*.jsonl` and
    /// `group chats/*.jsonl`, as SillyTavern lists them. Hidden names, symlinks, other
    /// entries and names that cannot name a chat are left out. Ordered by [`Self::arg_of`].
    pub fn list(data: &DataDir) -> Result<Vec<ChatRef>, ChatError> {
        let mut chats = Vec::new();
        for character in plain_entries(&data.chats(), fs::Metadata::is_dir)? {
            let folder = data.chats().join(&character);
            for file in plain_entries(&folder, fs::Metadata::is_file)? {
                if let Ok(chat) = character_chat(&[&character, &file]) {
                    chats.push(chat);
                }
            }
        }
        for file in plain_entries(&data.group_chats(), fs::Metadata::is_file)? {
            if let Ok(chat) = group_chat(&[&file]) {
                chats.push(chat);
            }
        }
        chats.sort_by_key(Self::arg_of);
        Ok(chats)
    }
}

/// The names in `dir` (none if it is missing) of entries of the kind `is_kind` says, that
/// are not hidden, not symlinks and plain chat names.
fn plain_entries(dir: &Path, is_kind: fn(&fs::Metadata) -> bool) -> Result<Vec<String>, ChatError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(super::io_error(dir, err)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|err| super::io_error(dir, err))?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let meta = entry
            .metadata()
            .map_err(|err| super::io_error(&entry.path(), err))?;
        if name.starts_with('.') || meta.file_type().is_symlink() || !is_kind(&meta) {
            continue;
        }
        if plain_name(&name).is_ok() {
            names.push(name);
        }
    }
    Ok(names)
}

/// The plain components of a relative path; `.` is skipped, anything else refused.
fn segments(path: &Path) -> Result<Vec<&str>, &'static str> {
    let mut out = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => out.push(part.to_str().ok_or("the path is not UTF-8")?),
            Component::CurDir => {}
            Component::ParentDir => return Err("`..` is not allowed in a chat path"),
            Component::RootDir | Component::Prefix(_) => {
                return Err("unexpected root in a chat path");
            }
        }
    }
    Ok(out)
}

fn character_chat(parts: &[&str]) -> Result<ChatRef, &'static str> {
    match parts {
        [character, file] => Ok(ChatRef::Character {
            character_id: (*character).to_owned(),
            file_name: stem(file)?.to_owned(),
        }),
        _ => Err("a character chat path is `<character>/<file>.jsonl`"),
    }
}

fn group_chat(parts: &[&str]) -> Result<ChatRef, &'static str> {
    match parts {
        [file] => Ok(ChatRef::Group {
            chat_id: stem(file)?.to_owned(),
        }),
        _ => Err("a group chat path is `group chats/<id>.jsonl`"),
    }
}

fn stem(file: &str) -> Result<&str, &'static str> {
    file.strip_suffix(EXTENSION)
        .filter(|stem| !stem.is_empty())
        .ok_or("a chat file name ends with `.jsonl`")
}

/// `<name>.jsonl`, once `name` is known to be a plain file name.
fn file_of(name: &str) -> Result<String, ChatError> {
    plain_name(name)?;
    Ok(format!("{name}{EXTENSION}"))
}

fn plain_name(name: &str) -> Result<(), ChatError> {
    let plain =
        !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0']);
    if plain {
        Ok(())
    } else {
        Err(ChatError::InvalidPath(format!(
            "`{name}` is not a plain chat or character name"
        )))
    }
}

/// Refuses `path` if it is a symlink or exists as the wrong kind of entry; a missing path is
/// fine (reading it reports "not found").
fn no_symlink(
    path: &Path,
    is_kind: fn(&fs::Metadata) -> bool,
    kind: &str,
) -> Result<(), ChatError> {
    let refuse = |reason: String| {
        Err(ChatError::InvalidPath(format!(
            "{}: {reason}",
            path.display()
        )))
    };
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            refuse("symbolic links are not followed".into())
        }
        Ok(meta) if !is_kind(&meta) => refuse(format!("not {kind}")),
        Ok(_) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(super::io_error(path, err)),
    }
}
