//! Time, identity, hashing and chance, as values the runtime asks for.

/// Wall-clock time. Tests use a fixed or stepping clock.
pub trait Clock: Send + Sync {
    /// Now, as an RFC 3339 UTC timestamp with millisecond precision (`2026-01-01T00:00:00.000Z`).
    fn now_rfc3339(&self) -> String;
    /// Milliseconds since the Unix epoch (for elapsed times).
    fn now_millis(&self) -> u64;
}

/// Fresh unique ids.
pub trait IdSource: Send + Sync {
    /// 32 lower-case hex digits of a fresh random UUID (`run_<hex>`, `evt_<hex>`, …).
    fn new_hex_id(&self) -> String;
}

/// SHA-256, for names derived from content or ids (workspace ids, audit file names).
pub trait Digest: Send + Sync {
    fn sha256(&self, bytes: &[u8]) -> [u8; 32];

    /// Lower-case hex of the full digest.
    fn sha256_hex(&self, bytes: &[u8]) -> String {
        self.sha256(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// Randomness (dice, world-info probability and group draws). Tests use a seeded source.
pub trait Rng: Send + Sync {
    /// A uniformly distributed integer in `1..=sides` (`sides` ≥ 1).
    fn roll(&self, sides: u32) -> u32;

    /// A uniformly distributed number in `[0, 1)`, as JavaScript's `Math.random()`.
    fn unit(&self) -> f64 {
        f64::from(self.roll(u32::MAX) - 1) / f64::from(u32::MAX)
    }
}
