//! The nineteen builtin tools: their names, the rules that single them out, and their
//! neutral descriptors. Implementations live in `agent-application`; this is data.

mod descriptors;

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use super::{CatalogError, ToolCatalog, ToolId};

pub use descriptors::builtin_descriptor;

/// Every builtin tool the runtime knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum BuiltinTool {
    AgentList,
    AgentDelegate,
    AgentHandoff,
    AgentAwait,
    TaskReturn,
    ChatSearch,
    ChatReadMessages,
    WorldInfoReadActivated,
    DiceRoll,
    SkillList,
    SkillSearch,
    SkillRead,
    WorkspaceListFiles,
    WorkspaceSearchFiles,
    WorkspaceReadFile,
    WorkspaceWriteFile,
    WorkspaceApplyPatch,
    WorkspaceCommit,
    WorkspaceFinish,
}

/// How a builtin touches the workspace, which decides the roots named in its description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkspaceUse {
    None,
    Reads,
    Writes,
}

impl BuiltinTool {
    /// All builtins in catalogue order.
    pub const ALL: [BuiltinTool; 19] = [
        Self::AgentList,
        Self::AgentDelegate,
        Self::AgentHandoff,
        Self::AgentAwait,
        Self::TaskReturn,
        Self::ChatSearch,
        Self::ChatReadMessages,
        Self::WorldInfoReadActivated,
        Self::DiceRoll,
        Self::SkillList,
        Self::SkillSearch,
        Self::SkillRead,
        Self::WorkspaceListFiles,
        Self::WorkspaceSearchFiles,
        Self::WorkspaceReadFile,
        Self::WorkspaceWriteFile,
        Self::WorkspaceApplyPatch,
        Self::WorkspaceCommit,
        Self::WorkspaceFinish,
    ];

    /// The canonical native name (`workspace.read_file`).
    pub fn native_name(self) -> &'static str {
        match self {
            Self::AgentList => "agent.list",
            Self::AgentDelegate => "agent.delegate",
            Self::AgentHandoff => "agent.handoff",
            Self::AgentAwait => "agent.await",
            Self::TaskReturn => "task.return",
            Self::ChatSearch => "chat.search",
            Self::ChatReadMessages => "chat.read_messages",
            Self::WorldInfoReadActivated => "worldinfo.read_activated",
            Self::DiceRoll => "dice.roll",
            Self::SkillList => "skill.list",
            Self::SkillSearch => "skill.search",
            Self::SkillRead => "skill.read",
            Self::WorkspaceListFiles => "workspace.list_files",
            Self::WorkspaceSearchFiles => "workspace.search_files",
            Self::WorkspaceReadFile => "workspace.read_file",
            Self::WorkspaceWriteFile => "workspace.write_file",
            Self::WorkspaceApplyPatch => "workspace.apply_patch",
            Self::WorkspaceCommit => "workspace.commit",
            Self::WorkspaceFinish => "workspace.finish",
        }
    }

    /// The model-facing alias: the native name with `.` replaced by `_`.
    pub fn model_alias(self) -> String {
        self.native_name().replace('.', "_")
    }

    /// The canonical id `builtin:<native>`.
    pub fn id(self) -> ToolId {
        ToolId::builtin_static(self.native_name())
    }

    /// The builtin a canonical id names, if any.
    pub fn from_id(id: &ToolId) -> Option<Self> {
        if !id.is_builtin() {
            return None;
        }
        Self::ALL
            .into_iter()
            .find(|t| t.native_name() == id.native_name())
    }

    /// Tools a return-mode child never sees: chat commit, run finish and delegation control.
    pub fn is_withheld_from_children(self) -> bool {
        matches!(
            self,
            Self::WorkspaceCommit
                | Self::WorkspaceFinish
                | Self::AgentList
                | Self::AgentDelegate
                | Self::AgentAwait
                | Self::AgentHandoff
        )
    }

    /// `task.return` is injected by the runtime and may not appear in a profile.
    pub fn is_runtime_only(self) -> bool {
        self == Self::TaskReturn
    }

    /// Tools that end the invocation's tool loop and so must be the last call of a round.
    pub fn ends_invocation(self) -> bool {
        matches!(
            self,
            Self::WorkspaceFinish | Self::AgentHandoff | Self::TaskReturn
        )
    }

    /// How the tool touches the workspace.
    pub fn workspace_use(self) -> WorkspaceUse {
        match self {
            Self::WorkspaceListFiles | Self::WorkspaceSearchFiles | Self::WorkspaceReadFile => {
                WorkspaceUse::Reads
            }
            Self::WorkspaceWriteFile | Self::WorkspaceApplyPatch => WorkspaceUse::Writes,
            Self::WorkspaceCommit => WorkspaceUse::Reads,
            _ => WorkspaceUse::None,
        }
    }
}

/// The builtin catalog: one neutral descriptor per builtin tool. Built once per process
/// (every invocation compiles its snapshot from it); callers get a clone that shares the
/// descriptors.
pub fn builtin_catalog() -> Result<ToolCatalog, CatalogError> {
    static CATALOG: LazyLock<Result<ToolCatalog, CatalogError>> = LazyLock::new(|| {
        ToolCatalog::from_descriptors(BuiltinTool::ALL.into_iter().map(builtin_descriptor))
    });
    CATALOG.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_id_round_trips() {
        for tool in BuiltinTool::ALL {
            let id = tool.id();
            assert_eq!(id.to_string(), format!("builtin:{}", tool.native_name()));
            assert_eq!(BuiltinTool::from_id(&id), Some(tool));
            assert!(super::super::alias::is_valid_alias(&tool.model_alias()));
        }
    }

    #[test]
    fn catalog_has_every_builtin_with_an_object_schema() {
        let catalog = builtin_catalog().unwrap();
        assert_eq!(catalog.len(), 19);
        for descriptor in catalog.iter() {
            assert!(descriptor.has_object_input_schema(), "{}", descriptor.id);
            assert!(!descriptor.description.trim().is_empty());
            let props: Vec<_> = descriptor.input_property_names().collect();
            assert!(!props.contains(&"start_char") && !props.contains(&"max_chars"));
        }
    }

    #[test]
    fn children_lose_control_tools() {
        let withheld: Vec<_> = BuiltinTool::ALL
            .into_iter()
            .filter(|t| t.is_withheld_from_children())
            .map(BuiltinTool::native_name)
            .collect();
        assert_eq!(
            withheld,
            [
                "agent.list",
                "agent.delegate",
                "agent.handoff",
                "agent.await",
                "workspace.commit",
                "workspace.finish"
            ]
        );
    }
}
