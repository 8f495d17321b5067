//! The error shared by simple record stores.

use agent_domain::ErrorCode;

/// Why a store could not do what was asked. `Integrity` and `Io` are runtime faults; the
/// others describe the request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The record does not exist.
    #[error("{0} not found")]
    NotFound(String),
    /// A create-only record already exists, or a guard did not hold.
    #[error("{0} already exists")]
    AlreadyExists(String),
    /// Another process holds the run.
    #[error("run {0} is locked by another process")]
    Locked(String),
    /// The request itself is malformed (a bad cursor, a limit out of range).
    #[error("{message}")]
    Invalid { code: &'static str, message: String },
    /// Stored data is corrupt or unsafe (bad JSON, a symlink, a path escaping its root).
    #[error("storage integrity: {0}")]
    Integrity(String),
    /// A document of another program (SillyTavern's `settings.json`, a lorebook, a group)
    /// that does not read: broken JSON or a field of the wrong type. `code` says which kind
    /// of document (`sillytavern.settings_invalid`, …); `message` names the file, and the
    /// line and column when the JSON itself is broken.
    #[error("{message}")]
    Damaged { code: &'static str, message: String },
    /// The operating system refused.
    #[error("storage I/O: {0}")]
    Io(String),
}

impl ErrorCode for StoreError {
    fn code(&self) -> &'static str {
        match self {
            Self::NotFound(_) => "agent.not_found",
            Self::AlreadyExists(_) => "agent.already_exists",
            Self::Locked(_) => "agent.run_locked",
            Self::Invalid { code, .. } => code,
            Self::Integrity(_) => "agent.storage_integrity",
            Self::Damaged { code, .. } => code,
            Self::Io(_) => "agent.storage_io",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_documents_carry_their_own_code() {
        let err = StoreError::Damaged {
            code: "sillytavern.settings_invalid",
            message: "settings.json: is not valid JSON: EOF at line 3 column 1".into(),
        };
        assert_eq!(err.code(), "sillytavern.settings_invalid");
        assert_eq!(
            err.to_string(),
            "settings.json: is not valid JSON: EOF at line 3 column 1"
        );
    }
}
