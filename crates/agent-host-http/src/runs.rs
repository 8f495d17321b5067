//! `/api/runs…`: starting runs, listing and reading them, and steering them (cancel,
//! guidance, rollback), each a thin call of the runtime's Host ABI rendered as the CLI's
//! `--json` shapes.

use agent_application::ports::{EventQuery, RunCursor, RunListQuery, WorkspaceFile};
use agent_application::prompt::PromptInput;
use agent_application::runtime::{Guidance, RunRequest, RunTask, RuntimeError, StartRun};
use agent_application::scene::SceneRequest;
use agent_domain::event::{Presentation, RunStatus};
use agent_domain::run::{GenerationType, InvocationId, RunId};
use agent_domain::workspace::WorkspacePath;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::{ApiError, ApiResult, codes};
use crate::{AppState, ChosenModel, ModelChoice, Services};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/runs", get(list).post(start))
        .route("/runs/{id}", get(show))
        .route("/runs/{id}/events", get(events))
        .route("/runs/{id}/files/{*path}", get(file))
        .route("/runs/{id}/turns/{round}", get(turn))
        .route("/runs/{id}/cancel", post(cancel))
        .route("/runs/{id}/guidance", post(guide))
        .route("/runs/{id}/rollback", post(rollback))
}

/// A JSON body; one that does not parse is 400 `serve.bad_request` in the API's shape (a
/// too-large one is turned into 413 by the body-limit layer).
pub struct Body<T>(pub T);

impl<T, S> axum::extract::FromRequest<S> for Body<T>
where
    Json<T>: axum::extract::FromRequest<S, Rejection = JsonRejection>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(request: axum::extract::Request, state: &S) -> ApiResult<Self> {
        match Json::<T>::from_request(request, state).await {
            Ok(Json(value)) => Ok(Self(value)),
            Err(rejection) => Err(body_refused(rejection.status(), rejection.body_text())),
        }
    }
}

/// Too large stays 413 (the body-limit layer gives it its code); anything else wrong with
/// a body is bad input.
fn body_refused(status: StatusCode, text: String) -> ApiError {
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::new(status, codes::BODY_TOO_LARGE, text)
    } else {
        ApiError::bad_request(codes::BAD_REQUEST, text)
    }
}

/// A body taken as it is (an archive, a file's content), within the same size limit.
pub struct Raw(pub Vec<u8>);

impl<S: Send + Sync> axum::extract::FromRequest<S> for Raw {
    type Rejection = ApiError;

    async fn from_request(request: axum::extract::Request, state: &S) -> ApiResult<Self> {
        match axum::body::Bytes::from_request(request, state).await {
            Ok(bytes) => Ok(Self(bytes.to_vec())),
            Err(rejection) => Err(body_refused(rejection.status(), rejection.body_text())),
        }
    }
}

/// A query string; one that does not parse is 400 `serve.bad_request`.
pub struct Params<T>(pub T);

impl<T, S> axum::extract::FromRequestParts<S> for Params<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> ApiResult<Self> {
        match Query::<T>::from_request_parts(parts, state).await {
            Ok(Query(value)) => Ok(Self(value)),
            Err(rejection) => Err(ApiError::bad_request(
                codes::BAD_REQUEST,
                rejection.body_text(),
            )),
        }
    }
}

/// A run id from the path; a malformed one is 400 with the id rule's code.
pub fn run_id(raw: &str) -> ApiResult<RunId> {
    RunId::parse(raw).map_err(|err| ApiError::coded(&err, true))
}

fn invocation_id(raw: Option<&str>) -> ApiResult<Option<InvocationId>> {
    raw.map(InvocationId::parse)
        .transpose()
        .map_err(|err| ApiError::coded(&err, true))
}

#[derive(Debug, Deserialize)]
struct ListParams {
    chat: Option<String>,
    /// Comma-separated statuses.
    status: Option<String>,
    limit: Option<u32>,
    before: Option<String>,
}

/// `GET /api/runs`: newest first, `next` naming the run the next page starts before.
async fn list(
    State(state): State<AppState>,
    Params(params): Params<ListParams>,
) -> ApiResult<Json<Value>> {
    let services = &state.services;
    let chat_ref = params
        .chat
        .as_deref()
        .map(|raw| services.host.resolve_chat(raw))
        .transpose()?;
    let statuses = params
        .status
        .as_deref()
        .unwrap_or("")
        .split(',')
        .filter(|name| !name.trim().is_empty())
        .map(|name| {
            serde_json::from_value::<RunStatus>(Value::String(name.trim().to_owned())).map_err(
                |_| {
                    ApiError::bad_request(
                        codes::BAD_REQUEST,
                        format!("unknown run status `{name}`"),
                    )
                },
            )
        })
        .collect::<ApiResult<Vec<_>>>()?;
    let before = match params.before {
        Some(raw) => {
            let invalid = |detail: String| {
                ApiError::bad_request(
                    "agent.run_history_cursor_invalid",
                    format!("before={raw}: {detail}"),
                )
            };
            let id = RunId::parse(&raw).map_err(|err| invalid(err.to_string()))?;
            let run = services
                .runtime
                .load_run(&id)
                .await
                .map_err(|err| invalid(err.to_string()))?;
            Some(RunCursor {
                created_at: run.created_at,
                run_id: run.id,
            })
        }
        None => None,
    };
    let query = RunListQuery {
        chat_ref,
        statuses,
        limit: params.limit,
        before,
        ..RunListQuery::default()
    };
    let page = services.runtime.list_runs(&query).await?;
    let next = page.next.as_ref().map(|cursor| cursor.run_id.to_string());
    Ok(Json(json!({"runs": page.runs, "next": next})))
}

/// The body of `POST /api/runs`, and of `POST /api/prompt/prepare` (the first request of
/// the same run).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartBody {
    pub chat: String,
    pub profile_id: Option<String>,
    connection: Option<String>,
    /// The scripted-model document itself (never a path on the server).
    script: Option<Value>,
    prompt_snapshot: Option<Value>,
    #[serde(default)]
    pub generation_type: GenerationType,
    user_name: Option<String>,
    #[serde(rename = "as")]
    speak_as: Option<String>,
    #[serde(default)]
    background: bool,
}

impl StartBody {
    /// The run's model, chosen by the binary from the script, connection or profile.
    pub async fn model(&self, services: &Services) -> ApiResult<ChosenModel> {
        if self.script.is_some() && self.connection.is_some() {
            return Err(ApiError::bad_request(
                codes::BAD_REQUEST,
                "give `script` or `connection`, not both",
            ));
        }
        let choice = ModelChoice {
            profile: self.profile_id.clone(),
            connection: self.connection.clone(),
            script: self.script.as_ref().map(script_text),
        };
        services.host.choose_model(&choice).await
    }

    /// The start request the body asks for: the chat resolved, the model chosen.
    pub async fn into_start(self, services: &Services) -> ApiResult<StartRun> {
        let chat = services.host.resolve_chat(&self.chat)?;
        let model = self.model(services).await?;
        let prompt = match self.prompt_snapshot {
            Some(snapshot) => PromptInput::Snapshot(snapshot),
            None => PromptInput::Assemble,
        };
        Ok(StartRun {
            run: RunRequest {
                chat,
                profile_id: self.profile_id,
                generation_type: self.generation_type,
                presentation: self.background.then_some(Presentation::Background),
                prompt,
                model_label: model.run.label,
                model_binding: model.run.binding,
                scene: SceneRequest {
                    user_name: self.user_name,
                    speak_as: self.speak_as,
                },
            },
            model: model.run.gateway,
            models: model.binder,
        })
    }
}

/// `POST /api/runs`: 201 and the created run's record; the run goes on in the background.
async fn start(
    State(state): State<AppState>,
    Body(body): Body<StartBody>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    if state.live.closing() {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            codes::SHUTTING_DOWN,
            "the server is shutting down",
        ));
    }
    let services = &state.services;
    let request = body.into_start(services).await?;
    let started = services.runtime.start_run(request).await?;
    let record = json!(started.run);
    let (task, retention) = (started.task, services.retention.clone());
    let driven: RunTask = Box::pin(async move {
        let outcome = task.await;
        // As after a CLI run: prune when the policy enables it; a failure only skips it.
        let _ = retention.apply_if_enabled().await;
        outcome
    });
    if !state.live.spawn(started.run.id.clone(), driven) {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            codes::SHUTTING_DOWN,
            "the server is shutting down",
        ));
    }
    Ok((StatusCode::CREATED, Json(record)))
}

/// A script sent as a JSON string is its text; sent as an object, its serialization.
fn script_text(script: &Value) -> String {
    match script {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// `GET /api/runs/{id}`: the summary with the run's invocations and tasks.
async fn show(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    let run = run_id(&id)?;
    let runtime = &state.services.runtime;
    let summary = runtime.run_summary(&run).await?;
    let invocations = runtime.list_invocations(&run).await?;
    let tasks = runtime.list_tasks(&run).await?;
    let mut shown = json!(summary);
    shown["invocations"] = json!(invocations);
    shown["tasks"] = json!(tasks);
    Ok(Json(shown))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct EventParams {
    before_seq: Option<u64>,
    after_seq: Option<u64>,
    limit: Option<u32>,
    invocation: Option<String>,
}

/// `GET /api/runs/{id}/events`: one page of the journal.
async fn events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Params(params): Params<EventParams>,
) -> ApiResult<Json<Value>> {
    let run = run_id(&id)?;
    let query = EventQuery {
        before_seq: params.before_seq,
        after_seq: params.after_seq,
        limit: params.limit,
        invocation_id: invocation_id(params.invocation.as_deref())?,
    };
    let runtime = &state.services.runtime;
    // A run that does not exist is 404 before the journal is asked.
    runtime.load_run(&run).await?;
    let lines = runtime.read_events(&run, &query).await?;
    Ok(Json(json!({"events": lines})))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileParams {
    at_seq: Option<u64>,
}

/// `GET /api/runs/{id}/files/{*path}`: a workspace file, the path checked by the same
/// rules the tools apply; with `?atSeq=N`, the file as it stood at the event with seq N,
/// from the run's checkpoints.
async fn file(
    State(state): State<AppState>,
    Path((id, path)): Path<(String, String)>,
    Params(params): Params<FileParams>,
) -> ApiResult<Json<Value>> {
    let run = run_id(&id)?;
    let path = WorkspacePath::parse(&path).map_err(|err| ApiError::coded(&err, true))?;
    let runtime = &state.services.runtime;
    runtime.load_run(&run).await?;
    let Some(seq) = params.at_seq else {
        let file = runtime.read_workspace_file(&run, &path).await?;
        return Ok(Json(file_json(&run, &path, &file)));
    };
    let read = runtime.read_workspace_file_at(&run, &path, seq).await?;
    let mut shown = file_json(&run, &path, &read.file);
    shown["atSeq"] = json!(seq);
    shown["checkpointId"] = json!(read.checkpoint_id);
    shown["checkpointEventSeq"] = json!(read.checkpoint_event_seq);
    Ok(Json(shown))
}

fn file_json(run: &RunId, path: &WorkspacePath, file: &WorkspaceFile) -> Value {
    json!({
        "runId": run.as_str(),
        "path": path,
        "text": file.text,
        "sha256": file.sha256,
        "bytes": file.bytes,
    })
}

#[derive(Debug, Deserialize)]
struct TurnParams {
    invocation: Option<String>,
}

/// `GET /api/runs/{id}/turns/{round}`: one model turn's display view.
async fn turn(
    State(state): State<AppState>,
    Path((id, round)): Path<(String, u32)>,
    Params(params): Params<TurnParams>,
) -> ApiResult<Json<Value>> {
    let run = run_id(&id)?;
    let invocation = invocation_id(params.invocation.as_deref())?;
    let runtime = &state.services.runtime;
    runtime.load_run(&run).await?;
    let view = runtime
        .read_model_turn(&run, invocation.as_ref(), round)
        .await?;
    Ok(Json(json!(view)))
}

/// `POST /api/runs/{id}/cancel`.
async fn cancel(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    let run = run_id(&id)?;
    let status = state.services.runtime.cancel(&run).await?;
    Ok(Json(json!({"runId": run.as_str(), "status": status})))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct GuidanceBody {
    text: String,
    client_id: Option<String>,
}

/// `POST /api/runs/{id}/guidance`: the mailbox's receipt.
async fn guide(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Body(body): Body<GuidanceBody>,
) -> ApiResult<Json<Value>> {
    let run = run_id(&id)?;
    let guidance = Guidance {
        text: body.text,
        client_guidance_id: body.client_id,
    };
    // The mailbox's refusals (empty, too large, not accepting, full) are the request's.
    let receipt =
        state
            .services
            .runtime
            .guide(&run, guidance)
            .await
            .map_err(|error| match error {
                RuntimeError::Fault { .. } => ApiError::coded(&error, true),
                other => other.into(),
            })?;
    Ok(Json(json!(receipt)))
}

/// `POST /api/runs/{id}/rollback`: the `run_rolled_back` payload.
async fn rollback(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    let run = run_id(&id)?;
    let undone = state.services.runtime.rollback_run(&run).await?;
    Ok(Json(json!(undone)))
}
