//! SillyTavern's rules for who is in a chat, as pure functions: which persona the user
//! speaks as (and so the user's name), which group member a reply is from, and the name
//! macros (`{{user}}`, `{{char}}`, `{{group}}`, their legacy spellings) a prompt expands.
//!
//! The inputs are values the host read (SillyTavern's `settings.json`, the chat's metadata,
//! the cards and the group file); nothing here reads them. Guide: `docs/sillytavern.md`.

mod macros;
mod persona;
mod speaker;

pub use macros::{MacroNames, expand_macros};
pub use persona::{Persona, PersonaTarget, resolve_persona};
pub use speaker::{GroupMember, SpeakerChoice, SpokenBy, card_stem, choose_speaker, display_name};
