//! Compiled tool snapshots for real profiles, pinned with insta: what a model is offered,
//! under which aliases, with which budgets.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::Arc;

use agent_domain::profile::{AgentProfileDocument, ProfileSource, default_writer, resolve};
use agent_domain::tool::{
    ExitPolicy, InvocationToolSnapshot, McpToolEntry, SnapshotCompilation, SnapshotInputs,
    ToolDescriptor, ToolId, builtin_catalog, compile_snapshot, is_valid_alias,
};
use serde_json::{Value, json};

/// Builds a profile from the default writer with `edit` applied to its JSON (schema 3).
fn profile(edit: impl FnOnce(&mut Value)) -> AgentProfileDocument {
    let mut json = default_writer().to_json_value().unwrap();
    edit(&mut json);
    AgentProfileDocument::from_value(json).unwrap()
}

fn compile(
    document: &AgentProfileDocument,
    exit: ExitPolicy,
    mcp: &BTreeMap<ToolId, McpToolEntry>,
) -> SnapshotCompilation {
    let resolved = resolve(document, ProfileSource::File).unwrap();
    let catalog = builtin_catalog().unwrap();
    let invocation_id = match exit {
        ExitPolicy::TaskReturnRequired => "inv_child",
        ExitPolicy::RunFinishAllowed => "inv_root",
    };
    compile_snapshot(SnapshotInputs {
        invocation_id,
        policy: &resolved.tool_policy(),
        exit_policy: exit,
        builtins: &catalog,
        mcp,
    })
    .unwrap()
}

fn aliases(snapshot: &InvocationToolSnapshot) -> Vec<&str> {
    snapshot
        .bindings()
        .iter()
        .map(|b| b.model_alias.as_str())
        .collect()
}

#[test]
fn default_writer_snapshot() {
    let out = compile(
        &default_writer(),
        ExitPolicy::RunFinishAllowed,
        &BTreeMap::new(),
    );
    assert!(out.diagnostics.is_empty());
    insta::assert_json_snapshot!(out.snapshot);
}

#[test]
fn return_mode_child_snapshot() {
    let out = compile(
        &default_writer(),
        ExitPolicy::TaskReturnRequired,
        &BTreeMap::new(),
    );
    let names = aliases(&out.snapshot);
    assert!(!names.contains(&"workspace_commit") && !names.contains(&"workspace_finish"));
    assert_eq!(names.last(), Some(&"task_return"));
    assert_eq!(names.iter().filter(|a| **a == "task_return").count(), 1);
    insta::assert_json_snapshot!(out.snapshot.summary());
}

const GITHUB_A: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";
const GITHUB_B: &str = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const LONG: &str = "9b2c1f3e-1d2a-4c5b-8e7f-0a1b2c3d4e5f";

/// 40 usable MCP tools from three servers: two registrations both called "GitHub" with the
/// same tool names (alias collisions), and one server with a very long name and long tool
/// names (64-byte truncation); plus one tool left out for its schema.
fn mcp_fixture() -> (Vec<ToolId>, BTreeMap<ToolId, McpToolEntry>) {
    let mut ids = Vec::new();
    let mut entries = BTreeMap::new();
    let mut add = |registration: &str, server: &str, native: String, schema: Value| {
        let id = ToolId::mcp(registration, &native).unwrap();
        entries.insert(
            id.clone(),
            McpToolEntry::Available {
                server_display_name: server.to_owned(),
                descriptor: Arc::new(ToolDescriptor {
                    id: id.clone(),
                    title: native.clone(),
                    description: format!("{server}: {native}"),
                    input_schema: schema,
                    output_schema: None,
                    annotations: Value::Null,
                }),
            },
        );
        ids.push(id);
    };
    let object = || json!({"type": "object", "properties": {}});
    let actions = [
        "issue.create",
        "issue.list",
        "pr.merge",
        "repo.search",
        "file.read",
        "file.write",
        "user.me",
        "gist.create",
        "actions.run",
        "release.draft",
        "label.add",
        "commit.get",
        "branch.list",
    ];
    for action in actions {
        add(GITHUB_A, "GitHub", action.to_owned(), object());
        add(GITHUB_B, "GitHub", action.to_owned(), object());
    }
    for n in 0..14 {
        add(
            LONG,
            "Acme Corporation Internal Knowledge Base & Document Search (staging)",
            format!("search_documents_by_semantic_similarity_and_metadata_filters_v{n}"),
            object(),
        );
    }
    add(
        GITHUB_A,
        "GitHub",
        "broken.schema".to_owned(),
        json!({"type": "array"}),
    );
    (ids, entries)
}

#[test]
fn builtins_and_forty_mcp_tools_from_three_servers() {
    let (mcp_ids, entries) = mcp_fixture();
    assert_eq!(mcp_ids.len(), 41);
    let document = profile(|json| {
        let allow = json["tools"]["allow"].as_array_mut().unwrap();
        allow.truncate(4);
        allow.extend(mcp_ids.iter().map(|id| json!(id.to_string())));
        allow.push(json!("builtin:workspace.write_file"));
        allow.push(json!("builtin:workspace.commit"));
        allow.push(json!("builtin:workspace.finish"));
    });
    let out = compile(&document, ExitPolicy::RunFinishAllowed, &entries);
    let names = aliases(&out.snapshot);
    assert_eq!(names.len(), 4 + 40 + 3);
    assert!(names.iter().all(|a| is_valid_alias(a)));
    assert!(names.contains(&"mcp__GitHub__issue_create"));
    assert!(names.contains(&"mcp__GitHub__issue_create__2"));
    assert!(names.iter().any(|a| a.len() == 64));
    assert_eq!(out.diagnostics.len(), 1);
    insta::assert_json_snapshot!(
        "forty_mcp_tools",
        json!({
            "snapshot": out.snapshot.summary(),
            "diagnostics": out.diagnostics,
        })
    );
}

#[test]
fn deny_removes_an_allowed_tool() {
    let document = profile(|json| {
        json["tools"]["deny"] = json!(["builtin:chat.search", "builtin:skill.search"]);
    });
    let out = compile(&document, ExitPolicy::RunFinishAllowed, &BTreeMap::new());
    let names = aliases(&out.snapshot);
    assert!(!names.contains(&"chat_search") && !names.contains(&"skill_search"));
    insta::assert_json_snapshot!(out.snapshot.summary());
}

#[test]
fn description_overrides_apply_to_the_frozen_copy() {
    let document = profile(|json| {
        json["tools"]["toolDescriptions"] = json!({
            "builtin:workspace.write_file": {
                "description": "Write your story draft. Keep chapters in output/chapters/.",
                "properties": {"content": "The full chapter text in Markdown."}
            },
            "builtin:chat.search": {"description": "Find earlier scenes in this roleplay."}
        });
        json["tools"]["maxCallsPerTool"] = json!({"builtin:chat.search": 8});
    });
    let out = compile(&document, ExitPolicy::RunFinishAllowed, &BTreeMap::new());
    let changed: Vec<_> = out
        .snapshot
        .bindings()
        .iter()
        .filter(|b| ["chat_search", "workspace_write_file"].contains(&b.model_alias.as_str()))
        .collect();
    assert_eq!(changed.len(), 2);
    let pristine = builtin_catalog().unwrap();
    let original = pristine
        .get(&ToolId::parse("workspace.write_file").unwrap())
        .unwrap();
    assert_ne!(original.description, changed[1].descriptor.description);
    insta::assert_json_snapshot!(changed);
}

#[path = "support/two_hundred_tools.rs"]
mod two_hundred_tools;

/// The bench's 200 tools compile to exactly these ids, aliases and budgets, with the MCP
/// descriptors passed through untouched: the compiler's speed work must not change them.
#[test]
fn bench_inputs_compile_to_pinned_aliases() {
    let (policy, mcp) = two_hundred_tools::inputs();
    let catalog = builtin_catalog().unwrap();
    let out = compile_snapshot(SnapshotInputs {
        invocation_id: "inv_root",
        policy: &policy,
        exit_policy: ExitPolicy::RunFinishAllowed,
        builtins: &catalog,
        mcp: &mcp,
    })
    .unwrap();
    assert!(out.diagnostics.is_empty());
    let bindings = out.snapshot.bindings();
    assert_eq!(bindings.len(), two_hundred_tools::TOOLS);
    for binding in bindings {
        match mcp.get(binding.tool_id()) {
            Some(McpToolEntry::Available { descriptor, .. }) => {
                assert_eq!(&binding.descriptor, descriptor);
            }
            Some(McpToolEntry::Unavailable { .. }) => {
                panic!("{} is unavailable", binding.tool_id())
            }
            None => assert!(catalog.get(binding.tool_id()).is_some()),
        }
    }
    insta::assert_json_snapshot!("two_hundred_tools", out.snapshot.summary());
}
