//! The retention policy as the user sets it, kept in the host settings document under
//! `agent.retention` (snake_case keys, as TauriTavern keeps them), and its validation.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::ErrorCode;

/// The most runs either window may keep.
pub const MAX_KEEP: u32 = 10_000;

/// How many finished runs keep what.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RetentionSettings {
    /// Whether hosts prune on their own (the CLI: after each run it drove ends).
    pub auto_prune_enabled: bool,
    /// The newest finished runs that keep at least their core history; older ones are
    /// deleted. 0..=10000.
    pub keep_recent_terminal_runs: u32,
    /// Of those, the newest that keep every file; the others are slimmed. 0..=10000 and
    /// never more than `keep_recent_terminal_runs`.
    pub keep_full_recent_runs: u32,
}

impl Default for RetentionSettings {
    fn default() -> Self {
        Self {
            auto_prune_enabled: false,
            keep_recent_terminal_runs: 100,
            keep_full_recent_runs: 20,
        }
    }
}

/// One setting, by its name on disk and on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetentionKey {
    AutoPruneEnabled,
    KeepRecentTerminalRuns,
    KeepFullRecentRuns,
}

impl RetentionKey {
    pub const ALL: [Self; 3] = [
        Self::AutoPruneEnabled,
        Self::KeepRecentTerminalRuns,
        Self::KeepFullRecentRuns,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::AutoPruneEnabled => "auto_prune_enabled",
            Self::KeepRecentTerminalRuns => "keep_recent_terminal_runs",
            Self::KeepFullRecentRuns => "keep_full_recent_runs",
        }
    }
}

impl fmt::Display for RetentionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RetentionKey {
    type Err = RetentionError;

    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|key| key.as_str() == raw)
            .ok_or_else(|| RetentionError::UnknownKey(raw.to_owned()))
    }
}

/// Why a retention setting, a prune request or a plan's sum is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RetentionError {
    #[error("keep_recent_terminal_runs must be a whole number from 0 to {MAX_KEEP}, not {0}")]
    KeepRecentInvalid(String),
    #[error(
        "keep_full_recent_runs must be a whole number from 0 to {MAX_KEEP} and at most \
         keep_recent_terminal_runs ({recent}), not {value}"
    )]
    KeepFullInvalid { value: String, recent: u32 },
    #[error("auto_prune_enabled must be true or false, not {0}")]
    AutoPruneInvalid(String),
    #[error(
        "`{0}` is not a retention setting: use auto_prune_enabled, keep_recent_terminal_runs \
         or keep_full_recent_runs"
    )]
    UnknownKey(String),
    #[error(
        "the settings document is not a JSON object, or its `agent` or `agent.retention` is not one"
    )]
    DocumentInvalid,
    #[error("the detail limit must be from 0 to {max}, not {value}", max = super::DetailLimit::MAX)]
    DetailLimitInvalid { value: u64 },
    #[error("the bytes of the planned runs do not fit in 64 bits")]
    ByteCountOverflow,
    #[error("the files of the planned runs do not fit in 64 bits")]
    FileCountOverflow,
}

impl ErrorCode for RetentionError {
    fn code(&self) -> &'static str {
        match self {
            Self::KeepRecentInvalid(_) => "agent.retention_keep_recent_terminal_runs_invalid",
            Self::KeepFullInvalid { .. } => "agent.retention_keep_full_recent_runs_invalid",
            Self::AutoPruneInvalid(_) => "agent.retention_auto_prune_enabled_invalid",
            Self::UnknownKey(_) => "agent.retention_setting_unknown",
            Self::DocumentInvalid => "agent.retention_settings_invalid",
            Self::DetailLimitInvalid { .. } => "agent.run_prune_detail_limit_invalid",
            Self::ByteCountOverflow => "agent.run_prune_byte_count_overflow",
            Self::FileCountOverflow => "agent.run_prune_file_count_overflow",
        }
    }
}

/// A window size from JSON: a whole number in range.
fn window(value: &Value) -> Option<u32> {
    value
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n <= MAX_KEEP)
}

impl RetentionSettings {
    /// The policy kept in the host settings `document` under `agent.retention`; missing
    /// parts take their defaults, present ones must be valid.
    pub fn from_document(document: &Value) -> Result<Self, RetentionError> {
        let Some(root) = document.as_object() else {
            return Err(RetentionError::DocumentInvalid);
        };
        let retention = match root.get("agent") {
            None | Some(Value::Null) => return Ok(Self::default()),
            Some(Value::Object(agent)) => agent.get("retention"),
            Some(_) => return Err(RetentionError::DocumentInvalid),
        };
        let fields = match retention {
            None | Some(Value::Null) => return Ok(Self::default()),
            Some(Value::Object(fields)) => fields,
            Some(_) => return Err(RetentionError::DocumentInvalid),
        };
        let mut settings = Self::default();
        if let Some(value) = fields.get(RetentionKey::AutoPruneEnabled.as_str()) {
            settings.auto_prune_enabled = value
                .as_bool()
                .ok_or_else(|| RetentionError::AutoPruneInvalid(value.to_string()))?;
        }
        if let Some(value) = fields.get(RetentionKey::KeepRecentTerminalRuns.as_str()) {
            settings.keep_recent_terminal_runs = window(value)
                .ok_or_else(|| RetentionError::KeepRecentInvalid(value.to_string()))?;
        }
        if let Some(value) = fields.get(RetentionKey::KeepFullRecentRuns.as_str()) {
            settings.keep_full_recent_runs =
                window(value).ok_or_else(|| RetentionError::KeepFullInvalid {
                    value: value.to_string(),
                    recent: settings.keep_recent_terminal_runs,
                })?;
        }
        settings.validated()
    }

    /// The policy if it holds together: the full window inside the history window.
    pub fn validated(self) -> Result<Self, RetentionError> {
        if self.keep_recent_terminal_runs > MAX_KEEP {
            return Err(RetentionError::KeepRecentInvalid(
                self.keep_recent_terminal_runs.to_string(),
            ));
        }
        if self.keep_full_recent_runs > self.keep_recent_terminal_runs {
            return Err(RetentionError::KeepFullInvalid {
                value: self.keep_full_recent_runs.to_string(),
                recent: self.keep_recent_terminal_runs,
            });
        }
        Ok(self)
    }

    /// The policy with `key` set from its command-line text, validated as a whole.
    pub fn with(self, key: RetentionKey, raw: &str) -> Result<Self, RetentionError> {
        let mut next = self;
        match key {
            RetentionKey::AutoPruneEnabled => {
                next.auto_prune_enabled = raw
                    .parse()
                    .map_err(|_| RetentionError::AutoPruneInvalid(raw.to_owned()))?;
            }
            RetentionKey::KeepRecentTerminalRuns => {
                next.keep_recent_terminal_runs = raw
                    .parse()
                    .ok()
                    .filter(|n| *n <= MAX_KEEP)
                    .ok_or_else(|| RetentionError::KeepRecentInvalid(raw.to_owned()))?;
            }
            RetentionKey::KeepFullRecentRuns => {
                next.keep_full_recent_runs =
                    raw.parse().ok().filter(|n| *n <= MAX_KEEP).ok_or_else(|| {
                        RetentionError::KeepFullInvalid {
                            value: raw.to_owned(),
                            recent: next.keep_recent_terminal_runs,
                        }
                    })?;
            }
        }
        next.validated()
    }

    /// Writes the policy into `document` under `agent.retention`, leaving every other
    /// setting as it was.
    pub fn write_into(&self, document: &mut Value) -> Result<(), RetentionError> {
        let root = document
            .as_object_mut()
            .ok_or(RetentionError::DocumentInvalid)?;
        let agent = root
            .entry("agent")
            .or_insert_with(|| Value::Object(Map::new()));
        if agent.is_null() {
            *agent = Value::Object(Map::new());
        }
        let agent = agent
            .as_object_mut()
            .ok_or(RetentionError::DocumentInvalid)?;
        agent.insert(
            "retention".to_owned(),
            serde_json::json!({
                "auto_prune_enabled": self.auto_prune_enabled,
                "keep_recent_terminal_runs": self.keep_recent_terminal_runs,
                "keep_full_recent_runs": self.keep_full_recent_runs,
            }),
        );
        Ok(())
    }
}
