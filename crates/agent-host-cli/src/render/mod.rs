//! Rendering: the live timeline of a run, JSON lines, and plain tables.

pub mod json;
pub mod table;
pub mod timeline;
