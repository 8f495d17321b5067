//! Ports and services of the tavern-agent runtime.
//!
//! Architecture invariant: this crate reaches the world only through the traits in
//! [`ports`]. It names no file layout, HTTP client or MCP SDK type, and reads no clock
//! directly; adapters implement the ports and the host wires them together.

pub mod chat_workspaces;
pub mod doctor;
pub mod mcp;
pub mod ports;
pub mod profiles;
pub mod prompt;
pub mod retention;
pub mod runtime;
pub mod scene;
pub mod skills;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod tools;
