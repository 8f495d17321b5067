//! Cancellation requests that cross process boundaries.
//!
//! A run is driven by exactly one process (the one holding its journal). Another process
//! (`tavern-agent runs cancel`) cannot append to that journal, so it leaves a request the
//! owning driver polls for; the driver then journals the cancellation itself.

use agent_domain::run::RunId;
use async_trait::async_trait;

use super::StoreError;

#[async_trait]
pub trait CancelRequests: Send + Sync {
    /// Asks the process driving `run` to cancel it. Requesting twice is not an error.
    async fn request(&self, run: &RunId) -> Result<(), StoreError>;

    /// Whether a cancellation of `run` was requested and not cleared since.
    async fn is_requested(&self, run: &RunId) -> Result<bool, StoreError>;

    /// Forgets the request (after the run ended). Clearing nothing is not an error.
    async fn clear(&self, run: &RunId) -> Result<(), StoreError>;
}
