//! The parsed script: the turn lists and what each turn answers. Built only by
//! [`parse`](super::parse), so every value here has passed the format's checks.

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// Every list of a script.
#[derive(Debug)]
pub(crate) struct Script {
    /// The root invocation's list, also used by any profile without its own.
    pub turns: Vec<Turn>,
    /// Lists of their own, by profile id.
    pub agents: HashMap<String, Vec<Turn>>,
}

impl Script {
    /// The list that answers calls made under `profile_id`: its own when the script has
    /// one (even an empty one, which makes the profile's first call fail), else `turns`.
    pub fn list_for(&self, profile_id: &str) -> (ListKey, &[Turn]) {
        match self.agents.get_key_value(profile_id) {
            Some((id, list)) => (ListKey::Agent(id.clone()), list),
            None => (ListKey::Turns, &self.turns),
        }
    }
}

/// Names one list; displayed the way the script spells it (`turns`, `agents.reviewer`),
/// which is also how responses and errors point back into the script.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ListKey {
    Turns,
    Agent(String),
}

impl fmt::Display for ListKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Turns => f.write_str("turns"),
            Self::Agent(id) => write!(f, "agents.{id}"),
        }
    }
}

/// One model call attempt's worth of script.
#[derive(Debug)]
pub(crate) struct Turn {
    /// How long the call takes before it answers or fails.
    pub delay: Option<Duration>,
    pub outcome: Outcome,
}

/// A turn either answers or fails; the format rejects a turn that tries both.
#[derive(Debug)]
pub(crate) enum Outcome {
    Answer(Answer),
    Fail(Failure),
}

/// What the model says. At least one part is present.
#[derive(Debug)]
pub(crate) struct Answer {
    pub reasoning: Option<String>,
    pub text: Option<String>,
    pub tool_calls: Vec<ScriptedCall>,
}

/// One tool call as the script writes it: still by alias, not yet decoded, because only
/// the request of the call it answers can say which tool an alias means.
#[derive(Debug)]
pub(crate) struct ScriptedCall {
    /// Explicit id; `None` takes the run's next `call_<n>`.
    pub id: Option<String>,
    /// The model-facing alias.
    pub name: String,
    /// An object, or a string of raw arguments passed on unparsed.
    pub arguments: Value,
}

/// A scripted provider failure.
#[derive(Debug)]
pub(crate) struct Failure {
    pub kind: FailureKind,
    pub message: String,
    pub retry_after_ms: Option<u64>,
}

/// The provider failure classes a script can stage; they map onto the runtime's retry
/// classes (retried: `rate_limit`, `transient`; not retried: `fatal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FailureKind {
    RateLimit,
    Transient,
    Fatal,
}

impl FailureKind {
    /// The message of a scripted error that gives none.
    pub fn default_message(self) -> &'static str {
        match self {
            Self::RateLimit => "scripted rate limit",
            Self::Transient => "scripted transient failure",
            Self::Fatal => "scripted fatal provider error",
        }
    }
}
