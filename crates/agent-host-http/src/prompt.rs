//! The prompt a run would start from and the first request it would send, without
//! starting one: `tavern-agent prompt build` and `prompt prepare` over HTTP, each a call of
//! the runtime the CLI calls (`docs/serve.md`, "Prompts").

use agent_application::runtime::PreviewPrompt;
use agent_application::scene::SceneRequest;
use agent_domain::run::GenerationType;
use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::Value;

use crate::AppState;
use crate::error::ApiResult;
use crate::runs::{Body, StartBody};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/prompt/build", post(build))
        .route("/prompt/prepare", post(prepare))
}

/// The body of `POST /api/prompt/build`, as `prompt build` takes its flags.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct BuildBody {
    chat: String,
    profile_id: Option<String>,
    #[serde(default)]
    generation_type: GenerationType,
    /// The model whose tokenizer counts the world-info budget.
    model: Option<String>,
    user_name: Option<String>,
    #[serde(rename = "as")]
    speak_as: Option<String>,
}

/// `POST /api/prompt/build`: the prompt snapshot a run on the chat would start from (as
/// `prompt build --json`), in the shape `promptSnapshot` takes back.
async fn build(
    State(state): State<AppState>,
    Body(body): Body<BuildBody>,
) -> ApiResult<Json<Value>> {
    let services = &state.services;
    let preview = PreviewPrompt {
        chat: services.host.resolve_chat(&body.chat)?,
        profile_id: body.profile_id,
        generation_type: body.generation_type,
        model: body.model,
        scene: SceneRequest {
            user_name: body.user_name,
            speak_as: body.speak_as,
        },
    };
    let assembled = services.runtime.preview_prompt(preview).await?;
    Ok(Json(assembled.snapshot.raw))
}

/// `POST /api/prompt/prepare`: the request the run's first model round would send (as
/// `prompt prepare --json`); the body is the one `POST /api/runs` takes.
async fn prepare(
    State(state): State<AppState>,
    Body(body): Body<StartBody>,
) -> ApiResult<Json<Value>> {
    let services = &state.services;
    let request = body.into_start(services).await?.run;
    let prepared = services.runtime.prepare_request(request).await?;
    Ok(Json(serde_json::json!(prepared)))
}
