//! Chats and their agent workspaces over HTTP: the listing, deleting a chat with its
//! workspace, and the orphaned workspaces, each a call of the `ChatWorkspaces` service
//! `tavern-agent chats` uses, answered in its `--json` shapes (`docs/serve.md`, "Chats").

use agent_application::chat_workspaces::ChatWorkspaceError;
use agent_domain::ErrorCode;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::error::{ApiError, ApiResult};
use crate::runs::Params;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/chats", get(list))
        .route("/chats/orphans", get(orphans))
        .route("/chats/orphans/delete", post(delete_orphans))
        .route("/chats/{*chat}", delete(delete_chat))
}

type Answer = ApiResult<Json<Value>>;

/// A chat that does not read or is missing is the caller's; a chat whose header blocks an
/// orphan sweep is a conflict with the data directory's state; the rest are storage faults
/// unless the store says otherwise.
fn chat_error(error: ChatWorkspaceError) -> ApiError {
    match error {
        ChatWorkspaceError::Store(store) => store.into(),
        ChatWorkspaceError::UnreadableChat { .. } => {
            ApiError::new(StatusCode::CONFLICT, error.code(), error.to_string())
        }
        other => {
            let caller = matches!(other, ChatWorkspaceError::Chat(_));
            ApiError::coded(&other, caller)
        }
    }
}

/// `GET /api/chats`: every chat with its workspace, run count and disk use.
async fn list(State(state): State<AppState>) -> Answer {
    let chats = state.services.chats.list().await.map_err(chat_error)?;
    Ok(Json(json!({"chats": chats})))
}

#[derive(Debug, Deserialize)]
struct DeleteParams {
    #[serde(default)]
    preview: bool,
}

/// `DELETE /api/chats/{chat}`: the chat file and its workspace; with `?preview=true` only
/// what would be removed. The service looks again under the maintenance lock, so a
/// preview is never trusted.
async fn delete_chat(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    Params(params): Params<DeleteParams>,
) -> Answer {
    let chat = state.services.host.resolve_chat(&raw)?;
    let chats = &state.services.chats;
    let deletion = if params.preview {
        chats.preview_delete(&chat).await
    } else {
        chats.delete(&chat).await
    }
    .map_err(chat_error)?;
    Ok(Json(json!(deletion)))
}

/// `GET /api/chats/orphans`: workspaces whose chat is gone, and the chats that do not read.
async fn orphans(State(state): State<AppState>) -> Answer {
    let report = state.services.chats.orphans().await.map_err(chat_error)?;
    Ok(Json(json!(report)))
}

/// `POST /api/chats/orphans/delete`: removes every orphan no process is using; each one's
/// outcome says what happened to it.
async fn delete_orphans(State(state): State<AppState>) -> Answer {
    let outcomes = state
        .services
        .chats
        .delete_orphans()
        .await
        .map_err(chat_error)?;
    Ok(Json(json!({"outcomes": outcomes})))
}
