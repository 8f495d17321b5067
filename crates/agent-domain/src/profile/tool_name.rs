//! [`ToolName`]: a tool as a profile document spells it, before validation.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::tool::{ToolId, ToolIdError};

/// A tool named in `tools.allow`, `tools.deny` or a `tools.*` map key.
///
/// The text is kept as written (after migration: the canonical id whenever it parses) so
/// that a bad name reaches validation and is reported as `agent.profile_unknown_tool`
/// with the field it came from, instead of failing deserialisation with no context.
/// Serialising always writes the canonical id when the name parses.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ToolName(String);

impl ToolName {
    /// Wraps a tool name as written.
    pub fn new(raw: impl Into<String>) -> Self {
        Self(raw.into())
    }

    /// The name of a known tool, spelled as its canonical id.
    pub fn from_id(id: &ToolId) -> Self {
        Self(id.to_string())
    }

    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Parses the name as a tool id (bare builtin names included).
    pub fn to_id(&self) -> Result<ToolId, ToolIdError> {
        ToolId::parse(&self.0)
    }

    /// The canonical spelling when the name parses, else the text unchanged.
    pub fn canonical(&self) -> Self {
        self.to_id()
            .map_or_else(|_| self.clone(), |id| Self::from_id(&id))
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for ToolName {
    fn from(raw: &str) -> Self {
        Self::new(raw)
    }
}

impl Serialize for ToolName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.canonical().as_str())
    }
}

impl<'de> Deserialize<'de> for ToolName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_canonically_and_keeps_bad_names() {
        let bare = ToolName::new("workspace.read_file");
        assert_eq!(
            serde_json::to_string(&bare).unwrap(),
            "\"builtin:workspace.read_file\""
        );
        let bad = ToolName::new("web:fetch");
        assert!(bad.to_id().is_err());
        assert_eq!(serde_json::to_string(&bad).unwrap(), "\"web:fetch\"");
        let back: ToolName = serde_json::from_str("\"web:fetch\"").unwrap();
        assert_eq!(back, bad);
    }
}
