//! The run runtime: how one agent invocation loops between the model and its tools.
//!
//! [`machine`] holds the loop as a sans-IO state machine: it decides, the driver acts. The
//! async driver (ports, journal, audit files, host commits) and the run facade build on it;
//! see `docs/runtime-loop.md` for the whole picture.

pub mod machine;
