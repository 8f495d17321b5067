//! The folder of each skill scope under `installed/`, named as TauriTavern names it.
//!
//! ```text
//! installed/global/<skill>/                global
//! installed/preset_<16 hex>/<skill>/       preset     key "preset\0<apiId>\0<name>"
//! installed/profile_<16 hex>/<skill>/      profile    key "profile\0<profileId>"
//! installed/character_<16 hex>/<skill>/    character  key "character\0<characterId>"
//! ```
//!
//! The 16 hex digits are the first 8 bytes of the SHA-256 of the scope's stable key (its
//! UTF-8 bytes, exactly as given: nothing is trimmed), in lowercase. The folder name cannot
//! be turned back into the scope; the skill index (`index/skills.json`) names the scope of
//! every indexed skill.

use std::cmp::Ordering;

use agent_application::ports::{SkillScope, StoreError};

use crate::digest::sha256;
use crate::profiles::is_simple_name;

/// The code of a scope that cannot name a folder.
const INVALID_SCOPE: &str = "skill.invalid_scope";

/// The folder of the global scope.
pub(crate) const GLOBAL_DIR: &str = "global";

/// The scope's stable key: what its folder name and the index order derive from.
pub(crate) fn stable_key(scope: &SkillScope) -> String {
    match scope {
        SkillScope::Preset { api_id, name } => format!("preset\0{api_id}\0{name}"),
        SkillScope::Profile { profile_id } => format!("profile\0{profile_id}"),
        SkillScope::Character { character_id } => format!("character\0{character_id}"),
        _ => GLOBAL_DIR.to_owned(),
    }
}

/// TauriTavern's order of index entries: by the scope's stable key (byte order), then by
/// name. The groups therefore come character, global, preset, profile.
pub(crate) fn index_order(a: (&SkillScope, &str), b: (&SkillScope, &str)) -> Ordering {
    stable_key(a.0)
        .cmp(&stable_key(b.0))
        .then_with(|| a.1.cmp(b.1))
}

/// Why a scope cannot name a folder, or `None` when it can. The rules are TauriTavern's:
/// preset api id and name and character id are not blank and hold no NUL; a profile id is
/// `[a-z0-9_-]{1,128}`.
pub(crate) fn scope_problem(scope: &SkillScope) -> Option<String> {
    let text = |what: &str, value: &str| {
        if value.trim().is_empty() {
            Some(format!("{what} is empty"))
        } else if value.contains('\0') {
            Some(format!("{what} contains NUL"))
        } else {
            None
        }
    };
    match scope {
        SkillScope::Global => None,
        SkillScope::Preset { api_id, name } => {
            text("the preset api id", api_id).or_else(|| text("the preset name", name))
        }
        SkillScope::Profile { profile_id } => (!is_simple_name(profile_id)).then(|| {
            format!("profile id `{profile_id}` is not 1-128 characters of a-z, 0-9, `_` and `-`")
        }),
        SkillScope::Character { character_id } => text("the character id", character_id),
        other => Some(format!("skill scope `{other}` has no folder")),
    }
}

/// The folder name of `scope` under `installed/`.
pub(crate) fn dir_name(scope: &SkillScope) -> Result<String, StoreError> {
    if let Some(problem) = scope_problem(scope) {
        return Err(StoreError::Invalid {
            code: INVALID_SCOPE,
            message: format!("skill scope {}: {problem}", scope.label()),
        });
    }
    let prefix = match scope {
        SkillScope::Global => return Ok(GLOBAL_DIR.to_owned()),
        other => other.kind(),
    };
    let digest = sha256(stable_key(scope).as_bytes());
    let hex: String = digest[..8]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    Ok(format!("{prefix}_{hex}"))
}

/// Whether `name` has the shape of a scope folder: `global`, or `preset_`, `profile_` or
/// `character_` followed by 16 lowercase hex digits.
pub(crate) fn is_scope_dir_name(name: &str) -> bool {
    if name == GLOBAL_DIR {
        return true;
    }
    ["preset_", "profile_", "character_"].iter().any(|prefix| {
        name.strip_prefix(prefix).is_some_and(|hex| {
            hex.len() == 16
                && hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn character(id: &str) -> SkillScope {
        SkillScope::Character {
            character_id: id.into(),
        }
    }

    /// The names are pinned: they must stay what TauriTavern computes for the same scope.
    #[test]
    fn folder_names_are_pinned() {
        // sha256("character\0Seraphina") = 67e8be56c9a02c32 6de8a348…
        let cases = [
            (SkillScope::Global, "global"),
            (character("Seraphina"), "character_67e8be56c9a02c32"),
            (
                SkillScope::Preset {
                    api_id: "openai".into(),
                    name: "Default".into(),
                },
                "preset_b4806ae55594cb53",
            ),
            (
                SkillScope::Profile {
                    profile_id: "writer".into(),
                },
                "profile_5ac77d8ac722e8ea",
            ),
        ];
        for (scope, expected) in cases {
            assert_eq!(dir_name(&scope).unwrap(), expected, "{scope}");
            assert!(is_scope_dir_name(expected));
        }
        // Keys are hashed as given: a trailing space is another scope.
        assert_ne!(
            dir_name(&character("Seraphina ")).unwrap(),
            dir_name(&character("Seraphina")).unwrap()
        );
    }

    #[test]
    fn bad_scopes_name_no_folder() {
        let bad = [
            character(""),
            character("  "),
            character("a\0b"),
            SkillScope::Preset {
                api_id: "openai".into(),
                name: " ".into(),
            },
            SkillScope::Profile {
                profile_id: "Writer".into(),
            },
            SkillScope::Profile {
                profile_id: "a".repeat(129),
            },
        ];
        for scope in bad {
            let err = dir_name(&scope).unwrap_err();
            assert!(
                matches!(
                    err,
                    StoreError::Invalid {
                        code: INVALID_SCOPE,
                        ..
                    }
                ),
                "{scope:?}: {err}"
            );
        }
        // Anything else goes: a character id is not a file name.
        assert!(dir_name(&character("../Seraphina.png")).is_ok());
    }

    #[test]
    fn scope_folder_shapes_and_index_order() {
        for name in [
            "global",
            "preset_0123456789abcdef",
            "character_ffffffffffffffff",
        ] {
            assert!(is_scope_dir_name(name), "{name}");
        }
        for name in [
            "globals",
            "preset_0123456789ABCDEF",
            "profile_0123",
            "character_0123456789abcdef0",
            "poetry",
        ] {
            assert!(!is_scope_dir_name(name), "{name}");
        }
        let seraphina = character("Seraphina");
        let preset = SkillScope::Preset {
            api_id: "a".into(),
            name: "b".into(),
        };
        let mut entries = [
            (&preset, "x"),
            (&SkillScope::Global, "b"),
            (&seraphina, "z"),
            (&SkillScope::Global, "a"),
        ];
        entries.sort_by(|a, b| index_order(*a, *b));
        let kinds: Vec<(&str, &str)> = entries.iter().map(|(s, n)| (s.kind(), *n)).collect();
        assert_eq!(
            kinds,
            [
                ("character", "z"),
                ("global", "a"),
                ("global", "b"),
                ("preset", "x")
            ]
        );
    }
}
