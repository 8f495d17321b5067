//! The records of a run on disk: `run.json` and its index mirror, invocation and task
//! records, and the run summary. Plain blocking functions; [`super::FsRunStore`] runs them on
//! the blocking pool.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use agent_application::ports::StoreError;
use agent_domain::run::{
    AgentInvocation, AgentRun, AgentTaskRecord, InvocationId, RunId, RunSummary, TaskId,
};
use serde::de::DeserializeOwned;

use super::store_io::{integrity, io_error, json_files, read_json, write_json, write_json_with};
use crate::atomic::{pretty_json, write_atomic_with, write_create_only_with};
use crate::durability::Syncer;
use crate::layout::{DataDir, RunDir};

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

fn record_file(dir: PathBuf, id: &str) -> PathBuf {
    dir.join(format!("{id}.json"))
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

/// The directory of an existing run, found through its index entry.
fn run_dir_of(data: &DataDir, id: &RunId) -> Result<RunDir, StoreError> {
    let run = load_run(data, id)?;
    Ok(data.run_dir(&run.workspace_id, &run.id))
}

pub(crate) fn save_invocation(
    data: &DataDir,
    invocation: &AgentInvocation,
    syncer: &Syncer,
) -> Result<(), StoreError> {
    let dir = run_dir_of(data, &invocation.run_id)?.invocations();
    write_json_with(
        &record_file(dir, invocation.id.as_str()),
        invocation,
        syncer,
    )
}

pub(crate) fn load_invocation(
    data: &DataDir,
    run: &RunId,
    id: &InvocationId,
) -> Result<AgentInvocation, StoreError> {
    let path = record_file(run_dir_of(data, run)?.invocations(), id.as_str());
    read_record(&path, id.as_str())?
        .ok_or_else(|| StoreError::NotFound(format!("invocation {id} of run {run}")))
}

pub(crate) fn list_invocations(
    data: &DataDir,
    run: &RunId,
) -> Result<Vec<AgentInvocation>, StoreError> {
    Ok(sorted(read_record_dir(
        &run_dir_of(data, run)?.invocations(),
    )?))
}

pub(crate) fn save_task(
    data: &DataDir,
    task: &AgentTaskRecord,
    syncer: &Syncer,
) -> Result<(), StoreError> {
    let dir = run_dir_of(data, &task.run_id)?.tasks();
    write_json_with(&record_file(dir, task.id.as_str()), task, syncer)
}

pub(crate) fn load_task(
    data: &DataDir,
    run: &RunId,
    id: &TaskId,
) -> Result<AgentTaskRecord, StoreError> {
    let path = record_file(run_dir_of(data, run)?.tasks(), id.as_str());
    read_record(&path, id.as_str())?
        .ok_or_else(|| StoreError::NotFound(format!("task {id} of run {run}")))
}

pub(crate) fn list_tasks(data: &DataDir, run: &RunId) -> Result<Vec<AgentTaskRecord>, StoreError> {
    Ok(sorted(read_record_dir(&run_dir_of(data, run)?.tasks())?))
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
