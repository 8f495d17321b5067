//! [`ProfileHealth`]: what stands between a profile and a run, for profile management
//! screens. Diagnosing never changes what a run does: runs still fail fast on their own.

use agent_domain::ErrorCode;
use agent_domain::connection::ConnectionConfig;
use agent_domain::profile::{ModelBinding, PresetBinding, ProfileSource};
use agent_domain::tool::SnapshotDiagnostic;
use serde::{Deserialize, Serialize};

use super::{LoadedProfile, ProfileServiceError};

/// How much an issue matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IssueSeverity {
    /// Worth knowing; nothing to fix.
    Info,
    /// The profile runs, but not entirely as written.
    Warning,
    /// The profile cannot run until this is fixed.
    Error,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileIssue {
    pub severity: IssueSeverity,
    pub code: String,
    pub message: String,
}

/// The worst severity among the issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HealthStatus {
    Healthy,
    Warning,
    Error,
}

/// The health of one profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileHealth {
    pub profile_id: String,
    /// Whether the profile reads and validates.
    pub loadable: bool,
    /// Where it comes from, when it loads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<ProfileSource>,
    /// Whether a user may start it, when it loads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct_runnable: Option<bool>,
    pub status: HealthStatus,
    pub issues: Vec<ProfileIssue>,
}

impl ProfileHealth {
    fn new(profile_id: String, loaded: Option<&LoadedProfile>, issues: Vec<ProfileIssue>) -> Self {
        let status = match issues.iter().map(|issue| issue.severity).max() {
            Some(IssueSeverity::Error) => HealthStatus::Error,
            Some(IssueSeverity::Warning) => HealthStatus::Warning,
            _ => HealthStatus::Healthy,
        };
        Self {
            profile_id,
            loadable: loaded.is_some(),
            source: loaded.map(|loaded| loaded.source),
            direct_runnable: loaded.map(|loaded| loaded.resolved.direct_runnable),
            status,
            issues,
        }
    }
}

fn issue(severity: IssueSeverity, code: &str, message: String) -> ProfileIssue {
    ProfileIssue {
        severity,
        code: code.to_owned(),
        message,
    }
}

/// The finding on a `connectionRef` model: the connection it names is there (info), missing
/// or unusable (errors: runs refuse it), or could not be looked up here (info).
fn connection_issue(
    connection_ref: &str,
    model_id: &str,
    check: Option<ConnectionCheck>,
) -> ProfileIssue {
    match check {
        Some(ConnectionCheck::Found(config)) => issue(
            IssueSeverity::Info,
            "agent.profile_model_connection",
            format!(
                "runs call model `{model_id}` through LLM connection `{connection_ref}` ({})",
                config.format
            ),
        ),
        Some(ConnectionCheck::Missing) => issue(
            IssueSeverity::Error,
            "agent.profile_model_connection_missing",
            format!(
                "LLM connection `{connection_ref}` does not exist; add it (tavern-agent \
                 connections add {connection_ref} …) or bind the profile to another one"
            ),
        ),
        Some(ConnectionCheck::Unusable(problem)) => issue(
            IssueSeverity::Error,
            "agent.profile_model_connection_invalid",
            format!("LLM connection `{connection_ref}` cannot be used: {problem}"),
        ),
        None => issue(
            IssueSeverity::Info,
            "agent.profile_connection_unchecked",
            format!(
                "LLM connection `{connection_ref}` (model `{model_id}`) is not checked here; a \
                 missing connection shows when a run starts"
            ),
        ),
    }
}

/// A profile that does not load: the load error is its one issue.
pub(super) fn unloadable(profile_id: &str, error: &ProfileServiceError) -> ProfileHealth {
    let issues = vec![issue(IssueSeverity::Error, error.code(), error.to_string())];
    ProfileHealth::new(profile_id.to_owned(), None, issues)
}

/// What the connection store said about a `connectionRef` profile's connection.
pub(super) enum ConnectionCheck {
    Found(ConnectionConfig),
    Missing,
    /// The stored file does not read as a connection (the store's message).
    Unusable(String),
}

/// What compiling the profile's tool snapshot (against the cached MCP catalogs) gave.
pub(super) enum ToolCheck {
    /// It compiles; these allowed tools are left out, each with its `mcp.*` code.
    Compiled(Vec<SnapshotDiagnostic>),
    /// It does not compile (code and message): every run of the profile fails.
    Refused(&'static str, String),
}

/// The findings on the tool snapshot: each MCP tool a run would leave out is a warning with
/// the code the run journals, so a profile whose MCP tools are all left out is never
/// healthy; a snapshot that does not compile is an error.
fn tool_issues(check: ToolCheck) -> Vec<ProfileIssue> {
    match check {
        ToolCheck::Compiled(omitted) => omitted
            .into_iter()
            .map(|diagnostic| {
                issue(
                    IssueSeverity::Warning,
                    &diagnostic.code,
                    format!(
                        "`{}` is left out of the agent's tools: {}",
                        diagnostic.tool_id, diagnostic.message
                    ),
                )
            })
            .collect(),
        ToolCheck::Refused(code, message) => vec![issue(
            IssueSeverity::Error,
            code,
            format!("the profile's tools cannot be compiled, so every run fails: {message}"),
        )],
    }
}

/// The findings on a loaded profile: its model (and its connection, when `connection` says
/// what the store holds), its preset, how it may be started, and its tools (when `tools`
/// says what a snapshot would hold).
pub(super) fn diagnose_loaded(
    loaded: &LoadedProfile,
    connection: Option<ConnectionCheck>,
    tools: Option<ToolCheck>,
) -> ProfileHealth {
    let profile = &loaded.resolved;
    let mut issues = Vec::new();
    match &profile.model {
        ModelBinding::RequiresConfiguration => issues.push(issue(
            IssueSeverity::Error,
            "agent.profile_model_requires_configuration",
            "no model is configured yet (model.mode is `requiresConfiguration`); runs, \
             subagents and prompt assembly refuse the profile until a connection and model \
             are chosen"
                .to_owned(),
        )),
        ModelBinding::ConnectionRef {
            connection_ref,
            model_id,
        } => issues.push(connection_issue(connection_ref, model_id, connection)),
        ModelBinding::CurrentPromptSnapshot => issues.push(issue(
            IssueSeverity::Info,
            "agent.profile_model_from_snapshot",
            "model.mode is `currentPromptSnapshot`: the model comes from whoever starts the \
             run, so each run must be given one"
                .to_owned(),
        )),
        _ => {}
    }
    match &profile.preset {
        PresetBinding::Ref { preset, required } => issues.push(issue(
            IssueSeverity::Warning,
            "agent.profile_preset_unsupported",
            format!(
                "preset `{}` (apiId `{}`{}) is not used: this host has no SillyTavern presets; \
                 prompts come from a prompt snapshot or the built-in assembler",
                preset.name,
                preset.api_id,
                if *required { ", required" } else { "" },
            ),
        )),
        PresetBinding::CurrentPromptSnapshot => issues.push(issue(
            IssueSeverity::Info,
            "agent.profile_preset_from_snapshot",
            "preset.mode is `currentPromptSnapshot`: the prompt is the run's prompt snapshot, \
             or the built-in assembler's when the run has none"
                .to_owned(),
        )),
        _ => {}
    }
    if !profile.direct_runnable {
        issues.push(issue(
            IssueSeverity::Info,
            "agent.profile_not_direct_runnable",
            "run.directRunnable is false: only other agents can start this profile".to_owned(),
        ));
    }
    issues.extend(tools.map(tool_issues).unwrap_or_default());
    ProfileHealth::new(profile.id.to_string(), Some(loaded), issues)
}
