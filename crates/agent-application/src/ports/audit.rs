//! Create-only audit documents of a run: tool arguments and results, model responses, the
//! results of delegated tasks, the frozen inputs and tool snapshots.

use agent_domain::run::{InvocationId, RunId};
use agent_domain::tool::{AgentToolResult, InvocationToolSnapshot};
use async_trait::async_trait;
use serde_json::Value;

use super::StoreError;

/// Where an audit document was written, as a path relative to the run directory
/// (`tool-results/call_74196fe72e4cdc13.json`). Journal payloads carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditRef(pub String);

/// The frozen inputs of a run (`input/<name>.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputDocument {
    PromptSnapshot,
    ResolvedProfile,
    ResolvedSkills,
    PersistSnapshot,
    /// The message a run's first commit changed (a new swipe), as it was before, for an
    /// exact rollback: `{messageId, message}` (the message's JSONL line).
    RollbackBase,
}

/// Every write is create-only: writing the same document twice is
/// [`StoreError::AlreadyExists`] and never replaces the first.
#[async_trait]
pub trait AuditStore: Send + Sync {
    /// `tool-args/call_<16 hex>.json`, named by SHA-256 of the provider call id.
    async fn write_tool_args(
        &self,
        run: &RunId,
        call_id: &str,
        arguments: &Value,
    ) -> Result<AuditRef, StoreError>;

    /// `tool-results/call_<16 hex>.json`: `{callId, toolId, content, structured, isError, errorCode?, resourceRefs}`.
    async fn write_tool_result(
        &self,
        run: &RunId,
        result: &AgentToolResult,
    ) -> Result<AuditRef, StoreError>;

    /// `tool-results/call_<16 hex>.txt`: a readable text view of a result too long to show
    /// inline, beside its JSON audit (same name, `.txt`).
    async fn write_tool_result_view(
        &self,
        run: &RunId,
        call_id: &str,
        text: &str,
    ) -> Result<AuditRef, StoreError>;

    /// `model-responses/round-NNN.json` (root) or `model-responses/<inv>/round-NNN.json`.
    async fn write_model_response(
        &self,
        run: &RunId,
        invocation: &InvocationId,
        round: u32,
        document: &Value,
    ) -> Result<AuditRef, StoreError>;

    async fn read_model_response(
        &self,
        run: &RunId,
        invocation: &InvocationId,
        round: u32,
    ) -> Result<Value, StoreError>;

    /// `agent-results/<child invocation>.json`: the result a return-mode child handed back
    /// with `task.return`.
    async fn write_agent_result(
        &self,
        run: &RunId,
        invocation: &InvocationId,
        document: &Value,
    ) -> Result<AuditRef, StoreError>;

    /// `input/invocations/<snapshot id>/tool_snapshot.json`.
    async fn write_tool_snapshot(
        &self,
        run: &RunId,
        snapshot: &InvocationToolSnapshot,
    ) -> Result<AuditRef, StoreError>;

    /// `input/<document>.json` (root) or `input/invocations/<inv>/<document>.json`.
    async fn write_input(
        &self,
        run: &RunId,
        invocation: Option<&InvocationId>,
        document: InputDocument,
        value: &Value,
    ) -> Result<AuditRef, StoreError>;

    async fn read_input(&self, run: &RunId, document: InputDocument) -> Result<Value, StoreError>;
}
