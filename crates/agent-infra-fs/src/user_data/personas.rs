//! [`FsPersonaAvatars`]: the persona images in `<data>/User Avatars/`.

use std::fs;
use std::io;

use agent_application::ports::{PersonaAvatars, StoreError};
use async_trait::async_trait;

use super::{file_names, is_plain_name};
use crate::layout::DataDir;
use crate::runs::store_io::{blocking, io_error};

/// The persona avatars of one data directory. Every regular file counts except hidden ones
/// (`.DS_Store` and the like); SillyTavern itself lists only images, and every avatar it
/// writes is one.
#[derive(Debug, Clone)]
pub struct FsPersonaAvatars {
    data: DataDir,
}

impl FsPersonaAvatars {
    pub fn new(data: DataDir) -> Self {
        Self { data }
    }

    fn list_blocking(&self) -> Result<Vec<String>, StoreError> {
        let mut names = file_names(&self.data.persona_avatars())?;
        names.retain(|name| !name.starts_with('.'));
        names.sort();
        Ok(names)
    }

    fn exists_blocking(&self, avatar: &str) -> Result<bool, StoreError> {
        if !is_plain_name(avatar) || avatar.starts_with('.') {
            return Ok(false);
        }
        let path = self.data.persona_avatars().join(avatar);
        match fs::symlink_metadata(&path) {
            Ok(meta) => Ok(meta.is_file()),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(err) => Err(io_error(&path, err)),
        }
    }
}

#[async_trait]
impl PersonaAvatars for FsPersonaAvatars {
    async fn list(&self) -> Result<Vec<String>, StoreError> {
        let avatars = self.clone();
        blocking(move || avatars.list_blocking(), StoreError::Io).await
    }

    async fn exists(&self, avatar: &str) -> Result<bool, StoreError> {
        let (avatars, avatar) = (self.clone(), avatar.to_owned());
        blocking(move || avatars.exists_blocking(&avatar), StoreError::Io).await
    }
}
