//! An in-memory [`AuditStore`] with the contract of the file store: documents at the same
//! relative paths (`tool-results/call_<16 hex>.json`, `model-responses/round-001.json`,
//! `agent-results/<inv>.json`, `input/prompt_snapshot.json`, …), every write create-only (`AlreadyExists` the second
//! time, the first kept). Call ids are hashed with [`fake_sha256_hex`], so the 16 hex
//! digits differ from the file store's. Planned [`Faults`] match on the relative path.

use std::collections::BTreeMap;
use std::sync::Mutex;

use agent_domain::ErrorCode;
use agent_domain::run::{InvocationId, RunId};
use agent_domain::tool::{AgentToolResult, InvocationToolSnapshot};
use async_trait::async_trait;
use serde_json::Value;

use super::{Faults, fake_sha256_hex};
use crate::ports::{AuditRef, AuditStore, InputDocument, StoreError};

/// Audit documents of every run, in memory, by run and relative path.
#[derive(Debug, Default)]
pub struct MemoryAudit {
    documents: Mutex<BTreeMap<(RunId, String), Value>>,
    faults: Faults<str, StoreError>,
}

/// `call_<16 hex>`: the file stem of a provider call id.
fn call_stem(call_id: &str) -> String {
    format!("call_{}", &fake_sha256_hex(call_id.as_bytes())[..16])
}

fn input_name(document: InputDocument) -> &'static str {
    match document {
        InputDocument::PromptSnapshot => "prompt_snapshot.json",
        InputDocument::ResolvedProfile => "resolved_profile.json",
        InputDocument::ResolvedSkills => "resolved_skills.json",
        InputDocument::PersistSnapshot => "persist_snapshot.json",
        InputDocument::RollbackBase => "rollback_base.json",
    }
}

fn input_path(invocation: Option<&InvocationId>, document: InputDocument) -> String {
    match invocation.filter(|invocation| !invocation.is_root()) {
        None => format!("input/{}", input_name(document)),
        Some(invocation) => format!("input/invocations/{invocation}/{}", input_name(document)),
    }
}

fn model_response_path(invocation: &InvocationId, round: u32) -> String {
    if invocation.is_root() {
        format!("model-responses/round-{round:03}.json")
    } else {
        format!("model-responses/{invocation}/round-{round:03}.json")
    }
}

fn serialized(value: &impl serde::Serialize) -> Result<Value, StoreError> {
    serde_json::to_value(value).map_err(|e| StoreError::Integrity(e.to_string()))
}

impl MemoryAudit {
    pub fn new() -> Self {
        Self::default()
    }

    fn with_documents<T>(&self, f: impl FnOnce(&mut BTreeMap<(RunId, String), Value>) -> T) -> T {
        f(&mut self.documents.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Failures planned for writes, matched on the document's relative path.
    pub fn faults(&self) -> &Faults<str, StoreError> {
        &self.faults
    }

    /// The document at `path` (relative to the run directory), if written.
    pub fn document(&self, run: &RunId, path: &str) -> Option<Value> {
        self.with_documents(|docs| docs.get(&(run.clone(), path.to_owned())).cloned())
    }

    /// The relative paths of the run's documents, sorted.
    pub fn paths(&self, run: &RunId) -> Vec<String> {
        self.with_documents(|docs| {
            docs.keys()
                .filter(|(id, _)| id == run)
                .map(|(_, path)| path.clone())
                .collect()
        })
    }

    /// The path of a tool call's arguments document, as this store names it.
    pub fn tool_args_path(call_id: &str) -> String {
        format!("tool-args/{}.json", call_stem(call_id))
    }

    /// The path of a tool call's result document, as this store names it.
    pub fn tool_result_path(call_id: &str) -> String {
        format!("tool-results/{}.json", call_stem(call_id))
    }

    fn create(&self, run: &RunId, path: String, value: Value) -> Result<AuditRef, StoreError> {
        self.faults.check(&path)?;
        self.with_documents(|docs| {
            let key = (run.clone(), path.clone());
            if docs.contains_key(&key) {
                return Err(StoreError::AlreadyExists(path));
            }
            docs.insert(key, value);
            Ok(AuditRef(path))
        })
    }

    fn read(&self, run: &RunId, path: &str) -> Result<Value, StoreError> {
        self.document(run, path)
            .ok_or_else(|| StoreError::NotFound(format!("{path} of run {run}")))
    }
}

#[async_trait]
impl AuditStore for MemoryAudit {
    async fn write_tool_args(
        &self,
        run: &RunId,
        call_id: &str,
        arguments: &Value,
    ) -> Result<AuditRef, StoreError> {
        self.create(run, Self::tool_args_path(call_id), arguments.clone())
    }

    async fn write_tool_result(
        &self,
        run: &RunId,
        result: &AgentToolResult,
    ) -> Result<AuditRef, StoreError> {
        let path = Self::tool_result_path(&result.call_id);
        self.create(run, path, serialized(result)?)
    }

    /// The view is kept as a JSON string under its `.txt` path.
    async fn write_tool_result_view(
        &self,
        run: &RunId,
        call_id: &str,
        text: &str,
    ) -> Result<AuditRef, StoreError> {
        let path = format!("tool-results/{}.txt", call_stem(call_id));
        self.create(run, path, Value::String(text.to_owned()))
    }

    async fn write_model_response(
        &self,
        run: &RunId,
        invocation: &InvocationId,
        round: u32,
        document: &Value,
    ) -> Result<AuditRef, StoreError> {
        let path = model_response_path(invocation, round);
        self.create(run, path, document.clone())
    }

    async fn read_model_response(
        &self,
        run: &RunId,
        invocation: &InvocationId,
        round: u32,
    ) -> Result<Value, StoreError> {
        self.read(run, &model_response_path(invocation, round))
    }

    async fn write_agent_result(
        &self,
        run: &RunId,
        invocation: &InvocationId,
        document: &Value,
    ) -> Result<AuditRef, StoreError> {
        let path = format!("agent-results/{invocation}.json");
        self.create(run, path, document.clone())
    }

    /// The snapshot id names a folder, so it must be a valid invocation id.
    async fn write_tool_snapshot(
        &self,
        run: &RunId,
        snapshot: &InvocationToolSnapshot,
    ) -> Result<AuditRef, StoreError> {
        let id = InvocationId::parse(snapshot.id()).map_err(|err| StoreError::Invalid {
            code: err.code(),
            message: err.to_string(),
        })?;
        let path = format!("input/invocations/{id}/tool_snapshot.json");
        self.create(run, path, serialized(snapshot)?)
    }

    async fn write_input(
        &self,
        run: &RunId,
        invocation: Option<&InvocationId>,
        document: InputDocument,
        value: &Value,
    ) -> Result<AuditRef, StoreError> {
        self.create(run, input_path(invocation, document), value.clone())
    }

    async fn read_input(&self, run: &RunId, document: InputDocument) -> Result<Value, StoreError> {
        self.read(run, &input_path(None, document))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn writes_once_at_the_file_stores_paths() {
        let audit = MemoryAudit::new();
        let run = RunId::parse("run_1").unwrap();
        let child = InvocationId::parse("inv_child").unwrap();
        let stored = audit
            .write_model_response(&run, &InvocationId::root(), 1, &json!({"round": 1}))
            .await
            .unwrap();
        assert_eq!(stored.0, "model-responses/round-001.json");
        let again = audit
            .write_model_response(&run, &InvocationId::root(), 1, &json!({"round": 2}))
            .await;
        assert!(matches!(again, Err(StoreError::AlreadyExists(_))));
        assert_eq!(
            audit
                .read_model_response(&run, &InvocationId::root(), 1)
                .await,
            Ok(json!({"round": 1}))
        );
        let input = audit
            .write_input(
                &run,
                Some(&child),
                InputDocument::ResolvedSkills,
                &json!({}),
            )
            .await
            .unwrap();
        assert_eq!(input.0, "input/invocations/inv_child/resolved_skills.json");
        assert!(matches!(
            audit.read_input(&run, InputDocument::PromptSnapshot).await,
            Err(StoreError::NotFound(_))
        ));

        audit.faults().fail_first(
            |path| path.starts_with("tool-args/"),
            StoreError::Io("disk full".into()),
        );
        let args = json!({"path": "output/main.md"});
        let failed = audit.write_tool_args(&run, "call_1", &args).await;
        assert_eq!(failed, Err(StoreError::Io("disk full".into())));
        let written = audit.write_tool_args(&run, "call_1", &args).await.unwrap();
        assert!(written.0.starts_with("tool-args/call_") && written.0.len() == 36);
        assert_eq!(audit.document(&run, &written.0), Some(args));
        assert_eq!(audit.paths(&run).len(), 3);
    }
}
