//! Where each skill scope keeps its skill folders.
//!
//! ```text
//! _tauritavern/skills/installed/<skill>/                                 global
//! _tauritavern/skills/scopes/preset/<apiId>/<preset name>/<skill>/       preset
//! _tauritavern/skills/scopes/profile/<profile id>/<skill>/               profile
//! _tauritavern/skills/scopes/character/<character id>/<skill>/           character
//! ```
//!
//! Scope keys are used verbatim as folder names, as SillyTavern names its chat folders after
//! characters, so each must be one plain path segment.

use std::path::PathBuf;

use agent_application::ports::{SkillScope, StoreError};
use agent_domain::workspace::WorkspacePath;

use crate::layout::DataDir;

/// The code of a scope key that cannot be a folder name.
const INVALID_SCOPE: &str = "skill.invalid_scope";

/// The folder holding the skills of `scope`, which need not exist.
pub(crate) fn scope_dir(data: &DataDir, scope: &SkillScope) -> Result<PathBuf, StoreError> {
    let scopes = data.tauritavern().join("skills").join("scopes");
    Ok(match scope {
        SkillScope::Global => data.skills_installed(),
        SkillScope::Preset { api_id, name } => scopes
            .join("preset")
            .join(segment("preset api id", api_id)?)
            .join(segment("preset name", name)?),
        SkillScope::Profile { profile_id } => scopes
            .join("profile")
            .join(segment("profile id", profile_id)?),
        SkillScope::Character { character_id } => scopes
            .join("character")
            .join(segment("character id", character_id)?),
        other => {
            return Err(StoreError::Invalid {
                code: INVALID_SCOPE,
                message: format!("skill scope `{other}` has no folder"),
            });
        }
    })
}

/// `key` when it is one plain path segment: not empty, no separators, not `.`/`..`, not
/// hidden (a leading `.`), no NUL or drive prefix.
fn segment<'a>(what: &str, key: &'a str) -> Result<&'a str, StoreError> {
    let plain = !key.starts_with('.')
        && WorkspacePath::parse(key).is_ok_and(|path| path.as_str() == key && !key.contains('/'));
    if plain {
        Ok(key)
    } else {
        Err(StoreError::Invalid {
            code: INVALID_SCOPE,
            message: format!("{what} `{key}` cannot name a skill scope folder"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_folders() {
        let data = DataDir::new("/data");
        let skills = std::path::Path::new("/data/_tauritavern/skills");
        let cases = [
            (SkillScope::Global, skills.join("installed")),
            (
                SkillScope::Preset {
                    api_id: "openai".into(),
                    name: "My Preset".into(),
                },
                skills.join("scopes/preset/openai/My Preset"),
            ),
            (
                SkillScope::Profile {
                    profile_id: "writer".into(),
                },
                skills.join("scopes/profile/writer"),
            ),
            (
                SkillScope::Character {
                    character_id: "Seraphina.png".into(),
                },
                skills.join("scopes/character/Seraphina.png"),
            ),
        ];
        for (scope, expected) in cases {
            assert_eq!(scope_dir(&data, &scope).unwrap(), expected);
        }
    }

    #[test]
    fn keys_must_be_plain_segments() {
        let data = DataDir::new("/data");
        for bad in [
            "", ".", "..", "a/b", "a\\b", ".hidden", "C:x", "a\0b", "./a",
        ] {
            let scope = SkillScope::Character {
                character_id: bad.into(),
            };
            let err = scope_dir(&data, &scope).unwrap_err();
            assert!(
                matches!(
                    err,
                    StoreError::Invalid {
                        code: INVALID_SCOPE,
                        ..
                    }
                ),
                "{bad:?}: {err}"
            );
        }
    }
}
