//! Identifiers of runs and the things inside them. Each is a storage path segment, so each is
//! validated: 1–128 bytes of `[A-Za-z0-9_-]`.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::ErrorCode;

/// Longest id accepted as a storage path segment.
pub const MAX_ID_BYTES: usize = 128;

/// An id that is not a safe storage path segment.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {kind} `{value}`: ids are 1-128 characters of A-Z, a-z, 0-9, `_` and `-`")]
pub struct InvalidId {
    pub kind: &'static str,
    pub value: String,
}

impl ErrorCode for InvalidId {
    fn code(&self) -> &'static str {
        "agent.invalid_storage_id"
    }
}

fn is_segment(raw: &str) -> bool {
    !raw.is_empty()
        && raw.len() <= MAX_ID_BYTES
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Lower-case hex of the first eight bytes of a digest: the short stable suffix used for
/// workspace ids and audit file names.
pub fn short_hex(digest: &[u8; 32]) -> String {
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

macro_rules! storage_id {
    ($(#[$doc:meta])* $name:ident, $kind:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        impl $name {
            /// Validates `raw` as this kind of id.
            pub fn parse(raw: &str) -> Result<Self, InvalidId> {
                if is_segment(raw) {
                    Ok(Self(raw.to_owned()))
                } else {
                    Err(InvalidId { kind: $kind, value: raw.to_owned() })
                }
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let raw = String::deserialize(deserializer)?;
                Self::parse(&raw).map_err(serde::de::Error::custom)
            }
        }
    };
}

storage_id!(
    /// A run: `run_<32 hex>`.
    RunId,
    "run id"
);
storage_id!(
    /// An invocation: the constant `inv_root`, or `inv_<32 hex>` for children and handoffs.
    InvocationId,
    "invocation id"
);
storage_id!(
    /// A chat's agent workspace: `chat_<16 hex>` derived from the stable chat id.
    WorkspaceId,
    "workspace id"
);
storage_id!(
    /// A delegated (`task_<32 hex>`) or handoff (`handoff_<32 hex>`) task.
    TaskId,
    "task id"
);
storage_id!(
    /// An immutable persistent state; equal to the id of the run that promoted it.
    StateId,
    "persistent state id"
);

impl RunId {
    /// `run_<hex>` from 32 hex digits of a fresh UUID.
    pub fn from_uuid_hex(hex: &str) -> Result<Self, InvalidId> {
        Self::parse(&format!("run_{hex}"))
    }
}

impl InvocationId {
    /// The id of every run's root invocation.
    pub const ROOT: &'static str = "inv_root";

    pub fn root() -> Self {
        Self(Self::ROOT.to_owned())
    }

    pub fn is_root(&self) -> bool {
        self.0 == Self::ROOT
    }
}

impl WorkspaceId {
    /// `chat_<16 hex>` from the SHA-256 of [`ChatKind::workspace_digest_input`].
    ///
    /// [`ChatKind::workspace_digest_input`]: super::ChatKind::workspace_digest_input
    pub fn from_digest(digest: &[u8; 32]) -> Self {
        Self(format!("chat_{}", short_hex(digest)))
    }
}

impl StateId {
    /// A run promotes exactly one state, named after itself.
    pub fn of_run(run: &RunId) -> Self {
        Self(run.0.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_validated() {
        assert!(RunId::parse("run_0123abc").is_ok());
        for bad in ["", "a/b", "..", "a b", "é", &"x".repeat(129)] {
            let err = RunId::parse(bad).unwrap_err();
            assert_eq!(err.code(), "agent.invalid_storage_id");
        }
        assert!(TaskId::parse(&"x".repeat(128)).is_ok());
        let json = serde_json::to_string(&InvocationId::root()).unwrap();
        assert_eq!(json, "\"inv_root\"");
        assert!(serde_json::from_str::<InvocationId>("\"../x\"").is_err());
        assert!(InvocationId::root().is_root());
    }

    #[test]
    fn short_hex_takes_eight_bytes() {
        let mut digest = [0u8; 32];
        digest[0] = 0xd4;
        digest[7] = 0x07;
        digest[8] = 0xff;
        assert_eq!(short_hex(&digest), "d400000000000007");
        assert_eq!(
            WorkspaceId::from_digest(&digest).as_str(),
            "chat_d400000000000007"
        );
        let run = RunId::from_uuid_hex("ab").unwrap();
        assert_eq!(StateId::of_run(&run).as_str(), "run_ab");
    }
}
