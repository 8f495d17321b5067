//! A test harness for the chat, world-info and dice tools: a run over an in-memory chat,
//! called end to end through [`execute_builtin`].

use std::sync::Arc;

use agent_domain::tool::{AgentToolResult, BuiltinTool};
use agent_domain::workspace::RootAccess;
use serde_json::Value;

use crate::ports::ChatRole;
use crate::testing::{MemoryChats, SequenceRng};
use crate::tools::ToolFault;
use crate::tools::test_support::{ToolHarness, WithStore, memory_ports};

/// One run with one invocation, over an in-memory chat.
pub(crate) type Harness = WithStore<MemoryChats>;

impl Harness {
    /// A run over an empty chat whose whole history is the input prefix (grow it with
    /// [`Harness::say`]); dice follow `rolls`.
    pub fn new(rolls: Vec<u32>) -> Self {
        let chats = Arc::new(MemoryChats::new());
        let mut ports = memory_ports();
        ports.chats = chats.clone();
        ports.rng = Arc::new(SequenceRng::new(rolls));
        let inner = ToolHarness::new(RootAccess::full(), ports);
        chats.put(&inner.run.chat, Vec::new());
        Self::wrap(inner, chats)
    }
    /// Appends a message to the chat and to the input prefix; returns its index.
    pub fn say(&mut self, role: ChatRole, text: &str) -> usize {
        let name = match role {
            ChatRole::User => "Ann",
            ChatRole::Assistant => "Seraphina",
            ChatRole::System => "System",
        };
        let index = self.store.push(&self.run.chat, role, name, text);
        self.run.input_message_count = index + 1;
        index
    }

    /// Calls `tool` with `args`; a runtime fault is returned as `Err`.
    pub async fn try_call(
        &mut self,
        tool: BuiltinTool,
        args: Value,
    ) -> Result<AgentToolResult, ToolFault> {
        ToolHarness::call(self, tool, args)
            .await
            .map(|execution| execution.result)
    }

    /// Calls `tool` and expects a result (success or recoverable error).
    pub async fn call(&mut self, tool: BuiltinTool, args: Value) -> AgentToolResult {
        self.try_call(tool, args).await.unwrap()
    }

    /// Calls `tool` and expects a recoverable error; returns its code and message.
    pub async fn error(&mut self, tool: BuiltinTool, args: Value) -> (String, String) {
        let result = self.call(tool, args).await;
        assert!(result.is_error, "expected an error: {}", result.content);
        (result.error_code.unwrap_or_default(), result.content)
    }
}
