//! `agent-host-http`: the second host of the runtime. It serves the Host ABI the CLI calls
//! (runs, chats, prompts, profiles, connections, skills, MCP, retention, tools, the doctor)
//! as a JSON API, a run's journal and live model deltas as Server-Sent Events, and the
//! embedded web timeline.
//!
//! Like the CLI it only wires and renders: every rule lives in `agent-application`, and the
//! adapters reach this crate through [`Services`] and [`HostWiring`], which the binary builds
//! (this crate depends on no adapter). See `docs/serve.md`.

mod auth;
mod chats;
mod error;
mod live;
mod manage;
mod prompt;
mod runs;
mod skills;
mod stream;
mod web;

use std::future::Future;
use std::sync::Arc;

use agent_application::chat_workspaces::ChatWorkspaces;
use agent_application::doctor::Doctor;
use agent_application::mcp::McpServers;
use agent_application::ports::{
    ConnectionStore, EventStream, JournalError, SkillRef, SkillScope, SkillStore, StoreError,
};
use agent_application::profiles::ProfileService;
use agent_application::retention::RetentionService;
use agent_application::runtime::{AgentRuntime, ModelBinder, RunModel};
use agent_domain::event::ChatRef;
use agent_domain::run::RunId;
use agent_domain::workspace::WorkspacePath;
use async_trait::async_trait;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{Method, header};
use axum::middleware;
use tokio::net::TcpListener;
use tower_http::cors::CorsLayer;

pub use auth::Token;
/// The HTTP types the binary needs to fill [`ServeOptions`] and build [`ApiError`]s.
pub use axum::http::{HeaderValue, StatusCode};
pub use error::{ApiError, ApiResult, codes};
use live::LiveRuns;

/// The request bodies the server reads, at most (a scripted-model document or a prompt
/// snapshot fits with room to spare); a larger one is refused with 413
/// `serve.body_too_large`.
pub const DEFAULT_BODY_LIMIT: usize = 4 * 1024 * 1024;

/// The services the binary wires over one data directory: the same ones the CLI uses.
#[derive(Clone)]
pub struct Services {
    pub runtime: AgentRuntime,
    pub profiles: ProfileService,
    pub connections: Arc<dyn ConnectionStore>,
    pub mcp: Arc<McpServers>,
    pub retention: Arc<RetentionService>,
    pub skills: Arc<dyn SkillStore>,
    pub chats: ChatWorkspaces,
    pub doctor: Doctor,
    pub host: Arc<dyn HostWiring>,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Services { .. }")
    }
}

/// What only the binary can do, because it needs adapters: name chats by path inside the
/// data directory, build a run's model, follow a journal from a position, the skill store's
/// install operations (which work on files) and the MCP client's URL rule.
#[async_trait]
pub trait HostWiring: Send + Sync {
    /// The chat a `chat` field names: a path relative to the data directory's `chats/`
    /// (or starting with `chats/` or `group chats/`); nothing outside those folders.
    fn resolve_chat(&self, raw: &str) -> ApiResult<ChatRef>;

    /// The model of a run: the inline script, else the connection, else the profile's own
    /// binding; every problem with the choice is found before a run exists.
    async fn choose_model(&self, choice: &ModelChoice) -> ApiResult<ChosenModel>;

    /// The run's events after `after_seq` already journaled, then new ones until its
    /// terminal event (inclusive), without gaps or repeats.
    async fn follow(&self, run: &RunId, after_seq: u64) -> Result<EventStream, JournalError>;

    /// A skill's front matter, index facts, files and problems (as `skills show --json`).
    async fn skill_details(&self, skill: &SkillRef) -> Result<serde_json::Value, StoreError>;

    /// What installing the `.zip` skill `archive` into `scope` does (as `skills import`),
    /// and the install itself unless `preview_only`.
    async fn import_skill(
        &self,
        scope: &SkillScope,
        archive: Vec<u8>,
        preview_only: bool,
        replace: bool,
    ) -> Result<SkillImport, StoreError>;

    /// The skill as a `.zip` archive (as `skills export` to a `.zip`).
    async fn export_skill(&self, skill: &SkillRef) -> Result<Vec<u8>, StoreError>;

    /// Replaces or creates one file of a skill, which must stay valid.
    async fn write_skill_file(
        &self,
        skill: &SkillRef,
        path: &WorkspacePath,
        content: Vec<u8>,
    ) -> Result<(), StoreError>;

    /// Renames a skill within its scope.
    async fn rename_skill(&self, skill: &SkillRef, new_name: &str) -> Result<(), StoreError>;

    /// Uninstalls a skill.
    async fn remove_skill(&self, skill: &SkillRef) -> Result<(), StoreError>;

    /// Refuses an MCP server URL the MCP client would not connect to (as `mcp add --url`
    /// does), with its `mcp.*` code.
    fn check_mcp_url(&self, url: &str) -> ApiResult<()>;
}

/// What importing a skill archive showed and did.
#[derive(Debug, Clone)]
pub struct SkillImport {
    /// The import preview (as `skills import --preview --json` shows it).
    pub preview: serde_json::Value,
    pub installed: bool,
}

/// How a run started over HTTP picks its model.
#[derive(Debug, Clone, Default)]
pub struct ModelChoice {
    pub profile: Option<String>,
    pub connection: Option<String>,
    /// A scripted-model document (`docs/scripted-model.md`), inline.
    pub script: Option<String>,
}

/// The model of a run, and how its other profiles' invocations find theirs.
pub struct ChosenModel {
    pub run: RunModel,
    /// `None`: every invocation calls the run's model.
    pub binder: Option<Arc<dyn ModelBinder>>,
}

impl std::fmt::Debug for ChosenModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChosenModel")
            .field("run", &self.run)
            .finish_non_exhaustive()
    }
}

/// How the server treats its clients.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub token: Token,
    /// Origins whose pages may call the API from a browser; none by default.
    pub allowed_origins: Vec<HeaderValue>,
    /// The largest request body accepted, in bytes.
    pub body_limit: usize,
}

/// What every handler shares.
#[derive(Clone)]
pub(crate) struct AppState {
    pub services: Services,
    pub live: LiveRuns,
}

/// The whole application: the API behind the token, the static files in front of it.
fn router(state: AppState, options: &ServeOptions) -> Router {
    let api = Router::new()
        .merge(runs::routes())
        .merge(stream::routes())
        .merge(manage::routes())
        .merge(chats::routes())
        .merge(skills::routes())
        .merge(prompt::routes())
        // Before the token layer, so a wrong method without the token is still a 401.
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(api_not_found)
        .layer(middleware::from_fn_with_state(
            options.token.clone(),
            auth::require_token,
        ))
        .layer(DefaultBodyLimit::max(options.body_limit));
    let router = Router::new()
        .nest("/api", api)
        .merge(web::routes())
        // The page's own paths; the API's already have theirs.
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state);
    if options.allowed_origins.is_empty() {
        return router;
    }
    router.layer(
        CorsLayer::new()
            .allow_origin(options.allowed_origins.clone())
            .allow_methods([Method::GET, Method::POST, Method::PUT, Method::DELETE])
            .allow_headers([
                header::AUTHORIZATION,
                header::CONTENT_TYPE,
                header::HeaderName::from_static("last-event-id"),
            ]),
    )
}

async fn api_not_found() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::NOT_FOUND,
        codes::NOT_FOUND,
        "no such endpoint; see docs/serve.md",
    )
}

/// A path that exists asked with a method it does not take. Axum still adds the `Allow`
/// header naming the methods it takes.
async fn method_not_allowed(method: Method) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        codes::METHOD_NOT_ALLOWED,
        format!("{method} is not allowed here; the Allow header lists what is (docs/serve.md)"),
    )
}

/// Serves on `listener` until `shutdown` completes; then starts no new run, cancels the
/// runs it started that are still going, waits until their journals end terminal, ends the
/// open event streams and returns.
pub async fn serve(
    listener: TcpListener,
    services: Services,
    options: ServeOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let live = LiveRuns::default();
    let state = AppState {
        services: services.clone(),
        live: live.clone(),
    };
    let app = router(state, &options);
    let closing = live.clone();
    let runtime = services.runtime.clone();
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            closing.shut_down(&runtime).await;
        })
        .await
}
