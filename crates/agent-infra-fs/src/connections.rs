//! [`FsConnectionStore`]: saved LLM connections, one pretty JSON file each.
//!
//! ```text
//! _tauritavern/llm-connections/<name>.json                 one connection
//! _tauritavern/llm-connections/.tmp-<writer>-<uuid>      a write in progress
//! ```
//!
//! Names are checked ([`ConnectionName`]) before any path is built, so a name can never
//! leave the folder. Writes are staged beside the target and then renamed into place
//! ([`write_atomic`], for `replace`) or hard-linked into place ([`write_create_only`], for
//! `create`): the link fails when the name is taken, so two processes creating the same
//! connection cannot both win, and a reader never sees a half-written file.
//!
//! Listing is tolerant: a file that does not read as a connection is reported with its file
//! name and code in [`ConnectionList::problems`] and the others are still listed. Hidden
//! files (writes in progress), other extensions and folders are not connections and are
//! skipped; a symbolic link is refused as an integrity fault, as in every other store.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use agent_application::ports::{ConnectionList, ConnectionProblem, ConnectionStore, StoreError};
use agent_domain::ErrorCode;
use agent_domain::connection::{ConnectionConfig, ConnectionError, ConnectionName};
use async_trait::async_trait;

use crate::atomic::{pretty_json, write_atomic, write_create_only};
use crate::layout::DataDir;
use crate::runs::store_io::{blocking, integrity, io_error, json_files, read_file};

/// The LLM connections of one data directory.
#[derive(Debug, Clone)]
pub struct FsConnectionStore {
    data: DataDir,
}

impl FsConnectionStore {
    pub fn new(data: DataDir) -> Self {
        Self { data }
    }

    /// Where the connection `name` is stored; refuses a name that is not one before any
    /// path exists.
    fn file_of(&self, name: &str) -> Result<(ConnectionName, PathBuf), StoreError> {
        let name = ConnectionName::parse(name)?;
        let path = self.data.llm_connection_file(&name);
        Ok((name, path))
    }

    fn write(&self, config: &ConnectionConfig, create: bool) -> Result<Job, StoreError> {
        config.validate()?;
        let (name, path) = self.file_of(&config.name)?;
        let bytes = pretty_json(config).map_err(|err| io_error(&path, err))?;
        Ok(Job {
            dir: self.data.llm_connections(),
            name,
            path,
            bytes,
            create,
        })
    }
}

/// One write, ready to run on the blocking pool.
struct Job {
    dir: PathBuf,
    name: ConnectionName,
    path: PathBuf,
    bytes: Vec<u8>,
    create: bool,
}

impl Job {
    fn run(self) -> Result<(), StoreError> {
        // Names differing only in case would share one file on case-insensitive file systems
        // (and collide when a data folder moves to one): refused for create and replace
        // alike. Best effort against a concurrent writer of the other spelling.
        if let Some((existing, _)) = json_files(&self.dir)?
            .into_iter()
            .find(|(stem, _)| self.name.clashes_with(stem))
        {
            return Err(ConnectionError::NameClash {
                name: self.name.to_string(),
                existing,
            }
            .into());
        }
        if !self.create {
            return write_atomic(&self.path, &self.bytes).map_err(|err| io_error(&self.path, err));
        }
        match write_create_only(&self.path, &self.bytes) {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
                Err(ConnectionError::AlreadyExists {
                    name: self.name.to_string(),
                }
                .into())
            }
            Err(err) => Err(io_error(&self.path, err)),
        }
    }
}

/// Why a stored file is not a usable connection, or an I/O fault reading it.
enum ReadFailure {
    Unusable(ConnectionError),
    Store(StoreError),
}

/// Reads the connection file at `path`, kept under `stem`. `None` when it does not exist.
fn read_connection(path: &Path, stem: &str) -> Result<Option<ConnectionConfig>, ReadFailure> {
    let Some(bytes) = read_file(path).map_err(ReadFailure::Store)? else {
        return Ok(None);
    };
    let unusable = |error| Err(ReadFailure::Unusable(error));
    let Ok(text) = String::from_utf8(bytes) else {
        return unusable(ConnectionError::ContractInvalid {
            detail: "the file is not UTF-8 text".to_owned(),
        });
    };
    let config = match ConnectionConfig::from_json(&text) {
        Ok(config) => config,
        Err(error) => return unusable(error),
    };
    if config.name != stem {
        return unusable(ConnectionError::NameMismatch {
            file_name: stem.to_owned(),
            document_name: config.name,
        });
    }
    Ok(Some(config))
}

fn list_connections(dir: &Path) -> Result<ConnectionList, StoreError> {
    let mut list = ConnectionList::default();
    for (stem, path) in json_files(dir)? {
        // A file whose name cannot be a connection name is still reported: it was most
        // likely meant to be one, and `show`/`remove` could never reach it.
        let read = match ConnectionName::parse(&stem) {
            Ok(_) => read_connection(&path, &stem),
            Err(error) => Err(ReadFailure::Unusable(error)),
        };
        match read {
            Ok(Some(config)) => list.connections.push(config),
            // Removed between listing the folder and reading the file.
            Ok(None) => {}
            Err(ReadFailure::Unusable(error)) => {
                list.problems.push(ConnectionProblem::new(stem, &error));
            }
            Err(ReadFailure::Store(error)) => return Err(error),
        }
    }
    Ok(list)
}

fn get_connection(path: &Path, name: &str) -> Result<Option<ConnectionConfig>, StoreError> {
    read_connection(path, name).map_err(|failure| match failure {
        ReadFailure::Store(error) => error,
        ReadFailure::Unusable(error) => integrity(path, format_args!("{}: {error}", error.code())),
    })
}

fn remove_connection(path: &Path, name: &ConnectionName) -> Result<(), StoreError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Err(ConnectionError::NotFound {
            name: name.to_string(),
        }
        .into()),
        Err(err) => Err(io_error(path, err)),
    }
}

#[async_trait]
impl ConnectionStore for FsConnectionStore {
    async fn list(&self) -> Result<ConnectionList, StoreError> {
        let dir = self.data.llm_connections();
        blocking(move || list_connections(&dir), StoreError::Io).await
    }

    async fn get(&self, name: &str) -> Result<Option<ConnectionConfig>, StoreError> {
        let (name, path) = self.file_of(name)?;
        blocking(move || get_connection(&path, name.as_str()), StoreError::Io).await
    }

    async fn create(&self, config: &ConnectionConfig) -> Result<(), StoreError> {
        let job = self.write(config, true)?;
        blocking(move || job.run(), StoreError::Io).await
    }

    async fn replace(&self, config: &ConnectionConfig) -> Result<(), StoreError> {
        let job = self.write(config, false)?;
        blocking(move || job.run(), StoreError::Io).await
    }

    async fn remove(&self, name: &str) -> Result<(), StoreError> {
        let (name, path) = self.file_of(name)?;
        blocking(move || remove_connection(&path, &name), StoreError::Io).await
    }
}

#[cfg(test)]
mod tests {
    use agent_domain::connection::{ConnectionHeader, ProviderFormat};
    use serde_json::{Value, json};

    use super::*;

    struct Fixture {
        dir: tempfile::TempDir,
        store: FsConnectionStore,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let store = FsConnectionStore::new(DataDir::new(dir.path()));
        Fixture { dir, store }
    }

    impl Fixture {
        fn folder(&self) -> PathBuf {
            self.dir.path().join("_tauritavern/llm-connections")
        }

        fn write_raw(&self, file: &str, text: &str) {
            fs::create_dir_all(self.folder()).unwrap();
            fs::write(self.folder().join(file), text).unwrap();
        }

        fn entries(&self) -> Vec<String> {
            let mut names: Vec<String> = fs::read_dir(self.folder())
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            names.sort();
            names
        }
    }

    fn openai() -> ConnectionConfig {
        let mut config = ConnectionConfig::new("openai", ProviderFormat::OpenaiChat, "gpt-4o");
        config.base_url = Some("https://api.openai.com/v1".into());
        config.api_key_env = Some("OPENAI_API_KEY".into());
        config.headers = vec![ConnectionHeader::new("OpenAI-Organization", "org-1")];
        config.params.insert("temperature".into(), json!(0.2));
        config
    }

    #[tokio::test]
    async fn create_get_replace_remove() {
        let fx = fixture();
        assert_eq!(fx.store.list().await.unwrap(), ConnectionList::default());
        fx.store.create(&openai()).await.unwrap();

        let text = fs::read_to_string(fx.folder().join("openai.json")).unwrap();
        assert!(text.ends_with("}\n"), "{text}");
        let on_disk: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(on_disk, serde_json::to_value(openai()).unwrap());
        assert_eq!(on_disk["kind"], "tavern-agent.llmConnection");
        assert_eq!(fx.store.get("openai").await.unwrap(), Some(openai()));
        assert_eq!(fx.store.get("other").await.unwrap(), None);

        let err = fx.store.create(&openai()).await.unwrap_err();
        assert_eq!(err.code(), "connection.already_exists");
        let mut changed = openai();
        changed.model = "gpt-4.1".into();
        fx.store.replace(&changed).await.unwrap();
        assert_eq!(fx.store.get("openai").await.unwrap(), Some(changed));
        // Replace also creates.
        let gemini = ConnectionConfig::new("gemini", ProviderFormat::Gemini, "gemini-2.5-pro");
        fx.store.replace(&gemini).await.unwrap();
        assert_eq!(fx.entries(), ["gemini.json", "openai.json"]);

        fx.store.remove("openai").await.unwrap();
        let err = fx.store.remove("openai").await.unwrap_err();
        assert_eq!(err.code(), "connection.not_found");
        assert_eq!(fx.entries(), ["gemini.json"]);
    }

    #[tokio::test]
    async fn listing_is_sorted_and_reports_broken_files_by_name() {
        let fx = fixture();
        for name in ["zeta", "alpha", "Mid"] {
            let config = ConnectionConfig::new(name, ProviderFormat::Anthropic, "claude");
            fx.store.create(&config).await.unwrap();
        }
        fx.write_raw("broken.json", "{\"kind\": ");
        fx.write_raw(
            "profile.json",
            r#"{"kind": "tauritavern.agentProfile", "schemaVersion": 3}"#,
        );
        let moved = serde_json::to_string(&openai()).unwrap();
        fx.write_raw("moved.json", &moved);
        fx.write_raw("bad name.json", &moved);
        fx.write_raw("notes.txt", "not a connection");
        fx.write_raw(".openai.json.tmp-123", &moved);
        fs::create_dir_all(fx.folder().join("folder.json")).unwrap();

        let list = fx.store.list().await.unwrap();
        let names: Vec<&str> = list.connections.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["Mid", "alpha", "zeta"]);
        let problems: Vec<(&str, &str)> = list
            .problems
            .iter()
            .map(|p| (p.name.as_str(), p.code.as_str()))
            .collect();
        assert_eq!(
            problems,
            [
                ("bad name", "connection.invalid_name"),
                ("broken", "connection.contract_invalid"),
                ("moved", "connection.name_mismatch"),
                ("profile", "connection.kind_invalid"),
            ]
        );
    }

    #[tokio::test]
    async fn a_broken_file_fails_its_own_lookup_as_an_integrity_fault() {
        let fx = fixture();
        fx.write_raw("broken.json", "{");
        let err = fx.store.get("broken").await.unwrap_err();
        assert!(matches!(err, StoreError::Integrity(_)), "{err:?}");
        let message = err.to_string();
        assert!(message.contains("broken.json"), "{message}");
        assert!(message.contains("connection.contract_invalid"), "{message}");
        // It can still be removed.
        fx.store.remove("broken").await.unwrap();
    }

    #[tokio::test]
    async fn names_that_would_escape_are_refused_before_any_path_exists() {
        let fx = fixture();
        let outside = fx.dir.path().join("_tauritavern/escaped.json");
        for name in ["../escaped", "..", "/etc/passwd", "a/b", ".hidden", ""] {
            let err = fx.store.get(name).await.unwrap_err();
            assert_eq!(err.code(), "connection.invalid_name", "{name:?}");
            let err = fx.store.remove(name).await.unwrap_err();
            assert_eq!(err.code(), "connection.invalid_name", "{name:?}");
            let mut config = openai();
            config.name = name.to_owned();
            let err = fx.store.create(&config).await.unwrap_err();
            assert_eq!(err.code(), "connection.invalid_name", "{name:?}");
            let err = fx.store.replace(&config).await.unwrap_err();
            assert_eq!(err.code(), "connection.invalid_name", "{name:?}");
        }
        assert!(!outside.exists());
        assert!(!fx.dir.path().join("_tauritavern").exists());
    }

    #[tokio::test]
    async fn invalid_configs_are_never_written() {
        let fx = fixture();
        let mut config = openai();
        config.api_key_env = Some("NOT-A-VAR".into());
        let err = fx.store.create(&config).await.unwrap_err();
        assert_eq!(err.code(), "connection.invalid_env_var");
        let err = fx.store.replace(&config).await.unwrap_err();
        assert_eq!(err.code(), "connection.invalid_env_var");
        assert!(!fx.folder().exists());
    }

    #[tokio::test]
    async fn names_differing_only_in_case_cannot_both_exist() {
        let fx = fixture();
        fx.store.create(&openai()).await.unwrap();
        let mut shouting = openai();
        shouting.name = "OPENAI".into();
        for result in [
            fx.store.create(&shouting).await,
            fx.store.replace(&shouting).await,
        ] {
            let err = result.unwrap_err();
            assert_eq!(err.code(), "connection.name_clash");
            assert!(err.to_string().contains("`openai`"), "{err}");
            assert!(!err.to_string().contains("--force"), "{err}");
        }
        assert_eq!(fx.store.list().await.unwrap().connections.len(), 1);
        // The same name, same case, is replaced as usual.
        fx.store.replace(&openai()).await.unwrap();
    }

    #[tokio::test]
    async fn racing_creates_have_one_winner() {
        let fx = fixture();
        let attempts: Vec<_> = (0..8)
            .map(|i| {
                let store = fx.store.clone();
                tokio::spawn(async move {
                    let mut config = openai();
                    config.model = format!("model-{i}");
                    store.create(&config).await
                })
            })
            .collect();
        let mut won = 0;
        for attempt in attempts {
            match attempt.await.unwrap() {
                Ok(()) => won += 1,
                Err(err) => assert_eq!(err.code(), "connection.already_exists"),
            }
        }
        assert_eq!(won, 1);
        assert_eq!(fx.entries(), ["openai.json"]);
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_symlinked_connection_is_refused() {
        let fx = fixture();
        fx.write_raw("real.txt", &serde_json::to_string(&openai()).unwrap());
        std::os::unix::fs::symlink(
            fx.folder().join("real.txt"),
            fx.folder().join("openai.json"),
        )
        .unwrap();
        assert!(matches!(
            fx.store.get("openai").await,
            Err(StoreError::Integrity(_))
        ));
        assert!(matches!(
            fx.store.list().await,
            Err(StoreError::Integrity(_))
        ));
    }
}
