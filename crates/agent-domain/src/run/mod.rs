//! Runs and what they contain: identifiers, run/invocation/task records, chat identity.

mod agent_record;
mod ids;
mod input;
mod record;
mod summary;

pub use agent_record::{
    AGENT_RECORD_VERSION, AgentMessageRecord, ArtifactRecord, CommitRecord, MESSAGE_BODY_TARGET,
    PersistStateStatus, RecordIdentity, RollbackStrategy,
};
pub use ids::{
    InvalidId, InvocationId, MAX_ID_BYTES, RunId, StateId, TaskId, WorkspaceId, short_hex,
};
pub use input::{
    ChatRole, InputPrefixError, PersistBaseError, PrefixMessage, input_message_count,
    resolve_persist_base,
};
pub use record::{
    AgentInvocation, AgentRun, AgentTaskRecord, ChatKind, GenerationType, MAX_STABLE_CHAT_ID_BYTES,
    SkillScopeRefs, StableChatIdError, TaskBudget, parse_stable_chat_id,
};
pub use summary::{RunSummary, SlimmedRun, SummaryError, TerminalSummary};
