//! Skill scopes: which skills an invocation can use (`docs/spec-map.md`, Skills).
//!
//! Each invocation reads the skills of its scopes in the order global → preset → profile →
//! character ([`invocation_scopes`]); a later scope's skill shadows an earlier one of the
//! same name. The profile's `skills.deny` and `skills.visible` then decide which of these
//! effective skills the invocation may use ([`resolve_skills`]). The runtime resolves once
//! per invocation, journals [`ResolvedSkills::scopes_resolved_payload`], writes
//! [`ResolvedSkills::document`] to `input/resolved_skills.json` and hands the result to the
//! skill tools. Skills that cannot be read are never dropped silently: listings report them
//! as problems, which the runtime journals and [`skill_catalog`] hands to hosts. Guide:
//! `docs/skills.md`.

mod catalog;
mod resolve;
mod scopes;

pub use catalog::{ScopedSkill, SkillCatalog, skill_catalog};
pub use resolve::{ResolvedSkill, ResolvedSkills, SkillDenial, resolve_skills};
pub use scopes::{SkillScopeError, invocation_scopes};
