//! Reading and writing profile documents across schema versions.
//!
//! * Schema 2 (TauriTavern's June format) names tools by bare builtin name
//!   (`workspace.read_file`) in `tools.allow`, `tools.deny` and the keys of
//!   `tools.toolDescriptions` and `tools.maxCallsPerTool`.
//! * Schema 1 is read exactly like schema 2. Schema 1 predates `context`, `delegation`,
//!   `run.directRunnable` and the `connectionRef` model fields; all of those are optional
//!   with defaults in schema 2 already, so a schema 1 file needs no rewriting beyond what
//!   schema 2 gets. (Assumption: nothing in schema 1 means something different in 2.)
//! * Schema 3 names tools by canonical id (`builtin:workspace.read_file`,
//!   `mcp/<uuid>:<native>`) and adds `tools.mcpResultInlineCharLimit`.
//!
//! Every document is migrated in memory to schema 3; tool names are rewritten to canonical
//! ids. Documents are always written as schema 3.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::schema::{AgentProfileDocument, CURRENT_SCHEMA_VERSION, ToolsBlock};
use super::{ProfileError, ToolName};

/// Schema versions this runtime reads.
pub const SUPPORTED_SCHEMA_VERSIONS: [u32; 3] = [1, 2, 3];

impl AgentProfileDocument {
    /// Parses a profile file of any supported schema version into the current schema.
    ///
    /// Malformed JSON, a wrong type or an unknown field gives
    /// `agent.profile_contract_invalid` with the parser's message (which names the field).
    /// Rules about values (ids, tools, roots, …) are checked later by
    /// [`validate`](super::validate) / [`resolve`](super::resolve).
    pub fn from_json(text: &str) -> Result<Self, ProfileError> {
        let value: Value = serde_json::from_str(text).map_err(contract)?;
        Self::from_value(value)
    }

    /// Like [`from_json`](Self::from_json), for an already parsed JSON value.
    pub fn from_value(mut value: Value) -> Result<Self, ProfileError> {
        let Some(object) = value.as_object_mut() else {
            return Err(ProfileError::ContractInvalid {
                detail: "a profile must be a JSON object".to_owned(),
            });
        };
        let version = schema_version(object)?;
        if version < CURRENT_SCHEMA_VERSION {
            reject_newer_fields(object, version)?;
        }
        object.insert(
            "schemaVersion".to_owned(),
            Value::from(CURRENT_SCHEMA_VERSION),
        );
        let mut document: Self = serde_json::from_value(value).map_err(contract)?;
        canonicalise_tools(&mut document.tools, version)?;
        Ok(document)
    }

    /// The document as a JSON value in the current schema, tool names as canonical ids.
    pub fn to_json_value(&self) -> Result<Value, ProfileError> {
        serde_json::to_value(self.as_current()).map_err(contract)
    }

    /// The document as pretty-printed JSON in the current schema, fields in format order:
    /// what the store writes.
    pub fn to_json_pretty(&self) -> Result<String, ProfileError> {
        serde_json::to_string_pretty(&self.as_current()).map_err(contract)
    }

    /// Tool names already serialise canonically; only the version stamp needs fixing.
    fn as_current(&self) -> Cow<'_, Self> {
        if self.schema_version == CURRENT_SCHEMA_VERSION {
            return Cow::Borrowed(self);
        }
        let mut current = self.clone();
        current.schema_version = CURRENT_SCHEMA_VERSION;
        Cow::Owned(current)
    }
}

fn contract(err: serde_json::Error) -> ProfileError {
    ProfileError::ContractInvalid {
        detail: err.to_string(),
    }
}

fn schema_version(object: &Map<String, Value>) -> Result<u32, ProfileError> {
    let Some(raw) = object.get("schemaVersion") else {
        return Err(ProfileError::SchemaUnsupported {
            found: "(missing)".to_owned(),
        });
    };
    raw.as_u64()
        .and_then(|v| u32::try_from(v).ok())
        .filter(|v| SUPPORTED_SCHEMA_VERSIONS.contains(v))
        .ok_or_else(|| ProfileError::SchemaUnsupported {
            found: raw.to_string(),
        })
}

/// Fields that schema 3 introduced are unknown fields in older documents.
fn reject_newer_fields(object: &Map<String, Value>, version: u32) -> Result<(), ProfileError> {
    let tools = object.get("tools").and_then(Value::as_object);
    if tools.is_some_and(|tools| tools.contains_key("mcpResultInlineCharLimit")) {
        return Err(ProfileError::ContractInvalid {
            detail: format!(
                "unknown field `mcpResultInlineCharLimit` in `tools` of a schema version \
                 {version} profile; the field exists from schemaVersion 3 on"
            ),
        });
    }
    Ok(())
}

/// Rewrites every tool name to its canonical id. Names that do not parse are left for
/// validation to report with their field.
fn canonicalise_tools(tools: &mut ToolsBlock, version: u32) -> Result<(), ProfileError> {
    for (field, names) in [
        ("tools.allow", &mut tools.allow),
        ("tools.deny", &mut tools.deny),
    ] {
        for name in names.iter_mut() {
            check_legacy_spelling(field, name, version)?;
            *name = name.canonical();
        }
    }
    tools.tool_descriptions = canonical_keys(
        "tools.toolDescriptions",
        std::mem::take(&mut tools.tool_descriptions),
        version,
    )?;
    tools.max_calls_per_tool = canonical_keys(
        "tools.maxCallsPerTool",
        std::mem::take(&mut tools.max_calls_per_tool),
        version,
    )?;
    Ok(())
}

fn canonical_keys<V>(
    field: &str,
    map: BTreeMap<ToolName, V>,
    version: u32,
) -> Result<BTreeMap<ToolName, V>, ProfileError> {
    let mut out = BTreeMap::new();
    for (name, value) in map {
        check_legacy_spelling(field, &name, version)?;
        let canonical = name.canonical();
        if out.contains_key(&canonical) {
            return Err(ProfileError::ContractInvalid {
                detail: format!("{field} names `{canonical}` more than once (once as `{name}`)"),
            });
        }
        out.insert(canonical, value);
    }
    Ok(out)
}

/// Schemas 1 and 2 only know builtin tools, spelled by bare name.
fn check_legacy_spelling(field: &str, name: &ToolName, version: u32) -> Result<(), ProfileError> {
    if version < CURRENT_SCHEMA_VERSION && name.as_str().contains(':') {
        return Err(ProfileError::UnknownTool {
            field: field.to_owned(),
            tool: name.to_string(),
            reason: format!(
                "a schema version {version} profile names builtin tools by bare name such as \
                 `workspace.read_file`; tool ids need schemaVersion 3"
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::ErrorCode;
    use crate::profile::default_writer;
    use crate::profile::test_support::{legacy_writer_json, minimal_v1_json};

    fn code_of(value: Value) -> &'static str {
        AgentProfileDocument::from_value(value).unwrap_err().code()
    }

    #[test]
    fn current_schema_round_trips_unchanged() {
        let document = default_writer();
        let text = document.to_json_pretty().unwrap();
        let back = AgentProfileDocument::from_json(&text).unwrap();
        assert_eq!(back, document);
        assert_eq!(back.to_json_pretty().unwrap(), text);
    }

    #[test]
    fn documents_are_always_written_as_the_current_schema() {
        let mut document = default_writer();
        document.schema_version = 2;
        document.tools.allow[0] = ToolName::new("chat.search");
        let written = document.to_json_value().unwrap();
        assert_eq!(written["schemaVersion"], json!(3));
        assert_eq!(written["tools"]["allow"][0], json!("builtin:chat.search"));
        let text = document.to_json_pretty().unwrap();
        assert!(text.starts_with("{\n  \"schemaVersion\": 3,"), "{text}");
    }

    #[test]
    fn schema_one_and_two_migrate_to_three_with_canonical_ids() {
        let expected = default_writer().to_json_value().unwrap();
        for version in [1, 2] {
            let mut legacy = legacy_writer_json();
            legacy["schemaVersion"] = json!(version);
            let document = AgentProfileDocument::from_value(legacy).unwrap();
            assert_eq!(document.schema_version, CURRENT_SCHEMA_VERSION);
            assert_eq!(document.tools.allow[0].as_str(), "builtin:chat.search");
            assert_eq!(
                document.to_json_value().unwrap(),
                expected,
                "version {version}"
            );
        }
    }

    #[test]
    fn legacy_map_keys_are_canonicalised() {
        let mut legacy = legacy_writer_json();
        legacy["tools"]["maxCallsPerTool"] = json!({"chat.search": 8});
        legacy["tools"]["toolDescriptions"] =
            json!({"workspace.finish": {"description": "End the run."}});
        let document = AgentProfileDocument::from_value(legacy).unwrap();
        let written = document.to_json_value().unwrap();
        assert_eq!(written["schemaVersion"], json!(3));
        assert_eq!(
            written["tools"]["maxCallsPerTool"],
            json!({"builtin:chat.search": 8})
        );
        assert_eq!(
            written["tools"]["toolDescriptions"],
            json!({"builtin:workspace.finish": {"description": "End the run."}})
        );
    }

    #[test]
    fn schema_three_accepts_bare_builtin_names_and_writes_ids() {
        let mut value = default_writer().to_json_value().unwrap();
        value["tools"]["allow"][0] = json!("chat.search");
        let document = AgentProfileDocument::from_value(value).unwrap();
        assert_eq!(document.tools.allow[0].as_str(), "builtin:chat.search");
    }

    #[test]
    fn legacy_documents_cannot_use_tool_ids_or_the_mcp_limit() {
        let mut legacy = legacy_writer_json();
        legacy["tools"]["allow"][0] = json!("builtin:chat.search");
        assert_eq!(code_of(legacy), "agent.profile_unknown_tool");

        let mut legacy = legacy_writer_json();
        legacy["tools"]["mcpResultInlineCharLimit"] = json!(1000);
        let err = AgentProfileDocument::from_value(legacy).unwrap_err();
        assert_eq!(err.code(), "agent.profile_contract_invalid");
        assert!(
            err.to_string().contains("mcpResultInlineCharLimit"),
            "{err}"
        );
    }

    #[test]
    fn unsupported_or_missing_versions_are_refused() {
        for version in [json!(0), json!(4), json!("3"), json!(2.5), json!(null)] {
            let mut value = default_writer().to_json_value().unwrap();
            value["schemaVersion"] = version.clone();
            assert_eq!(
                code_of(value),
                "agent.profile_schema_unsupported",
                "{version}"
            );
        }
        let mut value = default_writer().to_json_value().unwrap();
        value.as_object_mut().unwrap().remove("schemaVersion");
        assert_eq!(code_of(value), "agent.profile_schema_unsupported");
    }

    #[test]
    fn unknown_fields_are_named() {
        let mut value = default_writer().to_json_value().unwrap();
        value["run"]["streaming"] = json!(true);
        let err = AgentProfileDocument::from_value(value).unwrap_err();
        assert_eq!(err.code(), "agent.profile_contract_invalid");
        assert!(err.to_string().contains("`streaming`"), "{err}");

        let mut value = default_writer().to_json_value().unwrap();
        value["colour"] = json!("red");
        let err = AgentProfileDocument::from_value(value).unwrap_err();
        assert!(err.to_string().contains("`colour`"), "{err}");
    }

    #[test]
    fn malformed_json_and_non_objects_are_contract_errors() {
        let err = AgentProfileDocument::from_json("{\"schemaVersion\": 3,").unwrap_err();
        assert_eq!(err.code(), "agent.profile_contract_invalid");
        assert_eq!(code_of(json!([1, 2])), "agent.profile_contract_invalid");
        let mut value = default_writer().to_json_value().unwrap();
        value["tools"]["maxRounds"] = json!(-1);
        assert_eq!(code_of(value), "agent.profile_contract_invalid");
    }

    #[test]
    fn a_tool_named_twice_in_a_map_is_refused() {
        let mut value = default_writer().to_json_value().unwrap();
        value["tools"]["maxCallsPerTool"] = json!({"chat.search": 2, "builtin:chat.search": 3});
        let err = AgentProfileDocument::from_value(value).unwrap_err();
        assert_eq!(err.code(), "agent.profile_contract_invalid");
        assert!(err.to_string().contains("builtin:chat.search"), "{err}");
    }

    #[test]
    fn the_documented_minimal_v1_shape_is_read() {
        let document = AgentProfileDocument::from_value(minimal_v1_json()).unwrap();
        assert_eq!(document.schema_version, 3);
        assert_eq!(document.tools.allow[4].as_str(), "builtin:workspace.finish");
        assert_eq!(document.tools.max_calls_per_run, 80);
        assert!(!document.output.artifacts[0].required);
    }

    #[test]
    fn optional_blocks_take_their_defaults() {
        let mut legacy = legacy_writer_json();
        let object = legacy.as_object_mut().unwrap();
        for key in ["context", "delegation", "instructions"] {
            object.remove(key);
        }
        legacy["run"] = json!({"presentation": "foreground"});
        let document = AgentProfileDocument::from_value(legacy).unwrap();
        assert_eq!(document.context.initial_chat_history_messages, -1);
        assert!(document.context.include_activated_world_info);
        assert_eq!(document.delegation.allowed_callers, ["*"]);
        assert_eq!(document.delegation.max_invocations_per_run, 8);
        assert!(document.run.direct_runnable);
        assert_eq!(document.run.model_retry.max_retries, 3);
        assert_eq!(document.run.model_retry.interval_ms, 3_000);
        assert_eq!(document.tools.mcp_result_inline_char_limit, 50_000);
        assert!(document.instructions.agent_system_prompt.is_none());
    }
}
