//! Header, preset, model, instructions and plan rules.

use super::super::schema::{
    AgentProfileDocument, CURRENT_SCHEMA_VERSION, InstructionsBlock, ModelBlock, ModelMode,
    PROFILE_KIND, PlanBlock, PlanMode, PresetBlock, PresetMode,
};
use super::super::{ProfileError, ProfileId};

/// The preset types (`preset.ref.apiId`) SillyTavern stores presets for.
pub const PRESET_API_IDS: [&str; 9] = [
    "openai",
    "kobold",
    "koboldhorde",
    "novel",
    "textgenerationwebui",
    "instruct",
    "context",
    "sysprompt",
    "reasoning",
];

pub(super) fn check_header(document: &AgentProfileDocument) -> Result<ProfileId, ProfileError> {
    if document.schema_version != CURRENT_SCHEMA_VERSION {
        return Err(ProfileError::SchemaUnsupported {
            found: document.schema_version.to_string(),
        });
    }
    if document.kind != PROFILE_KIND {
        return Err(ProfileError::KindInvalid {
            found: document.kind.clone(),
        });
    }
    let id = ProfileId::parse(&document.id)?;
    if is_blank(&document.display_name) {
        return Err(ProfileError::DisplayNameRequired);
    }
    Ok(id)
}

/// Only `ref` mode has anything to check here; whether the preset exists is the
/// service's (strict) question.
pub(super) fn check_preset(preset: &PresetBlock) -> Result<(), ProfileError> {
    if preset.mode != PresetMode::Ref {
        return Ok(());
    }
    let Some(preset_ref) = &preset.preset_ref else {
        return Err(ProfileError::PresetRefRequired);
    };
    if !PRESET_API_IDS.contains(&preset_ref.api_id.as_str()) {
        return Err(ProfileError::PresetApiInvalid {
            api_id: preset_ref.api_id.clone(),
        });
    }
    if is_blank(&preset_ref.name) {
        return Err(ProfileError::PresetNameRequired);
    }
    Ok(())
}

pub(super) fn check_model(model: &ModelBlock) -> Result<(), ProfileError> {
    let connection = non_blank(model.connection_ref.as_deref());
    let model_id = non_blank(model.model_id.as_deref());
    let extra_field = if connection.is_some() {
        Some("connectionRef")
    } else if model_id.is_some() {
        Some("modelId")
    } else {
        None
    };
    match model.mode {
        ModelMode::CurrentPromptSnapshot => match extra_field {
            Some(field) => Err(ProfileError::ModelCurrentSnapshotExtraFields { field }),
            None => Ok(()),
        },
        ModelMode::RequiresConfiguration => match extra_field {
            Some(field) => Err(ProfileError::ModelRequiresConfigurationExtraFields { field }),
            None => Ok(()),
        },
        ModelMode::ConnectionRef if connection.is_none() => {
            Err(ProfileError::ModelConnectionRefRequired)
        }
        ModelMode::ConnectionRef if model_id.is_none() => Err(ProfileError::ModelIdRequired),
        ModelMode::ConnectionRef => Ok(()),
    }
}

pub(super) fn check_instructions(instructions: &InstructionsBlock) -> Result<(), ProfileError> {
    match &instructions.agent_system_prompt {
        Some(prompt) if is_blank(prompt) => Err(ProfileError::SystemPromptEmpty),
        _ => Ok(()),
    }
}

pub(super) fn check_plan(plan: &PlanBlock) -> Result<(), ProfileError> {
    if plan.mode != PlanMode::None {
        return Err(ProfileError::PlanModeUnsupported {
            mode: plan.mode.as_str(),
        });
    }
    if !plan.nodes.is_empty() {
        return Err(ProfileError::PlanNodesUnsupported {
            count: plan.nodes.len(),
        });
    }
    Ok(())
}

pub(super) fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

/// The trimmed text, or `None` when absent or blank.
pub(super) fn non_blank(text: Option<&str>) -> Option<&str> {
    text.map(str::trim).filter(|t| !t.is_empty())
}
