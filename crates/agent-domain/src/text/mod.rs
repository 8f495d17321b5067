//! Pure text building blocks of the builtin read and search tools: metrics, line windows
//! with budgets and previews, and query scoring. Guide: `docs/text-and-search.md`.
//!
//! Models address text only by 1-based lines ([`LineWindow::select`]); characters are an
//! internal budget ([`ReadBudget`]) and a statistic ([`TextMetrics`]).

mod budget;
mod lines;
mod metrics;
mod range_error;
pub mod search;
mod shown;
mod window;

pub use budget::ReadBudget;
pub use metrics::TextMetrics;
pub use range_error::{LineRangeError, RangeNamespace};
pub use shown::ShownWindow;
pub use window::{LineWindow, WindowFacts, WindowLine};
