//! Reading a tool's arguments: one object, closed to unknown keys, with typed getters whose
//! errors tell the model exactly which argument to fix (`tool.invalid_arguments`).

use serde_json::{Map, Value};

use super::ToolFailure;

/// The arguments of one call, checked to be an object.
#[derive(Debug, Clone)]
pub struct Args {
    map: Map<String, Value>,
}

/// The code of every malformed-argument error.
pub const INVALID_ARGUMENTS: &str = "tool.invalid_arguments";

/// A JSON value's kind with its article, for messages: `an array`, `a string`, ….
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Args {
    /// Accepts an object; `null` counts as `{}`. A string is what a model sent when its
    /// arguments were not a JSON object: it is echoed back, saying whether it was not JSON
    /// at all or JSON of another kind, so the model can see its mistake.
    pub fn parse(raw: &Value, allowed: &[&str]) -> Result<Self, ToolFailure> {
        let map = match raw {
            Value::Object(map) => map.clone(),
            Value::Null => Map::new(),
            Value::String(text) => {
                return Err(invalid(match serde_json::from_str::<Value>(text) {
                    Ok(other) => format!(
                        "arguments must be a JSON object, not {}: {}. Send one JSON object \
                         with the arguments as its keys.",
                        kind_of(&other),
                        preview(text)
                    ),
                    Err(_) => format!(
                        "arguments are not valid JSON: {}. Send one JSON object.",
                        preview(text)
                    ),
                }));
            }
            other => {
                return Err(invalid(format!(
                    "arguments must be a JSON object, not {}",
                    kind_of(other)
                )));
            }
        };
        if let Some(unknown) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
            let accepted = if allowed.is_empty() {
                "this tool takes no arguments".to_owned()
            } else {
                format!("accepted arguments: {}", allowed.join(", "))
            };
            return Err(invalid(format!(
                "`{unknown}` is not an argument of this tool; {accepted}"
            )));
        }
        Ok(Self { map })
    }

    /// A required non-blank string, trimmed.
    pub fn required_str(&self, key: &str) -> Result<String, ToolFailure> {
        match self.optional_str(key)? {
            Some(s) if !s.trim().is_empty() => Ok(s.trim().to_owned()),
            _ => Err(invalid(format!("`{key}` is required"))),
        }
    }

    /// A required string kept exactly as sent (file content, patch text); may be empty.
    pub fn required_raw_str(&self, key: &str) -> Result<String, ToolFailure> {
        self.optional_str(key)?
            .ok_or_else(|| invalid(format!("`{key}` is required")))
    }

    /// An optional string (`null` counts as absent).
    pub fn optional_str(&self, key: &str) -> Result<Option<String>, ToolFailure> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(invalid(format!("`{key}` must be a string"))),
        }
    }

    /// An optional string that is one of `choices` (compared case-insensitively after trim).
    pub fn optional_choice(
        &self,
        key: &str,
        choices: &[&'static str],
    ) -> Result<Option<&'static str>, ToolFailure> {
        let Some(raw) = self.optional_str(key)? else {
            return Ok(None);
        };
        let wanted = raw.trim().to_lowercase();
        choices
            .iter()
            .find(|c| c.to_lowercase() == wanted)
            .copied()
            .map(Some)
            .ok_or_else(|| invalid(format!("`{key}` must be one of {}", choices.join(", "))))
    }

    /// An optional non-negative integer within `min..=max`.
    pub fn optional_u64(&self, key: &str, min: u64, max: u64) -> Result<Option<u64>, ToolFailure> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => integer_in(value, key, min, max).map(Some),
        }
    }

    /// An optional boolean.
    pub fn optional_bool(&self, key: &str) -> Result<Option<bool>, ToolFailure> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(invalid(format!("`{key}` must be true or false"))),
        }
    }

    /// An optional array, each item an object closed to `item_keys`, with `min..=max` items.
    pub fn optional_object_list(
        &self,
        key: &str,
        item_keys: &[&str],
        min: usize,
        max: usize,
    ) -> Result<Option<Vec<Args>>, ToolFailure> {
        let items = match self.map.get(key) {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Array(items)) => items,
            Some(_) => return Err(invalid(format!("`{key}` must be an array"))),
        };
        if items.len() < min || items.len() > max {
            return Err(invalid(format!("`{key}` must have {min} to {max} items")));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::Object(_) => {
                    Args::parse(item, item_keys).map_err(|e| e.prefixed(&format!("{key}[{i}]: ")))
                }
                _ => Err(invalid(format!("`{key}[{i}]` must be an object"))),
            })
            .collect::<Result<Vec<Args>, _>>()
            .map(Some)
    }

    /// The raw value of an argument.
    pub fn raw(&self, key: &str) -> Option<&Value> {
        self.map.get(key)
    }
}

impl Default for Args {
    fn default() -> Self {
        Self { map: Map::new() }
    }
}

/// Checks `value` is an integer in `min..=max`.
pub fn integer_in(value: &Value, key: &str, min: u64, max: u64) -> Result<u64, ToolFailure> {
    let n = value
        .as_u64()
        .ok_or_else(|| invalid(format!("`{key}` must be a non-negative integer")))?;
    if n < min {
        return Err(invalid(format!("`{key}` must be at least {min}")));
    }
    if n > max {
        return Err(invalid(format!("`{key}` must be at most {max}")));
    }
    Ok(n)
}

/// A malformed-argument failure.
pub fn invalid(message: impl Into<String>) -> ToolFailure {
    ToolFailure::recoverable(INVALID_ARGUMENTS, message)
}

fn preview(text: &str) -> String {
    const MAX: usize = 200;
    let shown: String = text.chars().take(MAX).collect();
    if text.chars().count() > MAX {
        format!("`{shown}…`")
    } else {
        format!("`{shown}`")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn code(f: ToolFailure) -> (String, String) {
        match f {
            ToolFailure::Recoverable { code, message } => (code, message),
            ToolFailure::Fatal(e) => panic!("fatal {e}"),
        }
    }

    #[test]
    fn objects_only_and_closed() {
        assert!(Args::parse(&json!({}), &[]).is_ok());
        assert!(Args::parse(&Value::Null, &["a"]).is_ok());
        let (c, m) = code(Args::parse(&json!([1]), &[]).unwrap_err());
        assert_eq!(c, INVALID_ARGUMENTS);
        assert!(m.contains("object"));
        let (_, m) = code(Args::parse(&json!("{\"path\": "), &["path"]).unwrap_err());
        assert!(m.contains("{\"path\": "), "{m}");
        assert!(m.contains("not valid JSON"), "{m}");
        for (raw, kind) in [
            ("[1,2]", "an array"),
            ("\"x\"", "a string"),
            ("3", "a number"),
            ("true", "a boolean"),
            ("null", "null"),
        ] {
            let (c, m) = code(Args::parse(&json!(raw), &["path"]).unwrap_err());
            assert_eq!(c, INVALID_ARGUMENTS);
            assert!(
                m.starts_with(&format!(
                    "arguments must be a JSON object, not {kind}: `{raw}`"
                )),
                "{m}"
            );
        }
        let (_, m) = code(Args::parse(&json!({"paht": 1}), &["path"]).unwrap_err());
        assert!(m.contains("`paht`") && m.contains("path"), "{m}");
    }

    #[test]
    fn typed_getters() {
        let a = Args::parse(
            &json!({"s": " x ", "n": 5, "b": true, "c": "User", "blank": "  ", "neg": -1}),
            &["s", "n", "b", "c", "blank", "neg"],
        )
        .unwrap();
        assert_eq!(a.required_str("s").unwrap(), "x");
        assert_eq!(a.required_raw_str("s").unwrap(), " x ");
        assert!(a.required_str("blank").is_err());
        assert!(a.required_str("missing").is_err());
        assert_eq!(a.optional_u64("n", 1, 10).unwrap(), Some(5));
        assert!(
            code(a.optional_u64("n", 6, 10).unwrap_err())
                .1
                .contains("at least 6")
        );
        assert!(
            code(a.optional_u64("n", 1, 4).unwrap_err())
                .1
                .contains("at most 4")
        );
        assert!(a.optional_u64("neg", 0, 4).is_err());
        assert_eq!(a.optional_bool("b").unwrap(), Some(true));
        assert!(a.optional_bool("s").is_err());
        assert_eq!(
            a.optional_choice("c", &["user", "assistant"]).unwrap(),
            Some("user")
        );
        assert!(a.optional_choice("s", &["user"]).is_err());
    }

    #[test]
    fn object_lists() {
        let a = Args::parse(&json!({"m": [{"index": 1}, {"index": 2, "x": 1}]}), &["m"]).unwrap();
        let (_, msg) = code(a.optional_object_list("m", &["index"], 1, 20).unwrap_err());
        assert!(msg.starts_with("m[1]: "), "{msg}");
        let ok = Args::parse(&json!({"m": [{"index": 1}]}), &["m"]).unwrap();
        assert_eq!(
            ok.optional_object_list("m", &["index"], 1, 20)
                .unwrap()
                .unwrap()
                .len(),
            1
        );
        let empty = Args::parse(&json!({"m": []}), &["m"]).unwrap();
        assert!(empty.optional_object_list("m", &["index"], 1, 20).is_err());
    }
}
