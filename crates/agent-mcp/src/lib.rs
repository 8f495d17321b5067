//! MCP adapter: registrations, cached catalogs and permitted tool calls.
//!
//! See this crate's README and `docs/ARCHITECTURE.md` for what it owns.
