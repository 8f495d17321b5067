//! `tools` rules: budgets, names, visibility, description overrides and per-tool caps.

use std::collections::BTreeMap;

use super::super::schema::ToolsBlock;
use super::super::{ProfileError, ToolName};
use super::CheckedTools;
use super::header::is_blank;
use crate::tool::builtin::builtin_descriptor;
use crate::tool::{BuiltinTool, DescriptionOverride, ToolId};

pub(super) fn check_tools(tools: &ToolsBlock) -> Result<CheckedTools, ProfileError> {
    if tools.max_rounds == 0 {
        return Err(ProfileError::MaxRoundsInvalid);
    }
    if tools.max_calls_per_run == 0 {
        return Err(ProfileError::MaxCallsInvalid);
    }
    if tools.mcp_result_inline_char_limit == 0 {
        return Err(ProfileError::McpResultInlineCharLimitInvalid);
    }
    if tools.allow.is_empty() {
        return Err(ProfileError::ToolsEmpty);
    }
    let allow = parse_list("tools.allow", &tools.allow, |tool| {
        ProfileError::ToolsAllowDuplicate { tool }
    })?;
    let deny = parse_list("tools.deny", &tools.deny, |tool| {
        ProfileError::ToolsDenyDuplicate { tool }
    })?;
    let mut checked = CheckedTools {
        allow,
        deny,
        descriptions: BTreeMap::new(),
        max_calls_per_tool: BTreeMap::new(),
    };
    if !checked.is_builtin_visible(BuiltinTool::WorkspaceWriteFile) {
        return Err(ProfileError::OutputWriterRequired);
    }
    for (name, wording) in &tools.tool_descriptions {
        let id = parse_tool("tools.toolDescriptions", name)?;
        check_description(&checked, &id, wording)?;
        checked.descriptions.insert(id, wording.clone());
    }
    for (name, cap) in &tools.max_calls_per_tool {
        let id = parse_tool("tools.maxCallsPerTool", name)?;
        if !checked.is_visible(&id) {
            return Err(ProfileError::ToolBudgetInvisible {
                tool: id.to_string(),
            });
        }
        if *cap == 0 {
            return Err(ProfileError::ToolBudgetInvalid {
                tool: id.to_string(),
            });
        }
        checked.max_calls_per_tool.insert(id, *cap);
    }
    Ok(checked)
}

fn parse_list(
    field: &str,
    names: &[ToolName],
    duplicate: impl Fn(String) -> ProfileError,
) -> Result<Vec<ToolId>, ProfileError> {
    let mut ids: Vec<ToolId> = Vec::with_capacity(names.len());
    for name in names {
        let id = parse_tool(field, name)?;
        if ids.contains(&id) {
            return Err(duplicate(id.to_string()));
        }
        ids.push(id);
    }
    Ok(ids)
}

/// A tool id that parses and, when builtin, names a builtin that exists. MCP ids are
/// accepted here; whether the server offers the tool is checked against the catalog
/// when the invocation's snapshot is compiled.
fn parse_tool(field: &str, name: &ToolName) -> Result<ToolId, ProfileError> {
    let unknown = |reason: String| ProfileError::UnknownTool {
        field: field.to_owned(),
        tool: name.to_string(),
        reason,
    };
    let id = name.to_id().map_err(|err| unknown(err.to_string()))?;
    if id.is_builtin() && BuiltinTool::from_id(&id).is_none() {
        return Err(unknown(
            "there is no builtin tool with this name".to_owned(),
        ));
    }
    Ok(id)
}

/// Overrides only make sense for tools the model sees, and must not blank out wording.
/// Property names are checked against a builtin's input schema; an MCP tool's schema is
/// not known here, so its property overrides are accepted as written.
fn check_description(
    tools: &CheckedTools,
    id: &ToolId,
    wording: &DescriptionOverride,
) -> Result<(), ProfileError> {
    let tool = id.to_string();
    if !tools.is_visible(id) {
        return Err(ProfileError::ToolDescriptionInvisible { tool });
    }
    if wording.description.as_deref().is_some_and(is_blank) {
        return Err(ProfileError::ToolDescriptionEmpty { tool });
    }
    let builtin = BuiltinTool::from_id(id).map(builtin_descriptor);
    for (property, text) in &wording.properties {
        let known = builtin
            .as_ref()
            .is_none_or(|d| d.input_property_names().any(|p| p == property));
        if !known {
            return Err(ProfileError::UnknownToolProperty {
                tool,
                property: property.clone(),
            });
        }
        if is_blank(text) {
            return Err(ProfileError::ToolPropertyDescriptionEmpty {
                tool,
                property: property.clone(),
            });
        }
    }
    Ok(())
}
