//! Unit tests of the invocation machine, driven synchronously with hand-made turns.

mod support;

mod child;
mod commit_rules;
mod drift;
mod happy;
mod protocol;
mod publish;
mod retry;
mod tool_calls;
