//! Retention of finished runs: the user's policy ([`RetentionSettings`]), what each file of a
//! run is for ([`StorageClass`]), and the pure planner that decides which finished runs keep
//! everything, which are slimmed to their core history and which are deleted
//! ([`plan_prune`]). Storage reads the facts and executes the plan; nothing here touches a
//! disk, so every rule is tested with plain values (see `docs/storage/retention.md`).

mod plan;
mod settings;
mod storage_class;

pub use plan::{
    BlockReason, BlockedRun, DetailLimit, JournalFacts, PruneAction, PruneCandidate, PrunePlan,
    PruneReport, PruneTotals, RunFacts, StoredFile, plan_prune,
};
pub use settings::{RetentionError, RetentionKey, RetentionSettings};
pub use storage_class::{FileLocation, StorageClass};

#[cfg(test)]
mod tests;
