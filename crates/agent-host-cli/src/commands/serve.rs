//! `serve`: the HTTP host (`agent-host-http`) over the same wiring as every other command.
//! This module only builds what that crate asks for (the services, chat resolution, the
//! run's model, journal following) and starts it; the API itself lives in that crate.

use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use agent_application::ports::{EventStream, JournalError, SkillRef, SkillScope, StoreError};
use agent_domain::event::ChatRef;
use agent_domain::run::RunId;
use agent_domain::workspace::WorkspacePath;
use agent_host_http::{
    ApiError, ApiResult, ChosenModel, HeaderValue, HostWiring, ModelChoice, ServeOptions, Services,
    SkillImport, StatusCode, Token,
};
use agent_infra_fs::FsStorage;
use agent_infra_fs::chat::ChatLocator;
use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::net::TcpListener;

use super::model;
use super::run::Interrupts;
use crate::cli::ServeArgs;
use crate::exit::{CmdResult, Exit, Failed, OrCode, codes};
use crate::wiring::Host;

/// The environment variable a fixed token is read from; without it one is generated.
pub const TOKEN_ENV: &str = "TAVERN_AGENT_SERVE_TOKEN";

pub async fn execute(host: Host, args: ServeArgs) -> CmdResult {
    let allowed_origins = args
        .allow_origin
        .iter()
        .map(|origin| {
            HeaderValue::from_str(origin.trim_end_matches('/')).map_err(|_| {
                Failed::new(
                    Exit::Usage,
                    codes::USAGE,
                    format!("--allow-origin {origin}: not a valid origin"),
                )
            })
        })
        .collect::<CmdResult<Vec<_>>>()?;
    let token = match std::env::var(TOKEN_ENV) {
        Ok(secret) if !secret.trim().is_empty() => Token::new(secret.trim()),
        _ => Token::generate().or_code(Exit::Failure, codes::STARTUP_FAILED)?,
    };
    let listener = TcpListener::bind(args.bind).await.map_err(|err| {
        Failed::new(
            Exit::Failure,
            "serve.bind_failed",
            format!("cannot listen on {}: {err}", args.bind),
        )
    })?;
    let address = listener
        .local_addr()
        .or_code(Exit::Failure, "serve.bind_failed")?;
    let mut interrupts = Interrupts::install().or_code(Exit::Failure, codes::STARTUP_FAILED)?;
    let services = services(host);
    let options = ServeOptions {
        token: token.clone(),
        allowed_origins,
        body_limit: args.max_body_bytes,
    };
    announce(address, &token);
    agent_host_http::serve(listener, services, options, async move {
        interrupts.recv().await;
    })
    .await
    .or_code(Exit::Failure, "serve.failed")?;
    Ok(Exit::Ok)
}

/// The first stdout line names the address (tests and scripts read it); the URL with the
/// token goes to stderr, once.
fn announce(address: SocketAddr, token: &Token) {
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "listening on http://{address}");
    let _ = out.flush();
    let _ = writeln!(
        io::stderr().lock(),
        "open http://{address}/#token={}",
        token.secret()
    );
}

/// The services of the CLI's wiring, handed to the HTTP host.
fn services(host: Host) -> Services {
    let host = Arc::new(host);
    Services {
        runtime: host.runtime.clone(),
        profiles: host.profiles(),
        connections: host.storage.connections.clone(),
        mcp: Arc::new(host.mcp()),
        retention: Arc::new(host.retention()),
        skills: host.skills(),
        chats: host.chat_workspaces(),
        doctor: host.doctor(),
        host: Arc::new(Wiring { host }),
    }
}

/// [`HostWiring`] over the data directory's adapters.
struct Wiring {
    host: Arc<Host>,
}

impl Wiring {
    fn storage(&self) -> &FsStorage {
        &self.host.storage
    }
}

#[async_trait]
impl HostWiring for Wiring {
    fn resolve_chat(&self, raw: &str) -> ApiResult<ChatRef> {
        // A client names chats inside the data directory only, never by a server path.
        if Path::new(raw).is_absolute() {
            return Err(ApiError::bad_request(
                "chat.path_invalid",
                format!("`{raw}`: name the chat relative to the data directory's chats/"),
            ));
        }
        ChatLocator::resolve(&self.storage().data, raw)
            .map(|(chat, _)| chat)
            .map_err(|err| ApiError::coded(&err, true))
    }

    async fn choose_model(&self, choice: &ModelChoice) -> ApiResult<ChosenModel> {
        let chosen = model::choose_from(
            &self.host,
            choice.profile.as_deref(),
            choice.connection.as_deref(),
            choice.script.as_deref(),
        )
        .await
        .map_err(|failed| {
            let status = if failed.code.ends_with("not_found") {
                StatusCode::NOT_FOUND
            } else {
                StatusCode::BAD_REQUEST
            };
            ApiError::new(status, failed.code, failed.message)
        })?;
        Ok(ChosenModel {
            run: chosen.run,
            binder: chosen.binder,
        })
    }

    async fn follow(&self, run: &RunId, after_seq: u64) -> Result<EventStream, JournalError> {
        self.storage().journal.follow(run, after_seq).await
    }

    async fn skill_details(&self, skill: &SkillRef) -> Result<Value, StoreError> {
        let details = self.storage().skills.details(skill).await?;
        Ok(json!(details))
    }

    async fn import_skill(
        &self,
        scope: &SkillScope,
        archive: Vec<u8>,
        preview_only: bool,
        replace: bool,
    ) -> Result<SkillImport, StoreError> {
        // The store imports from a path it recognises as an archive by its name.
        let staged = tokio::task::spawn_blocking(move || -> std::io::Result<_> {
            let mut file = tempfile::Builder::new().suffix(".zip").tempfile()?;
            file.write_all(&archive)?;
            file.flush()?;
            Ok(file)
        })
        .await
        .map_err(|err| StoreError::Io(err.to_string()))?
        .map_err(|err| StoreError::Io(format!("staging the archive: {err}")))?;
        let store = &self.storage().skills;
        let preview = store.preview_import(scope, staged.path()).await?;
        if !preview_only {
            store.import(scope, staged.path(), replace).await?;
        }
        Ok(SkillImport {
            preview: json!(preview),
            installed: !preview_only,
        })
    }

    async fn export_skill(&self, skill: &SkillRef) -> Result<Vec<u8>, StoreError> {
        let staging = tempfile::tempdir()
            .map_err(|err| StoreError::Io(format!("staging the archive: {err}")))?;
        let target = staging.path().join("skill.zip");
        self.storage().skills.export(skill, &target).await?;
        tokio::fs::read(&target)
            .await
            .map_err(|err| StoreError::Io(format!("reading the archive: {err}")))
    }

    async fn write_skill_file(
        &self,
        skill: &SkillRef,
        path: &WorkspacePath,
        content: Vec<u8>,
    ) -> Result<(), StoreError> {
        self.storage().skills.write_file(skill, path, content).await
    }

    async fn rename_skill(&self, skill: &SkillRef, new_name: &str) -> Result<(), StoreError> {
        self.storage().skills.rename(skill, new_name).await
    }

    async fn remove_skill(&self, skill: &SkillRef) -> Result<(), StoreError> {
        self.storage()
            .skills
            .remove(&skill.scope, &skill.name)
            .await
    }

    fn check_mcp_url(&self, url: &str) -> ApiResult<()> {
        agent_mcp::check_url(url).map_err(|err| ApiError::coded(&err, true))
    }
}
