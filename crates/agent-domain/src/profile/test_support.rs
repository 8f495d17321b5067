//! Fixtures shared by the profile tests.

use serde_json::{Value, json};

use super::default_writer;

/// The default writer as a schema 2 file would spell it: bare tool names, no MCP limit.
pub(crate) fn legacy_writer_json() -> Value {
    let mut value = default_writer().to_json_value().unwrap();
    value["schemaVersion"] = json!(2);
    let tools = value["tools"].as_object_mut().unwrap();
    tools.remove("mcpResultInlineCharLimit");
    for name in tools["allow"].as_array_mut().unwrap() {
        let bare = name
            .as_str()
            .unwrap()
            .trim_start_matches("builtin:")
            .to_owned();
        *name = Value::String(bare);
    }
    value
}

/// The smallest schema 1 document of the documented example shape.
pub(crate) fn minimal_v1_json() -> Value {
    json!({
        "schemaVersion": 1,
        "kind": "tauritavern.agentProfile",
        "id": "my-writer",
        "displayName": "My Writer",
        "preset": {"mode": "currentPromptSnapshot"},
        "model": {"mode": "currentPromptSnapshot"},
        "run": {"presentation": "foreground", "modelRetry": {"maxRetries": 3, "intervalMs": 3000}},
        "instructions": {"agentSystemPrompt": null},
        "tools": {
            "allow": ["chat.search", "workspace.read_file", "workspace.write_file",
                      "workspace.commit", "workspace.finish"],
            "deny": [],
            "maxRounds": 40
        },
        "skills": {"visible": ["*"]},
        "workspace": {"visibleRoots": ["output", "scratch"], "writableRoots": ["output"]},
        "plan": {"mode": "none"},
        "output": {"artifacts": [{
            "id": "main", "path": "output/main.md", "kind": "markdown", "target": "messageBody"
        }]}
    })
}
