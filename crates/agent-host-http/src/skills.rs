//! Skills over HTTP: the catalog, one skill's details, importing an archive (the request
//! body), exporting one (the response body), reading and writing a file, renaming and
//! removing, as `tavern-agent skills` does them. Every check (names, paths, archive caps,
//! front matter) is the skill store's; this module picks the scope and answers in the
//! CLI's `--json` shapes (`docs/serve.md`, "Skills").

use agent_application::ports::{SkillRef, SkillScope, StoreError};
use agent_application::skills::skill_catalog;
use agent_domain::workspace::WorkspacePath;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::error::{ApiError, ApiResult};
use crate::runs::{Body, Params, Raw};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/skills", get(catalog).post(import))
        .route("/skills/{name}", get(details).delete(remove))
        .route("/skills/{name}/export", get(export))
        .route("/skills/{name}/move", post(rename))
        .route(
            "/skills/{name}/files/{*path}",
            get(read_file).put(write_file),
        )
}

type Answer = ApiResult<Json<Value>>;

/// The file a skill is read from when none is named, as in the CLI.
const SKILL_FILE: &str = "SKILL.md";

/// A store refusal with the codes the CLI gives it: a missing skill and a taken name are
/// `skill.*`; the rest keep their own code.
fn skill_error(error: StoreError) -> ApiError {
    match error {
        StoreError::NotFound(what) => ApiError::new(
            StatusCode::NOT_FOUND,
            "skill.not_found",
            format!("{what} not found"),
        ),
        StoreError::AlreadyExists(what) => ApiError::new(
            StatusCode::CONFLICT,
            "skill.already_exists",
            format!("{what} already exists"),
        ),
        other => other.into(),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScopeParams {
    /// A scope label (`global`, `preset:<apiId>:<name>`, `profile:<id>`, `character:<id>`);
    /// `global` when absent.
    scope: Option<String>,
}

fn scope_of(label: Option<&str>) -> ApiResult<SkillScope> {
    let label = label.unwrap_or("global");
    SkillScope::from_label(label).ok_or_else(|| {
        ApiError::bad_request(
            "skill.invalid_scope",
            format!(
                "`{label}` is not a scope: use global, preset:<apiId>:<name>, profile:<id> or \
                 character:<id>"
            ),
        )
    })
}

fn skill_of(params: &ScopeParams, name: String) -> ApiResult<SkillRef> {
    Ok(SkillRef::new(scope_of(params.scope.as_deref())?, name))
}

/// A file path inside a skill, validated as the skill tools validate theirs.
fn skill_path(raw: &str) -> ApiResult<WorkspacePath> {
    WorkspacePath::parse(raw).map_err(|err| {
        ApiError::bad_request(
            "skill.invalid_request",
            format!("`{raw}` is not a path inside a skill: {err}"),
        )
    })
}

/// `GET /api/skills`: the catalog of every scope.
async fn catalog(State(state): State<AppState>) -> Answer {
    let catalog = skill_catalog(state.services.skills.as_ref()).await?;
    Ok(Json(json!(catalog)))
}

/// `GET /api/skills/{name}`: front matter, index facts, files and problems.
async fn details(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Params(params): Params<ScopeParams>,
) -> Answer {
    let skill = skill_of(&params, name)?;
    let details = state
        .services
        .host
        .skill_details(&skill)
        .await
        .map_err(skill_error)?;
    Ok(Json(details))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ImportParams {
    scope: Option<String>,
    #[serde(default)]
    preview: bool,
    #[serde(default)]
    replace: bool,
}

/// `POST /api/skills`: the body is a `.zip` skill archive; answers the preview and whether
/// it was installed (not with `preview=true`).
async fn import(
    State(state): State<AppState>,
    Params(params): Params<ImportParams>,
    Raw(archive): Raw,
) -> Answer {
    let scope = scope_of(params.scope.as_deref())?;
    let imported = state
        .services
        .host
        .import_skill(&scope, archive, params.preview, params.replace)
        .await
        .map_err(skill_error)?;
    Ok(Json(json!({
        "preview": imported.preview,
        "installed": imported.installed,
    })))
}

/// `GET /api/skills/{name}/export`: the skill as a `.zip` archive.
async fn export(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Params(params): Params<ScopeParams>,
) -> ApiResult<Response> {
    let skill = skill_of(&params, name)?;
    let archive = state
        .services
        .host
        .export_skill(&skill)
        .await
        .map_err(skill_error)?;
    let disposition = format!(
        "attachment; filename=\"{}.zip\"",
        skill.name.replace(['"', '\\'], "_")
    );
    Ok((
        [
            (header::CONTENT_TYPE, "application/zip".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        archive,
    )
        .into_response())
}

/// `GET /api/skills/{name}/files/{path}`: one text file of a skill.
async fn read_file(
    State(state): State<AppState>,
    Path((name, path)): Path<(String, String)>,
    Params(params): Params<ScopeParams>,
) -> Answer {
    let skill = skill_of(&params, name)?;
    let path = skill_path(if path.is_empty() { SKILL_FILE } else { &path })?;
    let read = state
        .services
        .skills
        .read_file(&skill, &path)
        .await
        .map_err(skill_error)?;
    let Some(text) = read.text else {
        return Err(ApiError::bad_request(
            "skill.file_not_text",
            format!("{skill}: {path} is not UTF-8 text; export the skill to get its bytes"),
        ));
    };
    Ok(Json(json!({"scope": skill.scope, "name": skill.name,
        "path": path, "sha256": read.sha256, "text": text})))
}

/// `PUT /api/skills/{name}/files/{path}`: the body is the file's new content; the skill
/// must stay valid.
async fn write_file(
    State(state): State<AppState>,
    Path((name, path)): Path<(String, String)>,
    Params(params): Params<ScopeParams>,
    Raw(content): Raw,
) -> Answer {
    let skill = skill_of(&params, name)?;
    let path = skill_path(&path)?;
    let bytes = content.len();
    state
        .services
        .host
        .write_skill_file(&skill, &path, content)
        .await
        .map_err(skill_error)?;
    Ok(Json(
        json!({"name": skill.name, "path": path, "bytes": bytes}),
    ))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Rename {
    new_name: String,
}

/// `POST /api/skills/{name}/move`: renames the skill within its scope.
async fn rename(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Params(params): Params<ScopeParams>,
    Body(rename): Body<Rename>,
) -> Answer {
    let skill = skill_of(&params, name)?;
    state
        .services
        .host
        .rename_skill(&skill, &rename.new_name)
        .await
        .map_err(skill_error)?;
    Ok(Json(
        json!({"name": skill.name, "newName": rename.new_name}),
    ))
}

/// `DELETE /api/skills/{name}`: uninstalls the skill.
async fn remove(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Params(params): Params<ScopeParams>,
) -> Answer {
    let skill = skill_of(&params, name)?;
    state
        .services
        .host
        .remove_skill(&skill)
        .await
        .map_err(skill_error)?;
    Ok(Json(json!({"name": skill.name, "removed": true})))
}
