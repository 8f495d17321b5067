//! [`ProfileId`]: the validated name of a profile, also its file name on disk.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::ProfileError;

/// Profile ids, artifact ids and skill names share one shape: at most this many bytes.
pub const MAX_PROFILE_ID_BYTES: usize = 128;

/// A profile id: 1 to 128 bytes of `[a-z0-9_-]`, surrounding whitespace trimmed.
///
/// The id doubles as `<id>.json` in the profile store and as a workspace key for
/// delegated tasks, so the alphabet is kept safe for file names on every platform.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProfileId(String);

impl ProfileId {
    /// Validates a profile id given in the `id` field.
    pub fn parse(raw: &str) -> Result<Self, ProfileError> {
        Self::parse_field(raw, "id")
    }

    /// Validates a profile id found in `field`, so the error can say where it came from.
    pub fn parse_field(raw: &str, field: &str) -> Result<Self, ProfileError> {
        let id = raw.trim();
        if id.is_empty() {
            return Err(ProfileError::IdEmpty {
                field: field.to_owned(),
            });
        }
        if id.len() > MAX_PROFILE_ID_BYTES {
            return Err(ProfileError::IdTooLong {
                field: field.to_owned(),
                value: id.to_owned(),
            });
        }
        if !is_id_alphabet(id) {
            return Err(ProfileError::IdInvalid {
                field: field.to_owned(),
                value: id.to_owned(),
            });
        }
        Ok(Self(id.to_owned()))
    }

    /// The id text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Whether every byte is a lower-case ASCII letter, a digit, `-` or `_`.
pub(crate) fn is_id_alphabet(raw: &str) -> bool {
    raw.bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// The shape shared by artifact ids and skill names: 1 to 128 bytes of `[a-z0-9_-]`.
pub(crate) fn is_simple_name(raw: &str) -> bool {
    !raw.is_empty() && raw.len() <= MAX_PROFILE_ID_BYTES && is_id_alphabet(raw)
}

impl fmt::Display for ProfileId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for ProfileId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ProfileId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        Self::parse(&raw).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn ids_are_trimmed_and_checked() {
        assert_eq!(
            ProfileId::parse("  my-writer_2 ").unwrap().as_str(),
            "my-writer_2"
        );
        let cases = [
            ("", "agent.profile_id_empty"),
            ("   ", "agent.profile_id_empty"),
            ("Writer", "agent.profile_id_invalid"),
            ("a.b", "agent.profile_id_invalid"),
            ("a b", "agent.profile_id_invalid"),
        ];
        for (raw, code) in cases {
            assert_eq!(ProfileId::parse(raw).unwrap_err().code(), code, "{raw:?}");
        }
        let long = "a".repeat(MAX_PROFILE_ID_BYTES + 1);
        assert_eq!(
            ProfileId::parse(&long).unwrap_err().code(),
            "agent.profile_id_too_long"
        );
        assert!(ProfileId::parse(&"a".repeat(MAX_PROFILE_ID_BYTES)).is_ok());
    }

    #[test]
    fn errors_name_the_field() {
        let err = ProfileId::parse_field("Bad", "delegation.allowedCallers[1]").unwrap_err();
        assert!(
            err.to_string().contains("delegation.allowedCallers[1]"),
            "{err}"
        );
    }
}
