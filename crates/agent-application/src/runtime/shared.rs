//! [`Shared`]: what every clone of an [`AgentRuntime`](super::AgentRuntime) and every run
//! it drives share — the ports, the user data, the MCP servers, the registry of live runs
//! and the activity hub.

use std::sync::Arc;

use super::activity::ActivityHub;
use super::cancel::ActiveRuns;
use super::mcp_sessions::McpPorts;
use super::wiring::RuntimePorts;
use crate::ports::{LoreEngines, UserDataPorts};

/// What every clone of an [`AgentRuntime`] shares.
pub(super) struct Shared {
    pub ports: RuntimePorts,
    /// SillyTavern's user data (cards, settings, personas, lorebooks, groups), for the scene
    /// of a run and the built-in prompt assembler.
    pub user_data: UserDataPorts,
    /// The engines world info needs; without them, lorebooks cannot be activated.
    pub lore_engines: Option<Arc<dyn LoreEngines>>,
    /// The MCP registry and connector; without them runs offer no MCP tool.
    pub mcp: Option<McpPorts>,
    /// Runs this process drives.
    pub active: Arc<ActiveRuns>,
    /// The live deltas of streamed model calls.
    pub activity: ActivityHub,
}
