//! Agent profile management: the Host ABI's `profiles.list / load / resolveSystemPrompt /
//! save / delete / diagnose`, plus the storage health scan and its repairs, over the
//! [`ProfileStore`] port.
//!
//! The rules live in `agent_domain::profile`; this service adds what needs storage. The
//! built-in `default-writer` exists without a file, and a stored file of that id replaces
//! it. A broken file never breaks a listing: it is listed with its problem. Saves accept
//! every supported schema version and always write the current one.
//!
//! [`ProfileStore`]: crate::ports::ProfileStore

mod error;
mod health;
mod service;
mod storage;
mod stored;

#[cfg(test)]
mod tests;

use agent_domain::profile::{
    AgentProfileDocument, ProfileSource, ProfileSummary, ResolvedAgentProfile,
};
use serde::{Deserialize, Serialize};

pub use error::ProfileServiceError;
pub use health::{HealthStatus, IssueSeverity, ProfileHealth, ProfileIssue};
pub use service::ProfileService;
pub use storage::{ProfileRepair, RepairOutcome, StorageHealth, StorageIssue};
pub use stored::{ProblemKind, ProfileProblem};

/// A profile as loaded: the document (current schema), where it came from, and its
/// resolved form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedProfile {
    pub document: AgentProfileDocument,
    pub source: ProfileSource,
    pub resolved: ResolvedAgentProfile,
}

/// One entry of a profile listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "camelCase")]
#[non_exhaustive]
pub enum ProfileListing {
    /// A usable profile.
    Valid(ProfileSummary),
    /// A stored file that cannot be used, and why.
    Invalid(ProfileProblem),
}

impl ProfileListing {
    /// The profile id (for a broken file, the id its file name gives).
    pub fn id(&self) -> &str {
        match self {
            Self::Valid(summary) => summary.id.as_str(),
            Self::Invalid(problem) => &problem.id,
        }
    }
}
