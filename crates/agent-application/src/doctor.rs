//! [`Doctor`]: one check of the agent parts of a data directory — its layout and stray
//! temps, agent profiles, saved LLM connections and their key variables, skills and their
//! index, chats that do not parse, and runs left behind by a process that died — for a
//! host's `doctor` command; and [`Doctor::fix`], which ends those runs and removes those
//! temps.
//!
//! Every part is read the way a run or a listing reads it, and a check changes nothing
//! beyond what such a read already does. A finding of severity `error` makes the data
//! directory unhealthy; warnings are shown but pass (a profile that runs, though not
//! entirely as written; a key variable unset in this shell); informational notes of the
//! profile diagnosis are left out. Every finding says what to do about it (`fix`). The
//! layout, connection keys, chats and runs are checked only when the doctor is given the
//! ports they need ([`Doctor::with_data_dir`], [`Doctor::with_environment`],
//! [`Doctor::with_runs`]).

use std::sync::Arc;

use agent_domain::ErrorCode;
use serde::{Deserialize, Serialize};

use agent_domain::event::RunStatus;
use agent_domain::run::RunId;

use crate::ports::{
    ChatError, ConnectionStore, DataDirInspector, EntryKind, EnvironmentVariables, LayoutProblem,
    RunListQuery, SkillStore,
};
use crate::profiles::{IssueSeverity, ProfileListing, ProfileService};
use crate::runtime::{AgentRuntime, RUN_ABANDONED};
use crate::skills::skill_catalog;

/// The parts a doctor checks, in the order it checks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum DoctorArea {
    /// The data directory's layout: its paths are of the right kind, our folders hold
    /// nothing unknown, no temp of a dead process is left.
    Layout,
    /// Agent profiles: every stored file reads and validates, and its diagnosis has no error.
    Profiles,
    /// Saved LLM connections: every stored file reads and validates, and the key variable
    /// each names is set.
    Connections,
    /// Skills of every scope, and the skill index: every skill reads, the index is one this
    /// version reads and writes.
    Skills,
    /// Chat files: each parses as a run reads it.
    Chats,
    /// Runs: none was left non-terminal by a process that died.
    Runs,
}

/// How one area fared: its worst finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CheckStatus {
    Ok,
    Warning,
    Error,
}

/// One thing found wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DoctorFinding {
    /// `warning` or `error`.
    pub severity: IssueSeverity,
    /// What it is about: `profile writer`, `connection openai`, `global/poetry`,
    /// `index/skills.json`…
    pub subject: String,
    /// The `namespace.code` of the problem.
    pub code: String,
    pub message: String,
    /// What to do about it: a command to run, or an action.
    pub fix: String,
}

/// The result for one area.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DoctorCheck {
    pub area: DoctorArea,
    pub status: CheckStatus,
    /// How many objects of the area are usable (profiles, connections, skills, chats, runs;
    /// for the layout, its paths that exist).
    pub usable: usize,
    pub findings: Vec<DoctorFinding>,
}

impl DoctorCheck {
    fn new(area: DoctorArea, usable: usize, findings: Vec<DoctorFinding>) -> Self {
        let status = match findings.iter().map(|finding| finding.severity).max() {
            Some(IssueSeverity::Error) => CheckStatus::Error,
            Some(IssueSeverity::Warning) => CheckStatus::Warning,
            _ => CheckStatus::Ok,
        };
        Self {
            area,
            status,
            usable,
            findings,
        }
    }
}

/// Every area's result, in [`DoctorArea`] order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DoctorReport {
    /// Whether no area has an error.
    pub healthy: bool,
    pub checks: Vec<DoctorCheck>,
}

impl DoctorReport {
    fn new(checks: Vec<DoctorCheck>) -> Self {
        Self {
            healthy: checks
                .iter()
                .all(|check| check.status != CheckStatus::Error),
            checks,
        }
    }

    /// How many findings of `severity` there are in all.
    pub fn count(&self, severity: IssueSeverity) -> usize {
        self.checks
            .iter()
            .flat_map(|check| &check.findings)
            .filter(|finding| finding.severity == severity)
            .count()
    }
}

fn finding(
    severity: IssueSeverity,
    subject: impl Into<String>,
    code: impl Into<String>,
    message: impl Into<String>,
    fix: impl Into<String>,
) -> DoctorFinding {
    DoctorFinding {
        severity,
        subject: subject.into(),
        code: code.into(),
        message: message.into(),
        fix: fix.into(),
    }
}

/// A store that could not be read at all.
fn fault(subject: &str, error: &(impl ErrorCode + std::fmt::Display)) -> DoctorFinding {
    finding(
        IssueSeverity::Error,
        subject,
        error.code(),
        error.to_string(),
        "check that the data directory is readable (permissions, disk), then run \
         `tavern-agent doctor` again",
    )
}

fn kind_name(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Directory => "a folder",
        EntryKind::File => "a file",
    }
}

/// What `--fix` did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DoctorFixReport {
    /// Each abandoned run, and the status it ended with (`failed`, or `partialSuccess` when
    /// it had committed to the chat).
    pub runs: Vec<FixedRun>,
    /// Stale temps removed.
    pub temps_removed: usize,
    /// What could not be fixed (a run another process took up meanwhile is left alone).
    pub failures: Vec<DoctorFinding>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FixedRun {
    pub run_id: String,
    pub status: RunStatus,
}

/// Checks the profiles, connections and skills of one data directory.
#[derive(Clone)]
pub struct Doctor {
    profiles: ProfileService,
    connections: Arc<dyn ConnectionStore>,
    skills: Arc<dyn SkillStore>,
    data_dir: Option<Arc<dyn DataDirInspector>>,
    environment: Option<Arc<dyn EnvironmentVariables>>,
    runtime: Option<AgentRuntime>,
}

impl std::fmt::Debug for Doctor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Doctor { .. }")
    }
}

impl Doctor {
    /// A doctor over these stores. `profiles` should check connections
    /// ([`ProfileService::with_connections`]) so a profile naming a missing one is found.
    pub fn new(
        profiles: ProfileService,
        connections: Arc<dyn ConnectionStore>,
        skills: Arc<dyn SkillStore>,
    ) -> Self {
        Self {
            profiles,
            connections,
            skills,
            data_dir: None,
            environment: None,
            runtime: None,
        }
    }

    /// Also checks the layout and the chats.
    pub fn with_data_dir(mut self, inspector: Arc<dyn DataDirInspector>) -> Self {
        self.data_dir = Some(inspector);
        self
    }

    /// Also checks that each connection's key variable is set.
    pub fn with_environment(mut self, environment: Arc<dyn EnvironmentVariables>) -> Self {
        self.environment = Some(environment);
        self
    }

    /// Also checks for abandoned runs (and [`fix`](Self::fix) ends them).
    pub fn with_runs(mut self, runtime: AgentRuntime) -> Self {
        self.runtime = Some(runtime);
        self
    }

    /// Checks every area it has the ports of. Store faults are findings too, so the report
    /// is always whole.
    pub async fn check(&self) -> DoctorReport {
        let mut checks = Vec::new();
        if let Some(inspector) = &self.data_dir {
            checks.push(check_layout(inspector.as_ref()).await);
        }
        checks.push(self.check_profiles().await);
        checks.push(self.check_connections().await);
        checks.push(self.check_skills().await);
        if let Some(inspector) = &self.data_dir {
            checks.push(check_chats(inspector.as_ref()).await);
        }
        if let Some(runtime) = &self.runtime {
            checks.push(check_runs(runtime).await);
        }
        DoctorReport::new(checks)
    }

    /// Ends every abandoned run as failed ([`AgentRuntime::mark_abandoned`]) and removes
    /// the stale temps. A run is checked again right before it is marked, and one a live
    /// process holds is refused by its journal's lock: a live run is never touched.
    pub async fn fix(&self) -> DoctorFixReport {
        let mut report = DoctorFixReport::default();
        if let Some(runtime) = &self.runtime {
            match abandoned_runs(runtime).await {
                Ok((_, runs)) => {
                    for run in runs {
                        match runtime.mark_abandoned(&run).await {
                            Ok(status) => report.runs.push(FixedRun {
                                run_id: run.to_string(),
                                status,
                            }),
                            Err(error) => report.failures.push(run_finding(&run, &error)),
                        }
                    }
                }
                Err(finding) => report.failures.push(finding),
            }
        }
        if let Some(inspector) = &self.data_dir {
            match inspector.sweep_stale_temps().await {
                Ok(removed) => report.temps_removed = removed,
                Err(error) => report.failures.push(fault("temps", &error)),
            }
        }
        report
    }

    async fn check_profiles(&self) -> DoctorCheck {
        let listings = match self.profiles.list().await {
            Ok(listings) => listings,
            Err(error) => {
                return DoctorCheck::new(DoctorArea::Profiles, 0, vec![fault("profiles", &error)]);
            }
        };
        let mut usable = 0;
        let mut findings = Vec::new();
        for listing in &listings {
            let subject = format!("profile {}", listing.id());
            match listing {
                ProfileListing::Valid(_) => match self.profiles.diagnose(listing.id()).await {
                    Ok(health) => {
                        let errors = health
                            .issues
                            .iter()
                            .filter(|issue| issue.severity > IssueSeverity::Info)
                            .map(|issue| {
                                finding(
                                    issue.severity,
                                    &subject,
                                    &issue.code,
                                    &issue.message,
                                    format!(
                                        "see `tavern-agent profiles diagnose {}`; edit the \
                                         profile and save it with `tavern-agent profiles save`",
                                        listing.id()
                                    ),
                                )
                            })
                            .collect::<Vec<_>>();
                        if errors
                            .iter()
                            .all(|found| found.severity != IssueSeverity::Error)
                        {
                            usable += 1;
                        }
                        findings.extend(errors);
                    }
                    Err(error) => findings.push(fault(&subject, &error)),
                },
                ProfileListing::Invalid(problem) => findings.push(finding(
                    IssueSeverity::Error,
                    subject,
                    &problem.code,
                    &problem.message,
                    format!(
                        "see `tavern-agent profiles health`, then `tavern-agent profiles \
                         repair {}` (or fix the file by hand)",
                        listing.id()
                    ),
                )),
            }
        }
        DoctorCheck::new(DoctorArea::Profiles, usable, findings)
    }

    async fn check_connections(&self) -> DoctorCheck {
        match self.connections.list().await {
            Ok(list) => {
                let mut findings: Vec<DoctorFinding> = list
                    .problems
                    .iter()
                    .map(|problem| {
                        finding(
                            IssueSeverity::Error,
                            format!("connection {}", problem.name),
                            &problem.code,
                            &problem.message,
                            format!(
                                "`tavern-agent connections remove {0}`, then add it again \
                                 with `tavern-agent connections add {0} …`",
                                problem.name
                            ),
                        )
                    })
                    .collect();
                if let Some(environment) = &self.environment {
                    for config in &list.connections {
                        let Some(var) = &config.api_key_env else {
                            continue;
                        };
                        if !environment.is_set(var) {
                            findings.push(finding(
                                IssueSeverity::Warning,
                                format!("connection {}", config.name),
                                "connection.api_key_missing",
                                format!(
                                    "connection `{}` reads its key from ${var}, which is not \
                                     set here: a run on it is refused",
                                    config.name
                                ),
                                format!("export {var}=<your key> before `tavern-agent run`"),
                            ));
                        }
                    }
                }
                DoctorCheck::new(DoctorArea::Connections, list.connections.len(), findings)
            }
            Err(error) => DoctorCheck::new(
                DoctorArea::Connections,
                0,
                vec![fault("connections", &error)],
            ),
        }
    }

    async fn check_skills(&self) -> DoctorCheck {
        match skill_catalog(self.skills.as_ref()).await {
            Ok(catalog) => {
                let findings = catalog
                    .problems
                    .iter()
                    .map(|problem| {
                        let subject = match (&problem.scope, &problem.folder) {
                            (Some(scope), Some(folder)) => format!("{}/{folder}", scope.label()),
                            (Some(scope), None) => scope.label(),
                            (None, Some(folder)) => folder.clone(),
                            (None, None) => "skills".to_owned(),
                        };
                        let fix = match (&problem.scope, &problem.folder) {
                            (Some(_), Some(_)) => format!(
                                "see `tavern-agent skills list`; fix {subject}/SKILL.md or \
                                 remove the skill's folder"
                            ),
                            _ => format!(
                                "see `tavern-agent skills list`, and fix {subject} as the \
                                 message says"
                            ),
                        };
                        finding(
                            IssueSeverity::Error,
                            subject,
                            &problem.code,
                            &problem.message,
                            fix,
                        )
                    })
                    .collect();
                DoctorCheck::new(DoctorArea::Skills, catalog.skills.len(), findings)
            }
            Err(error) => DoctorCheck::new(DoctorArea::Skills, 0, vec![fault("skills", &error)]),
        }
    }
}

async fn check_layout(inspector: &dyn DataDirInspector) -> DoctorCheck {
    let scan = match inspector.scan_layout().await {
        Ok(scan) => scan,
        Err(error) => {
            return DoctorCheck::new(DoctorArea::Layout, 0, vec![fault("data directory", &error)]);
        }
    };
    let findings = scan
        .problems
        .iter()
        .map(|problem| match problem {
            LayoutProblem::Missing { path, expected } => finding(
                IssueSeverity::Warning,
                path,
                "doctor.layout_missing",
                format!(
                    "{path} is missing: every SillyTavern user folder has it as {}",
                    kind_name(*expected)
                ),
                "point --data-dir (or TAVERN_AGENT_DATA_DIR) at a SillyTavern user folder, the \
                 one holding chats/",
            ),
            LayoutProblem::WrongKind { path, expected } => finding(
                IssueSeverity::Error,
                path,
                "doctor.layout_wrong_kind",
                format!("{path} must be {}", kind_name(*expected)),
                format!("move {path} out of the data directory; it is created again when needed"),
            ),
            LayoutProblem::Unknown { path } => finding(
                IssueSeverity::Warning,
                path,
                "doctor.layout_unknown_entry",
                format!("{path} is nothing this version writes or reads"),
                format!("if it is not yours, move {path} out of the data directory"),
            ),
            LayoutProblem::StaleTemp { path } => finding(
                IssueSeverity::Warning,
                path,
                "doctor.stale_temp",
                format!("{path} was staged by a process that ended before finishing its write"),
                "`tavern-agent doctor --fix` removes it",
            ),
        })
        .collect();
    DoctorCheck::new(DoctorArea::Layout, scan.present, findings)
}

async fn check_chats(inspector: &dyn DataDirInspector) -> DoctorCheck {
    let scan = match inspector.scan_chats().await {
        Ok(scan) => scan,
        Err(error) => return DoctorCheck::new(DoctorArea::Chats, 0, vec![fault("chats", &error)]),
    };
    let findings = scan
        .problems
        .iter()
        .map(|problem| {
            let fix = match &problem.error {
                ChatError::InvalidMessage { line, .. } => format!(
                    "open {} and fix line {line} (one JSON object per line), or restore the \
                     file from a backup",
                    problem.path
                ),
                ChatError::InvalidHeader(_) => format!(
                    "open {} and fix line 1: its chat_metadata.integrity must be a string \
                     (delete the key and SillyTavern gives the chat a new one)",
                    problem.path
                ),
                _ => format!("check that {} is a readable file", problem.path),
            };
            finding(
                IssueSeverity::Error,
                &problem.path,
                problem.error.code(),
                problem.error.to_string(),
                fix,
            )
        })
        .collect();
    DoctorCheck::new(
        DoctorArea::Chats,
        scan.checked - scan.problems.len(),
        findings,
    )
}

/// Runs per page while looking for abandoned ones.
const RUN_PAGE: u32 = RunListQuery::MAX_LIMIT;

/// How many runs there are, and those no live process holds that have not ended.
async fn abandoned_runs(runtime: &AgentRuntime) -> Result<(usize, Vec<RunId>), DoctorFinding> {
    let mut query = RunListQuery {
        limit: Some(RUN_PAGE),
        ..RunListQuery::default()
    };
    let mut abandoned = Vec::new();
    let mut listed = 0;
    loop {
        let page = runtime
            .list_runs(&query)
            .await
            .map_err(|error| fault("runs", &error))?;
        listed += page.runs.len();
        for run in page.runs.iter().filter(|run| !run.status.is_terminal()) {
            match runtime.is_abandoned(&run.id).await {
                Ok(true) => abandoned.push(run.id.clone()),
                Ok(false) => {}
                Err(error) => return Err(run_finding(&run.id, &error)),
            }
        }
        match page.next {
            Some(next) => query.before = Some(next),
            None => return Ok((listed, abandoned)),
        }
    }
}

fn run_finding(run: &RunId, error: &(impl ErrorCode + std::fmt::Display)) -> DoctorFinding {
    finding(
        IssueSeverity::Error,
        format!("run {run}"),
        error.code(),
        error.to_string(),
        format!("see `tavern-agent runs show {run}`"),
    )
}

async fn check_runs(runtime: &AgentRuntime) -> DoctorCheck {
    match abandoned_runs(runtime).await {
        Ok((listed, runs)) => {
            let findings: Vec<DoctorFinding> = runs
                .iter()
                .map(|run| {
                    finding(
                        IssueSeverity::Error,
                        format!("run {run}"),
                        RUN_ABANDONED,
                        format!(
                            "run {run} is not finished, but no process drives it: the one that \
                             did ended first"
                        ),
                        format!(
                            "`tavern-agent doctor --fix` marks it failed (or `tavern-agent runs \
                             cancel {run}` marks it cancelled)"
                        ),
                    )
                })
                .collect();
            DoctorCheck::new(DoctorArea::Runs, listed - findings.len(), findings)
        }
        Err(finding) => DoctorCheck::new(DoctorArea::Runs, 0, vec![finding]),
    }
}

#[cfg(test)]
mod tests {
    use agent_domain::profile::default_writer;
    use serde_json::json;

    use super::*;
    use crate::ports::{SkillProblem, SkillScope, StoreError};
    use crate::testing::{MemoryConnections, MemoryProfiles, MemorySkills};

    struct Parts {
        profiles: Arc<MemoryProfiles>,
        connections: Arc<MemoryConnections>,
        skills: Arc<MemorySkills>,
    }

    impl Parts {
        fn new() -> Self {
            Self {
                profiles: Arc::new(MemoryProfiles::new()),
                connections: Arc::new(MemoryConnections::new()),
                skills: Arc::new(MemorySkills::new()),
            }
        }

        fn doctor(&self) -> Doctor {
            Doctor::new(
                ProfileService::new(self.profiles.clone())
                    .with_connections(self.connections.clone()),
                self.connections.clone(),
                self.skills.clone(),
            )
        }
    }

    #[tokio::test]
    async fn an_empty_data_directory_is_healthy() {
        let parts = Parts::new();
        parts
            .skills
            .add(&SkillScope::Global, "poetry", "Writes poems.");
        let report = parts.doctor().check().await;
        assert!(report.healthy, "{report:?}");
        let summary: Vec<(DoctorArea, CheckStatus, usize)> = report
            .checks
            .iter()
            .map(|check| (check.area, check.status, check.usable))
            .collect();
        assert_eq!(
            summary,
            [
                (DoctorArea::Profiles, CheckStatus::Ok, 1),
                (DoctorArea::Connections, CheckStatus::Ok, 0),
                (DoctorArea::Skills, CheckStatus::Ok, 1),
            ]
        );
    }

    #[tokio::test]
    async fn every_broken_part_is_a_finding() {
        let parts = Parts::new();
        parts.profiles.put("broken", "{\"schemaVersion\": 3,");
        let mut dangling = default_writer().to_json_value().unwrap();
        dangling["id"] = json!("dangling");
        dangling["model"] = json!({"mode": "connectionRef", "connectionRef": "gone",
                                   "modelId": "gpt-4o"});
        parts.profiles.put("dangling", &dangling.to_string());
        parts.connections.put_text("half", "{\"kind\": ");
        parts.skills.add_problem(
            &SkillScope::Global,
            SkillProblem::of_store(
                Some("index/skills.json".into()),
                "skill.index_version_unsupported",
                "version 3",
            ),
        );
        let report = parts.doctor().check().await;
        assert!(!report.healthy);
        let found: Vec<(DoctorArea, &str, &str)> = report
            .checks
            .iter()
            .flat_map(|check| {
                check
                    .findings
                    .iter()
                    .map(|f| (check.area, f.subject.as_str(), f.code.as_str()))
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    DoctorArea::Profiles,
                    "profile broken",
                    "agent.profile_contract_invalid"
                ),
                (
                    DoctorArea::Profiles,
                    "profile dangling",
                    "agent.profile_model_connection_missing"
                ),
                (
                    DoctorArea::Connections,
                    "connection half",
                    "connection.contract_invalid"
                ),
                (
                    DoctorArea::Skills,
                    "index/skills.json",
                    "skill.index_version_unsupported"
                ),
            ]
        );
        assert_eq!(report.checks[0].usable, 1);
        assert_eq!(report.count(IssueSeverity::Error), 4);
    }

    #[tokio::test]
    async fn store_faults_are_findings() {
        let parts = Parts::new();
        parts.skills.fail_with(StoreError::Io("disk gone".into()));
        let report = parts.doctor().check().await;
        let skills = &report.checks[2];
        assert_eq!(skills.status, CheckStatus::Error);
        assert_eq!(skills.findings[0].code, "agent.storage_io");
        assert!(!report.healthy);
    }
}
