//! Neutral tool descriptions and the catalog a source contributes.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ToolId;
use crate::error::ErrorCode;

/// What a tool is, as its source describes it: no aliases, permissions, budgets or executor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDescriptor {
    pub id: ToolId,
    /// Short human title for UIs and timelines.
    pub title: String,
    /// Model-facing description (profiles may replace it on their frozen copy).
    pub description: String,
    /// JSON Schema of the arguments.
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Source-supplied annotations, kept raw and untrusted.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub annotations: Value,
}

impl ToolDescriptor {
    /// Whether the input schema's root is explicitly `"type": "object"`, which every
    /// provider's function-calling format requires.
    pub fn has_object_input_schema(&self) -> bool {
        self.input_schema.get("type").and_then(Value::as_str) == Some("object")
    }

    /// Names of the top-level input properties.
    pub fn input_property_names(&self) -> impl Iterator<Item = &str> {
        self.input_schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|props| props.keys().map(String::as_str))
    }
}

/// The descriptors one source (the builtins, or the cached MCP catalogs) contributes,
/// keyed by canonical id. Descriptors are shared, so snapshots compiled from the catalog
/// refer to them instead of copying their schemas.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCatalog {
    descriptors: BTreeMap<ToolId, Arc<ToolDescriptor>>,
}

impl ToolCatalog {
    /// Builds a catalog; two descriptors with one id are a programming error of the source.
    pub fn from_descriptors(
        descriptors: impl IntoIterator<Item = ToolDescriptor>,
    ) -> Result<Self, CatalogError> {
        let mut map = BTreeMap::new();
        for descriptor in descriptors {
            let id = descriptor.id.clone();
            if map.insert(id.clone(), Arc::new(descriptor)).is_some() {
                return Err(CatalogError::DuplicateId(id));
            }
        }
        Ok(Self { descriptors: map })
    }

    /// The descriptor of `id`, if the source has it.
    pub fn get(&self, id: &ToolId) -> Option<&Arc<ToolDescriptor>> {
        self.descriptors.get(id)
    }

    /// All descriptors, ordered by id.
    pub fn iter(&self) -> impl Iterator<Item = &ToolDescriptor> {
        self.descriptors.values().map(Arc::as_ref)
    }

    pub fn len(&self) -> usize {
        self.descriptors.len()
    }

    pub fn is_empty(&self) -> bool {
        self.descriptors.is_empty()
    }
}

/// A catalog could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    #[error("tool `{0}` is described twice")]
    DuplicateId(ToolId),
}

impl ErrorCode for CatalogError {
    fn code(&self) -> &'static str {
        "tool.catalog_duplicate_id"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn descriptor(name: &str) -> ToolDescriptor {
        ToolDescriptor {
            id: ToolId::parse(name).unwrap(),
            title: name.into(),
            description: "d".into(),
            input_schema: json!({"type": "object", "properties": {"a": {}, "b": {}}}),
            output_schema: None,
            annotations: Value::Null,
        }
    }

    #[test]
    fn duplicate_ids_fail() {
        let err = ToolCatalog::from_descriptors([descriptor("a.x"), descriptor("builtin:a.x")])
            .unwrap_err();
        assert_eq!(err.code(), "tool.catalog_duplicate_id");
        let ok = ToolCatalog::from_descriptors([descriptor("a.x"), descriptor("a.y")]).unwrap();
        assert_eq!(ok.len(), 2);
        assert!(ok.get(&ToolId::parse("a.y").unwrap()).is_some());
    }

    #[test]
    fn object_schema_and_properties() {
        let mut d = descriptor("a.x");
        assert!(d.has_object_input_schema());
        assert_eq!(d.input_property_names().collect::<Vec<_>>(), ["a", "b"]);
        d.input_schema = json!({"properties": {}});
        assert!(!d.has_object_input_schema());
    }
}
