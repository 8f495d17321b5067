//! One sample of every event, for the serialization tests and the journal snapshot.

use serde_json::{Map, Value, json};

use super::*;
use crate::model::{NativeContinuation, ProviderStateSummary, TokenUsage};
use crate::profile::{ModelRetryPolicy, ProfileSource};
use crate::tool::{ExitPolicy, SnapshotSummary, SnapshotToolSummary, ToolId, ToolTurnContract};
use crate::workspace::{WorkspacePath, WorkspaceRoot};

pub const RUN: &str = "run_0123456789abcdef0123456789abcdef";
pub const ROOT: &str = "inv_root";
pub const CHILD: &str = "inv_11111111111111111111111111111111";
pub const HANDOFF: &str = "inv_22222222222222222222222222222222";
pub const TASK: &str = "task_33333333333333333333333333333333";

pub fn tool(native: &str) -> ToolId {
    ToolId::builtin(native).unwrap()
}

pub fn path(raw: &str) -> WorkspacePath {
    WorkspacePath::parse(raw).unwrap()
}

pub fn turn() -> ToolTurnContract {
    serde_json::from_value(json!({
        "snapshotId": ROOT,
        "tools": ["builtin:workspace.write_file", "builtin:workspace.commit", "builtin:workspace.finish"],
        "choice": "auto"
    }))
    .unwrap()
}

pub fn snapshot_summary() -> SnapshotSummary {
    let tools: Vec<_> = [
        "workspace.write_file",
        "workspace.commit",
        "workspace.finish",
    ]
    .into_iter()
    .map(|native| SnapshotToolSummary {
        tool_id: tool(native),
        alias: native.replace('.', "_"),
        max_calls: None,
    })
    .collect();
    SnapshotSummary {
        snapshot_id: ROOT.into(),
        schema_version: 1,
        exit_policy: ExitPolicy::RunFinishAllowed,
        tool_count: tools.len(),
        max_calls_per_invocation: 80,
        tools,
    }
}

pub fn request_summary(message_count: u32) -> ModelRequestSummary {
    ModelRequestSummary {
        provider_format: Some("openai-chat".into()),
        model: Some("demo-model".into()),
        message_count,
        tool_count: 3,
    }
}

pub fn chat_ref() -> ChatRef {
    ChatRef::Character {
        character_id: "Seraphina.png".into(),
        file_name: "Seraphina - 2026-06-01.jsonl".into(),
    }
}

pub fn invocation_status(status: InvocationStatus) -> InvocationStatusPayload {
    InvocationStatusPayload {
        invocation_id: CHILD.into(),
        parent_invocation_id: Some(ROOT.into()),
        profile_id: "reviewer".into(),
        kind: InvocationKind::Subagent,
        status,
        message: (status == InvocationStatus::Failed).then(|| "child failed".to_owned()),
    }
}

pub fn task_status(status: TaskStatus) -> TaskStatusPayload {
    TaskStatusPayload {
        task_id: TASK.into(),
        parent_invocation_id: ROOT.into(),
        child_invocation_id: CHILD.into(),
        target_profile_id: "reviewer".into(),
        status,
        result_ref: (status == TaskStatus::Completed)
            .then(|| format!("agent-results/{CHILD}.json")),
        error: (status == TaskStatus::Failed).then(|| "child failed".to_owned()),
    }
}

pub fn tool_outcome(call_id: &str, is_error: bool, fatal: bool) -> ToolCallOutcomePayload {
    ToolCallOutcomePayload {
        round: 1,
        invocation_id: ROOT.into(),
        call_id: call_id.into(),
        tool_id: tool("workspace.write_file"),
        is_error,
        error_code: is_error.then(|| "workspace.write_requires_read".to_owned()),
        message: is_error.then(|| "Read the file before replacing it.".to_owned()),
        elapsed_ms: 4,
        resource_refs: if is_error {
            Vec::new()
        } else {
            vec!["workspace:output/main.md".into()]
        },
        fatal,
    }
}

pub fn failure() -> RunFailurePayload {
    RunFailurePayload::new(
        "model.tool_call_required",
        "The model must finish through workspace_finish.",
        false,
    )
}

pub fn preserved() -> PreservedCommit {
    PreservedCommit {
        path: path("output/main.md"),
        mode: WriteMode::Replace,
        message_id: "7".into(),
        round: 2,
    }
}

pub fn change() -> PersistentChange {
    PersistentChange {
        path: path("persist/notes.md"),
        kind: PersistentChangeKind::Added,
        sha256: Some("ab".repeat(32)),
    }
}

/// Every variant of [`RunEvent`], in declaration order.
pub fn one_of_each() -> Vec<RunEvent> {
    vec![
        RunEvent::RunCreated(RunCreatedPayload {
            workspace_id: "chat_d474bb6f0a9e39a7".into(),
            stable_chat_id: "stable-chat".into(),
            persist_base_state_id: None,
            presentation: Presentation::Foreground,
        }),
        RunEvent::ProfileResolved(ProfileResolvedPayload {
            profile_id: "default-writer".into(),
            source: ProfileSource::BuiltIn,
        }),
        RunEvent::SkillScopesResolved(SkillScopesResolvedPayload {
            scopes: vec!["global".into()],
            refs: json!({}),
            effective_skills: vec!["style-guide".into()],
            diagnostics: vec![],
        }),
        RunEvent::GenerationIntentRecorded(json!({"kind": "normal", "source": "cli"})),
        RunEvent::StatusChanged(StatusChangedPayload {
            status: RunStatus::InitializingWorkspace,
        }),
        RunEvent::WorkspaceInitialized(WorkspaceInitializedPayload {
            workspace_id: "chat_d474bb6f0a9e39a7".into(),
            stable_chat_id: "stable-chat".into(),
        }),
        RunEvent::PersistentProjectionInitialized(PersistentProjectionInitializedPayload {
            roots: vec![WorkspaceRoot::Persist],
        }),
        RunEvent::AgentModelBindingResolved(ModelBindingResolvedPayload {
            invocation_id: ROOT.into(),
            mode: ModelBindingMode::Script,
            connection: None,
            provider_format: None,
            model_id: None,
        }),
        RunEvent::ContextAssembled(ContextAssembledPayload {
            invocation_id: ROOT.into(),
            tool_snapshot_path: format!("input/invocations/{ROOT}/tool_snapshot.json"),
            snapshot: snapshot_summary(),
            turn: turn(),
            request: request_summary(2),
            max_rounds: 80,
            model_retry: ModelRetryPolicy {
                max_retries: 3,
                interval_ms: 3000,
            },
            context_policy: None,
            snapshot_diagnostics: vec![],
        }),
        RunEvent::AgentInvocationCreated(InvocationCreatedPayload {
            invocation_id: CHILD.into(),
            parent_invocation_id: Some(ROOT.into()),
            profile_id: "reviewer".into(),
            kind: InvocationKind::Subagent,
            status: InvocationStatus::Created,
            exit_policy: ExitPolicy::TaskReturnRequired,
            task_id: Some(TASK.into()),
        }),
        RunEvent::AgentInvocationStarted(invocation_status(InvocationStatus::Running)),
        RunEvent::AgentInvocationCompleted(invocation_status(InvocationStatus::Completed)),
        RunEvent::AgentInvocationFailed(invocation_status(InvocationStatus::Failed)),
        RunEvent::AgentInvocationCancelled(invocation_status(InvocationStatus::Cancelled)),
        RunEvent::AgentInvocationTransferred(invocation_status(InvocationStatus::Transferred)),
        RunEvent::AgentTaskRegistered(TaskRegisteredPayload {
            task_id: TASK.into(),
            parent_invocation_id: ROOT.into(),
            child_invocation_id: CHILD.into(),
            target_profile_id: "reviewer".into(),
            workspace_key: "reviewer".into(),
            continuation: TaskContinuation::ReturnToParent,
            status: TaskStatus::Queued,
        }),
        RunEvent::AgentTaskQueued(task_status(TaskStatus::Queued)),
        RunEvent::AgentTaskStarted(task_status(TaskStatus::Running)),
        RunEvent::AgentTaskCompleted(task_status(TaskStatus::Completed)),
        RunEvent::AgentTaskFailed(task_status(TaskStatus::Failed)),
        RunEvent::AgentTaskCancelled(task_status(TaskStatus::Cancelled)),
        RunEvent::AgentDelegateStarted(DelegateStartedPayload {
            task_id: TASK.into(),
            parent_invocation_id: ROOT.into(),
            child_invocation_id: CHILD.into(),
            target_profile_id: "reviewer".into(),
            workspace_key: "reviewer".into(),
        }),
        RunEvent::AgentHandoffRequested(HandoffRequestedPayload {
            source_invocation_id: ROOT.into(),
            target_profile_id: "editor".into(),
            pending_task_policy: "denyIfPending".into(),
        }),
        RunEvent::AgentHandoffAccepted(HandoffAcceptedPayload {
            task_id: "handoff_44444444444444444444444444444444".into(),
            source_invocation_id: ROOT.into(),
            new_invocation_id: HANDOFF.into(),
            target_profile_id: "editor".into(),
            workspace_key: "editor".into(),
        }),
        RunEvent::AgentAwaitStarted(AwaitStartedPayload {
            parent_invocation_id: ROOT.into(),
            mode: AwaitMode::NextCompleted,
            task_ids: vec![TASK.into()],
            timeout_ms: 120_000,
        }),
        RunEvent::AgentAwaitCompleted(AwaitCompletedPayload {
            parent_invocation_id: ROOT.into(),
            mode: AwaitMode::AllCompleted,
            timed_out: true,
            task_count: 1,
        }),
        RunEvent::TaskReturnCompleted(TaskReturnCompletedPayload {
            task_id: TASK.into(),
            parent_invocation_id: ROOT.into(),
            child_invocation_id: CHILD.into(),
            status: TaskStatus::Completed,
            result_ref: format!("agent-results/{CHILD}.json"),
            summary_ref: "summaries/reviewer-result.md".into(),
        }),
        RunEvent::TaskReturnRecorded(TaskReturnRecordedPayload {
            invocation_id: CHILD.into(),
            status: TaskStatus::Completed,
            result_ref: format!("agent-results/{CHILD}.json"),
            summary_chars: 42,
            summary_words: 8,
        }),
        RunEvent::AgentChildInvocationFailed(ChildInvocationFailedPayload {
            task_id: TASK.into(),
            child_invocation_id: CHILD.into(),
            message: "child failed".into(),
        }),
        RunEvent::ModelRequestCreated(ModelRequestCreatedPayload {
            round: 1,
            invocation_id: ROOT.into(),
            request: request_summary(2),
            turn: turn(),
        }),
        RunEvent::ModelCallAttemptStarted(ModelCallAttemptStartedPayload {
            round: 1,
            invocation_id: ROOT.into(),
            attempt: 1,
            max_retries: 3,
        }),
        RunEvent::ModelCallAttemptFailed(ModelCallAttemptFailedPayload {
            round: 1,
            invocation_id: ROOT.into(),
            attempt: 1,
            max_retries: 3,
            retryable: true,
            will_retry: true,
            code: Some("model.provider_rate_limited".into()),
            message: "rate limited".into(),
        }),
        RunEvent::ModelCallRetryScheduled(ModelCallRetryScheduledPayload {
            round: 1,
            invocation_id: ROOT.into(),
            next_attempt: 2,
            interval_ms: 3000,
        }),
        RunEvent::ModelResponseStored(ModelResponseStoredPayload {
            round: 1,
            invocation_id: ROOT.into(),
            path: "model-responses/round-001.json".into(),
            response_id: None,
            model: Some("demo-model".into()),
        }),
        RunEvent::ProviderStateUpdated(ProviderStateUpdatedPayload {
            round: 1,
            invocation_id: ROOT.into(),
            provider_state: ProviderStateSummary {
                provider_format: Some("anthropic".into()),
                message_cursor: Some(2),
                native_continuation: Some(NativeContinuation {
                    provider: "claude".into(),
                    part_count: 2,
                }),
                ..ProviderStateSummary::default()
            },
        }),
        RunEvent::ModelCompleted(ModelCompletedPayload {
            round: 1,
            invocation_id: ROOT.into(),
            model_response_path: "model-responses/round-001.json".into(),
            tool_call_count: 1,
            text_chars: 11,
            text_words: 2,
            has_assistant_text: true,
            assistant_text_chars: 11,
            assistant_text_words: 2,
            has_reasoning: false,
            reasoning_chars: 0,
            reasoning_words: 0,
            narration: Some(NarrationPreview {
                source: "assistantText".into(),
                text: "Writing now".into(),
                total_chars: 11,
                total_words: 2,
                truncated: false,
            }),
            usage: Some(TokenUsage {
                input_tokens: 1200,
                output_tokens: 80,
                cached_input_tokens: Some(1000),
                ..TokenUsage::default()
            }),
        }),
        RunEvent::DirectOutputCaptured(DirectOutputCapturedPayload {
            round: 2,
            invocation_id: ROOT.into(),
            path: path("output/direct_output.md"),
            chars: 5,
            words: 1,
            sha256: "cd".repeat(32),
            model_response_path: "model-responses/round-002.json".into(),
        }),
        RunEvent::DriftRecoveryAttempted(DriftRecoveryAttemptedPayload {
            round: 2,
            invocation_id: ROOT.into(),
            attempt: 1,
            max_attempts: 79,
            max_rounds: 80,
            limit_reason: "max_rounds".into(),
            committed_count: 0,
            reason_code: "model.tool_call_required".into(),
        }),
        RunEvent::ToolCallRequested(ToolCallRequestedPayload {
            round: 1,
            invocation_id: ROOT.into(),
            call_id: "call_1".into(),
            tool_id: tool("workspace.write_file"),
            arguments_ref: format!("tool-args/{ROOT}/round-001-call_74196fe72e4cdc13.json"),
            provider_metadata: Value::Null,
        }),
        RunEvent::ToolCallStarted(ToolCallStartedPayload {
            round: 1,
            invocation_id: ROOT.into(),
            call_id: "call_1".into(),
            tool_id: tool("workspace.write_file"),
        }),
        RunEvent::ToolResultStored(ToolResultStoredPayload {
            round: 1,
            invocation_id: ROOT.into(),
            call_id: "call_1".into(),
            tool_id: tool("workspace.write_file"),
            path: format!("tool-results/{ROOT}/round-001-call_74196fe72e4cdc13.json"),
        }),
        RunEvent::ToolResultReadableViewStored(ToolResultReadableViewStoredPayload {
            round: 1,
            invocation_id: ROOT.into(),
            call_id: "call_mcp".into(),
            tool_id: ToolId::mcp("0f8fad5b-d9cb-469f-a165-70867728950e", "issue.search").unwrap(),
            path: path("tool-results/inv_root/round-001-call_fe79da5f09df9787.txt"),
            audit_path: "tool-results/inv_root/round-001-call_fe79da5f09df9787.json".into(),
        }),
        RunEvent::McpNoticeReceived(McpNoticeReceivedPayload {
            round: 1,
            invocation_id: ROOT.into(),
            call_id: "call_mcp".into(),
            tool_id: ToolId::mcp("0f8fad5b-d9cb-469f-a165-70867728950e", "issue.search").unwrap(),
            notice: McpNoticeBody::Progress {
                progress: 3.into(),
                total: Some(10.into()),
                message: Some("indexing".into()),
            },
        }),
        RunEvent::ToolCallCompleted(tool_outcome("call_1", false, false)),
        RunEvent::ToolCallFailed(tool_outcome("call_2", true, false)),
        RunEvent::WorkspaceFileWritten(WorkspaceFileWrittenPayload {
            invocation_id: ROOT.into(),
            path: path("output/main.md"),
            mode: WriteMode::Replace,
            chars: 5,
            words: 1,
            sha256: "ef".repeat(32),
        }),
        RunEvent::WorkspacePatchApplied(WorkspacePatchAppliedPayload {
            invocation_id: ROOT.into(),
            path: path("output/main.md"),
            chars: 6,
            words: 1,
            old_sha256: "ef".repeat(32),
            sha256: "01".repeat(32),
            replacements: 1,
        }),
        RunEvent::CheckpointCreated(CheckpointCreatedPayload {
            checkpoint_id: "cp_000001".into(),
            reason: CheckpointReason::ToolWorkspaceWrite,
        }),
        RunEvent::AgentLoopFinished(AgentLoopFinishedPayload {
            round: 3,
            invocation_id: ROOT.into(),
            commit_count: 1,
            ended_by: Some(LoopEnding::Finish),
        }),
        RunEvent::ChatCommitStarted(ChatCommitStartedPayload {
            commit_id: "commit_55555555555555555555555555555555".into(),
            invocation_id: ROOT.into(),
            call_id: "call_3".into(),
            path: path("output/main.md"),
            mode: WriteMode::Replace,
            reason: None,
            is_explicit: true,
        }),
        RunEvent::ChatCommitRequested(ChatCommitRequestedPayload {
            commit_id: "commit_55555555555555555555555555555555".into(),
            invocation_id: ROOT.into(),
            call_id: "call_3".into(),
            run_id: RUN.into(),
            workspace_id: "chat_d474bb6f0a9e39a7".into(),
            stable_chat_id: "stable-chat".into(),
            chat_ref: chat_ref(),
            generation_type: "normal".into(),
            profile_id: Some("default-writer".into()),
            persist_base_state_id: None,
            path: path("output/main.md"),
            mode: WriteMode::Replace,
            reason: Some("first draft".into()),
            chars: 6,
            words: 1,
            sha256: "01".repeat(32),
            checkpoint_id: "cp_000002".into(),
            is_explicit: true,
        }),
        RunEvent::ChatCommitCompleted(ChatCommitCompletedPayload {
            commit_id: "commit_55555555555555555555555555555555".into(),
            invocation_id: ROOT.into(),
            call_id: "call_3".into(),
            path: path("output/main.md"),
            mode: WriteMode::Replace,
            message_id: "7".into(),
            message_index: Some(7),
            is_explicit: true,
        }),
        RunEvent::ChatCommitFailed(ChatCommitFailedPayload {
            commit_id: "commit_66666666666666666666666666666666".into(),
            invocation_id: ROOT.into(),
            call_id: "call_4".into(),
            path: path("output/main.md"),
            mode: WriteMode::Append,
            message: "chat file is locked".into(),
        }),
        RunEvent::ChatCommitRecorded(ChatCommitRecordedPayload {
            invocation_id: ROOT.into(),
            commit_count: 1,
            path: path("output/main.md"),
            mode: WriteMode::Replace,
            message_id: "7".into(),
        }),
        RunEvent::PersistentChangesCommitted(PersistentChangesCommittedPayload {
            state_id: RUN.into(),
            base_state_id: None,
            change_count: 1,
            changes: vec![change()],
            browsable_copy_error: None,
        }),
        RunEvent::PersistentChangesCommitFailed(PersistentChangesCommitFailedPayload {
            message: "state already exists".into(),
        }),
        RunEvent::PersistentStateMetadataUpdateRequested(
            PersistentStateMetadataUpdateRequestedPayload {
                update_id: "persist_update_77777777777777777777777777777777".into(),
                run_id: RUN.into(),
                workspace_id: "chat_d474bb6f0a9e39a7".into(),
                stable_chat_id: "stable-chat".into(),
                chat_ref: ChatRef::Group {
                    chat_id: "group-1".into(),
                },
                generation_type: "normal".into(),
                profile_id: Some("default-writer".into()),
                message_id: "7".into(),
                state_id: RUN.into(),
                base_state_id: None,
                change_count: 1,
                changes: vec![change()],
            },
        ),
        RunEvent::PersistentStateMetadataUpdated(PersistentStateMetadataUpdatedPayload {
            update_id: "persist_update_77777777777777777777777777777777".into(),
            message_id: "7".into(),
            state_id: RUN.into(),
        }),
        RunEvent::PersistentStateMetadataUpdateFailed(PersistentStateMetadataUpdateFailedPayload {
            update_id: "persist_update_77777777777777777777777777777777".into(),
            message_id: "7".into(),
            state_id: RUN.into(),
            message: "message not found".into(),
        }),
        RunEvent::UserGuidanceSubmitted(GuidanceSubmittedPayload {
            guidance_id: "guidance_1".into(),
            client_guidance_id: None,
            text: "Make it shorter.".into(),
            chars: 16,
            words: 3,
        }),
        RunEvent::UserGuidanceApplied(GuidanceAppliedPayload {
            guidance_ids: vec!["guidance_1".into()],
            client_guidance_ids: Vec::new(),
            invocation_id: ROOT.into(),
            round: 2,
            count: 1,
            chars: 16,
            words: 3,
            preview: "Make it shorter.".into(),
            message_index: 4,
            request_message_count: 5,
            status: GuidanceStatus::Applied,
        }),
        RunEvent::UserGuidanceDiscarded(GuidanceDiscardedPayload {
            guidance_ids: vec!["guidance_2".into()],
            client_guidance_ids: vec!["ui-2".into()],
            count: 1,
            chars: 3,
            reason: GuidanceDiscardReason::RunFinishedBeforeNextModelRequest,
            status: GuidanceStatus::Discarded,
        }),
        RunEvent::RunCancelRequested,
        RunEvent::RunCompleted,
        RunEvent::RunPartialSuccess(failure().into_partial_success(vec![preserved()])),
        RunEvent::RunCancelled(Some(RunCancelledPayload {
            message: "cancelled by the user".into(),
        })),
        RunEvent::RunFailed(
            failure().with_details(Map::from_iter([("round".to_owned(), json!(80))])),
        ),
        RunEvent::RunRolledBack(RunRolledBackPayload {
            message_ids: vec!["7".into()],
            deleted_messages: Vec::new(),
            removed_swipes: vec![RemovedSwipe {
                message_index: 7,
                swipe_id: 2,
            }],
            restored_messages: vec![7],
            restored_metadata: vec!["timedWorldInfo".into()],
        }),
    ]
}
