//! `serve`: the HTTP host (`agent-host-http`) over the same wiring as every other command.
//! This module only builds what that crate asks for (the services, chat resolution, the
//! run's model, journal following) and starts it; the API itself lives in that crate.

use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use agent_application::ports::{EventStream, JournalError};
use agent_domain::event::ChatRef;
use agent_domain::run::RunId;
use agent_host_http::{
    ApiError, ApiResult, ChosenModel, HeaderValue, HostWiring, ModelChoice, ServeOptions, Services,
    StatusCode, Token,
};
use agent_infra_fs::FsStorage;
use agent_infra_fs::chat::ChatLocator;
use async_trait::async_trait;
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
}
