//! [`ProfileServiceError`]: why a profile operation failed, with the profile's or the
//! store's code.

use agent_domain::ErrorCode;
use agent_domain::profile::ProfileError;

use crate::ports::StoreError;

/// Why a profile could not be listed, loaded, saved, deleted or diagnosed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileServiceError {
    /// The request itself: a bad id, an unknown profile, a document that does not validate.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// A stored profile file that does not read or validate.
    #[error("stored profile `{id}` is not usable: {error}")]
    Stored { id: String, error: ProfileError },
    /// A stored file whose document names another id: the file name is the id, so the
    /// profile could never be found under its own name.
    #[error(
        "stored profile file `{file_id}.json` holds the profile `{document_id}`; a profile file \
         must be named after its id"
    )]
    IdMismatch {
        file_id: String,
        document_id: String,
    },
    /// The built-in profile exists without a file; there is nothing to delete.
    #[error("`{id}` is the built-in profile; only a saved file that overrides it can be deleted")]
    BuiltinReadonly { id: String },
    /// A repair was asked for a stored profile that reads and validates.
    #[error("stored profile `{id}` reads and validates; there is nothing to repair")]
    RepairNotNeeded { id: String },
    /// The stored profile's problem has no automatic repair.
    #[error(
        "stored profile `{id}` cannot be repaired automatically ({problem}); fix it by hand \
         with `profiles show` and `profiles save`, or delete it"
    )]
    RepairUnavailable { id: String, problem: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ProfileServiceError {
    /// Whether the profile does not exist (hosts report a missing object differently).
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            Self::Profile(ProfileError::NotFound { .. }) | Self::Store(StoreError::NotFound(_))
        )
    }
}

impl ErrorCode for ProfileServiceError {
    fn code(&self) -> &'static str {
        match self {
            Self::Profile(error) | Self::Stored { error, .. } => error.code(),
            Self::IdMismatch { .. } => "agent.profile_id_mismatch",
            Self::BuiltinReadonly { .. } => "agent.profile_builtin_readonly",
            Self::RepairNotNeeded { .. } => "agent.profile_repair_not_needed",
            Self::RepairUnavailable { .. } => "agent.profile_repair_unavailable",
            Self::Store(error) => error.code(),
        }
    }
}
