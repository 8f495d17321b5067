//! The run runtime: the [`AgentRuntime`] facade a host calls, the async driver behind it,
//! and the invocation loop it drives.
//!
//! `machine` (private to the crate) holds the loop as a sans-IO state machine: it decides, the driver acts. The
//! driver (`drive`, `tool_calls`, `commit`, `finish`) performs each step through the ports
//! and journals what happened; [`AgentRuntime`] starts runs (validating everything before
//! anything is created), cancels them, and reads back their journals, files and model
//! turns. See `docs/runtime.md` for the facade and the lifecycle and
//! `docs/runtime-loop.md` for the loop.

mod activity;
mod agents;
mod cancel;
mod candidates;
mod child;
mod commit;
mod drive;
mod driver;
mod ending;
mod errors;
mod facade;
mod facts;
mod fault;
mod file_at;
mod finish;
mod first_request;
mod guidance;
mod invocation;
mod invocation_build;
mod invocation_loop;
mod machine;
mod mcp;
mod mcp_notices;
mod mcp_sessions;
mod prepare;
mod recorder;
mod rollback;
mod run_deltas;
mod shared;
mod start;
pub(crate) mod summary;
mod tasks;
mod tool_calls;
mod views;
mod wiring;

pub use activity::ModelActivity;
pub use cancel::CANCEL_POLL_INTERVAL;
pub use ending::RUN_ABANDONED;
pub use errors::{RuntimeError, StartRunError};
pub use facade::AgentRuntime;
pub use facts::{ModelBindError, ModelBinder, RunModel, RunOutcome};
pub use file_at::WorkspaceFileAt;
pub use first_request::{PREPARED_RUN_ID, PreparedRequest};
pub use guidance::{
    Guidance, GuidanceReceipt, MAX_GUIDANCE_CHARS, MAX_PENDING_GUIDANCE, MAX_PENDING_GUIDANCE_CHARS,
};
pub use machine::ModelLabel;
pub use run_deltas::RunDeltas;
pub use start::{PreviewPrompt, RunRequest, RunTask, StartRun, StartedRun};
pub use views::{ModelTurnView, ReasoningSummary, ToolCallSummary};
pub use wiring::RuntimePorts;
