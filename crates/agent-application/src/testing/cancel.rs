//! In-memory [`CancelRequests`]: the marker another process would leave, as a set of runs.

use std::collections::HashSet;
use std::sync::Mutex;

use agent_domain::run::RunId;
use async_trait::async_trait;

use crate::ports::{CancelRequests, StoreError};

/// Cancellation requests, in memory. Requesting twice and clearing nothing are no errors.
#[derive(Debug, Default)]
pub struct MemoryCancelRequests {
    requested: Mutex<HashSet<RunId>>,
}

impl MemoryCancelRequests {
    pub fn new() -> Self {
        Self::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut HashSet<RunId>) -> T) -> T {
        f(&mut self.requested.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

#[async_trait]
impl CancelRequests for MemoryCancelRequests {
    async fn request(&self, run: &RunId) -> Result<(), StoreError> {
        self.with(|set| set.insert(run.clone()));
        Ok(())
    }

    async fn is_requested(&self, run: &RunId) -> Result<bool, StoreError> {
        Ok(self.with(|set| set.contains(run)))
    }

    async fn clear(&self, run: &RunId) -> Result<(), StoreError> {
        self.with(|set| set.remove(run));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn requests_are_idempotent_until_cleared() {
        let requests = MemoryCancelRequests::new();
        let run = RunId::parse("run_1").unwrap();
        requests.clear(&run).await.unwrap();
        assert!(!requests.is_requested(&run).await.unwrap());
        requests.request(&run).await.unwrap();
        requests.request(&run).await.unwrap();
        assert!(requests.is_requested(&run).await.unwrap());
        requests.clear(&run).await.unwrap();
        assert!(!requests.is_requested(&run).await.unwrap());
    }
}
