//! In-process locks keyed by a path or an id, for the blocking file work of the stores.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Mutex, MutexGuard, PoisonError};

const STRIPES: usize = 64;

/// A fixed set of mutexes picked by hashing a key. Work on one key is serialised without a
/// map that grows with every key ever seen; two keys may share a stripe, which only costs
/// a little parallelism. Callers hold at most one stripe at a time, so there is no
/// lock-ordering hazard.
#[derive(Debug)]
pub(crate) struct StripedLocks {
    stripes: Vec<Mutex<()>>,
}

impl StripedLocks {
    pub(crate) fn new() -> Self {
        Self {
            stripes: (0..STRIPES).map(|_| Mutex::new(())).collect(),
        }
    }

    /// Blocks until the stripe of `key` is free. A panic of an earlier holder does not
    /// poison the lock: it guards no data, only ordering.
    pub(crate) fn lock(&self, key: &impl Hash) -> MutexGuard<'_, ()> {
        let mut hasher = DefaultHasher::new();
        key.hash(&mut hasher);
        let index = (hasher.finish() % STRIPES as u64) as usize;
        self.stripes[index]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}
