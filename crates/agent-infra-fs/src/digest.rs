//! SHA-256 helpers and the [`Digest`] port implementation.

use agent_application::ports::Digest;
use sha2::{Digest as _, Sha256};

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The raw SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// `call_<16 hex>`: the audit file stem of a provider tool-call id.
pub fn audit_stem(call_id: &str) -> String {
    format!(
        "call_{}",
        agent_domain::run::short_hex(&sha256(call_id.as_bytes()))
    )
}

/// The [`Digest`] port over `sha2`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sha256Digest;

impl Digest for Sha256Digest {
    fn sha256(&self, bytes: &[u8]) -> [u8; 32] {
        sha256(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_domain::run::{ChatKind, WorkspaceId};

    #[test]
    fn known_vectors() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(audit_stem("call_mcp"), "call_fe79da5f09df9787");
        assert_eq!(audit_stem("call_1"), "call_74196fe72e4cdc13");
    }

    #[test]
    fn workspace_ids_match_the_reference() {
        let id = |kind: ChatKind| {
            WorkspaceId::from_digest(&sha256(
                kind.workspace_digest_input("stable-chat").as_bytes(),
            ))
        };
        assert_eq!(id(ChatKind::Character).as_str(), "chat_d474bb6f0a9e39a7");
        assert_eq!(id(ChatKind::Group).as_str(), "chat_e3a3589a09f81729");
    }
}
