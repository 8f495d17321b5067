//! The immutable per-invocation tool snapshot and the compiler that builds it.
//!
//! Every root, return-mode child and handoff invocation compiles its snapshot once, at
//! start. From then on advertisement, alias decoding and the request gate read only the
//! snapshot; nothing re-reads the profile or a registry mid-invocation.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::{FxBuildHasher, FxHashSet};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::builtin::WorkspaceUse;
use super::{
    AliasAllocator, BuiltinTool, DescriptionOverride, ExitPolicy, ToolCatalog, ToolDescriptor,
    ToolId, ToolPolicy, is_valid_alias,
};
use crate::error::ErrorCode;
use crate::workspace::{RUNTIME_RESULTS_ROOT, RootAccess};

/// Version of the snapshot file format (`input/invocations/<id>/tool_snapshot.json`).
pub const TOOL_SNAPSHOT_SCHEMA_VERSION: u32 = 1;

/// One tool as frozen for an invocation: its descriptor (profile wording applied), the
/// alias the model calls it by, and its own call cap.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolBinding {
    /// Shared with the catalog or MCP entry it came from, so freezing a tool copies no
    /// schema; a binding whose wording the invocation changes owns its own copy.
    pub descriptor: Arc<ToolDescriptor>,
    pub model_alias: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_calls: Option<u32>,
}

impl ToolBinding {
    pub fn tool_id(&self) -> &ToolId {
        &self.descriptor.id
    }
}

/// The tools one invocation may request, in advertisement order, with their budgets.
///
/// Invariants (checked on construction and on deserialisation): ids and aliases are unique,
/// aliases match `^[A-Za-z0-9_-]{1,64}$`, and every budget is positive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "RawSnapshot")]
pub struct InvocationToolSnapshot {
    schema_version: u32,
    /// Equal to the invocation id within one run.
    id: String,
    exit_policy: ExitPolicy,
    bindings: Vec<ToolBinding>,
    max_calls_per_invocation: u32,
    mcp_result_inline_char_limit: u32,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSnapshot {
    schema_version: u32,
    id: String,
    exit_policy: ExitPolicy,
    bindings: Vec<ToolBinding>,
    max_calls_per_invocation: u32,
    mcp_result_inline_char_limit: u32,
}

impl TryFrom<RawSnapshot> for InvocationToolSnapshot {
    type Error = SnapshotError;
    fn try_from(raw: RawSnapshot) -> Result<Self, Self::Error> {
        if raw.schema_version != TOOL_SNAPSHOT_SCHEMA_VERSION {
            return Err(SnapshotError::SchemaUnsupported(raw.schema_version));
        }
        Self::new(
            raw.id,
            raw.exit_policy,
            raw.bindings,
            raw.max_calls_per_invocation,
            raw.mcp_result_inline_char_limit,
        )
    }
}

impl InvocationToolSnapshot {
    /// Builds a snapshot from finished bindings, checking its invariants.
    pub fn new(
        id: String,
        exit_policy: ExitPolicy,
        bindings: Vec<ToolBinding>,
        max_calls_per_invocation: u32,
        mcp_result_inline_char_limit: u32,
    ) -> Result<Self, SnapshotError> {
        if max_calls_per_invocation == 0 {
            return Err(SnapshotError::BudgetInvalid);
        }
        let mut ids = FxHashSet::with_capacity_and_hasher(bindings.len(), FxBuildHasher);
        let mut aliases = FxHashSet::with_capacity_and_hasher(bindings.len(), FxBuildHasher);
        for binding in &bindings {
            if binding.model_alias.is_empty() {
                return Err(SnapshotError::AliasEmpty(binding.tool_id().clone()));
            }
            if !is_valid_alias(&binding.model_alias) {
                return Err(SnapshotError::AliasInvalid(binding.model_alias.clone()));
            }
            if binding.max_calls == Some(0) {
                return Err(SnapshotError::ToolBudgetInvalid(binding.tool_id().clone()));
            }
            if !ids.insert(binding.tool_id()) {
                return Err(SnapshotError::DuplicateId(binding.tool_id().clone()));
            }
            if !aliases.insert(binding.model_alias.as_str()) {
                return Err(SnapshotError::DuplicateAlias(binding.model_alias.clone()));
            }
        }
        Ok(Self {
            schema_version: TOOL_SNAPSHOT_SCHEMA_VERSION,
            id,
            exit_policy,
            bindings,
            max_calls_per_invocation,
            mcp_result_inline_char_limit,
        })
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn schema_version(&self) -> u32 {
        self.schema_version
    }

    pub fn exit_policy(&self) -> ExitPolicy {
        self.exit_policy
    }

    /// Bindings in advertisement order.
    pub fn bindings(&self) -> &[ToolBinding] {
        &self.bindings
    }

    pub fn max_calls_per_invocation(&self) -> u32 {
        self.max_calls_per_invocation
    }

    pub fn mcp_result_inline_char_limit(&self) -> u32 {
        self.mcp_result_inline_char_limit
    }

    /// The binding of `id`, if the invocation may use that tool.
    pub fn binding(&self, id: &ToolId) -> Option<&ToolBinding> {
        self.bindings.iter().find(|b| b.tool_id() == id)
    }

    pub fn contains(&self, id: &ToolId) -> bool {
        self.binding(id).is_some()
    }

    /// The alias of a tool in this snapshot (for wording that names other tools, such as
    /// "read it with workspace_read_file").
    pub fn alias_of(&self, id: &ToolId) -> Option<&str> {
        self.binding(id).map(|b| b.model_alias.as_str())
    }

    /// A compact summary for the journal (`context_assembled`): ids, aliases and budgets,
    /// without descriptions or schemas.
    pub fn summary(&self) -> SnapshotSummary {
        SnapshotSummary {
            snapshot_id: self.id.clone(),
            schema_version: self.schema_version,
            exit_policy: self.exit_policy,
            tool_count: self.bindings.len(),
            max_calls_per_invocation: self.max_calls_per_invocation,
            tools: self
                .bindings
                .iter()
                .map(|b| SnapshotToolSummary {
                    tool_id: b.tool_id().clone(),
                    alias: b.model_alias.clone(),
                    max_calls: b.max_calls,
                })
                .collect(),
        }
    }
}

/// The journal's view of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotSummary {
    pub snapshot_id: String,
    pub schema_version: u32,
    pub exit_policy: ExitPolicy,
    pub tool_count: usize,
    pub max_calls_per_invocation: u32,
    pub tools: Vec<SnapshotToolSummary>,
}

/// One tool in a [`SnapshotSummary`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotToolSummary {
    pub tool_id: ToolId,
    pub alias: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_calls: Option<u32>,
}

/// What the MCP service knows about one MCP tool a profile selected, read from its cached
/// catalog (never from the network at invocation time).
#[derive(Debug, Clone, PartialEq)]
pub enum McpToolEntry {
    /// The tool is cached, its server active and its permission not off.
    Available {
        server_display_name: String,
        /// Shared with the cached catalog; bindings share it too.
        descriptor: Arc<ToolDescriptor>,
    },
    /// The tool cannot be offered; `code` is an `mcp.*` diagnostic code.
    Unavailable { code: String, message: String },
}

/// A tool the profile allowed that the snapshot leaves out, with the reason. Shown in the
/// invocation timeline and profile diagnostics; not an error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotDiagnostic {
    pub tool_id: ToolId,
    pub code: String,
    pub message: String,
}

/// Everything the compiler reads. All of it is already resolved; the compiler does no
/// lookups of its own.
#[derive(Debug, Clone, Copy)]
pub struct SnapshotInputs<'a> {
    pub invocation_id: &'a str,
    pub policy: &'a ToolPolicy,
    pub exit_policy: ExitPolicy,
    pub builtins: &'a ToolCatalog,
    /// Entries for the MCP tools the profile allows; a missing entry means "not cached".
    pub mcp: &'a BTreeMap<ToolId, McpToolEntry>,
}

/// A compiled snapshot plus the tools it had to leave out.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotCompilation {
    pub snapshot: InvocationToolSnapshot,
    pub diagnostics: Vec<SnapshotDiagnostic>,
}

/// Compiles the snapshot of one invocation.
///
/// Rules: allow order is advertisement order; deny beats allow; tools not allowed are
/// invisible; a return-mode child loses commit, finish and delegation control and gains
/// exactly one `task.return` (last); MCP tools without a usable cached descriptor, or whose
/// root input schema is not an explicit object, are left out with a diagnostic. Builtin
/// aliases are fixed; MCP aliases are allocated around them in allow order.
pub fn compile_snapshot(inputs: SnapshotInputs<'_>) -> Result<SnapshotCompilation, SnapshotError> {
    let policy = inputs.policy;
    let child = inputs.exit_policy == ExitPolicy::TaskReturnRequired;
    let mut diagnostics = Vec::new();
    let mut selected: Vec<(Arc<ToolDescriptor>, Source<'_>)> =
        Vec::with_capacity(policy.allow.len() + usize::from(child));

    for id in policy.allow.iter().filter(|id| !policy.deny.contains(id)) {
        if id.is_builtin() {
            let Some(builtin) = BuiltinTool::from_id(id) else {
                return Err(SnapshotError::UnknownBuiltin(id.clone()));
            };
            if builtin.is_runtime_only() {
                return Err(SnapshotError::RuntimeOnlyToolAllowed(id.clone()));
            }
            if child && builtin.is_withheld_from_children() {
                continue;
            }
            let descriptor = inputs
                .builtins
                .get(id)
                .ok_or_else(|| SnapshotError::UnknownBuiltin(id.clone()))?;
            let descriptor = with_root_wording(descriptor, builtin, &policy.roots);
            selected.push((descriptor, Source::Builtin(builtin)));
        } else {
            match inputs.mcp.get(id) {
                Some(McpToolEntry::Available {
                    server_display_name,
                    descriptor,
                }) if descriptor.has_object_input_schema() => {
                    selected.push((Arc::clone(descriptor), Source::Mcp(server_display_name)));
                }
                Some(McpToolEntry::Available { .. }) => diagnostics.push(SnapshotDiagnostic {
                    tool_id: id.clone(),
                    code: "mcp.agent_input_schema_unsupported".into(),
                    message: "the tool's input schema root is not an explicit object".into(),
                }),
                Some(McpToolEntry::Unavailable { code, message }) => {
                    diagnostics.push(SnapshotDiagnostic {
                        tool_id: id.clone(),
                        code: code.clone(),
                        message: message.clone(),
                    });
                }
                None => diagnostics.push(SnapshotDiagnostic {
                    tool_id: id.clone(),
                    code: "mcp.tool_not_in_cached_catalog".into(),
                    message: "the tool is not in its server's cached catalog".into(),
                }),
            }
        }
    }
    if child {
        let task_return = BuiltinTool::TaskReturn.id();
        let descriptor = inputs
            .builtins
            .get(&task_return)
            .ok_or(SnapshotError::UnknownBuiltin(task_return))?;
        selected.push((
            Arc::clone(descriptor),
            Source::Builtin(BuiltinTool::TaskReturn),
        ));
    }

    let builtin_aliases = selected
        .iter()
        .filter_map(|(_, source)| match source {
            Source::Builtin(builtin) => Some(builtin.model_alias()),
            Source::Mcp(_) => None,
        })
        .chain([BuiltinTool::TaskReturn.model_alias()]);
    let mut aliases = AliasAllocator::with_reserved(builtin_aliases);
    let bindings = selected
        .into_iter()
        .map(|(descriptor, source)| {
            let model_alias = match source {
                Source::Builtin(builtin) => builtin.model_alias(),
                Source::Mcp(server) => aliases.allocate_mcp(server, descriptor.id.native_name()),
            };
            let descriptor = match policy.descriptions.get(&descriptor.id) {
                Some(wording) => with_profile_wording(descriptor, wording),
                None => descriptor,
            };
            ToolBinding {
                max_calls: policy.max_calls_per_tool.get(&descriptor.id).copied(),
                descriptor,
                model_alias,
            }
        })
        .collect();

    let snapshot = InvocationToolSnapshot::new(
        inputs.invocation_id.to_owned(),
        inputs.exit_policy,
        bindings,
        policy.max_calls_per_invocation,
        policy.mcp_result_inline_char_limit,
    )?;
    Ok(SnapshotCompilation {
        snapshot,
        diagnostics,
    })
}

/// Where a selected tool comes from, which decides how its alias is made.
enum Source<'a> {
    /// A fixed alias derived from the native name.
    Builtin(BuiltinTool),
    /// An allocated alias; the MCP server's display name is its middle part.
    Mcp(&'a str),
}

/// Names the invocation's own roots in the wording of workspace tools, so the model knows
/// where it may look and write without trial and error. Other tools keep sharing the
/// catalog's descriptor.
fn with_root_wording(
    descriptor: &Arc<ToolDescriptor>,
    tool: BuiltinTool,
    roots: &RootAccess,
) -> Arc<ToolDescriptor> {
    let sentence = match tool.workspace_use() {
        WorkspaceUse::None => return Arc::clone(descriptor),
        WorkspaceUse::Reads => format!(
            "Visible roots: {}; {RUNTIME_RESULTS_ROOT}/ holds earlier tool results and is read-only.",
            RootAccess::describe(&roots.visible)
        ),
        WorkspaceUse::Writes => {
            format!("Writable roots: {}.", RootAccess::describe(&roots.writable))
        }
    };
    Arc::new(ToolDescriptor {
        description: format!("{} {sentence}", descriptor.description),
        ..ToolDescriptor::clone(descriptor)
    })
}

/// Applies a profile's replacement wording to the frozen copy; the catalog's descriptor is
/// never changed (the first write unshares it).
fn with_profile_wording(
    mut descriptor: Arc<ToolDescriptor>,
    wording: &DescriptionOverride,
) -> Arc<ToolDescriptor> {
    let frozen = Arc::make_mut(&mut descriptor);
    if let Some(text) = wording.description.as_deref().map(str::trim) {
        frozen.description = text.to_owned();
    }
    for (property, text) in &wording.properties {
        if let Some(schema) = frozen
            .input_schema
            .get_mut("properties")
            .and_then(|props| props.get_mut(property))
            .and_then(Value::as_object_mut)
        {
            schema.insert("description".into(), Value::String(text.trim().to_owned()));
        }
    }
    descriptor
}

/// Why a snapshot could not be compiled or loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    #[error("tool `{0}` has an empty model alias")]
    AliasEmpty(ToolId),
    #[error("model alias `{0}` is not 1-64 characters of [A-Za-z0-9_-]")]
    AliasInvalid(String),
    #[error("per-tool call cap of `{0}` must be at least 1")]
    ToolBudgetInvalid(ToolId),
    #[error("the invocation's total call cap must be at least 1")]
    BudgetInvalid,
    #[error("tool `{0}` appears twice in the snapshot")]
    DuplicateId(ToolId),
    #[error("model alias `{0}` appears twice in the snapshot")]
    DuplicateAlias(String),
    #[error("`{0}` is not a builtin tool")]
    UnknownBuiltin(ToolId),
    #[error(
        "`{0}` is provided by the runtime to delegated tasks and cannot be allowed by a profile"
    )]
    RuntimeOnlyToolAllowed(ToolId),
    #[error("tool snapshot schema version {0} is not supported")]
    SchemaUnsupported(u32),
}

impl ErrorCode for SnapshotError {
    fn code(&self) -> &'static str {
        match self {
            Self::AliasEmpty(_) => "tool.snapshot_alias_empty",
            Self::AliasInvalid(_) => "tool.snapshot_alias_invalid",
            Self::ToolBudgetInvalid(_) => "tool.snapshot_tool_budget_invalid",
            Self::BudgetInvalid => "tool.snapshot_budget_invalid",
            Self::DuplicateId(_) => "tool.snapshot_duplicate_id",
            Self::DuplicateAlias(_) => "tool.snapshot_duplicate_alias",
            Self::UnknownBuiltin(_) => "agent.profile_unknown_tool",
            Self::RuntimeOnlyToolAllowed(_) => "agent.profile_task_return_runtime_only",
            Self::SchemaUnsupported(_) => "tool.snapshot_schema_unsupported",
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;
    use crate::tool::test_support::{UUID_A, compile, id, mcp_descriptor, object_schema, policy};
    use crate::workspace::WorkspaceRoot;

    fn mcp(native: &str) -> ToolId {
        ToolId::mcp(UUID_A, native).unwrap()
    }

    fn available(server: &str, tool: &ToolId) -> McpToolEntry {
        McpToolEntry::Available {
            server_display_name: server.into(),
            descriptor: mcp_descriptor(tool, object_schema()),
        }
    }

    fn aliases(snapshot: &InvocationToolSnapshot) -> Vec<&str> {
        snapshot
            .bindings()
            .iter()
            .map(|b| b.model_alias.as_str())
            .collect()
    }

    #[test]
    fn allow_order_is_advertisement_order_and_deny_wins() {
        let mut p = policy(&[
            "workspace.finish",
            "chat.search",
            "workspace.read_file",
            "dice.roll",
        ]);
        p.deny = vec![id("chat.search"), id("skill.read")];
        let snap = compile(&p, ExitPolicy::RunFinishAllowed, &BTreeMap::new())
            .unwrap()
            .snapshot;
        assert_eq!(
            aliases(&snap),
            ["workspace_finish", "workspace_read_file", "dice_roll"]
        );
        assert!(!snap.contains(&id("chat.search")));
        assert!(!snap.contains(&id("skill.read")));
    }

    #[test]
    fn children_lose_control_tools_and_gain_one_task_return() {
        let p = policy(&[
            "agent.list",
            "agent.delegate",
            "agent.await",
            "agent.handoff",
            "workspace.read_file",
            "workspace.commit",
            "workspace.finish",
        ]);
        let snap = compile(&p, ExitPolicy::TaskReturnRequired, &BTreeMap::new())
            .unwrap()
            .snapshot;
        assert_eq!(aliases(&snap), ["workspace_read_file", "task_return"]);
        assert_eq!(snap.exit_policy(), ExitPolicy::TaskReturnRequired);
        let root = compile(&p, ExitPolicy::RunFinishAllowed, &BTreeMap::new())
            .unwrap()
            .snapshot;
        assert!(!root.contains(&BuiltinTool::TaskReturn.id()));
        assert_eq!(root.bindings().len(), 7);
    }

    #[test]
    fn task_return_in_a_profile_is_refused() {
        let err = compile(
            &policy(&["task.return"]),
            ExitPolicy::TaskReturnRequired,
            &BTreeMap::new(),
        )
        .unwrap_err();
        assert_eq!(err.code(), "agent.profile_task_return_runtime_only");
    }

    #[test]
    fn unknown_builtins_are_errors() {
        let err = compile(
            &policy(&["workspace.shell"]),
            ExitPolicy::RunFinishAllowed,
            &BTreeMap::new(),
        )
        .unwrap_err();
        assert_eq!(err.code(), "agent.profile_unknown_tool");
    }

    #[test]
    fn unusable_mcp_tools_are_left_out_with_a_diagnostic() {
        let ok = mcp("search");
        let no_object = mcp("bad.schema");
        let paused = mcp("paused");
        let missing = mcp("missing");
        let p = policy(&[
            "workspace.read_file",
            &ok.to_string(),
            &no_object.to_string(),
            &paused.to_string(),
            &missing.to_string(),
        ]);
        let entries = BTreeMap::from([
            (ok.clone(), available("Docs", &ok)),
            (
                no_object.clone(),
                McpToolEntry::Available {
                    server_display_name: "Docs".into(),
                    descriptor: mcp_descriptor(&no_object, json!({"properties": {}})),
                },
            ),
            (
                paused.clone(),
                McpToolEntry::Unavailable {
                    code: "mcp.server_paused".into(),
                    message: "server is paused".into(),
                },
            ),
        ]);
        let out = compile(&p, ExitPolicy::RunFinishAllowed, &entries).unwrap();
        assert_eq!(
            aliases(&out.snapshot),
            ["workspace_read_file", "mcp__Docs__search"]
        );
        let codes: Vec<_> = out
            .diagnostics
            .iter()
            .map(|d| (d.tool_id.native_name(), d.code.as_str()))
            .collect();
        assert_eq!(
            codes,
            [
                ("bad.schema", "mcp.agent_input_schema_unsupported"),
                ("paused", "mcp.server_paused"),
                ("missing", "mcp.tool_not_in_cached_catalog"),
            ]
        );
    }

    #[test]
    fn workspace_tools_name_the_invocation_roots() {
        let mut p = policy(&["workspace.read_file", "workspace.write_file", "chat.search"]);
        p.roots.visible = vec![WorkspaceRoot::Output, WorkspaceRoot::Scratch];
        p.roots.writable = vec![WorkspaceRoot::Scratch];
        let snap = compile(&p, ExitPolicy::RunFinishAllowed, &BTreeMap::new())
            .unwrap()
            .snapshot;
        let read = &snap.bindings()[0].descriptor.description;
        assert!(read.ends_with("Visible roots: output/, scratch/; tool-results/ holds earlier tool results and is read-only."), "{read}");
        let write = &snap.bindings()[1].descriptor.description;
        assert!(write.ends_with("Writable roots: scratch/."), "{write}");
        let chat = &snap.bindings()[2].descriptor.description;
        assert_eq!(
            chat,
            &crate::tool::builtin::builtin_descriptor(BuiltinTool::ChatSearch).description
        );
    }

    #[test]
    fn profile_wording_replaces_the_frozen_copy_only() {
        let search = mcp("search");
        let mut p = policy(&["workspace.read_file", "dice.roll", &search.to_string()]);
        p.descriptions.insert(
            id("workspace.read_file"),
            DescriptionOverride {
                description: Some("  Read a draft.  ".into()),
                properties: BTreeMap::from([("path".to_owned(), "Which draft.".to_owned())]),
            },
        );
        p.descriptions.insert(
            search.clone(),
            DescriptionOverride {
                description: None,
                properties: BTreeMap::from([("q".to_owned(), "Words to find.".to_owned())]),
            },
        );
        let catalog = crate::tool::builtin_catalog().unwrap();
        let pristine = catalog.clone();
        let entries = BTreeMap::from([(search.clone(), available("Docs", &search))]);
        let snap = compile_snapshot(SnapshotInputs {
            invocation_id: "inv_root",
            policy: &p,
            exit_policy: ExitPolicy::RunFinishAllowed,
            builtins: &catalog,
            mcp: &entries,
        })
        .unwrap()
        .snapshot;
        let [read, dice, found] = snap.bindings() else {
            panic!("three bindings expected");
        };
        assert_eq!(read.descriptor.description, "Read a draft.");
        assert_eq!(
            read.descriptor.input_schema["properties"]["path"]["description"],
            "Which draft."
        );
        assert_eq!(
            found.descriptor.input_schema["properties"]["q"]["description"],
            "Words to find."
        );
        // The sources are untouched, and an unchanged tool shares its catalog descriptor.
        assert_eq!(catalog, pristine);
        assert_eq!(entries[&search], available("Docs", &search));
        assert!(Arc::ptr_eq(
            &dice.descriptor,
            catalog.get(&id("dice.roll")).unwrap()
        ));
    }

    #[test]
    fn budgets_are_frozen_into_bindings() {
        let mut p = policy(&["chat.search", "workspace.finish"]);
        p.max_calls_per_invocation = 12;
        p.max_calls_per_tool = BTreeMap::from([(id("chat.search"), 8)]);
        let snap = compile(&p, ExitPolicy::RunFinishAllowed, &BTreeMap::new())
            .unwrap()
            .snapshot;
        assert_eq!(snap.max_calls_per_invocation(), 12);
        assert_eq!(snap.bindings()[0].max_calls, Some(8));
        assert_eq!(snap.bindings()[1].max_calls, None);
        p.max_calls_per_invocation = 0;
        let err = compile(&p, ExitPolicy::RunFinishAllowed, &BTreeMap::new()).unwrap_err();
        assert_eq!(err.code(), "tool.snapshot_budget_invalid");
    }

    #[test]
    fn construction_invariants() {
        let binding = |alias: &str, max: Option<u32>| ToolBinding {
            descriptor: Arc::new(crate::tool::builtin::builtin_descriptor(
                BuiltinTool::DiceRoll,
            )),
            model_alias: alias.into(),
            max_calls: max,
        };
        let other = ToolBinding {
            descriptor: Arc::new(crate::tool::builtin::builtin_descriptor(
                BuiltinTool::SkillList,
            )),
            model_alias: "dice_roll".into(),
            max_calls: None,
        };
        let cases = [
            (vec![binding("", None)], "tool.snapshot_alias_empty"),
            (
                vec![binding("dice.roll", None)],
                "tool.snapshot_alias_invalid",
            ),
            (
                vec![binding("dice_roll", Some(0))],
                "tool.snapshot_tool_budget_invalid",
            ),
            (
                vec![binding("a", None), binding("b", None)],
                "tool.snapshot_duplicate_id",
            ),
            (
                vec![binding("dice_roll", None), other],
                "tool.snapshot_duplicate_alias",
            ),
        ];
        for (bindings, code) in cases {
            let err = InvocationToolSnapshot::new(
                "inv".into(),
                ExitPolicy::RunFinishAllowed,
                bindings,
                1,
                1,
            )
            .unwrap_err();
            assert_eq!(err.code(), code);
        }
    }

    #[test]
    fn snapshots_round_trip_and_reject_tampering() {
        let snap = compile(
            &policy(&["dice.roll"]),
            ExitPolicy::RunFinishAllowed,
            &BTreeMap::new(),
        )
        .unwrap()
        .snapshot;
        let json = serde_json::to_value(&snap).unwrap();
        assert_eq!(json["schemaVersion"], 1);
        let back: InvocationToolSnapshot = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, snap);
        let mut bad = json.clone();
        bad["bindings"][0]["maxCalls"] = json!(0);
        assert!(serde_json::from_value::<InvocationToolSnapshot>(bad).is_err());
        let mut future = json;
        future["schemaVersion"] = json!(2);
        let err = serde_json::from_value::<InvocationToolSnapshot>(future).unwrap_err();
        assert!(err.to_string().contains("schema version 2"), "{err}");
    }

    #[test]
    fn summary_is_compact() {
        let snap = compile(
            &policy(&["dice.roll"]),
            ExitPolicy::RunFinishAllowed,
            &BTreeMap::new(),
        )
        .unwrap()
        .snapshot;
        assert_eq!(
            serde_json::to_value(snap.summary()).unwrap(),
            json!({
                "snapshotId": "inv_root",
                "schemaVersion": 1,
                "exitPolicy": "run_finish_allowed",
                "toolCount": 1,
                "maxCallsPerInvocation": 80,
                "tools": [{"toolId": "builtin:dice.roll", "alias": "dice_roll"}]
            })
        );
    }
}
