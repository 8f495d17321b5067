//! Workspace tools: list, search, read, write and patch files in the run's workspace
//! (`docs/spec-map.md`, Workspace tools and commit). Reference: `docs/tools.md`.
//!
//! Every tool sees only the invocation's visible roots plus the read-only `tool-results/`,
//! and writes only below its writable roots. Reads record read-state in the invocation's
//! session; replace writes and patches must be grounded in it (compare-and-swap on the
//! file's SHA-256).

mod corpus_search;
mod errors;
mod list;
mod patch;
mod paths;
mod read;
mod search;
mod wording;
mod write;

#[cfg(test)]
mod tests;

pub use corpus_search::{SearchHit, SearchReport, search_corpus_hits};

pub(super) use list::list_files;
pub(super) use patch::apply_patch;
pub(super) use read::read_file;
pub(super) use search::search_files;
pub(super) use write::write_file;
