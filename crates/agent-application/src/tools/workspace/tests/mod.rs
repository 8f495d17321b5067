//! Tests of the workspace tools, called through [`execute_builtin`] against the in-memory
//! workspace, as the runtime calls them.

mod corpus;
mod errors;
mod list;
mod patch;
mod read;
mod read_state;
mod search;
mod write;

use std::sync::{Arc, Mutex};

use agent_domain::run::RunId;
use agent_domain::tool::{AgentToolResult, BuiltinTool};
use agent_domain::workspace::{RootAccess, WorkspacePath, WorkspaceRoot};
use async_trait::async_trait;
use serde_json::Value;

use crate::ports::{
    EntryKind, Listing, SearchCorpus, WorkspaceError, WorkspaceFile, WorkspaceStore, WriteGuard,
    WriteReceipt,
};
use crate::testing::MemoryWorkspace;
use crate::tools::ToolEffect;
use crate::tools::test_support::{ToolHarness, WithStore, memory_ports};

pub(super) use BuiltinTool::{
    WorkspaceApplyPatch as PATCH, WorkspaceListFiles as LIST, WorkspaceReadFile as READ,
    WorkspaceSearchFiles as SEARCH, WorkspaceWriteFile as WRITE,
};

/// One invocation of the default writer over an in-memory workspace.
pub(super) type Harness = WithStore<MemoryWorkspace>;

impl Harness {
    /// Every root visible and writable.
    pub async fn new() -> Self {
        Self::with_roots(RootAccess::full()).await
    }

    /// The given root access, over an initialised workspace.
    pub async fn with_roots(roots: RootAccess) -> Self {
        let memory = Arc::new(MemoryWorkspace::new());
        Self::build(roots, memory.clone(), memory).await
    }

    /// Full access, with `workspace` standing between the tools and `memory`.
    pub async fn with_store(
        memory: Arc<MemoryWorkspace>,
        workspace: Arc<dyn WorkspaceStore>,
    ) -> Self {
        Self::build(RootAccess::full(), memory, workspace).await
    }

    async fn build(
        roots: RootAccess,
        memory: Arc<MemoryWorkspace>,
        workspace: Arc<dyn WorkspaceStore>,
    ) -> Self {
        let mut ports = memory_ports();
        ports.workspace = workspace;
        let inner = ToolHarness::new(roots, ports);
        memory.initialize(&inner.run.run_id).await.unwrap();
        Self::wrap(inner, memory)
    }

    /// Places a file as if another writer had.
    pub fn put(&self, path: &str, bytes: impl Into<Vec<u8>>) {
        self.store.put(&self.run.run_id, path, bytes);
    }

    /// The text of a file, if present.
    pub fn text(&self, path: &str) -> Option<String> {
        self.store
            .get(&self.run.run_id, path)
            .map(|bytes| String::from_utf8(bytes).unwrap())
    }

    /// A call that must succeed; its result.
    pub async fn ok(&mut self, tool: BuiltinTool, arguments: Value) -> AgentToolResult {
        self.ok_with_effect(tool, arguments).await.0
    }

    /// A call that must succeed; its result and effect.
    pub async fn ok_with_effect(
        &mut self,
        tool: BuiltinTool,
        arguments: Value,
    ) -> (AgentToolResult, ToolEffect) {
        let shown = arguments.to_string();
        let execution = self.call(tool, arguments).await.unwrap();
        assert!(
            !execution.result.is_error,
            "{tool:?} {shown} failed: {}",
            execution.result.content
        );
        (execution.result, execution.effect)
    }

    /// A call that must fail recoverably; its error code and message.
    pub async fn err(&mut self, tool: BuiltinTool, arguments: Value) -> (String, String) {
        let shown = arguments.to_string();
        let execution = self.call(tool, arguments).await.unwrap();
        assert!(
            execution.result.is_error,
            "{tool:?} {shown} succeeded: {}",
            execution.result.content
        );
        assert_eq!(execution.effect, ToolEffect::None);
        let code = execution.result.error_code.clone().unwrap();
        (code, execution.result.content)
    }

    /// A call that must fail recoverably with `code`; its message.
    pub async fn expect_code(&mut self, tool: BuiltinTool, arguments: Value, code: &str) -> String {
        let shown = arguments.to_string();
        let (actual, message) = self.err(tool, arguments).await;
        assert_eq!(actual, code, "{tool:?} {shown}: {message}");
        message
    }
}

/// Access to `visible` roots, of which `writable` may be written.
pub(super) fn roots(visible: &[WorkspaceRoot], writable: &[WorkspaceRoot]) -> RootAccess {
    RootAccess {
        visible: visible.to_vec(),
        writable: writable.to_vec(),
    }
}

pub(super) fn path(raw: &str) -> WorkspacePath {
    WorkspacePath::parse(raw).unwrap()
}

/// What [`Interfering`] does.
#[derive(Debug, Clone)]
pub(super) enum Interference {
    /// Just before the next guarded write, another writer puts this file.
    ChangeBeforeWrite { path: String, bytes: Vec<u8> },
    /// Every operation fails with this error.
    Fail(WorkspaceError),
}

/// A workspace that another writer, or a broken disk, interferes with.
pub(super) struct Interfering {
    memory: Arc<MemoryWorkspace>,
    run: RunId,
    interference: Mutex<Option<Interference>>,
}

impl Interfering {
    pub fn new(memory: Arc<MemoryWorkspace>, interference: Interference) -> Arc<Self> {
        Arc::new(Self {
            memory,
            run: RunId::parse("run_1").unwrap(),
            interference: Mutex::new(Some(interference)),
        })
    }

    fn failure(&self) -> Result<(), WorkspaceError> {
        match &*self.interference.lock().unwrap() {
            Some(Interference::Fail(error)) => Err(error.clone()),
            _ => Ok(()),
        }
    }
}

#[async_trait]
impl WorkspaceStore for Interfering {
    async fn initialize(&self, run: &RunId) -> Result<(), WorkspaceError> {
        self.memory.initialize(run).await
    }

    async fn read(
        &self,
        run: &RunId,
        path: &WorkspacePath,
    ) -> Result<WorkspaceFile, WorkspaceError> {
        self.failure()?;
        self.memory.read(run, path).await
    }

    async fn write(
        &self,
        run: &RunId,
        path: &WorkspacePath,
        text: &str,
        guard: WriteGuard,
    ) -> Result<WriteReceipt, WorkspaceError> {
        self.failure()?;
        let change = self.interference.lock().unwrap().take();
        if let Some(Interference::ChangeBeforeWrite { path, bytes }) = change {
            self.memory.put(&self.run, &path, bytes);
        }
        self.memory.write(run, path, text, guard).await
    }

    async fn append(
        &self,
        run: &RunId,
        path: &WorkspacePath,
        text: &str,
    ) -> Result<WriteReceipt, WorkspaceError> {
        self.failure()?;
        self.memory.append(run, path, text).await
    }

    async fn list(
        &self,
        run: &RunId,
        path: Option<&WorkspacePath>,
        depth: u32,
        max_entries: usize,
    ) -> Result<Listing, WorkspaceError> {
        self.failure()?;
        self.memory.list(run, path, depth, max_entries).await
    }

    async fn search_corpus(
        &self,
        run: &RunId,
        paths: &[WorkspacePath],
        max_depth: u32,
        max_files: usize,
    ) -> Result<SearchCorpus, WorkspaceError> {
        self.failure()?;
        self.memory
            .search_corpus(run, paths, max_depth, max_files)
            .await
    }

    async fn kind_of(
        &self,
        run: &RunId,
        path: &WorkspacePath,
    ) -> Result<Option<EntryKind>, WorkspaceError> {
        self.failure()?;
        self.memory.kind_of(run, path).await
    }
}
