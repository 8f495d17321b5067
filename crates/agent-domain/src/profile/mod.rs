//! Agent profiles: on-disk schema, migrations, the built-in default-writer, validation and
//! resolution.
//!
//! A profile file is read with [`AgentProfileDocument::from_json`] (any supported schema
//! version, migrated in memory to the current one), checked with [`validate`] and turned
//! into the runtime's [`ResolvedAgentProfile`] with [`resolve`]. Everything here is pure:
//! reading files, finding presets and connections is the application's job.

mod default_writer;
mod error;
mod id;
mod migrate;
mod resolved;
mod schema;
mod tool_name;
mod validate;

#[cfg(test)]
mod test_support;

pub use default_writer::{DEFAULT_PROFILE_ID, default_writer};
pub use error::ProfileError;
pub use id::{MAX_PROFILE_ID_BYTES, ProfileId};
pub use migrate::SUPPORTED_SCHEMA_VERSIONS;
pub use resolved::{
    ModelBinding, PresetBinding, ProfileSource, ProfileSummary, ResolvedAgentProfile,
    ResolvedArtifact, ResolvedTools, resolve,
};
pub use schema::{
    AgentProfileDocument, ArtifactTarget, CURRENT_SCHEMA_VERSION, ContextPolicy,
    DEFAULT_MCP_RESULT_INLINE_CHAR_LIMIT, DelegationPolicy, InstructionsBlock, ModelBlock,
    ModelMode, ModelRetryPolicy, OutputArtifact, OutputBlock, PROFILE_KIND, PlanBlock, PlanMode,
    PlanNode, PresetBlock, PresetMode, PresetRef, RunBlock, SkillsPolicy, ToolsBlock,
    WorkspaceBlock,
};
pub use tool_name::ToolName;
pub use validate::{PRESET_API_IDS, validate};
