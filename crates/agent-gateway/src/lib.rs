//! Model gateway adapters: provider wire formats over HTTP and the scripted model.
//!
//! See this crate's README and `docs/ARCHITECTURE.md` for what it owns.

pub mod scripted;
