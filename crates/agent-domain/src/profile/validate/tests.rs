//! One mutation of the default writer per rule, each expecting exactly one code.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::output::single_message_body;
use super::*;
use crate::ErrorCode;
use crate::profile::default_writer;
use crate::profile::error::tests::every_variant;

type Mutation = fn(&mut Value);

fn outcome(value: Value) -> Result<(), ProfileError> {
    let document = AgentProfileDocument::from_value(value)?;
    validate(&document)
}

fn push_tool(v: &mut Value, tool: &str) {
    v["tools"]["allow"]
        .as_array_mut()
        .unwrap()
        .push(json!(tool));
}

/// Adds a second messageBody artifact.
fn push_body(v: &mut Value, id: &str, path: &str) {
    let artifact = json!({"id": id, "path": path, "kind": "markdown", "target": "messageBody"});
    v["output"]["artifacts"]
        .as_array_mut()
        .unwrap()
        .push(artifact);
}

const CASES: &[(Mutation, &str)] = &[
    (|v| v["extra"] = json!(1), "agent.profile_contract_invalid"),
    (
        |v| v["schemaVersion"] = json!(7),
        "agent.profile_schema_unsupported",
    ),
    (
        |v| v["kind"] = json!("tauritavern.character"),
        "agent.profile_kind_invalid",
    ),
    (|v| v["id"] = json!("  "), "agent.profile_id_empty"),
    (
        |v| v["id"] = json!("w".repeat(129)),
        "agent.profile_id_too_long",
    ),
    (
        |v| v["id"] = json!("Default Writer"),
        "agent.profile_id_invalid",
    ),
    (
        |v| v["displayName"] = json!(" "),
        "agent.profile_display_name_required",
    ),
    (
        |v| v["preset"] = json!({"mode": "ref"}),
        "agent.profile_preset_ref_required",
    ),
    (
        |v| v["preset"] = json!({"mode": "ref", "ref": {"apiId": "claude", "name": "x"}}),
        "agent.profile_preset_api_invalid",
    ),
    (
        |v| v["preset"] = json!({"mode": "ref", "ref": {"apiId": "openai", "name": " "}}),
        "agent.profile_preset_name_required",
    ),
    (
        |v| v["model"] = json!({"mode": "currentPromptSnapshot", "modelId": "gpt"}),
        "agent.profile_model_current_snapshot_extra_fields",
    ),
    (
        |v| v["model"] = json!({"mode": "requiresConfiguration", "connectionRef": "c"}),
        "agent.profile_model_requires_configuration_extra_fields",
    ),
    (
        |v| v["model"] = json!({"mode": "connectionRef", "connectionRef": " ", "modelId": "m"}),
        "agent.profile_model_connection_ref_required",
    ),
    (
        |v| v["model"] = json!({"mode": "connectionRef", "connectionRef": "c"}),
        "agent.profile_model_id_required",
    ),
    (
        |v| v["instructions"]["agentSystemPrompt"] = json!("\n "),
        "agent.profile_system_prompt_empty",
    ),
    (
        |v| v["plan"]["mode"] = json!("strict"),
        "agent.plan_mode_unsupported",
    ),
    (
        |v| v["plan"]["nodes"] = json!([{"id": "a", "title": "Outline"}]),
        "agent.plan_nodes_unsupported",
    ),
    (
        |v| v["tools"]["maxRounds"] = json!(0),
        "agent.profile_max_rounds_invalid",
    ),
    (
        |v| v["tools"]["maxCallsPerRun"] = json!(0),
        "agent.profile_max_calls_invalid",
    ),
    (
        |v| v["tools"]["mcpResultInlineCharLimit"] = json!(0),
        "agent.profile_mcp_result_inline_char_limit_invalid",
    ),
    (
        |v| v["tools"]["allow"] = json!([]),
        "agent.profile_tools_empty",
    ),
    (
        |v| push_tool(v, "workspace.delete_all"),
        "agent.profile_unknown_tool",
    ),
    (|v| push_tool(v, "web:fetch"), "agent.profile_unknown_tool"),
    (
        |v| push_tool(v, "chat.search"),
        "agent.profile_tools_allow_duplicate",
    ),
    (
        |v| v["tools"]["deny"] = json!(["dice.roll", "builtin:dice.roll"]),
        "agent.profile_tools_deny_duplicate",
    ),
    (
        |v| v["tools"]["deny"] = json!(["nope.tool"]),
        "agent.profile_unknown_tool",
    ),
    (
        |v| v["tools"]["deny"] = json!(["workspace.write_file"]),
        "agent.profile_output_writer_required",
    ),
    (
        |v| v["tools"]["toolDescriptions"] = json!({"dice.roll": {"description": "Roll."}}),
        "agent.profile_tool_description_invisible",
    ),
    (
        |v| v["tools"]["toolDescriptions"] = json!({"chat.search": {"description": " "}}),
        "agent.profile_tool_description_empty",
    ),
    (
        |v| v["tools"]["toolDescriptions"] = json!({"chat.search": {"properties": {"q": "x"}}}),
        "agent.profile_unknown_tool_property",
    ),
    (
        |v| v["tools"]["toolDescriptions"] = json!({"chat.search": {"properties": {"query": ""}}}),
        "agent.profile_tool_property_description_empty",
    ),
    (
        |v| v["tools"]["toolDescriptions"] = json!({"chat.serch": {}}),
        "agent.profile_unknown_tool",
    ),
    (
        |v| v["tools"]["maxCallsPerTool"] = json!({"dice.roll": 2}),
        "agent.profile_tool_budget_invisible",
    ),
    (
        |v| v["tools"]["maxCallsPerTool"] = json!({"chat.search": 0}),
        "agent.profile_tool_budget_invalid",
    ),
    (
        |v| v["delegation"] = json!({"maxConcurrentInvocations": 0}),
        "agent.profile_delegation_concurrency_invalid",
    ),
    (
        |v| v["delegation"] = json!({"maxInvocationsPerRun": 0}),
        "agent.profile_delegation_run_budget_invalid",
    ),
    (
        |v| v["delegation"] = json!({"resultBudgetTokens": 0}),
        "agent.profile_delegation_result_budget_invalid",
    ),
    (
        |v| v["delegation"] = json!({"maxHandoffDepth": 0}),
        "agent.profile_handoff_depth_invalid",
    ),
    (
        |v| v["delegation"] = json!({"allowedCallers": []}),
        "agent.profile_delegation_callers_empty",
    ),
    (
        |v| v["delegation"] = json!({"allowedCallers": ["planner", "Bad Caller"]}),
        "agent.profile_id_invalid",
    ),
    (
        |v| v["delegation"] = json!({"descriptionForAgents": "  "}),
        "agent.profile_delegation_description_empty",
    ),
    (
        |v| v["delegation"] = json!({"allowAsHandoffTarget": true}),
        "agent.profile_delegation_callable_required",
    ),
    (
        |v| v["delegation"] = json!({"callable": true}),
        "agent.profile_delegation_target_mode_required",
    ),
    (
        |v| push_tool(v, "agent.list"),
        "agent.profile_agent_list_requires_delegation",
    ),
    (
        |v| push_tool(v, "agent.await"),
        "agent.profile_agent_delegate_requires_delegation",
    ),
    (
        |v| push_tool(v, "agent.handoff"),
        "agent.profile_agent_handoff_requires_handoff",
    ),
    (
        |v| push_tool(v, "task.return"),
        "agent.profile_task_return_runtime_only",
    ),
    (
        |v| v["run"]["modelRetry"] = json!({"maxRetries": 2, "intervalMs": 0}),
        "agent.profile_model_retry_invalid",
    ),
    (
        |v| v["run"]["directRunnable"] = json!(false),
        "agent.profile_subagent_only_background_required",
    ),
    (
        |v| v["run"] = json!({"presentation": "background", "directRunnable": false}),
        "agent.profile_direct_runnable_disabled_requires_delegation_target",
    ),
    (
        |v| v["tools"]["deny"] = json!(["workspace.finish"]),
        "agent.profile_finish_required",
    ),
    (
        |v| v["tools"]["deny"] = json!(["workspace.commit"]),
        "agent.profile_commit_required",
    ),
    (
        |v| v["skills"]["visible"] = json!([]),
        "agent.profile_skill_visible_empty",
    ),
    (
        |v| v["skills"]["maxReadCharsPerCall"] = json!(100_000),
        "agent.profile_skill_budget_invalid",
    ),
    (
        |v| v["skills"]["maxReadCharsPerRun"] = json!(0),
        "agent.profile_skill_budget_invalid",
    ),
    (
        |v| v["skills"]["deny"] = json!(["My Skill"]),
        "agent.profile_skill_name_invalid",
    ),
    (
        |v| v["workspace"]["visibleRoots"] = json!([]),
        "agent.profile_workspace_visible_empty",
    ),
    (
        |v| v["workspace"]["visibleRoots"] = json!(["output", "input"]),
        "agent.profile_workspace_root_invalid",
    ),
    (
        |v| {
            v["workspace"] =
                json!({"visibleRoots": ["output"], "writableRoots": ["output", "persist"]})
        },
        "agent.profile_workspace_root_invalid",
    ),
    (
        |v| v["output"]["artifacts"] = json!([]),
        "agent.profile_output_empty",
    ),
    (
        |v| v["output"]["artifacts"][0]["id"] = json!("Main!"),
        "agent.profile_artifact_id_invalid",
    ),
    (
        |v| push_body(v, "main", "output/b.md"),
        "agent.profile_output_duplicate_id",
    ),
    (
        |v| push_body(v, "b", "output/./main.md"),
        "agent.profile_output_duplicate_path",
    ),
    (
        |v| v["output"]["artifacts"][0]["kind"] = json!(""),
        "agent.profile_output_kind_required",
    ),
    (
        |v| v["output"]["artifacts"][0]["path"] = json!("../main.md"),
        "agent.profile_output_path_denied",
    ),
    (
        |v| v["output"]["artifacts"][0]["path"] = json!("tool-results/main.md"),
        "agent.profile_output_path_denied",
    ),
    (
        |v| v["output"]["artifacts"][0]["path"] = json!("output"),
        "agent.profile_output_path_denied",
    ),
    (
        |v| v["workspace"]["writableRoots"] = json!(["scratch"]),
        "agent.profile_output_path_denied",
    ),
    (
        |v| push_body(v, "b", "output/b.md"),
        "agent.profile_output_duplicate_message_body",
    ),
];

#[test]
fn the_default_writer_is_valid() {
    validate(&default_writer()).unwrap();
}

#[test]
fn each_rule_reports_its_own_code() {
    for (index, (mutate, expected)) in CASES.iter().enumerate() {
        let mut value = default_writer().to_json_value().unwrap();
        mutate(&mut value);
        let err = outcome(value).expect_err(&format!("case {index} should fail with {expected}"));
        assert_eq!(err.code(), *expected, "case {index}: {err}");
    }
}

/// Codes raised outside document validation: by strict resolves, run start and lookups.
const OUTSIDE_VALIDATION: [&str; 4] = [
    "agent.profile_preset_missing",
    "agent.profile_model_requires_configuration",
    "agent.profile_not_direct_runnable",
    "agent.profile_not_found",
];

#[test]
fn every_validation_code_is_covered() {
    let mut covered: BTreeSet<&str> = CASES.iter().map(|(_, code)| *code).collect();
    covered.insert("agent.profile_output_message_body_missing"); // see the test below
    let missing: Vec<&str> = every_variant()
        .iter()
        .map(ErrorCode::code)
        .filter(|code| !covered.contains(code) && !OUTSIDE_VALIDATION.contains(code))
        .collect();
    assert!(missing.is_empty(), "no case for {missing:?}");
}

#[test]
fn a_missing_message_body_is_reported() {
    let err = single_message_body(&[]).unwrap_err();
    assert_eq!(err.code(), "agent.profile_output_message_body_missing");
}

#[test]
fn validate_refuses_a_document_left_at_an_old_version() {
    let mut document = default_writer();
    document.schema_version = 2;
    assert_eq!(
        validate(&document).unwrap_err().code(),
        "agent.profile_schema_unsupported"
    );
}

#[test]
fn messages_name_the_offending_value() {
    let mut value = default_writer().to_json_value().unwrap();
    push_tool(&mut value, "web:fetch");
    let err = outcome(value).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("tools.allow") && message.contains("web:fetch"),
        "{message}"
    );

    let mut value = default_writer().to_json_value().unwrap();
    value["tools"]["maxCallsPerTool"] = json!({"dice.roll": 2});
    let message = outcome(value).unwrap_err().to_string();
    assert!(message.contains("builtin:dice.roll"), "{message}");
}

#[test]
fn mcp_tools_are_accepted_with_any_property_override() {
    let mcp = "mcp/0f8fad5b-d9cb-469f-a165-70867728950e:issue.create";
    let mut value = default_writer().to_json_value().unwrap();
    push_tool(&mut value, mcp);
    value["tools"]["toolDescriptions"] =
        json!({ mcp: {"description": "File an issue.", "properties": {"title": "Short title."}} });
    value["tools"]["maxCallsPerTool"] = json!({ mcp: 1 });
    outcome(value).unwrap();
}

#[test]
fn delegating_and_background_profiles_are_valid() {
    let mut value = default_writer().to_json_value().unwrap();
    for tool in ["agent.list", "agent.delegate", "agent.await"] {
        push_tool(&mut value, tool);
    }
    value["delegation"]["canDelegate"] = json!(true);
    outcome(value).unwrap();

    let mut value = default_writer().to_json_value().unwrap();
    value["run"] = json!({"presentation": "background", "directRunnable": false});
    value["delegation"] = json!({
        "callable": true,
        "allowAsSubagent": true,
        "allowedCallers": ["default-writer"],
        "descriptionForAgents": "Checks facts."
    });
    value["tools"]["deny"] = json!(["workspace.commit", "workspace.finish"]);
    outcome(value).unwrap();

    // A foreground handoff target need not be directly runnable nor able to finish.
    let mut value = default_writer().to_json_value().unwrap();
    value["run"]["directRunnable"] = json!(false);
    value["delegation"] = json!({"callable": true, "allowAsHandoffTarget": true});
    value["tools"]["deny"] = json!(["workspace.finish"]);
    outcome(value).unwrap();
}
