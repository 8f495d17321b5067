//! The storage health scan of stored profile files, with the repair each problem suggests,
//! and applying that repair (the Host ABI's profile storage health, after TauriTavern's):
//!
//! * a file that is not JSON (`invalidJson`) can only be deleted;
//! * a file whose header is wrong (`invalidFileIdentity`: an unsupported `schemaVersion`, a
//!   wrong `kind`, an `id` that differs from its file name) gets the three header keys
//!   rewritten — `schemaVersion` current, `kind` `agentProfile`, `id` the file's — and
//!   everything else kept;
//! * a profile that breaks a rule (`invalidProfile`) has no automatic repair: it is fixed
//!   by hand (`profiles show` and `profiles save`).

use agent_domain::profile::{CURRENT_SCHEMA_VERSION, PROFILE_KIND};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::stored::read_stored;
use super::{ProblemKind, ProfileProblem, ProfileService, ProfileServiceError};

/// What to do about a stored profile file that cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ProfileRepair {
    /// Delete the file: nothing in it can be read.
    Delete,
    /// Rewrite `schemaVersion`, `kind` and `id`, keeping the rest of the document.
    NormalizeIdentity,
}

impl ProfileRepair {
    /// The repair a problem of `kind` suggests; `None` when only a person can fix it.
    pub fn suggested(kind: ProblemKind) -> Option<Self> {
        match kind {
            ProblemKind::InvalidJson => Some(Self::Delete),
            ProblemKind::InvalidFileIdentity => Some(Self::NormalizeIdentity),
            ProblemKind::InvalidProfile => None,
        }
    }
}

/// One stored file that cannot be used, and its suggested repair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageIssue {
    #[serde(flatten)]
    pub problem: ProfileProblem,
    /// Absent when the profile must be fixed by hand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repair: Option<ProfileRepair>,
}

/// The scan of every stored profile file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageHealth {
    /// How many stored files read and validate.
    pub usable: usize,
    pub issues: Vec<StorageIssue>,
}

/// What a repair did, and what the file is now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepairOutcome {
    pub id: String,
    pub repair: ProfileRepair,
    /// The file's problem after the repair; `None` when it now reads and validates (or
    /// was deleted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remaining: Option<ProfileProblem>,
}

impl ProfileService {
    /// Scans every stored profile file and suggests a repair for each that cannot be used.
    pub async fn storage_health(&self) -> Result<StorageHealth, ProfileServiceError> {
        let mut health = StorageHealth {
            usable: 0,
            issues: Vec::new(),
        };
        for stored in self.store.list().await? {
            match read_stored(&stored) {
                Ok(_) => health.usable += 1,
                Err(failure) => {
                    let problem = failure.problem(&stored.id);
                    health.issues.push(StorageIssue {
                        repair: ProfileRepair::suggested(problem.kind),
                        problem,
                    });
                }
            }
        }
        Ok(health)
    }

    /// Applies the suggested repair to the stored file `id`. A file that reads is
    /// `agent.profile_repair_not_needed`; one only a person can fix is
    /// `agent.profile_repair_unavailable`; no such file is `agent.profile_not_found`.
    pub async fn repair(&self, id: &str) -> Result<RepairOutcome, ProfileServiceError> {
        let stored = match self.store.load(id).await? {
            Some(stored) => stored,
            None => {
                return Err(
                    agent_domain::profile::ProfileError::NotFound { id: id.to_owned() }.into(),
                );
            }
        };
        let failure = match read_stored(&stored) {
            Ok(_) => return Err(ProfileServiceError::RepairNotNeeded { id: id.to_owned() }),
            Err(failure) => failure,
        };
        let problem = failure.problem(id);
        let Some(repair) = ProfileRepair::suggested(problem.kind) else {
            return Err(ProfileServiceError::RepairUnavailable {
                id: id.to_owned(),
                problem: problem.message,
            });
        };
        let remaining = match repair {
            ProfileRepair::Delete => {
                self.store.delete(id).await?;
                None
            }
            ProfileRepair::NormalizeIdentity => {
                let mut value: Value = serde_json::from_str(&stored.text).map_err(|_| {
                    ProfileServiceError::RepairUnavailable {
                        id: id.to_owned(),
                        problem: problem.message.clone(),
                    }
                })?;
                let Some(object) = value.as_object_mut() else {
                    return Err(ProfileServiceError::RepairUnavailable {
                        id: id.to_owned(),
                        problem: problem.message,
                    });
                };
                object.insert("schemaVersion".into(), CURRENT_SCHEMA_VERSION.into());
                object.insert("kind".into(), PROFILE_KIND.into());
                object.insert("id".into(), id.into());
                let text = serde_json::to_string_pretty(&value).map_err(|err| {
                    ProfileServiceError::RepairUnavailable {
                        id: id.to_owned(),
                        problem: err.to_string(),
                    }
                })?;
                self.store.save(id, &text).await?;
                let repaired = self.store.load(id).await?;
                repaired.and_then(|stored| read_stored(&stored).err().map(|f| f.problem(id)))
            }
        };
        Ok(RepairOutcome {
            id: id.to_owned(),
            repair,
            remaining,
        })
    }
}
