//! Everything besides runs, chats, skills and prompts: tools, profiles, connections, MCP
//! servers, retention and the doctor, each a thin call of the service the CLI uses,
//! answered in the CLI's `--json` shapes. Secrets never leave: connections go out redacted
//! and literal MCP env and header values are hidden.

use agent_application::mcp::{McpImportError, McpServiceError, parse_import};
use agent_application::ports::StoreError;
use agent_application::profiles::ProfileServiceError;
use agent_application::retention::RetentionServiceError;
use agent_domain::ErrorCode;
use agent_domain::connection::ConnectionConfig;
use agent_domain::mcp::{McpRegistration, McpServerStatus, McpToolPermission, McpTransport};
use agent_domain::retention::{DetailLimit, RetentionKey};
use axum::extract::{Path, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::error::{ApiError, ApiResult, codes};
use crate::runs::{Body, Params, Raw};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/tools", get(tools))
        .route("/profiles", get(profiles))
        .route("/profiles/health", get(profiles_health))
        .route(
            "/profiles/{id}",
            get(profile).put(save_profile).delete(delete_profile),
        )
        .route("/profiles/{id}/diagnose", get(diagnose_profile))
        .route("/profiles/{id}/repair", post(repair_profile))
        .route("/profiles/{id}/system-prompt", get(system_prompt))
        .route("/doctor", get(doctor))
        .route("/doctor/fix", post(doctor_fix))
        .route("/connections", get(connections))
        .route(
            "/connections/{name}",
            get(connection)
                .put(put_connection)
                .delete(delete_connection),
        )
        .route("/mcp", get(mcp_servers).post(add_mcp_server))
        .route("/mcp/import", post(import_mcp_servers))
        .route("/mcp/{name}", get(mcp_server).delete(remove_mcp_server))
        .route("/mcp/{name}/tools", get(mcp_tools))
        .route("/mcp/{name}/pause", post(pause_mcp_server))
        .route("/mcp/{name}/resume", post(resume_mcp_server))
        .route("/mcp/{name}/refresh", post(refresh_mcp_server))
        .route("/mcp/{name}/permission", post(set_mcp_permission))
        .route("/retention", get(retention).put(set_retention))
        .route("/retention/plan", post(retention_plan))
        .route("/retention/apply", post(retention_apply))
}

type Answer = ApiResult<Json<Value>>;

/// `GET /api/tools`: the builtin tool catalog.
async fn tools(State(state): State<AppState>) -> Json<Value> {
    Json(json!({"tools": state.services.runtime.tools_list()}))
}

/// Bad ids, unknown profiles, invalid documents and the read-only built-in are the caller's
/// mistake; broken stored files and storage failures are not.
fn profile_error(error: ProfileServiceError) -> ApiError {
    let caller = match &error {
        ProfileServiceError::Profile(_)
        | ProfileServiceError::BuiltinReadonly { .. }
        | ProfileServiceError::RepairNotNeeded { .. }
        | ProfileServiceError::RepairUnavailable { .. } => true,
        other => other.is_not_found(),
    };
    ApiError::coded(&error, caller)
}

async fn profiles(State(state): State<AppState>) -> Answer {
    let listings = state
        .services
        .profiles
        .list()
        .await
        .map_err(profile_error)?;
    Ok(Json(json!(listings)))
}

async fn profiles_health(State(state): State<AppState>) -> Answer {
    let health = state
        .services
        .profiles
        .storage_health()
        .await
        .map_err(profile_error)?;
    Ok(Json(json!(health)))
}

async fn profile(State(state): State<AppState>, Path(id): Path<String>) -> Answer {
    let loaded = state
        .services
        .profiles
        .load(&id)
        .await
        .map_err(profile_error)?;
    Ok(Json(json!(loaded.document)))
}

/// `PUT /api/profiles/{id}`: the document's `id` must be the one in the path.
async fn save_profile(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Body(document): Body<Value>,
) -> Answer {
    same_name(&id, document.get("id"), "id")?;
    let summary = state
        .services
        .profiles
        .save(&document.to_string())
        .await
        .map_err(profile_error)?;
    Ok(Json(json!(summary)))
}

async fn delete_profile(State(state): State<AppState>, Path(id): Path<String>) -> Answer {
    let removed = state
        .services
        .profiles
        .delete(&id)
        .await
        .map_err(profile_error)?;
    if !removed {
        return Err(ApiError::new(
            axum::http::StatusCode::NOT_FOUND,
            "agent.profile_not_found",
            format!("no saved profile `{id}`"),
        ));
    }
    Ok(Json(json!({"id": id, "deleted": true})))
}

async fn diagnose_profile(State(state): State<AppState>, Path(id): Path<String>) -> Answer {
    let health = state
        .services
        .profiles
        .diagnose(&id)
        .await
        .map_err(profile_error)?;
    Ok(Json(json!(health)))
}

async fn repair_profile(State(state): State<AppState>, Path(id): Path<String>) -> Answer {
    let outcome = state
        .services
        .profiles
        .repair(&id)
        .await
        .map_err(profile_error)?;
    Ok(Json(json!(outcome)))
}

/// `GET /api/profiles/{id}/system-prompt`: the Agent system prompt the profile runs with.
async fn system_prompt(State(state): State<AppState>, Path(id): Path<String>) -> Answer {
    let prompt = state
        .services
        .profiles
        .system_prompt(Some(&id))
        .await
        .map_err(profile_error)?;
    Ok(Json(json!({"profileId": id, "systemPrompt": prompt})))
}

/// `GET /api/doctor`: one check of the data directory (as `doctor --json`); an unhealthy
/// one is still a 200, its `healthy` says so.
async fn doctor(State(state): State<AppState>) -> Json<Value> {
    Json(json!(state.services.doctor.check().await))
}

/// `POST /api/doctor/fix`: the check, the repairs and a second check (as
/// `doctor --fix --json`).
async fn doctor_fix(State(state): State<AppState>) -> Json<Value> {
    let doctor = &state.services.doctor;
    let before = doctor.check().await;
    let fixed = doctor.fix().await;
    let after = doctor.check().await;
    Json(json!({"before": before, "fixed": fixed, "after": after}))
}

/// A body that names the resource must name the one in the path.
fn same_name(path: &str, named: Option<&Value>, field: &str) -> ApiResult<()> {
    match named.and_then(Value::as_str) {
        Some(name) if name == path => Ok(()),
        _ => Err(ApiError::bad_request(
            codes::BAD_REQUEST,
            format!("the body's `{field}` must be `{path}`, as in the path"),
        )),
    }
}

/// `GET /api/connections`: every connection, redacted, and the stored files that do not
/// read.
async fn connections(State(state): State<AppState>) -> Answer {
    let listing = state.services.connections.list().await?;
    let shown: Vec<ConnectionConfig> = listing
        .connections
        .iter()
        .map(ConnectionConfig::redacted)
        .collect();
    Ok(Json(
        json!({"connections": shown, "problems": listing.problems}),
    ))
}

async fn connection(State(state): State<AppState>, Path(name): Path<String>) -> Answer {
    let config = state
        .services
        .connections
        .get(&name)
        .await?
        .ok_or_else(|| connection_not_found(&name))?;
    Ok(Json(json!(config.redacted())))
}

fn connection_not_found(name: &str) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::NOT_FOUND,
        "connection.not_found",
        format!("no connection `{name}`"),
    )
}

/// `PUT /api/connections/{name}`: creates or replaces the connection after the connection
/// rules accept it.
async fn put_connection(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Body(record): Body<Value>,
) -> Answer {
    same_name(&name, record.get("name"), "name")?;
    let config: ConnectionConfig = serde_json::from_value(record).map_err(|err| {
        ApiError::bad_request(
            "connection.invalid_config",
            format!("the connection: {err}"),
        )
    })?;
    config
        .validate()
        .map_err(|err| ApiError::coded(&err, true))?;
    state.services.connections.replace(&config).await?;
    Ok(Json(json!(config.redacted())))
}

async fn delete_connection(State(state): State<AppState>, Path(name): Path<String>) -> Answer {
    state
        .services
        .connections
        .remove(&name)
        .await
        .map_err(|err| match err {
            StoreError::NotFound(_) => connection_not_found(&name),
            other => other.into(),
        })?;
    Ok(Json(json!({"name": name, "removed": true})))
}

/// A server that cannot be reached is the server's side; a storage fault is ours; the
/// rest (unknown names, uncached catalogs) are the request's.
fn mcp_error(error: McpServiceError) -> ApiError {
    let caller = !matches!(
        &error,
        McpServiceError::Server(_)
            | McpServiceError::Store(
                StoreError::Io(_) | StoreError::Integrity(_) | StoreError::Damaged { .. }
            )
    );
    ApiError::coded(&error, caller)
}

/// A registration with its literal env and header values replaced: they may hold keys.
fn hidden(registration: &McpRegistration) -> Value {
    let mut value = json!(registration);
    let transport = &mut value["transport"];
    for field in ["env", "headers"] {
        if let Some(entries) = transport.get_mut(field).and_then(Value::as_array_mut) {
            for entry in entries {
                if let Some(literal) = entry.pointer_mut("/value/literal") {
                    *literal = json!("(hidden)");
                }
            }
        }
    }
    value
}

async fn mcp_servers(State(state): State<AppState>) -> Answer {
    let list = state.services.mcp.list().await.map_err(mcp_error)?;
    let shown: Vec<Value> = list.registrations.iter().map(hidden).collect();
    Ok(Json(
        json!({"registrations": shown, "problems": list.problems}),
    ))
}

async fn mcp_server(State(state): State<AppState>, Path(name): Path<String>) -> Answer {
    let (registration, catalog) = state.services.mcp.show(&name).await.map_err(mcp_error)?;
    Ok(Json(
        json!({"server": hidden(&registration), "catalog": catalog}),
    ))
}

async fn mcp_tools(State(state): State<AppState>, Path(name): Path<String>) -> Answer {
    let tools = state.services.mcp.tools(&name).await.map_err(mcp_error)?;
    Ok(Json(json!(tools)))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewMcpServer {
    name: String,
    /// As stored: `{"type": "stdio", "program", "args", "env", "cwd"}` or
    /// `{"type": "streamableHttp", "url", "headers"}`.
    transport: McpTransport,
}

/// `POST /api/mcp`: registers a server (every tool off) and refreshes its catalog, as
/// `mcp add --json` does; a failed refresh keeps the registration and is reported in
/// `refreshError`.
async fn add_mcp_server(
    State(state): State<AppState>,
    Body(new): Body<NewMcpServer>,
) -> ApiResult<(axum::http::StatusCode, Json<Value>)> {
    if let McpTransport::StreamableHttp { url, .. } = &new.transport {
        state.services.host.check_mcp_url(url)?;
    }
    let mcp = &state.services.mcp;
    let registration = mcp.add(&new.name, new.transport).await.map_err(mcp_error)?;
    let (tools, error) = match mcp.refresh(&registration.id).await {
        Ok(catalog) => (Some(catalog.tools.len()), None),
        Err(error) => (
            None,
            Some(json!({"code": error.code(), "message": error.to_string()})),
        ),
    };
    let added = json!({"id": registration.id, "name": registration.display_name,
        "tools": tools, "refreshError": error});
    Ok((axum::http::StatusCode::CREATED, Json(added)))
}

/// `POST /api/mcp/import`: the body is an `{"mcpServers": {...}}` file; every server is
/// checked before any is registered, then each is added and refreshed (as
/// `mcp import --json`).
async fn import_mcp_servers(State(state): State<AppState>, Raw(file): Raw) -> Answer {
    let invalid = |error: McpImportError| ApiError::coded(&error, true);
    let text = String::from_utf8(file)
        .map_err(|_| invalid(McpImportError("the file is not UTF-8 text".to_owned())))?;
    let planned = parse_import(&text).map_err(invalid)?;
    for (_, transport) in &planned {
        if let McpTransport::StreamableHttp { url, .. } = transport {
            state.services.host.check_mcp_url(url)?;
        }
    }
    Ok(Json(json!(state.services.mcp.import(planned).await)))
}

/// What a change to a registration answers, as the CLI's `--json` does: its id and name,
/// and what changed.
fn changed(registration: &McpRegistration, change: Value) -> Json<Value> {
    let mut value = json!({"id": registration.id, "name": registration.display_name});
    if let (Value::Object(out), Value::Object(change)) = (&mut value, change) {
        out.extend(change);
    }
    Json(value)
}

/// `DELETE /api/mcp/{name}`: the registration goes (its cached catalog with it).
async fn remove_mcp_server(State(state): State<AppState>, Path(name): Path<String>) -> Answer {
    let removed = state.services.mcp.remove(&name).await.map_err(mcp_error)?;
    Ok(changed(&removed, json!({"removed": true})))
}

async fn pause_mcp_server(State(state): State<AppState>, Path(name): Path<String>) -> Answer {
    let mcp = &state.services.mcp;
    let paused = mcp
        .set_status(&name, McpServerStatus::Paused)
        .await
        .map_err(mcp_error)?;
    Ok(changed(&paused, json!({"status": "paused"})))
}

async fn resume_mcp_server(State(state): State<AppState>, Path(name): Path<String>) -> Answer {
    let mcp = &state.services.mcp;
    let resumed = mcp
        .set_status(&name, McpServerStatus::Active)
        .await
        .map_err(mcp_error)?;
    Ok(changed(&resumed, json!({"status": "active"})))
}

/// `POST /api/mcp/{name}/refresh`: lists the server's tools now and caches the catalog.
async fn refresh_mcp_server(State(state): State<AppState>, Path(name): Path<String>) -> Answer {
    let catalog = state.services.mcp.refresh(&name).await.map_err(mcp_error)?;
    Ok(Json(json!(catalog)))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PermissionChange {
    /// A cached tool's name, or `*` for all of them.
    tool: String,
    permission: McpToolPermission,
}

/// `POST /api/mcp/{name}/permission`: as `mcp permission NAME TOOL off|ask|allow`.
async fn set_mcp_permission(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Body(change): Body<PermissionChange>,
) -> Answer {
    let tools = state
        .services
        .mcp
        .set_permission(&name, &change.tool, change.permission)
        .await
        .map_err(mcp_error)?;
    Ok(Json(
        json!({"tools": tools, "permission": change.permission}),
    ))
}

/// A policy that does not hold is the request's mistake; storage failing is ours.
fn retention_error(error: RetentionServiceError) -> ApiError {
    let caller = matches!(error, RetentionServiceError::Policy(_));
    ApiError::coded(&error, caller)
}

async fn retention(State(state): State<AppState>) -> Answer {
    let settings = state
        .services
        .retention
        .settings()
        .await
        .map_err(retention_error)?;
    Ok(Json(json!(settings)))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RetentionChange {
    key: String,
    value: Value,
}

/// `PUT /api/retention`: one key, as `retention set KEY VALUE` takes it.
async fn set_retention(
    State(state): State<AppState>,
    Body(change): Body<RetentionChange>,
) -> Answer {
    let key: RetentionKey = change
        .key
        .parse()
        .map_err(|err| ApiError::coded(&err, true))?;
    let value = match change.value {
        Value::String(text) => text,
        other => other.to_string(),
    };
    let settings = state
        .services
        .retention
        .set(key, &value)
        .await
        .map_err(retention_error)?;
    Ok(Json(json!(settings)))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DetailParams {
    detail_limit: Option<u64>,
}

fn detail_limit(params: &DetailParams) -> ApiResult<DetailLimit> {
    DetailLimit::new(params.detail_limit).map_err(|err| ApiError::coded(&err, true))
}

async fn retention_plan(
    State(state): State<AppState>,
    Params(params): Params<DetailParams>,
) -> Answer {
    let report = state
        .services
        .retention
        .plan(detail_limit(&params)?)
        .await
        .map_err(retention_error)?;
    Ok(Json(json!(report)))
}

async fn retention_apply(
    State(state): State<AppState>,
    Params(params): Params<DetailParams>,
) -> Answer {
    let report = state
        .services
        .retention
        .apply(detail_limit(&params)?)
        .await
        .map_err(retention_error)?;
    Ok(Json(json!(report)))
}
