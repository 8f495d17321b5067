//! The records of a run on disk: `run.json` and its index mirror, invocation and task
//! records, and the run summary. Plain blocking functions; [`super::FsRunStore`] runs them on
//! the blocking pool.

use std::fs;
use std::io;
use std::path::Path;

use agent_application::ports::StoreError;
use agent_domain::run::{
    AgentInvocation, AgentRun, AgentTaskRecord, InvocationId, RunId, RunSummary, TaskId,
};
use serde::de::DeserializeOwned;

use super::store_io::{integrity, io_error, json_files, read_json, write_json, write_json_with};
use crate::atomic::{pretty_json, write_atomic_with, write_create_only_with};
use crate::durability::Syncer;
use crate::layout::{DataDir, RunDir, record_file};

/// A record stored as `<id>.json`, listed by creation time.
pub(crate) trait Record: DeserializeOwned {
    fn id(&self) -> &str;
    fn created_at(&self) -> &str;
}

impl Record for AgentRun {
    fn id(&self) -> &str {
        self.id.as_str()
    }
    fn created_at(&self) -> &str {
        &self.created_at
    }
}

impl Record for AgentInvocation {
    fn id(&self) -> &str {
        self.id.as_str()
    }
    fn created_at(&self) -> &str {
        &self.created_at
    }
}

impl Record for AgentTaskRecord {
    fn id(&self) -> &str {
        self.id.as_str()
    }
    fn created_at(&self) -> &str {
        &self.created_at
    }
}

/// The record in `path`, which must be named after its id; `None` when missing.
fn read_record<T: Record>(path: &Path, stem: &str) -> Result<Option<T>, StoreError> {
    let record: Option<T> = read_json(path)?;
    match record {
        Some(record) if record.id() != stem => Err(integrity(
            path,
            format!("holds the record of `{}`, not `{stem}`", record.id()),
        )),
        other => Ok(other),
    }
}

/// Every record in `dir` (see [`json_files`] for what is skipped), unordered. A file that
/// vanishes between listing and reading is skipped.
pub(crate) fn read_record_dir<T: Record>(dir: &Path) -> Result<Vec<T>, StoreError> {
    let mut records = Vec::new();
    for (stem, path) in json_files(dir)? {
        if let Some(record) = read_record(&path, &stem)? {
            records.push(record);
        }
    }
    Ok(records)
}

/// Records oldest first: by creation time, then id.
fn sorted<T: Record>(mut records: Vec<T>) -> Vec<T> {
    records.sort_by(|a, b| {
        a.created_at()
            .cmp(b.created_at())
            .then_with(|| a.id().cmp(b.id()))
    });
    records
}

/// Creates the run: claims the index entry create-only (so a second create fails without
/// touching anything), then writes `run.json`.
pub(crate) fn create_run(
    data: &DataDir,
    run: &AgentRun,
    syncer: &Syncer,
) -> Result<(), StoreError> {
    let index = data.run_index_file(&run.id);
    let bytes = pretty_json(run).map_err(|err| io_error(&index, err))?;
    write_create_only_with(&index, &bytes, syncer).map_err(|err| match err.kind() {
        io::ErrorKind::AlreadyExists => StoreError::AlreadyExists(format!("run {}", run.id)),
        _ => io_error(&index, err),
    })?;
    let record = data.run_dir(&run.workspace_id, &run.id).run_record();
    write_atomic_with(&record, &bytes, syncer).map_err(|err| {
        // Release the claim so the run can be created again; nothing else refers to it yet.
        let _ = fs::remove_file(&index);
        io_error(&record, err)
    })
}

/// Replaces `run.json`, then the index entry. The run must exist.
pub(crate) fn save_run(data: &DataDir, run: &AgentRun, syncer: &Syncer) -> Result<(), StoreError> {
    let index = data.run_index_file(&run.id);
    if !index.exists() {
        return Err(StoreError::NotFound(format!("run {}", run.id)));
    }
    let record = data.run_dir(&run.workspace_id, &run.id).run_record();
    write_json_with(&record, run, syncer)?;
    write_json_with(&index, run, syncer)
}

/// The run as its index entry records it.
pub(crate) fn load_run(data: &DataDir, id: &RunId) -> Result<AgentRun, StoreError> {
    read_record(&data.run_index_file(id), id.as_str())?
        .ok_or_else(|| StoreError::NotFound(format!("run {id}")))
}

pub(crate) fn save_invocation(
    dir: &RunDir,
    invocation: &AgentInvocation,
    syncer: &Syncer,
) -> Result<(), StoreError> {
    let file = record_file(&dir.invocations(), invocation.id.as_str());
    write_json_with(&file, invocation, syncer)
}

pub(crate) fn load_invocation(
    dir: &RunDir,
    run: &RunId,
    id: &InvocationId,
) -> Result<AgentInvocation, StoreError> {
    read_record(&record_file(&dir.invocations(), id.as_str()), id.as_str())?
        .ok_or_else(|| StoreError::NotFound(format!("invocation {id} of run {run}")))
}

pub(crate) fn list_invocations(dir: &RunDir) -> Result<Vec<AgentInvocation>, StoreError> {
    Ok(sorted(read_record_dir(&dir.invocations())?))
}

pub(crate) fn save_task(
    dir: &RunDir,
    task: &AgentTaskRecord,
    syncer: &Syncer,
) -> Result<(), StoreError> {
    write_json_with(&record_file(&dir.tasks(), task.id.as_str()), task, syncer)
}

pub(crate) fn load_task(
    dir: &RunDir,
    run: &RunId,
    id: &TaskId,
) -> Result<AgentTaskRecord, StoreError> {
    read_record(&record_file(&dir.tasks(), id.as_str()), id.as_str())?
        .ok_or_else(|| StoreError::NotFound(format!("task {id} of run {run}")))
}

pub(crate) fn list_tasks(dir: &RunDir) -> Result<Vec<AgentTaskRecord>, StoreError> {
    Ok(sorted(read_record_dir(&dir.tasks())?))
}

/// Written once, after the run's end (its last barrier), so always synced.
pub(crate) fn save_run_summary(data: &DataDir, summary: &RunSummary) -> Result<(), StoreError> {
    write_json(&data.run_summary_file(&summary.run_id), summary)
}

pub(crate) fn load_run_summary(
    data: &DataDir,
    run: &RunId,
) -> Result<Option<RunSummary>, StoreError> {
    read_json(&data.run_summary_file(run))
}
