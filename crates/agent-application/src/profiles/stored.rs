//! Reading one stored profile file, and sorting what is wrong with it into TauriTavern's
//! storage-health kinds.

use agent_domain::ErrorCode;
use agent_domain::profile::{
    AgentProfileDocument, PROFILE_KIND, ProfileError, ProfileId, ProfileSource,
    ResolvedAgentProfile, resolve,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{LoadedProfile, ProfileServiceError};
use crate::ports::StoredProfile;

/// What kind of problem a stored profile file has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum ProblemKind {
    /// Not JSON at all; nothing can be recovered (deleting it is the usual fix).
    InvalidJson,
    /// The header is wrong: unsupported `schemaVersion`, wrong `kind`, an `id` that is not
    /// an id or differs from the file name.
    InvalidFileIdentity,
    /// A well-formed file whose content breaks a profile rule.
    InvalidProfile,
}

/// A stored profile file that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileProblem {
    /// The id the file name gives.
    pub id: String,
    pub kind: ProblemKind,
    /// The error code, e.g. `agent.profile_unknown_tool`.
    pub code: String,
    pub message: String,
}

/// A stored file that failed, with the error a load reports and its problem kind.
#[derive(Debug)]
pub(super) struct StoredFailure {
    pub kind: ProblemKind,
    pub error: ProfileServiceError,
}

impl StoredFailure {
    pub(super) fn problem(&self, id: &str) -> ProfileProblem {
        ProfileProblem {
            id: id.to_owned(),
            kind: self.kind,
            code: self.error.code().to_owned(),
            message: self.error.to_string(),
        }
    }
}

/// Parses, identifies and resolves a stored profile. Checks go from the outside in (JSON,
/// identity, rules), so a file is always reported by its most basic problem.
pub(super) fn read_stored(stored: &StoredProfile) -> Result<LoadedProfile, StoredFailure> {
    let fail = |kind: ProblemKind, error: ProfileError| StoredFailure {
        kind,
        error: ProfileServiceError::Stored {
            id: stored.id.clone(),
            error,
        },
    };
    let value: Value = serde_json::from_str(&stored.text).map_err(|err| {
        fail(
            ProblemKind::InvalidJson,
            ProfileError::ContractInvalid {
                detail: err.to_string(),
            },
        )
    })?;
    let document = AgentProfileDocument::from_value(value).map_err(|error| {
        let kind = match error {
            ProfileError::SchemaUnsupported { .. } => ProblemKind::InvalidFileIdentity,
            _ => ProblemKind::InvalidProfile,
        };
        fail(kind, error)
    })?;
    if document.kind != PROFILE_KIND {
        let error = ProfileError::KindInvalid {
            found: document.kind.clone(),
        };
        return Err(fail(ProblemKind::InvalidFileIdentity, error));
    }
    let id = ProfileId::parse(&document.id)
        .map_err(|error| fail(ProblemKind::InvalidFileIdentity, error))?;
    if id.as_str() != stored.id {
        return Err(StoredFailure {
            kind: ProblemKind::InvalidFileIdentity,
            error: ProfileServiceError::IdMismatch {
                file_id: stored.id.clone(),
                document_id: id.to_string(),
            },
        });
    }
    let resolved: ResolvedAgentProfile = resolve(&document, ProfileSource::File)
        .map_err(|error| fail(ProblemKind::InvalidProfile, error))?;
    Ok(LoadedProfile {
        document,
        source: ProfileSource::File,
        resolved,
    })
}
