//! The tool control plane (`docs/spec-map.md`, from Tool facts to Tool failures): identities, descriptors, the
//! per-invocation snapshot, the per-turn contract, the request gate and tool results.
//!
//! The flow: a resolved profile's [`ToolPolicy`] + an [`ExitPolicy`] + catalogs →
//! [`compile_snapshot`] → [`InvocationToolSnapshot`] (frozen once per invocation) →
//! [`ToolTurnContract`] per model call → [`AgentModelTool`]s in the request → provider
//! aliases decoded by [`ToolCallDecoder`] → [`ToolInvocation`] → [`ToolRequestGate::admit`]
//! → execution → [`AgentToolResult`].

mod alias;
pub mod builtin;
mod descriptor;
mod gate;
mod id;
mod policy;
mod read_state;
mod result;
mod snapshot;
#[cfg(test)]
mod test_support;
mod turn;

pub use alias::{AliasAllocator, MAX_ALIAS_BYTES, is_valid_alias};
pub use builtin::{BuiltinTool, builtin_catalog};
pub use descriptor::{CatalogError, ToolCatalog, ToolDescriptor};
pub use gate::{GateRejection, ToolRequestGate};
pub use id::{ToolId, ToolIdError, ToolProvider};
pub use policy::{DescriptionOverride, ExitPolicy, ToolPolicy};
pub use read_state::{
    FileReadState, FullReadReason, PatchBasis, ReadStateBook, ReadStateError, check_patch_strings,
};
pub use result::{
    AgentToolResult, TOOL_ERROR_HEADING, ToolErrorClass, ToolInvocation, ToolResultIdentityError,
};
pub use snapshot::{
    InvocationToolSnapshot, McpToolEntry, SnapshotCompilation, SnapshotDiagnostic, SnapshotError,
    SnapshotInputs, SnapshotSummary, SnapshotToolSummary, TOOL_SNAPSHOT_SCHEMA_VERSION,
    ToolBinding, compile_snapshot,
};
pub use turn::{
    AgentModelTool, ToolCallDecodeError, ToolCallDecoder, ToolChoice, ToolTurnContract, TurnError,
};
