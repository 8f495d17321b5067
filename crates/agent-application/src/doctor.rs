//! [`Doctor`]: one check of the agent parts of a data directory — agent profiles, saved LLM
//! connections, skills and their index — for a host's `doctor` command.
//!
//! Every part is read the way a run or a listing reads it, and nothing is changed beyond
//! what such a read already does. A finding of severity `error` makes the data directory
//! unhealthy; warnings are shown but pass (a profile that runs, though not entirely as
//! written); informational notes of the profile diagnosis are left out.

use std::sync::Arc;

use agent_domain::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::ports::{ConnectionStore, SkillStore};
use crate::profiles::{IssueSeverity, ProfileListing, ProfileService};
use crate::skills::skill_catalog;

/// The parts a doctor checks, in the order it checks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum DoctorArea {
    /// Agent profiles: every stored file reads and validates, and its diagnosis has no error.
    Profiles,
    /// Saved LLM connections: every stored file reads and validates.
    Connections,
    /// Skills of every scope, and the skill index: every skill reads, the index is one this
    /// version reads and writes.
    Skills,
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
}

/// The result for one area.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DoctorCheck {
    pub area: DoctorArea,
    pub status: CheckStatus,
    /// How many objects of the area are usable (profiles, connections, skills).
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
) -> DoctorFinding {
    DoctorFinding {
        severity,
        subject: subject.into(),
        code: code.into(),
        message: message.into(),
    }
}

fn fault(subject: &str, error: &(impl ErrorCode + std::fmt::Display)) -> DoctorFinding {
    finding(
        IssueSeverity::Error,
        subject,
        error.code(),
        error.to_string(),
    )
}

/// Checks the profiles, connections and skills of one data directory.
#[derive(Clone)]
pub struct Doctor {
    profiles: ProfileService,
    connections: Arc<dyn ConnectionStore>,
    skills: Arc<dyn SkillStore>,
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
        }
    }

    /// Checks every area. Store faults are findings too, so the report is always whole.
    pub async fn check(&self) -> DoctorReport {
        DoctorReport::new(vec![
            self.check_profiles().await,
            self.check_connections().await,
            self.check_skills().await,
        ])
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
                                finding(issue.severity, &subject, &issue.code, &issue.message)
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
                )),
            }
        }
        DoctorCheck::new(DoctorArea::Profiles, usable, findings)
    }

    async fn check_connections(&self) -> DoctorCheck {
        match self.connections.list().await {
            Ok(list) => {
                let findings = list
                    .problems
                    .iter()
                    .map(|problem| {
                        finding(
                            IssueSeverity::Error,
                            format!("connection {}", problem.name),
                            &problem.code,
                            &problem.message,
                        )
                    })
                    .collect();
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
                        finding(
                            IssueSeverity::Error,
                            subject,
                            &problem.code,
                            &problem.message,
                        )
                    })
                    .collect();
                DoctorCheck::new(DoctorArea::Skills, catalog.skills.len(), findings)
            }
            Err(error) => DoctorCheck::new(DoctorArea::Skills, 0, vec![fault("skills", &error)]),
        }
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
