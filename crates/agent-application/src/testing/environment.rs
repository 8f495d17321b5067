//! Deterministic time, ids, hashes and dice.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::ports::{Clock, Digest, IdSource, Rng};

/// A version token for test contents: 64 hex digits, stable for equal input, different for
/// different input in practice. Not cryptographic; the real adapters use SHA-256.
pub fn fake_sha256_hex(bytes: &[u8]) -> String {
    (0u64..4)
        .map(|lane| {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ lane.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            for b in bytes {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            format!("{h:016x}")
        })
        .collect()
}

/// A [`Digest`] over [`fake_sha256_hex`]: stable and distinct like SHA-256, not SHA-256.
#[derive(Debug, Default, Clone, Copy)]
pub struct FakeDigest;

impl Digest for FakeDigest {
    fn sha256(&self, bytes: &[u8]) -> [u8; 32] {
        let hex = fake_sha256_hex(bytes);
        let mut digest = [0u8; 32];
        for (at, byte) in digest.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&hex[2 * at..2 * at + 2], 16).unwrap_or_default();
        }
        digest
    }
}

/// A clock that starts at a fixed instant and advances one millisecond per reading.
#[derive(Debug, Default)]
pub struct FixedClock {
    ticks: AtomicU64,
}

impl Clock for FixedClock {
    fn now_rfc3339(&self) -> String {
        let ms = self.ticks.fetch_add(1, Ordering::SeqCst);
        format!("2026-01-01T00:00:{:02}.{:03}Z", (ms / 1000) % 60, ms % 1000)
    }

    fn now_millis(&self) -> u64 {
        1_767_225_600_000 + self.ticks.load(Ordering::SeqCst)
    }
}

/// Ids `000…001`, `000…002`, … as 32 hex digits.
#[derive(Debug, Default)]
pub struct SequentialIds {
    next: AtomicU64,
}

impl IdSource for SequentialIds {
    fn new_hex_id(&self) -> String {
        format!("{:032x}", self.next.fetch_add(1, Ordering::SeqCst) + 1)
    }
}

/// Dice that return a scripted sequence (cycled), each clamped into `1..=sides`.
#[derive(Debug)]
pub struct SequenceRng {
    values: Vec<u32>,
    at: Mutex<usize>,
}

impl SequenceRng {
    pub fn new(values: Vec<u32>) -> Self {
        Self {
            values,
            at: Mutex::new(0),
        }
    }
}

impl Rng for SequenceRng {
    fn roll(&self, sides: u32) -> u32 {
        let mut at = self.at.lock().unwrap_or_else(|p| p.into_inner());
        let value = self
            .values
            .get(*at % self.values.len().max(1))
            .copied()
            .unwrap_or(1);
        *at += 1;
        value.clamp(1, sides.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_helpers() {
        assert_eq!(fake_sha256_hex(b"a"), fake_sha256_hex(b"a"));
        assert_ne!(fake_sha256_hex(b"a"), fake_sha256_hex(b"b"));
        assert_eq!(fake_sha256_hex(b"").len(), 64);
        assert_eq!(FakeDigest.sha256_hex(b"a"), fake_sha256_hex(b"a"));
        let ids = SequentialIds::default();
        assert_eq!(ids.new_hex_id(), format!("{:032x}", 1));
        let rng = SequenceRng::new(vec![3, 99]);
        assert_eq!(rng.roll(6), 3);
        assert_eq!(rng.roll(6), 6);
        assert_eq!(rng.roll(6), 3);
        let clock = FixedClock::default();
        assert_eq!(clock.now_rfc3339(), "2026-01-01T00:00:00.000Z");
        assert_eq!(clock.now_rfc3339(), "2026-01-01T00:00:00.001Z");
    }
}
