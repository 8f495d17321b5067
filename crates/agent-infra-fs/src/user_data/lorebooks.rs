//! [`FsLorebooks`]: SillyTavern's lorebooks, `<data>/worlds/<name>.json`.

use std::path::Path;

use agent_application::ports::{
    INVALID_WORLD_NAME, Lorebook, Lorebooks, StoreError, WORLD_INVALID, compare_world_names,
};
use async_trait::async_trait;
use serde_json::Value;

use super::{file_names, is_plain_name, json_stem, read_object};
use crate::layout::DataDir;
use crate::runs::store_io::blocking;

/// The lorebooks of one data directory, read-only.
///
/// SillyTavern lists `*.json` with the extension matched case-insensitively but loads
/// `<name>.json` exactly; so that every listed name loads, a book saved as `<name>.JSON`
/// (say) is found by its listed name too.
#[derive(Debug, Clone)]
pub struct FsLorebooks {
    data: DataDir,
}

impl FsLorebooks {
    pub fn new(data: DataDir) -> Self {
        Self { data }
    }

    /// [`Lorebooks::list`] without the async wrapper (blocking).
    pub fn list_blocking(&self) -> Result<Vec<String>, StoreError> {
        let mut names: Vec<String> = file_names(&self.data.worlds())?
            .iter()
            .filter_map(|name| json_stem(name))
            .map(str::to_owned)
            .collect();
        names.sort_by(|a, b| compare_world_names(a, b));
        names.dedup();
        Ok(names)
    }

    /// [`Lorebooks::load`] without the async wrapper (blocking).
    pub fn load_blocking(&self, name: &str) -> Result<Option<Lorebook>, StoreError> {
        if !is_plain_name(name) {
            return Err(StoreError::Invalid {
                code: INVALID_WORLD_NAME,
                message: format!("`{name}` cannot name a lorebook: it must be a plain file name"),
            });
        }
        let dir = self.data.worlds();
        let Some(path) = book_path(&dir, name)? else {
            return Ok(None);
        };
        Ok(
            read_object(&dir.join(&path), WORLD_INVALID)?.map(|read| Lorebook {
                name: name.to_owned(),
                text: read.text,
                value: Value::Object(read.object),
            }),
        )
    }
}

/// The file name of book `name` in `dir`: `<name>.json`, else a file whose stem is `name`
/// and whose extension is `.json` in another case.
fn book_path(dir: &Path, name: &str) -> Result<Option<String>, StoreError> {
    let exact = format!("{name}.json");
    if dir.join(&exact).symlink_metadata().is_ok() {
        return Ok(Some(exact));
    }
    let mut names = file_names(dir)?;
    names.sort();
    Ok(names.into_iter().find(|file| json_stem(file) == Some(name)))
}

#[async_trait]
impl Lorebooks for FsLorebooks {
    async fn list(&self) -> Result<Vec<String>, StoreError> {
        let books = self.clone();
        blocking(move || books.list_blocking(), StoreError::Io).await
    }

    async fn load(&self, name: &str) -> Result<Option<Lorebook>, StoreError> {
        let (books, name) = (self.clone(), name.to_owned());
        blocking(move || books.load_blocking(&name), StoreError::Io).await
    }
}
