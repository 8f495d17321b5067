//! The fixture shared by the workspace, checkpoint and audit tests: one registered run in
//! a temporary data directory.

use std::path::PathBuf;

use agent_domain::run::{RunId, WorkspaceId};
use agent_domain::workspace::WorkspacePath;
use agent_infra_fs::layout::DataDir;
use agent_infra_fs::run_locator::RunLocator;
use tempfile::TempDir;

pub struct TestRun {
    /// Keeps the data directory alive for the test.
    pub _data_dir: TempDir,
    pub locator: RunLocator,
    pub run: RunId,
    pub run_dir: PathBuf,
}

/// A registered run whose directory exists (as the run store leaves it) but is empty.
pub fn test_run() -> TestRun {
    let data_dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(data_dir.path());
    let run = RunId::parse("run_0123456789abcdef0123456789abcdef").unwrap();
    let workspace = WorkspaceId::parse("chat_d474bb6f0a9e39a7").unwrap();
    let locator = RunLocator::new(data.clone());
    locator.register(&run, &workspace);
    let run_dir = data.run_dir(&workspace, &run).path().to_path_buf();
    std::fs::create_dir_all(&run_dir).unwrap();
    TestRun {
        _data_dir: data_dir,
        locator,
        run,
        run_dir,
    }
}

/// A workspace path from a literal the test knows to be valid.
#[allow(
    dead_code,
    reason = "not every test file including this module needs paths"
)]
pub fn wp(raw: &str) -> WorkspacePath {
    WorkspacePath::parse(raw).unwrap()
}
