//! [`FsAuditStore`]: the create-only audit documents of a run (tool arguments and results,
//! model responses, delegated task results, frozen inputs, tool snapshots), written as pretty
//! JSON.
//!
//! Every document is written once: staged in a temp file and hard-linked into place, so a
//! second write of the same document fails with `AlreadyExists` and never replaces or
//! tears the first. Large strings of tool arguments, model responses and inputs are kept
//! as blobs of the run ([`blob_refs`]). See `docs/storage/workspace.md`.

pub(crate) mod blob_refs;
pub(crate) mod documents;

use std::path::Path;

use agent_application::ports::{AuditRef, AuditStore, InputDocument, StoreError};
use agent_domain::ErrorCode;
use agent_domain::run::{InvocationId, RunId};
use agent_domain::tool::{AgentToolResult, InvocationToolSnapshot};
use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;

use crate::digest::audit_stem;
use crate::durability::Syncer;
use crate::layout::RunDir;
use crate::run_locator::{Cost, RunLocator};

/// The `AuditStore` over run directories.
#[derive(Debug, Clone)]
pub struct FsAuditStore {
    locator: RunLocator,
}

impl FsAuditStore {
    pub fn new(locator: RunLocator) -> Self {
        Self { locator }
    }
}

/// Writes `value` create-only at `target` and returns its reference.
fn create(
    dir: &RunDir,
    target: &Path,
    value: &impl Serialize,
    syncer: &Syncer,
) -> Result<AuditRef, StoreError> {
    let rel = documents::relative(dir, target)?;
    documents::create_json(dir.path(), &rel, value, syncer)?;
    Ok(AuditRef(rel.to_string()))
}

/// [`create`] for a document whose large strings go to blobs.
fn create_value(
    dir: &RunDir,
    target: &Path,
    value: Value,
    syncer: &Syncer,
) -> Result<AuditRef, StoreError> {
    create(
        dir,
        target,
        &blob_refs::externalize(dir, value, syncer)?,
        syncer,
    )
}

fn read(dir: &RunDir, target: &Path) -> Result<Value, StoreError> {
    let rel = documents::relative(dir, target)?;
    let stored = documents::read_json(dir.path(), &rel)?;
    blob_refs::resolve(dir, stored, rel.as_str())
}

impl FsAuditStore {
    /// Runs `write` of about `bytes` bytes on the run's directory with the data
    /// directory's syncer.
    async fn writing(
        &self,
        run: &RunId,
        bytes: usize,
        write: impl FnOnce(&RunDir, &Syncer) -> Result<AuditRef, StoreError> + Send + 'static,
    ) -> Result<AuditRef, StoreError> {
        let syncer = self.locator.syncer().clone();
        self.locator
            .with_run_dir(run, Cost::of_bytes(bytes), move |dir| write(&dir, &syncer))
            .await
    }
}

#[async_trait]
impl AuditStore for FsAuditStore {
    async fn write_tool_args(
        &self,
        run: &RunId,
        call_id: &str,
        arguments: &Value,
    ) -> Result<AuditRef, StoreError> {
        let (call_id, arguments) = (call_id.to_owned(), arguments.clone());
        self.writing(run, text_bytes(&arguments), move |dir, syncer| {
            create_value(
                dir,
                &dir.tool_args_file(&audit_stem(&call_id)),
                arguments,
                syncer,
            )
        })
        .await
    }

    async fn write_tool_result(
        &self,
        run: &RunId,
        result: &AgentToolResult,
    ) -> Result<AuditRef, StoreError> {
        let bytes = result.content.len() + text_bytes(&result.structured);
        let result = result.clone();
        self.writing(run, bytes, move |dir, syncer| {
            create(
                dir,
                &dir.tool_result_file(&audit_stem(&result.call_id)),
                &result,
                syncer,
            )
        })
        .await
    }

    async fn write_tool_result_view(
        &self,
        run: &RunId,
        call_id: &str,
        text: &str,
    ) -> Result<AuditRef, StoreError> {
        let (call_id, text) = (call_id.to_owned(), text.to_owned());
        self.writing(run, text.len(), move |dir, syncer| {
            let rel = documents::relative(dir, &dir.tool_result_view_file(&audit_stem(&call_id)))?;
            documents::create_bytes(dir.path(), &rel, text.as_bytes(), syncer)?;
            Ok(AuditRef(rel.to_string()))
        })
        .await
    }

    async fn write_model_response(
        &self,
        run: &RunId,
        invocation: &InvocationId,
        round: u32,
        document: &Value,
    ) -> Result<AuditRef, StoreError> {
        let (invocation, document) = (invocation.clone(), document.clone());
        self.writing(run, text_bytes(&document), move |dir, syncer| {
            let target = dir.model_response_file(&invocation, round);
            create_value(dir, &target, document, syncer)
        })
        .await
    }

    async fn read_model_response(
        &self,
        run: &RunId,
        invocation: &InvocationId,
        round: u32,
    ) -> Result<Value, StoreError> {
        let invocation = invocation.clone();
        self.locator
            .with_run_dir(run, Cost::Large, move |dir| {
                read(&dir, &dir.model_response_file(&invocation, round))
            })
            .await
    }

    async fn write_agent_result(
        &self,
        run: &RunId,
        invocation: &InvocationId,
        document: &Value,
    ) -> Result<AuditRef, StoreError> {
        let (invocation, document) = (invocation.clone(), document.clone());
        self.writing(run, text_bytes(&document), move |dir, syncer| {
            let target = dir.agent_result_file(&invocation);
            create(dir, &target, &document, syncer)
        })
        .await
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
        let snapshot = snapshot.clone();
        // Tool descriptors: bounded by the profile's tool limits.
        self.writing(run, 0, move |dir, syncer| {
            let target = dir.tool_snapshot_file(&id);
            create(dir, &target, &snapshot, syncer)
        })
        .await
    }

    async fn write_input(
        &self,
        run: &RunId,
        invocation: Option<&InvocationId>,
        document: InputDocument,
        value: &Value,
    ) -> Result<AuditRef, StoreError> {
        let (invocation, value) = (invocation.cloned(), value.clone());
        self.writing(run, text_bytes(&value), move |dir, syncer| {
            let target = dir.input_file(invocation.as_ref(), document);
            create_value(dir, &target, value, syncer)
        })
        .await
    }

    async fn read_input(&self, run: &RunId, document: InputDocument) -> Result<Value, StoreError> {
        self.locator
            .with_run_dir(run, Cost::Large, move |dir| {
                read(&dir, &dir.input_file(None, document))
            })
            .await
    }
}

/// The bytes of the strings in `value`, which are nearly all of what writing it costs.
fn text_bytes(value: &Value) -> usize {
    match value {
        Value::String(text) => text.len(),
        Value::Array(items) => items.iter().map(text_bytes).sum(),
        Value::Object(map) => map
            .iter()
            .map(|(key, item)| key.len() + text_bytes(item))
            .sum(),
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn rel(target: PathBuf) -> String {
        let dir = RunDir(PathBuf::from("/d/run_1"));
        target
            .strip_prefix(dir.path())
            .unwrap()
            .to_str()
            .unwrap()
            .replace('\\', "/")
    }

    #[test]
    fn document_paths() {
        let dir = RunDir(PathBuf::from("/d/run_1"));
        let root = InvocationId::root();
        let child = InvocationId::parse("inv_abc").unwrap();
        assert_eq!(
            rel(dir.tool_args_file(&audit_stem("call_1"))),
            "tool-args/call_74196fe72e4cdc13.json"
        );
        assert_eq!(
            rel(dir.tool_result_file(&audit_stem("call_mcp"))),
            "tool-results/call_fe79da5f09df9787.json"
        );
        assert_eq!(
            rel(dir.model_response_file(&root, 1)),
            "model-responses/round-001.json"
        );
        assert_eq!(
            rel(dir.model_response_file(&child, 12)),
            "model-responses/inv_abc/round-012.json"
        );
        assert_eq!(
            rel(dir.model_response_file(&root, 1000)),
            "model-responses/round-1000.json"
        );
        assert_eq!(
            rel(dir.input_file(None, InputDocument::PromptSnapshot)),
            "input/prompt_snapshot.json"
        );
        assert_eq!(
            rel(dir.input_file(Some(&root), InputDocument::PersistSnapshot)),
            "input/persist_snapshot.json"
        );
        assert_eq!(
            rel(dir.input_file(Some(&child), InputDocument::ResolvedSkills)),
            "input/invocations/inv_abc/resolved_skills.json"
        );
        assert_eq!(
            rel(dir.input_file(None, InputDocument::ResolvedProfile)),
            "input/resolved_profile.json"
        );
    }
}
