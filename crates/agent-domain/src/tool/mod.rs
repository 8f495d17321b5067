//! The tool control plane (spec 000 §3–6, §8–9, §11): identities, descriptors, the
//! per-invocation snapshot, the per-turn contract, the request gate and tool results.

mod alias;
pub mod builtin;
mod descriptor;
mod id;
mod policy;
mod result;

pub use alias::{AliasAllocator, MAX_ALIAS_BYTES, is_valid_alias};
pub use builtin::{BuiltinTool, builtin_catalog};
pub use descriptor::{CatalogError, ToolCatalog, ToolDescriptor};
pub use id::{ToolId, ToolIdError, ToolProvider};
pub use policy::{DescriptionOverride, ExitPolicy, ToolPolicy};
pub use result::{
    AgentToolResult, TOOL_ERROR_HEADING, ToolErrorClass, ToolInvocation, ToolResultIdentityError,
};
