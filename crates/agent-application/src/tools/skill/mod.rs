//! Skill tools: list, search and read the skills visible to the invocation (`docs/spec-map.md`, Skill tools).
//! Guide: `docs/tools.md`.
//!
//! The invocation's skills were resolved when it started ([`crate::skills`]); the tools only
//! look names up in that result, never re-read the profile or re-list the scopes. Reads and
//! search snippets draw on one per-invocation character budget kept in the session.

mod access;
mod list;
mod read;
mod search;

#[cfg(test)]
mod tests;

pub(super) use list::list;
pub(super) use read::read;
pub(super) use search::search;
