//! The one error shape of the API: an HTTP status and `{"code", "message"}`, the code being
//! the observable `namespace.code` the runtime or a service reported. The status is chosen
//! here, from what kind of mistake the code names; the code itself is never rewritten.

use agent_application::ports::{JournalError, StoreError};
use agent_application::runtime::{RuntimeError, StartRunError};
use agent_domain::ErrorCode;
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// A refused or failed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: String,
    pub message: String,
}

/// The API's result type.
pub type ApiResult<T> = Result<T, ApiError>;

/// Codes of this host (the rest come from the runtime and its services).
pub mod codes {
    /// No or a wrong bearer token.
    pub const UNAUTHORIZED: &str = "serve.unauthorized";
    /// The request body is larger than the server accepts.
    pub const BODY_TOO_LARGE: &str = "serve.body_too_large";
    /// A body, query or path parameter that does not parse.
    pub const BAD_REQUEST: &str = "serve.bad_request";
    /// No such endpoint.
    pub const NOT_FOUND: &str = "serve.not_found";
    /// The endpoint exists but does not take the request's method.
    pub const METHOD_NOT_ALLOWED: &str = "serve.method_not_allowed";
    /// The server is shutting down and starts no run.
    pub const SHUTTING_DOWN: &str = "serve.shutting_down";
    /// A failure of the server itself (a background task that could not finish).
    pub const INTERNAL: &str = "serve.internal";
}

impl ApiError {
    pub fn new(status: StatusCode, code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            status,
            code: code.into(),
            message: message.into(),
        }
    }

    /// A 400 with `code`.
    pub fn bad_request(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// A coded error whose status follows from its code, with `caller` telling whether the
    /// request (rather than the server) is at fault when the code alone does not say.
    pub fn coded<E: ErrorCode + std::fmt::Display + ?Sized>(error: &E, caller: bool) -> Self {
        let code = error.code();
        Self::new(status_of(code, caller), code, error.to_string())
    }
}

/// The status of a code: missing things 404, things retention removed 410, things busy or
/// in the wrong state 409, other refusals of the request 400, and faults of the server 500.
fn status_of(code: &str, caller: bool) -> StatusCode {
    let name = code.rsplit('.').next().unwrap_or(code);
    if name == "not_found" || name.ends_with("_not_found") {
        return StatusCode::NOT_FOUND;
    }
    if name.ends_with("_pruned") {
        return StatusCode::GONE;
    }
    const CONFLICTS: &[&str] = &[
        "locked",
        "in_use",
        "already_exists",
        "not_accepting",
        "_active",
        "already_applied",
        "nothing_committed",
        "mailbox_closed",
        "mailbox_full",
        "active_run_missing",
    ];
    if CONFLICTS.iter().any(|part| name.ends_with(part)) {
        return StatusCode::CONFLICT;
    }
    if caller {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::INTERNAL_SERVER_ERROR
    }
}

impl From<RuntimeError> for ApiError {
    fn from(error: RuntimeError) -> Self {
        let caller = match &error {
            RuntimeError::Store(error) => store_caller(error),
            RuntimeError::Journal(error) => journal_caller(error),
            RuntimeError::Workspace(error) => !error.is_fatal(),
            RuntimeError::PathNotReadable(_)
            | RuntimeError::FileNotWrittenYet { .. }
            | RuntimeError::CheckpointsPruned { .. } => true,
            _ => false,
        };
        Self::coded(&error, caller)
    }
}

impl From<StartRunError> for ApiError {
    /// Every refusal to start is the request's: no run was created.
    fn from(error: StartRunError) -> Self {
        let caller = match &error {
            StartRunError::Store(error) => store_caller(error),
            StartRunError::Journal(error) => journal_caller(error),
            _ => true,
        };
        Self::coded(&error, caller)
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        let caller = store_caller(&error);
        Self::coded(&error, caller)
    }
}

impl From<JournalError> for ApiError {
    fn from(error: JournalError) -> Self {
        let caller = journal_caller(&error);
        Self::coded(&error, caller)
    }
}

fn store_caller(error: &StoreError) -> bool {
    matches!(
        error,
        StoreError::NotFound(_) | StoreError::Invalid { .. } | StoreError::AlreadyExists(_)
    )
}

fn journal_caller(error: &JournalError) -> bool {
    matches!(
        error,
        JournalError::NotFound(_) | JournalError::InvalidQuery { .. }
    )
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"code": self.code, "message": self.message});
        (self.status, Json(body)).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_follow_the_codes() {
        assert_eq!(status_of("agent.not_found", true), StatusCode::NOT_FOUND);
        assert_eq!(status_of("agent.run_locked", false), StatusCode::CONFLICT);
        assert_eq!(
            status_of("workspace.checkpoints_pruned", true),
            StatusCode::GONE
        );
        assert_eq!(
            status_of("agent.guidance_run_not_accepting", true),
            StatusCode::CONFLICT
        );
        assert_eq!(
            status_of("agent.rollback_run_active", true),
            StatusCode::CONFLICT
        );
        assert_eq!(
            status_of("workspace.path_invalid", true),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            status_of("agent.storage_io", false),
            StatusCode::INTERNAL_SERVER_ERROR
        );
    }
}
