//! The real clock, id source, dice and environment variables behind the environment ports.
//!
//! Timestamps are ISO 8601 UTC with milliseconds, as JavaScript's `Date.toISOString()` writes
//! them, so SillyTavern reads our chat `send_date`s like its own.

use std::time::{SystemTime, UNIX_EPOCH};

use agent_application::ports::{Clock, EnvironmentVariables, IdSource, Rng};

/// The current time as `2026-06-01T12:34:56.789Z`.
pub fn now_iso() -> String {
    iso_utc(SystemTime::now())
}

/// This process's environment variables.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnvironment;

impl EnvironmentVariables for ProcessEnvironment {
    /// An empty variable counts as unset: no provider accepts an empty key.
    fn is_set(&self, name: &str) -> bool {
        std::env::var_os(name).is_some_and(|value| !value.is_empty())
    }
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_rfc3339(&self) -> String {
        now_iso()
    }

    fn now_millis(&self) -> u64 {
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
    }
}

/// Random UUID v4 ids.
#[derive(Debug, Clone, Copy, Default)]
pub struct UuidIds;

impl IdSource for UuidIds {
    fn new_hex_id(&self) -> String {
        uuid::Uuid::new_v4().simple().to_string()
    }
}

/// Dice from the operating system's random source (through UUID v4's random bits), uniform
/// by rejection sampling.
#[derive(Debug, Clone, Copy, Default)]
pub struct OsRng;

impl Rng for OsRng {
    fn roll(&self, sides: u32) -> u32 {
        let sides = u64::from(sides.max(1));
        // The largest multiple of `sides` below 2^64; draws at or above it would bias the low faces.
        let zone = u64::MAX - (u64::MAX % sides);
        loop {
            let bytes = uuid::Uuid::new_v4().into_bytes();
            let mut draw = [0u8; 8];
            draw.copy_from_slice(&bytes[..8]);
            let value = u64::from_le_bytes(draw);
            if value < zone {
                return u32::try_from(value % sides + 1).unwrap_or(1);
            }
        }
    }
}

fn iso_utc(time: SystemTime) -> String {
    let since_epoch = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since_epoch.as_secs();
    let (year, month, day) = civil_from_days(secs / 86_400);
    let of_day = secs % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60,
        since_epoch.subsec_millis()
    )
}

/// The proleptic Gregorian date `days` days after 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn ids_and_dice() {
        let id = UuidIds.new_hex_id();
        assert_eq!(id.len(), 32);
        assert_ne!(id, UuidIds.new_hex_id());
        let rolls: Vec<u32> = (0..2000).map(|_| OsRng.roll(6)).collect();
        assert!(rolls.iter().all(|r| (1..=6).contains(r)));
        for face in 1..=6 {
            assert!(
                rolls.contains(&face),
                "face {face} never came up in 2000 rolls"
            );
        }
        assert_eq!(OsRng.roll(1), 1);
        assert!(SystemClock.now_rfc3339().ends_with('Z'));
    }

    #[test]
    fn formats_like_to_iso_string() {
        let at = |secs: u64, millis: u64| {
            iso_utc(UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(millis))
        };
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_827_696, 7), "2000-02-29T12:34:56.007Z");
        assert_eq!(at(1_767_225_599, 999), "2025-12-31T23:59:59.999Z");
        assert_eq!(at(4_107_542_400, 0), "2100-03-01T00:00:00.000Z");
    }
}
