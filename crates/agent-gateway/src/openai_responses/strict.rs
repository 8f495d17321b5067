//! Whether a tool's schema can be sent with `strict: true` (`docs/providers.md`, OpenAI Responses).
//!
//! Responses defaults function tools to strict, which constrains decoding to the schema but
//! only accepts a subset of JSON Schema. The adapter never rewrites a schema to fit (making
//! optional fields required-but-nullable would change what a tool receives); it asks for
//! strictness only when the canonical schema already meets every rule, and sends
//! `strict: false` otherwise.

use serde_json::{Map, Value};

/// Keywords strict mode accepts on a schema node.
const ALLOWED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "description",
    "title",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "$defs",
    "$ref",
];

/// String formats strict mode understands.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Nesting strict mode allows.
const MAX_DEPTH: usize = 10;

/// `true` when `schema` meets strict mode as it is: an object root; on every object
/// `additionalProperties: false` and `required` naming every property; only supported
/// keywords and formats; no `$ref` with sibling keywords; at most ten levels deep.
pub fn is_strict_compatible(schema: &Value) -> bool {
    let Some(root) = schema.as_object() else {
        return false;
    };
    root.get("type").and_then(Value::as_str) == Some("object") && node_ok(root, 0)
}

fn node_ok(node: &Map<String, Value>, depth: usize) -> bool {
    if depth > MAX_DEPTH || node.keys().any(|key| !ALLOWED.contains(&key.as_str())) {
        return false;
    }
    if node.contains_key("$ref") && node.len() > 1 {
        return false;
    }
    if let Some(format) = node.get("format")
        && !format.as_str().is_some_and(|f| FORMATS.contains(&f))
    {
        return false;
    }
    let names_object = |t: &Value| t.as_str() == Some("object");
    let is_object = node.contains_key("properties")
        || node.get("type").is_some_and(|t| match t {
            Value::Array(types) => types.iter().any(names_object),
            other => names_object(other),
        });
    if is_object && !object_ok(node) {
        return false;
    }
    let child = |value: &Value| value.as_object().is_some_and(|n| node_ok(n, depth + 1));
    // Each keyword has exactly one shape: a map of schemas, a list of them, or one.
    let map_ok = |key: &str| match node.get(key) {
        None => true,
        Some(Value::Object(map)) => map.values().all(child),
        Some(_) => false,
    };
    let list_ok = match node.get("anyOf") {
        None => true,
        Some(Value::Array(list)) => list.iter().all(child),
        Some(_) => false,
    };
    let items_ok = node.get("items").is_none_or(child);
    map_ok("properties") && map_ok("$defs") && list_ok && items_ok
}

/// `additionalProperties: false`, and `required` lists every property.
fn object_ok(node: &Map<String, Value>) -> bool {
    if node.get("additionalProperties") != Some(&Value::Bool(false)) {
        return false;
    }
    let empty = Map::new();
    let properties = match node.get("properties") {
        None => &empty,
        Some(Value::Object(map)) => map,
        Some(_) => return false,
    };
    let required: Vec<&str> = match node.get("required") {
        None => Vec::new(),
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        Some(_) => return false,
    };
    properties
        .keys()
        .all(|key| required.contains(&key.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strict_object(properties: Value) -> Value {
        let required: Vec<String> = properties.as_object().unwrap().keys().cloned().collect();
        json!({"type": "object", "properties": properties, "required": required,
               "additionalProperties": false})
    }

    #[test]
    fn a_closed_object_with_every_field_required_is_strict() {
        let schema = strict_object(json!({
            "city": {"type": "string", "description": "where"},
            "unit": {"type": ["string", "null"], "enum": ["c", "f", null]},
            "at": {"type": "string", "format": "date-time"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            "nested": strict_object(json!({"n": {"type": "integer", "minimum": 0}})),
            "either": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "maybe": {"type": ["object", "null"], "properties": {}, "required": [],
                      "additionalProperties": false}
        }));
        assert!(is_strict_compatible(&schema));
        assert!(is_strict_compatible(&strict_object(json!({}))));
    }

    #[test]
    fn anything_strict_mode_would_refuse_falls_back() {
        let refused = [
            json!({"type": "array", "items": {"type": "string"}}),
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
            json!({"type": "object", "properties": {"a": {"type": "string"}},
                   "additionalProperties": false}),
            strict_object(json!({"a": {"oneOf": [{"type": "string"}]}})),
            strict_object(json!({"a": {"type": "string", "default": "x"}})),
            strict_object(json!({"a": {"type": "string", "format": "uri"}})),
            strict_object(json!({"a": {"$ref": "#/$defs/A", "description": "x"}})),
            strict_object(
                json!({"m": {"type": "object", "additionalProperties": {"type": "string"}}}),
            ),
            strict_object(
                json!({"o": {"type": "object", "properties": {"x": {"type": "string"}},
                                       "required": [], "additionalProperties": false}}),
            ),
            json!("not a schema"),
            strict_object(json!({"a": {"anyOf": {"type": "string"}}})),
            strict_object(json!({"o": {"type": ["object", "null"]}})),
            strict_object(json!({"o": {"type": ["object", "null"],
                                       "properties": {"x": {"type": "string"}},
                                       "additionalProperties": false}})),
        ];
        for schema in refused {
            assert!(!is_strict_compatible(&schema), "{schema}");
        }
    }

    #[test]
    fn nesting_deeper_than_ten_levels_falls_back() {
        let mut schema = strict_object(json!({"leaf": {"type": "string"}}));
        for _ in 0..11 {
            schema = strict_object(json!({"inner": schema}));
        }
        assert!(!is_strict_compatible(&schema));
    }
}
