//! JSON Schema → the OpenAPI 3.0 subset Gemini's `parameters` accepts
//! (`docs/providers.md`). Works on a deep copy: the canonical schema is never changed.

use serde_json::{Map, Value, json};

/// Keywords of the subset that are kept as they are.
const KEPT: &[&str] = &[
    "type",
    "title",
    "description",
    "nullable",
    "enum",
    "minItems",
    "maxItems",
    "required",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "propertyOrdering",
    "default",
];

/// String and number formats the Developer API accepts.
const FORMATS: &[&str] = &["enum", "date-time", "int32", "int64", "float", "double"];

/// How deep local `$ref`s are inlined before a reference is dropped (recursion guard).
const MAX_REF_DEPTH: usize = 8;

/// The OpenAPI-subset copy of `schema`, or `None` for a schema with no properties (a
/// no-argument function must omit `parameters`).
///
/// Unsupported keywords are dropped at every depth (`$schema`, `$id`, `additionalProperties`,
/// `allOf`, `not`, `exclusiveMinimum`, `patternProperties`, `if`/`then`/`else`, …). Property
/// *names* are data, not keywords: a property called `title` or `default` survives. Local
/// `$ref`s into `$defs`/`definitions` are inlined (up to a fixed depth); `const` becomes a
/// one-value `enum`; a type array or an `anyOf` with a `null` branch becomes `nullable`;
/// `oneOf` becomes `anyOf`; `type: "object"` is added wherever `properties` appear.
pub fn openapi_schema(schema: &Value) -> Option<Value> {
    let empty = schema
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    if empty {
        return None;
    }
    Some(convert(schema, schema, 0))
}

fn convert(node: &Value, root: &Value, depth: usize) -> Value {
    let Some(object) = node.as_object() else {
        // Boolean schemas (`true`/`false`) have no place in the subset.
        return json!({});
    };
    if let Some(target) = object.get("$ref").and_then(Value::as_str) {
        return match resolve(root, target) {
            Some(resolved) if depth < MAX_REF_DEPTH => convert(resolved, root, depth + 1),
            _ => json!({}),
        };
    }
    let mut out = Map::new();
    for (key, value) in object {
        match key.as_str() {
            "properties" => {
                let properties = value
                    .as_object()
                    .map(|p| {
                        p.iter()
                            .map(|(name, s)| (name.clone(), convert(s, root, depth)))
                            .collect::<Map<_, _>>()
                    })
                    .unwrap_or_default();
                out.insert(key.clone(), Value::Object(properties));
            }
            "items" => {
                out.insert(key.clone(), convert(value, root, depth));
            }
            "anyOf" | "oneOf" => {
                let branches = value.as_array().cloned().unwrap_or_default();
                let non_null: Vec<Value> = branches
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
                    .map(|b| convert(b, root, depth))
                    .collect();
                if non_null.len() < branches.len() {
                    out.insert("nullable".into(), json!(true));
                }
                match <[Value; 1]>::try_from(non_null) {
                    Ok([only]) => {
                        if let Value::Object(only) = only {
                            for (k, v) in only {
                                out.entry(k).or_insert(v);
                            }
                        }
                    }
                    Err(many) if !many.is_empty() => {
                        out.insert("anyOf".into(), Value::Array(many));
                    }
                    Err(_) => {}
                }
            }
            "type" => match value {
                Value::Array(types) => {
                    let mut non_null = types.iter().filter(|t| t.as_str() != Some("null"));
                    if let Some(first) = non_null.next() {
                        out.insert("type".into(), first.clone());
                    }
                    if types.iter().any(|t| t.as_str() == Some("null")) {
                        out.insert("nullable".into(), json!(true));
                    }
                }
                other => {
                    out.insert("type".into(), other.clone());
                }
            },
            "const" => {
                out.insert("enum".into(), json!([value]));
            }
            "format" if value.as_str().is_some_and(|f| FORMATS.contains(&f)) => {
                out.insert(key.clone(), value.clone());
            }
            k if KEPT.contains(&k) => {
                out.entry(key.clone()).or_insert_with(|| value.clone());
            }
            _ => {}
        }
    }
    if out.contains_key("properties") {
        out.entry("type").or_insert_with(|| json!("object"));
    }
    Value::Object(out)
}

/// A local reference (`#/$defs/X`, `#/definitions/X`, any JSON pointer into the root).
fn resolve<'a>(root: &'a Value, target: &str) -> Option<&'a Value> {
    root.pointer(target.strip_prefix('#')?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn drops_unsupported_keywords_at_every_depth() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "x",
            "type": "object",
            "additionalProperties": false,
            "$defs": {"Mode": {"type": "string", "enum": ["a", "b"], "$comment": "c"}},
            "properties": {
                "title": {"type": "string", "title": "Title", "exclusiveMinimum": 1},
                "default": {"type": ["integer", "null"], "format": "int64"},
                "mode": {"$ref": "#/$defs/Mode"},
                "kind": {"const": "k"},
                "when": {"type": "string", "format": "uri"},
                "tags": {"type": "array", "items": {"type": "object", "additionalProperties": true,
                          "properties": {"x": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}},
                "either": {"oneOf": [{"type": "string"}, {"type": "number"}]},
                "self": {"$ref": "#"}
            },
            "required": ["title"]
        });
        let copy = schema.clone();
        let converted = openapi_schema(&schema).unwrap();
        assert_eq!(schema, copy, "the canonical schema is untouched");
        assert_eq!(
            converted["properties"]["title"],
            json!({"type": "string", "title": "Title"})
        );
        assert_eq!(
            converted["properties"]["default"],
            json!({"type": "integer", "nullable": true, "format": "int64"})
        );
        assert_eq!(
            converted["properties"]["mode"],
            json!({"type": "string", "enum": ["a", "b"]})
        );
        assert_eq!(converted["properties"]["kind"], json!({"enum": ["k"]}));
        assert_eq!(converted["properties"]["when"], json!({"type": "string"}));
        assert_eq!(
            converted["properties"]["tags"],
            json!({"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string", "nullable": true}}}})
        );
        assert_eq!(
            converted["properties"]["either"],
            json!({"anyOf": [{"type": "string"}, {"type": "number"}]})
        );
        assert_eq!(converted["required"], json!(["title"]));
        for dropped in ["$schema", "$id", "additionalProperties", "$defs"] {
            assert!(converted.get(dropped).is_none(), "{dropped}");
        }
        // The self-reference is inlined a bounded number of times, then dropped.
        let text = converted.to_string();
        assert!(
            !text.contains("$ref") && !text.contains("exclusiveMinimum"),
            "{text}"
        );
    }

    #[test]
    fn a_schema_without_properties_means_no_parameters() {
        assert_eq!(openapi_schema(&json!({"type": "object"})), None);
        assert_eq!(
            openapi_schema(&json!({"type": "object", "properties": {}})),
            None
        );
    }
}
