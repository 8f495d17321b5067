//! A synchronous stand-in for the driver: hand-made model turns, a tiny tool world, and a
//! trace of every step.

use std::collections::{BTreeMap, VecDeque};

use agent_domain::event::{Presentation, RunEvent, WriteMode};
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelResponse, FinishReason,
    GenerationParameters, ModelRole, ProviderState,
};
use agent_domain::profile::ModelRetryPolicy;
use agent_domain::run::InvocationId;
use agent_domain::tool::{
    AgentToolResult, BuiltinTool, ExitPolicy, InvocationToolSnapshot, SnapshotInputs,
    ToolInvocation, ToolPolicy, builtin_catalog, compile_snapshot,
};
use agent_domain::workspace::{RootAccess, WorkspacePath};
use serde_json::{Value, json};

use super::super::*;
use crate::ports::{ModelError, ModelErrorKind};

pub use BuiltinTool::*;

/// The tools of a plain foreground writer.
pub const WRITER: [BuiltinTool; 5] = [
    WorkspaceReadFile,
    WorkspaceWriteFile,
    WorkspaceApplyPatch,
    WorkspaceCommit,
    WorkspaceFinish,
];

/// How to build a machine; tests change what they need.
#[derive(Debug, Clone)]
pub struct Fixture {
    pub allow: Vec<BuiltinTool>,
    pub exit: ExitPolicy,
    pub presentation: Presentation,
    pub max_rounds: u32,
    pub retry: ModelRetryPolicy,
    pub max_calls: u32,
    pub per_tool: Vec<(BuiltinTool, u32)>,
    pub ledger: CommitLedger,
}

impl Default for Fixture {
    fn default() -> Self {
        Self {
            allow: WRITER.to_vec(),
            exit: ExitPolicy::RunFinishAllowed,
            presentation: Presentation::Foreground,
            max_rounds: 8,
            retry: ModelRetryPolicy {
                max_retries: 2,
                interval_ms: 1000,
            },
            max_calls: 80,
            per_tool: Vec::new(),
            ledger: CommitLedger::new(),
        }
    }
}

impl Fixture {
    pub fn background() -> Self {
        Self {
            presentation: Presentation::Background,
            ..Self::default()
        }
    }

    pub fn child() -> Self {
        Self {
            allow: vec![WorkspaceReadFile, WorkspaceWriteFile],
            exit: ExitPolicy::TaskReturnRequired,
            presentation: Presentation::Background,
            ..Self::default()
        }
    }

    pub fn invocation_id(&self) -> &'static str {
        match self.exit {
            ExitPolicy::RunFinishAllowed => "inv_root",
            ExitPolicy::TaskReturnRequired => "inv_child",
        }
    }

    pub fn snapshot(&self) -> InvocationToolSnapshot {
        let policy = ToolPolicy {
            allow: self.allow.iter().map(|t| t.id()).collect(),
            deny: Vec::new(),
            descriptions: BTreeMap::new(),
            max_calls_per_invocation: self.max_calls,
            max_calls_per_tool: self.per_tool.iter().map(|(t, n)| (t.id(), *n)).collect(),
            mcp_result_inline_char_limit: 50_000,
            roots: RootAccess::full(),
        };
        let catalog = builtin_catalog().unwrap();
        compile_snapshot(SnapshotInputs {
            invocation_id: self.invocation_id(),
            policy: &policy,
            exit_policy: self.exit,
            builtins: &catalog,
            mcp: &BTreeMap::new(),
        })
        .unwrap()
        .snapshot
    }

    pub fn setup(&self) -> InvocationSetup {
        InvocationSetup {
            invocation_id: InvocationId::parse(self.invocation_id()).unwrap(),
            presentation: self.presentation,
            max_rounds: self.max_rounds,
            model_retry: self.retry,
            message_body_path: path("output/main.md"),
            snapshot: self.snapshot(),
            messages: vec![
                AgentModelMessage::system("You write the next chat reply."),
                AgentModelMessage::user("Continue the story."),
            ],
            provider_state: ProviderState::initial("run_1", self.invocation_id()),
            parameters: GenerationParameters::default(),
            ledger: self.ledger.clone(),
            label: ModelLabel {
                provider_format: Some("scripted".into()),
                model: Some("script".into()),
                api: None,
            },
        }
    }

    pub fn machine(&self) -> InvocationMachine {
        InvocationMachine::new(self.setup()).unwrap()
    }
}

pub fn path(raw: &str) -> WorkspacePath {
    WorkspacePath::parse(raw).unwrap()
}

pub fn call(id: &str, tool: BuiltinTool, arguments: Value) -> ToolInvocation {
    ToolInvocation {
        call_id: id.into(),
        tool_id: tool.id(),
        arguments,
        provider_metadata: Value::Null,
    }
}

pub fn write(id: &str, file: &str) -> ToolInvocation {
    call(
        id,
        WorkspaceWriteFile,
        json!({"path": file, "content": "Once upon a time."}),
    )
}

pub fn commit(id: &str) -> ToolInvocation {
    call(id, WorkspaceCommit, json!({}))
}

pub fn finish(id: &str) -> ToolInvocation {
    call(id, WorkspaceFinish, json!({"reason": "done"}))
}

/// A model turn with optional text and tool calls.
pub fn turn(text: &str, calls: Vec<ToolInvocation>) -> AgentModelResponse {
    let mut parts = Vec::new();
    if !text.is_empty() {
        parts.push(AgentModelContentPart::text(text));
    }
    let finish_reason = if calls.is_empty() {
        FinishReason::Stop
    } else {
        FinishReason::ToolCalls
    };
    parts.extend(calls.into_iter().map(AgentModelContentPart::ToolCall));
    AgentModelResponse {
        message: AgentModelMessage::new(ModelRole::Assistant, parts),
        finish_reason,
        usage: None,
        response_id: None,
        model: None,
        provider_metadata: Value::Null,
        provider_state: None,
    }
}

pub fn tools(calls: Vec<ToolInvocation>) -> AgentModelResponse {
    turn("", calls)
}

pub fn model_error(kind: ModelErrorKind, retry_after_ms: Option<u64>) -> ModelError {
    ModelError {
        retry_after_ms,
        ..ModelError::new(kind, "the provider said no")
    }
}

/// What the world does with an executed call, unless a test overrides it.
pub fn default_report(call: &ToolInvocation) -> ToolCallReport {
    let Some(args) = call.arguments.as_object() else {
        return ToolCallReport::new(AgentToolResult::error(
            call,
            "tool.invalid_arguments",
            "arguments must be an object",
        ));
    };
    let file = args
        .get("path")
        .and_then(Value::as_str)
        .map(path)
        .unwrap_or_else(|| path("output/main.md"));
    let ok = |content: &str| AgentToolResult::success(call, content, Value::Null);
    match BuiltinTool::from_id(&call.tool_id) {
        Some(WorkspaceWriteFile | WorkspaceApplyPatch) => ToolCallReport {
            result: ok(&format!("Wrote {file}.")),
            control: ToolControl::None,
            written: Some(WrittenFile {
                sha256: format!("sha-of-{file}"),
                path: file,
            }),
        },
        Some(WorkspaceCommit) => {
            let mode = match args.get("mode").and_then(Value::as_str) {
                Some("append") => WriteMode::Append,
                _ => WriteMode::Replace,
            };
            ToolCallReport::new(ok("Committed.")).with_control(ToolControl::Committed {
                path: file,
                mode,
                message_id: "7".into(),
            })
        }
        Some(WorkspaceFinish) => {
            ToolCallReport::new(ok("Finished.")).with_control(ToolControl::Finished)
        }
        Some(TaskReturn) => {
            ToolCallReport::new(ok("Returned.")).with_control(ToolControl::TaskReturned)
        }
        Some(AgentHandoff) => {
            ToolCallReport::new(ok("Handed over.")).with_control(ToolControl::HandoffAccepted)
        }
        _ => ToolCallReport::new(ok("ok")),
    }
}

type ToolHook = Box<dyn FnMut(&ToolInvocation) -> Option<ToolCallReport>>;

/// The test driver.
pub struct World {
    pub model: VecDeque<Result<AgentModelResponse, ModelError>>,
    pub publish: VecDeque<AutoPublishReport>,
    pub hook: ToolHook,
    /// Cancel right after handing out this many steps.
    pub cancel_after: Option<usize>,
    pub steps: Vec<Step>,
    pub actions: Vec<String>,
}

impl World {
    pub fn new(model: Vec<Result<AgentModelResponse, ModelError>>) -> Self {
        Self {
            model: model.into(),
            publish: VecDeque::new(),
            hook: Box::new(|_| None),
            cancel_after: None,
            steps: Vec::new(),
            actions: Vec::new(),
        }
    }

    pub fn turns(turns: Vec<AgentModelResponse>) -> Self {
        Self::new(turns.into_iter().map(Ok).collect())
    }

    pub fn with_hook(
        mut self,
        hook: impl FnMut(&ToolInvocation) -> Option<ToolCallReport> + 'static,
    ) -> Self {
        self.hook = Box::new(hook);
        self
    }

    /// Drives `machine` to its end and returns the outcome.
    pub fn run(&mut self, machine: &mut InvocationMachine) -> Outcome {
        for _ in 0..500 {
            let step = machine.next_step().unwrap();
            self.actions.push(summary(&step.action));
            self.steps.push(step.clone());
            if self.cancel_after == Some(self.steps.len()) {
                machine.cancel();
                continue;
            }
            match step.action {
                Action::CallModel { round, .. } => {
                    match self.model.pop_front().expect("the script ran out") {
                        Ok(response) => machine
                            .on_model_response(
                                response,
                                format!("model-responses/round-{round:03}.json"),
                            )
                            .unwrap(),
                        Err(error) => machine.on_model_error(&error).unwrap(),
                    }
                }
                Action::WaitBeforeRetry { .. } | Action::CaptureDirectOutput { .. } => {}
                Action::RunTool { call, .. } => {
                    let report = match call {
                        PlannedCall::Execute { call } => {
                            (self.hook)(&call).unwrap_or_else(|| default_report(&call))
                        }
                        PlannedCall::Reject { result, .. } => ToolCallReport::new(result),
                    };
                    machine.on_tool_result(report).unwrap();
                }
                Action::AutoPublish { .. } => {
                    let report = self
                        .publish
                        .pop_front()
                        .unwrap_or(AutoPublishReport::Published {
                            message_id: "7".into(),
                        });
                    machine.on_auto_publish(report).unwrap();
                }
                Action::Finish(outcome) => return outcome,
            }
        }
        panic!("the machine did not finish");
    }

    /// Event types in journal order.
    pub fn event_types(&self) -> Vec<&'static str> {
        self.events().map(RunEvent::event_type).collect()
    }

    pub fn events(&self) -> impl Iterator<Item = &RunEvent> {
        self.steps.iter().flat_map(|s| s.events.iter())
    }

    /// Actions that handed out tool calls, as `tool r<round> <tool> <execute|code>`.
    pub fn tool_actions(&self) -> Vec<&str> {
        self.actions
            .iter()
            .filter(|a| a.starts_with("tool "))
            .map(String::as_str)
            .collect()
    }
}

/// One line per action, for readable assertions.
pub fn summary(action: &Action) -> String {
    match action {
        Action::CallModel { round, attempt, .. } => format!("call_model r{round} a{attempt}"),
        Action::WaitBeforeRetry {
            round,
            next_attempt,
            delay_ms,
        } => format!("wait r{round} a{next_attempt} {delay_ms}ms"),
        Action::CaptureDirectOutput { round, path, .. } => format!("capture r{round} {path}"),
        Action::RunTool { round, call, .. } => {
            let tool = call.call().tool_id.native_name().to_owned();
            match call.rejection() {
                None => format!("tool r{round} {tool} execute"),
                Some(result) => format!(
                    "tool r{round} {tool} reject {}",
                    result.error_code.as_deref().unwrap_or("?")
                ),
            }
        }
        Action::AutoPublish { round, path, .. } => format!("publish r{round} {path}"),
        Action::Finish(outcome) => match outcome.failure() {
            Some(failure) => format!(
                "finish {} {}",
                match outcome {
                    Outcome::PartialSuccess(_) => "partial_success",
                    _ => "failed",
                },
                failure.code
            ),
            None => format!("finish {outcome:?}").to_lowercase(),
        },
    }
}

/// The text of the last user message in the history.
pub fn last_user_text(machine: &InvocationMachine) -> String {
    machine
        .history()
        .iter()
        .rev()
        .find(|m| m.role == ModelRole::User)
        .map(AgentModelMessage::text)
        .unwrap_or_default()
}
