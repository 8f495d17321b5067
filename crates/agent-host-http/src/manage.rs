//! Everything besides runs: tools, chats, profiles, connections, skills, MCP servers and
//! retention, each a thin call of the service the CLI uses.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiResult;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/tools", get(tools))
        .route("/chats", get(chats))
}

/// `GET /api/tools`: the builtin tool catalog.
async fn tools(State(state): State<AppState>) -> Json<Value> {
    Json(json!({"tools": state.services.runtime.tools_list()}))
}

/// `GET /api/chats`: the chats a run can be started on.
async fn chats(State(state): State<AppState>) -> ApiResult<Json<Value>> {
    let chats = state.services.host.list_chats().await?;
    Ok(Json(json!({"chats": chats})))
}
