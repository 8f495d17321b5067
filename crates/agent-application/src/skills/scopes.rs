//! [`invocation_scopes`]: the skill scopes one invocation reads.

use agent_domain::ErrorCode;
use agent_domain::profile::{PresetBinding, PresetRef, ResolvedAgentProfile};
use agent_domain::run::SkillScopeRefs;

use crate::ports::SkillScope;

/// The run's ambient scope references cannot name a scope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillScopeError {
    #[error("the run's skill preset must be {{\"apiId\", \"name\"}} with both set: {0}")]
    PresetInvalid(String),
    #[error("the run's skill character id is empty")]
    CharacterIdEmpty,
}

impl ErrorCode for SkillScopeError {
    fn code(&self) -> &'static str {
        match self {
            Self::PresetInvalid(_) => "agent.skill_scope_preset_invalid",
            Self::CharacterIdEmpty => "agent.skill_scope_character_id_empty",
        }
    }
}

/// The scopes of an invocation run by `profile`, in precedence order:
///
/// 1. global (installed skills), always;
/// 2. a preset: the profile's own preset when it names one, the run's ambient preset when
///    the profile uses the prompt snapshot's preset, none when the profile has no preset;
/// 3. the profile itself;
/// 4. the run's ambient character, when the run has one.
///
/// The ambient references are fixed when the root run starts, so a delegated child or a
/// handoff target reads its own profile's preset and profile scopes but the run's character.
pub fn invocation_scopes(
    profile: &ResolvedAgentProfile,
    ambient: &SkillScopeRefs,
) -> Result<Vec<SkillScope>, SkillScopeError> {
    let mut scopes = vec![SkillScope::Global];
    if let Some(preset) = preset_of(&profile.preset, ambient)? {
        scopes.push(SkillScope::Preset {
            api_id: preset.api_id,
            name: preset.name,
        });
    }
    scopes.push(SkillScope::Profile {
        profile_id: profile.id.as_str().to_owned(),
    });
    if let Some(character_id) = &ambient.character_id {
        if character_id.trim().is_empty() {
            return Err(SkillScopeError::CharacterIdEmpty);
        }
        scopes.push(SkillScope::Character {
            character_id: character_id.clone(),
        });
    }
    Ok(scopes)
}

fn preset_of(
    binding: &PresetBinding,
    ambient: &SkillScopeRefs,
) -> Result<Option<PresetRef>, SkillScopeError> {
    match binding {
        PresetBinding::Ref { preset, .. } => Ok(Some(preset.clone())),
        PresetBinding::CurrentPromptSnapshot => {
            ambient.preset.as_ref().map(parse_preset).transpose()
        }
        _ => Ok(None),
    }
}

fn parse_preset(value: &serde_json::Value) -> Result<PresetRef, SkillScopeError> {
    let preset: PresetRef = serde_json::from_value(value.clone())
        .map_err(|err| SkillScopeError::PresetInvalid(err.to_string()))?;
    if preset.api_id.trim().is_empty() || preset.name.trim().is_empty() {
        return Err(SkillScopeError::PresetInvalid(value.to_string()));
    }
    Ok(preset)
}

#[cfg(test)]
mod tests {
    use agent_domain::profile::{ProfileSource, default_writer, resolve};
    use serde_json::json;

    use super::*;

    fn profile(preset: PresetBinding) -> ResolvedAgentProfile {
        let mut profile = resolve(&default_writer(), ProfileSource::BuiltIn).unwrap();
        profile.preset = preset;
        profile
    }

    fn preset(api_id: &str, name: &str) -> SkillScope {
        SkillScope::Preset {
            api_id: api_id.into(),
            name: name.into(),
        }
    }

    fn writer() -> SkillScope {
        SkillScope::Profile {
            profile_id: "default-writer".into(),
        }
    }

    fn ambient(preset: Option<serde_json::Value>, character: Option<&str>) -> SkillScopeRefs {
        SkillScopeRefs {
            preset,
            character_id: character.map(str::to_owned),
        }
    }

    #[test]
    fn global_preset_profile_character_in_order() {
        let refs = ambient(
            Some(json!({"apiId": "openai", "name": "Ambient"})),
            Some("Seraphina"),
        );
        let seraphina = SkillScope::Character {
            character_id: "Seraphina".into(),
        };
        let snapshot = profile(PresetBinding::CurrentPromptSnapshot);
        assert_eq!(
            invocation_scopes(&snapshot, &refs).unwrap(),
            [
                SkillScope::Global,
                preset("openai", "Ambient"),
                writer(),
                seraphina.clone()
            ]
        );
        let own = profile(PresetBinding::Ref {
            preset: PresetRef {
                api_id: "openai".into(),
                name: "Own".into(),
            },
            required: true,
        });
        assert_eq!(
            invocation_scopes(&own, &refs).unwrap(),
            [
                SkillScope::Global,
                preset("openai", "Own"),
                writer(),
                seraphina
            ]
        );
        let none = profile(PresetBinding::None);
        assert_eq!(
            invocation_scopes(&none, &ambient(None, None)).unwrap(),
            [SkillScope::Global, writer()]
        );
        assert_eq!(
            invocation_scopes(&snapshot, &ambient(None, None)).unwrap(),
            [SkillScope::Global, writer()]
        );
    }

    #[test]
    fn malformed_ambient_refs_are_refused() {
        let snapshot = profile(PresetBinding::CurrentPromptSnapshot);
        for bad in [
            json!({"apiId": "openai"}),
            json!({"apiId": "", "name": "x"}),
            json!("Default"),
        ] {
            let err = invocation_scopes(&snapshot, &ambient(Some(bad), None)).unwrap_err();
            assert_eq!(err.code(), "agent.skill_scope_preset_invalid");
        }
        let err = invocation_scopes(&snapshot, &ambient(None, Some("  "))).unwrap_err();
        assert_eq!(err.code(), "agent.skill_scope_character_id_empty");
    }
}
