//! Table tests of the activation rules, with pinned results.
//!
//! Each file covers one group of rules; [`support::Scenario`] builds a scan over one or more
//! global books with fake engines (a literal-and-lookbehind regex engine, a word-counting
//! tokenizer, a fixed random sequence, a tiny macro expander).

mod filters;
mod groups;
mod hashing;
mod haystack;
mod keys;
mod min_activations;
mod pipeline;
mod placement;
mod probability_budget;
mod recursion;
mod support;
mod timed_effects;
