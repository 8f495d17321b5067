//! Search: one query normalisation and scoring shared by `chat_search`,
//! `workspace_search_files` and `skill_search`.
//!
//! [`Query::parse`] normalises the model's query once. Chat search ranks whole messages with
//! [`Query::chat_tokens`] (bigram expansion, for recall in texts without spaces); file and
//! skill search rank lines with [`Query::line_tokens`] and [`search_lines`]. Both score with
//! [`Scorer`].

mod lines;
mod query;
mod score;

#[cfg(test)]
mod tests;

pub use lines::{LineHit, search_lines};
pub use query::{MAX_TOKENS, Query, QueryMode, Token};
pub use score::{SNIPPET_CHARS, SNIPPET_LEAD_CHARS, Scored, Scorer, chat_snippet};
