//! [`ProfileError`]: every way a profile document can be refused, each with its stable code.

use crate::error::ErrorCode;

/// Why a profile could not be read, validated or used.
///
/// Every variant maps to one `agent.*` code (see [`ErrorCode`]); the message names the
/// offending field, tool or value so a profile author can fix the file without a debugger.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileError {
    // --- reading ---------------------------------------------------------------------------
    #[error("the profile does not match the profile format: {detail}")]
    ContractInvalid { detail: String },
    #[error("profile schemaVersion {found} is not supported; this runtime reads 1, 2 and 3")]
    SchemaUnsupported { found: String },

    // --- header ----------------------------------------------------------------------------
    #[error("profile kind must be `tauritavern.agentProfile`, found `{found}`")]
    KindInvalid { found: String },
    #[error("{field} is empty; a profile id needs at least one character")]
    IdEmpty { field: String },
    #[error("{field} `{value}` is longer than 128 bytes")]
    IdTooLong { field: String, value: String },
    #[error("{field} `{value}` may only contain lower-case ASCII letters, digits, `-` and `_`")]
    IdInvalid { field: String, value: String },
    #[error("displayName must not be blank")]
    DisplayNameRequired,

    // --- preset ----------------------------------------------------------------------------
    #[error("preset.mode is `ref` but preset.ref is missing")]
    PresetRefRequired,
    #[error("preset.ref.apiId `{api_id}` is not a known preset type")]
    PresetApiInvalid { api_id: String },
    #[error("preset.ref.name must not be blank")]
    PresetNameRequired,
    #[error("the required preset `{name}` (apiId `{api_id}`) does not exist")]
    PresetMissing { api_id: String, name: String },

    // --- model -----------------------------------------------------------------------------
    #[error(
        "model.mode `currentPromptSnapshot` takes the model from the prompt; remove model.{field}"
    )]
    ModelCurrentSnapshotExtraFields { field: &'static str },
    #[error("model.mode `requiresConfiguration` must not name a model yet; remove model.{field}")]
    ModelRequiresConfigurationExtraFields { field: &'static str },
    #[error("model.mode `connectionRef` needs a non-blank model.connectionRef")]
    ModelConnectionRefRequired,
    #[error("model.mode `connectionRef` needs a non-blank model.modelId")]
    ModelIdRequired,
    #[error(
        "profile `{profile_id}` has no model configured yet (model.mode is `requiresConfiguration`)"
    )]
    ModelRequiresConfiguration { profile_id: String },

    // --- instructions and plan --------------------------------------------------------------
    #[error("instructions.agentSystemPrompt is blank; omit it to use the default prompt")]
    SystemPromptEmpty,
    #[error("plan.mode `{mode}` is not supported yet; only `none` is")]
    PlanModeUnsupported { mode: &'static str },
    #[error("plan.nodes must be empty while plan mode is not supported ({count} given)")]
    PlanNodesUnsupported { count: usize },

    // --- tools -----------------------------------------------------------------------------
    #[error("tools.maxRounds must be at least 1")]
    MaxRoundsInvalid,
    #[error("tools.maxCallsPerRun must be at least 1")]
    MaxCallsInvalid,
    #[error("tools.mcpResultInlineCharLimit must be at least 1")]
    McpResultInlineCharLimitInvalid,
    #[error("tools.allow is empty; a profile must allow at least one tool")]
    ToolsEmpty,
    #[error("{field} names `{tool}`, which is not a known tool: {reason}")]
    UnknownTool {
        field: String,
        tool: String,
        reason: String,
    },
    #[error("tools.allow lists `{tool}` more than once")]
    ToolsAllowDuplicate { tool: String },
    #[error("tools.deny lists `{tool}` more than once")]
    ToolsDenyDuplicate { tool: String },
    #[error(
        "`task.return` is provided by the runtime to delegated tasks; remove it from tools.allow"
    )]
    TaskReturnRuntimeOnly,
    #[error(
        "the output artifact needs `builtin:workspace.write_file` to be allowed and not denied"
    )]
    OutputWriterRequired,
    #[error("tools.toolDescriptions overrides `{tool}`, which this profile does not make visible")]
    ToolDescriptionInvisible { tool: String },
    #[error("tools.toolDescriptions.`{tool}`.description is blank; omit it to keep the default")]
    ToolDescriptionEmpty { tool: String },
    #[error("tools.toolDescriptions.`{tool}` names property `{property}`, which the tool lacks")]
    UnknownToolProperty { tool: String, property: String },
    #[error("tools.toolDescriptions.`{tool}`.properties.`{property}` is blank")]
    ToolPropertyDescriptionEmpty { tool: String, property: String },
    #[error("tools.maxCallsPerTool limits `{tool}`, which this profile does not make visible")]
    ToolBudgetInvisible { tool: String },
    #[error("tools.maxCallsPerTool.`{tool}` must be at least 1")]
    ToolBudgetInvalid { tool: String },

    // --- delegation ------------------------------------------------------------------------
    #[error("delegation.maxConcurrentInvocations must be at least 1")]
    DelegationConcurrencyInvalid,
    #[error("delegation.maxInvocationsPerRun must be at least 1")]
    DelegationRunBudgetInvalid,
    #[error("delegation.resultBudgetTokens must be at least 1")]
    DelegationResultBudgetInvalid,
    #[error("delegation.maxHandoffDepth must be at least 1")]
    HandoffDepthInvalid,
    #[error("delegation.allowedCallers is empty; use [\"*\"] to allow every caller")]
    DelegationCallersEmpty,
    #[error("delegation.descriptionForAgents is blank; omit it to use the profile description")]
    DelegationDescriptionEmpty,
    #[error("delegation.{field} is set but delegation.callable is false")]
    DelegationCallableRequired { field: &'static str },
    #[error(
        "delegation.callable is true but neither allowAsSubagent nor allowAsHandoffTarget is set"
    )]
    DelegationTargetModeRequired,
    #[error("`agent.list` is visible but neither delegation.canDelegate nor canHandoff is set")]
    AgentListRequiresDelegation,
    #[error("`{tool}` is visible but delegation.canDelegate is false")]
    AgentDelegateRequiresDelegation { tool: &'static str },
    #[error("`agent.handoff` is visible but delegation.canHandoff is false")]
    AgentHandoffRequiresHandoff,

    // --- run -------------------------------------------------------------------------------
    #[error("run.modelRetry.intervalMs must be at least 1 when maxRetries is {max_retries}")]
    ModelRetryInvalid { max_retries: u32 },
    #[error(
        "a profile that is not directly runnable must run in the background unless it is a handoff \
         target"
    )]
    SubagentOnlyBackgroundRequired,
    #[error("run.directRunnable is false, so other agents must be able to call the profile")]
    DirectRunnableDisabledRequiresDelegationTarget,
    #[error("a directly runnable profile must make `workspace.finish` visible")]
    FinishRequired,
    #[error("a directly runnable foreground profile must make `workspace.commit` visible")]
    CommitRequired,
    #[error("profile `{profile_id}` cannot be started directly (run.directRunnable is false)")]
    NotDirectRunnable { profile_id: String },

    // --- skills ----------------------------------------------------------------------------
    #[error("skills.visible is empty; use [\"*\"] to show every installed skill")]
    SkillVisibleEmpty,
    #[error("skill budgets must be at least 1, per call ({per_call}) at most per run ({per_run})")]
    SkillBudgetInvalid { per_call: u32, per_run: u32 },
    #[error(
        "{field} `{value}` must be `*` or 1 to 128 lower-case ASCII letters, digits, `-` or `_`"
    )]
    SkillNameInvalid { field: String, value: String },

    // --- workspace -------------------------------------------------------------------------
    #[error("workspace.visibleRoots is empty; the agent needs at least one root")]
    WorkspaceVisibleEmpty,
    #[error("{field} `{root}` is not allowed: {reason}")]
    WorkspaceRootInvalid {
        field: &'static str,
        root: String,
        reason: &'static str,
    },

    // --- output ----------------------------------------------------------------------------
    #[error("output.artifacts is empty; one messageBody artifact is required")]
    OutputEmpty,
    #[error(
        "output artifact id `{id}` must be 1 to 128 lower-case ASCII letters, digits, `-` or `_`"
    )]
    ArtifactIdInvalid { id: String },
    #[error("output artifact id `{id}` is used more than once")]
    OutputDuplicateId { id: String },
    #[error("output artifact path `{path}` is used more than once")]
    OutputDuplicatePath { path: String },
    #[error("output artifact `{id}` needs a non-blank kind")]
    OutputKindRequired { id: String },
    #[error("output artifact `{id}` path `{path}` cannot be written by this profile: {reason}")]
    OutputPathDenied {
        id: String,
        path: String,
        reason: String,
    },
    #[error("output.artifacts has more than one messageBody artifact (`{first}` and `{second}`)")]
    OutputDuplicateMessageBody { first: String, second: String },
    #[error("output.artifacts has no messageBody artifact")]
    OutputMessageBodyMissing,

    // --- lookup ----------------------------------------------------------------------------
    #[error("no agent profile with id `{id}` exists")]
    NotFound { id: String },
}

impl ErrorCode for ProfileError {
    fn code(&self) -> &'static str {
        match self {
            Self::ContractInvalid { .. } => "agent.profile_contract_invalid",
            Self::SchemaUnsupported { .. } => "agent.profile_schema_unsupported",
            Self::KindInvalid { .. } => "agent.profile_kind_invalid",
            Self::IdEmpty { .. } => "agent.profile_id_empty",
            Self::IdTooLong { .. } => "agent.profile_id_too_long",
            Self::IdInvalid { .. } => "agent.profile_id_invalid",
            Self::DisplayNameRequired => "agent.profile_display_name_required",
            Self::PresetRefRequired => "agent.profile_preset_ref_required",
            Self::PresetApiInvalid { .. } => "agent.profile_preset_api_invalid",
            Self::PresetNameRequired => "agent.profile_preset_name_required",
            Self::PresetMissing { .. } => "agent.profile_preset_missing",
            Self::ModelCurrentSnapshotExtraFields { .. } => {
                "agent.profile_model_current_snapshot_extra_fields"
            }
            Self::ModelRequiresConfigurationExtraFields { .. } => {
                "agent.profile_model_requires_configuration_extra_fields"
            }
            Self::ModelConnectionRefRequired => "agent.profile_model_connection_ref_required",
            Self::ModelIdRequired => "agent.profile_model_id_required",
            Self::ModelRequiresConfiguration { .. } => "agent.profile_model_requires_configuration",
            Self::SystemPromptEmpty => "agent.profile_system_prompt_empty",
            Self::PlanModeUnsupported { .. } => "agent.plan_mode_unsupported",
            Self::PlanNodesUnsupported { .. } => "agent.plan_nodes_unsupported",
            Self::MaxRoundsInvalid => "agent.profile_max_rounds_invalid",
            Self::MaxCallsInvalid => "agent.profile_max_calls_invalid",
            Self::McpResultInlineCharLimitInvalid => {
                "agent.profile_mcp_result_inline_char_limit_invalid"
            }
            Self::ToolsEmpty => "agent.profile_tools_empty",
            Self::UnknownTool { .. } => "agent.profile_unknown_tool",
            Self::ToolsAllowDuplicate { .. } => "agent.profile_tools_allow_duplicate",
            Self::ToolsDenyDuplicate { .. } => "agent.profile_tools_deny_duplicate",
            Self::TaskReturnRuntimeOnly => "agent.profile_task_return_runtime_only",
            Self::OutputWriterRequired => "agent.profile_output_writer_required",
            Self::ToolDescriptionInvisible { .. } => "agent.profile_tool_description_invisible",
            Self::ToolDescriptionEmpty { .. } => "agent.profile_tool_description_empty",
            Self::UnknownToolProperty { .. } => "agent.profile_unknown_tool_property",
            Self::ToolPropertyDescriptionEmpty { .. } => {
                "agent.profile_tool_property_description_empty"
            }
            Self::ToolBudgetInvisible { .. } => "agent.profile_tool_budget_invisible",
            Self::ToolBudgetInvalid { .. } => "agent.profile_tool_budget_invalid",
            Self::DelegationConcurrencyInvalid => "agent.profile_delegation_concurrency_invalid",
            Self::DelegationRunBudgetInvalid => "agent.profile_delegation_run_budget_invalid",
            Self::DelegationResultBudgetInvalid => "agent.profile_delegation_result_budget_invalid",
            Self::HandoffDepthInvalid => "agent.profile_handoff_depth_invalid",
            Self::DelegationCallersEmpty => "agent.profile_delegation_callers_empty",
            Self::DelegationDescriptionEmpty => "agent.profile_delegation_description_empty",
            Self::DelegationCallableRequired { .. } => "agent.profile_delegation_callable_required",
            Self::DelegationTargetModeRequired => "agent.profile_delegation_target_mode_required",
            Self::AgentListRequiresDelegation => "agent.profile_agent_list_requires_delegation",
            Self::AgentDelegateRequiresDelegation { .. } => {
                "agent.profile_agent_delegate_requires_delegation"
            }
            Self::AgentHandoffRequiresHandoff => "agent.profile_agent_handoff_requires_handoff",
            Self::ModelRetryInvalid { .. } => "agent.profile_model_retry_invalid",
            Self::SubagentOnlyBackgroundRequired => {
                "agent.profile_subagent_only_background_required"
            }
            Self::DirectRunnableDisabledRequiresDelegationTarget => {
                "agent.profile_direct_runnable_disabled_requires_delegation_target"
            }
            Self::FinishRequired => "agent.profile_finish_required",
            Self::CommitRequired => "agent.profile_commit_required",
            Self::NotDirectRunnable { .. } => "agent.profile_not_direct_runnable",
            Self::SkillVisibleEmpty => "agent.profile_skill_visible_empty",
            Self::SkillBudgetInvalid { .. } => "agent.profile_skill_budget_invalid",
            Self::SkillNameInvalid { .. } => "agent.profile_skill_name_invalid",
            Self::WorkspaceVisibleEmpty => "agent.profile_workspace_visible_empty",
            Self::WorkspaceRootInvalid { .. } => "agent.profile_workspace_root_invalid",
            Self::OutputEmpty => "agent.profile_output_empty",
            Self::ArtifactIdInvalid { .. } => "agent.profile_artifact_id_invalid",
            Self::OutputDuplicateId { .. } => "agent.profile_output_duplicate_id",
            Self::OutputDuplicatePath { .. } => "agent.profile_output_duplicate_path",
            Self::OutputKindRequired { .. } => "agent.profile_output_kind_required",
            Self::OutputPathDenied { .. } => "agent.profile_output_path_denied",
            Self::OutputDuplicateMessageBody { .. } => {
                "agent.profile_output_duplicate_message_body"
            }
            Self::OutputMessageBodyMissing => "agent.profile_output_message_body_missing",
            Self::NotFound { .. } => "agent.profile_not_found",
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// One value of every variant, so tests can check codes are unique and all covered.
    pub(crate) fn every_variant() -> Vec<ProfileError> {
        let s = || "x".to_owned();
        use ProfileError::*;
        vec![
            ContractInvalid { detail: s() },
            SchemaUnsupported { found: s() },
            KindInvalid { found: s() },
            IdEmpty { field: s() },
            IdTooLong {
                field: s(),
                value: s(),
            },
            IdInvalid {
                field: s(),
                value: s(),
            },
            DisplayNameRequired,
            PresetRefRequired,
            PresetApiInvalid { api_id: s() },
            PresetNameRequired,
            PresetMissing {
                api_id: s(),
                name: s(),
            },
            ModelCurrentSnapshotExtraFields { field: "modelId" },
            ModelRequiresConfigurationExtraFields { field: "modelId" },
            ModelConnectionRefRequired,
            ModelIdRequired,
            ModelRequiresConfiguration { profile_id: s() },
            SystemPromptEmpty,
            PlanModeUnsupported { mode: "free" },
            PlanNodesUnsupported { count: 1 },
            MaxRoundsInvalid,
            MaxCallsInvalid,
            McpResultInlineCharLimitInvalid,
            ToolsEmpty,
            UnknownTool {
                field: s(),
                tool: s(),
                reason: s(),
            },
            ToolsAllowDuplicate { tool: s() },
            ToolsDenyDuplicate { tool: s() },
            TaskReturnRuntimeOnly,
            OutputWriterRequired,
            ToolDescriptionInvisible { tool: s() },
            ToolDescriptionEmpty { tool: s() },
            UnknownToolProperty {
                tool: s(),
                property: s(),
            },
            ToolPropertyDescriptionEmpty {
                tool: s(),
                property: s(),
            },
            ToolBudgetInvisible { tool: s() },
            ToolBudgetInvalid { tool: s() },
            DelegationConcurrencyInvalid,
            DelegationRunBudgetInvalid,
            DelegationResultBudgetInvalid,
            HandoffDepthInvalid,
            DelegationCallersEmpty,
            DelegationDescriptionEmpty,
            DelegationCallableRequired {
                field: "allowAsSubagent",
            },
            DelegationTargetModeRequired,
            AgentListRequiresDelegation,
            AgentDelegateRequiresDelegation {
                tool: "agent.delegate",
            },
            AgentHandoffRequiresHandoff,
            ModelRetryInvalid { max_retries: 1 },
            SubagentOnlyBackgroundRequired,
            DirectRunnableDisabledRequiresDelegationTarget,
            FinishRequired,
            CommitRequired,
            NotDirectRunnable { profile_id: s() },
            SkillVisibleEmpty,
            SkillBudgetInvalid {
                per_call: 2,
                per_run: 1,
            },
            SkillNameInvalid {
                field: s(),
                value: s(),
            },
            WorkspaceVisibleEmpty,
            WorkspaceRootInvalid {
                field: "workspace.visibleRoots",
                root: s(),
                reason: "r",
            },
            OutputEmpty,
            ArtifactIdInvalid { id: s() },
            OutputDuplicateId { id: s() },
            OutputDuplicatePath { path: s() },
            OutputKindRequired { id: s() },
            OutputPathDenied {
                id: s(),
                path: s(),
                reason: s(),
            },
            OutputDuplicateMessageBody {
                first: s(),
                second: s(),
            },
            OutputMessageBodyMissing,
            NotFound { id: s() },
        ]
    }

    #[test]
    fn codes_are_unique_agent_codes() {
        let all = every_variant();
        let codes: BTreeSet<&str> = all.iter().map(ErrorCode::code).collect();
        assert_eq!(codes.len(), all.len());
        for code in codes {
            let rest = code.strip_prefix("agent.").unwrap();
            assert!(
                rest.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{code}"
            );
        }
        for err in &all {
            assert!(!err.to_string().is_empty());
        }
    }
}
