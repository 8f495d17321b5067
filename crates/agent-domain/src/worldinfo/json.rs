//! An order-preserving JSON value with JavaScript's object semantics and a
//! `JSON.stringify`-compatible writer.
//!
//! The timed-effect records of a chat name an entry by a hash of the exact text
//! `JSON.stringify` produced for it in the browser, so the lorebook file has to be read
//! without losing key order and written back byte for byte as JavaScript would. The
//! workspace's `serde_json` sorts object keys (its `preserve_order` feature is off on purpose:
//! turning it on would change every other JSON this workspace writes), hence this small
//! value type.
//!
//! What "as JavaScript would" covers:
//! * objects keep insertion order, except that array-index keys (`"0"`, `"17"`) come first in
//!   ascending numeric order; a repeated key keeps its first position and takes the last
//!   value (what `JSON.parse` does);
//! * numbers are IEEE doubles (`1.0` and `1e2` read as 1 and 100, integers beyond 2⁵³ lose
//!   precision) and print with ECMAScript's Number::toString;
//! * strings escape only `"`, `\`, and control characters (`\b \f \n \r \t`, else `\u00xx`
//!   in lowercase hex); everything else, U+2028 included, is written as is.
//!
//! Not covered: lone UTF-16 surrogates (`"\ud800"`) cannot be read at all, because Rust
//! strings cannot hold them, and number parsing relies on `serde_json`, which may round the
//! last bit of a few long decimal literals differently from a browser.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::js::{JsScalar, array_index, number_to_string};

/// A JSON value as JavaScript holds it after `JSON.parse`.
#[derive(Debug, Clone, PartialEq)]
pub enum OrderedJson {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<OrderedJson>),
    Object(JsObject),
}

/// A JavaScript object: string keys with JavaScript's enumeration order (see the module
/// documentation).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JsObject {
    /// In insertion order; [`JsObject::iter`] applies the array-index rule.
    members: Vec<(String, OrderedJson)>,
}

impl JsObject {
    /// An empty object.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `key` like a JavaScript assignment: a new key goes last, an existing key keeps its
    /// place and takes the new value.
    pub fn insert(&mut self, key: impl Into<String>, value: OrderedJson) {
        let key = key.into();
        match self.members.iter_mut().find(|(k, _)| *k == key) {
            Some((_, slot)) => *slot = value,
            None => self.members.push((key, value)),
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&OrderedJson> {
        self.members
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, value)| value)
    }

    /// The members in JavaScript's enumeration order: array-index keys ascending, then the
    /// other keys in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &OrderedJson)> {
        let mut ordered: Vec<&(String, OrderedJson)> = self.members.iter().collect();
        // Stable: non-index keys keep their insertion order.
        ordered.sort_by_key(|(key, _)| array_index(key).map_or((1, 0), |n| (0, n)));
        ordered
            .into_iter()
            .map(|(key, value)| (key.as_str(), value))
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the object has no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

impl OrderedJson {
    /// Parses JSON text the way `JSON.parse` would (see the module documentation).
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The object, when this is one.
    pub fn as_object(&self) -> Option<&JsObject> {
        match self {
            Self::Object(object) => Some(object),
            _ => None,
        }
    }

    /// The value as the scalar JavaScript coerces.
    pub(crate) fn scalar(&self) -> JsScalar<'_> {
        match self {
            Self::Null => JsScalar::Null,
            Self::Bool(b) => JsScalar::Bool(*b),
            Self::Number(n) => JsScalar::Number(*n),
            Self::String(s) => JsScalar::Text(s),
            Self::Array(_) | Self::Object(_) => JsScalar::Compound,
        }
    }

    /// The text `JSON.stringify(value)` produces (no indentation).
    pub fn to_js_string(&self) -> String {
        let mut out = String::new();
        self.write_js(&mut out);
        out
    }

    fn write_js(&self, out: &mut String) {
        match self {
            Self::Null => out.push_str("null"),
            Self::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Self::Number(n) if n.is_finite() => out.push_str(&number_to_string(*n)),
            Self::Number(_) => out.push_str("null"),
            Self::String(s) => quote_js_string(s, out),
            Self::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_js(out);
                }
                out.push(']');
            }
            Self::Object(object) => {
                out.push('{');
                for (i, (key, value)) in object.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    quote_js_string(key, out);
                    out.push(':');
                    value.write_js(out);
                }
                out.push('}');
            }
        }
    }
}

/// `JSON.stringify` of a string: JavaScript's QuoteJSONString.
fn quote_js_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

impl<'de> Deserialize<'de> for OrderedJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(OrderedJsonVisitor)
    }
}

struct OrderedJsonVisitor;

impl<'de> Visitor<'de> for OrderedJsonVisitor {
    type Value = OrderedJson;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Number(v as f64))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Number(v as f64))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Number(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<OrderedJson, E> {
        Ok(OrderedJson::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<OrderedJson, E> {
        Ok(OrderedJson::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OrderedJson, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(OrderedJson::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedJson, A::Error> {
        let mut object = JsObject::new();
        while let Some((key, value)) = map.next_entry::<String, OrderedJson>()? {
            object.insert(key, value);
        }
        Ok(OrderedJson::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) -> String {
        OrderedJson::parse(text).unwrap().to_js_string()
    }

    #[test]
    fn key_order_is_kept_with_array_indexes_first() {
        assert_eq!(
            round_trip(r#"{"b": 1, "a": 2, "10": 3, "2": 4, "02": 5}"#),
            r#"{"2":4,"10":3,"b":1,"a":2,"02":5}"#
        );
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_last_value() {
        assert_eq!(
            round_trip(r#"{"a": 1, "b": 2, "a": 3}"#),
            r#"{"a":3,"b":2}"#
        );
    }

    #[test]
    fn numbers_are_doubles_printed_like_javascript() {
        assert_eq!(
            round_trip("[1.0, 1e2, -0, 0.5, 1e21, 1E-7, 9007199254740993, 12345678901234567890]"),
            "[1,100,0,0.5,1e+21,1e-7,9007199254740992,12345678901234567000]"
        );
    }

    #[test]
    fn strings_escape_like_json_stringify() {
        let text = "\"q\" \\ \u{8}\u{c}\n\r\t\u{1}\u{1f} é \u{2028} 😀 </script>";
        let value = OrderedJson::String(text.to_owned());
        let expected = r#""\"q\" \\ \b\f\n\r\t\u0001\u001f é LS 😀 </script>""#;
        assert_eq!(value.to_js_string(), expected.replace("LS", "\u{2028}"));
    }

    #[test]
    fn nested_values_and_literals_round_trip() {
        assert_eq!(
            round_trip(r#" { "x" : [ true , false , null , { } , [ ] ] , "y" : "" } "#),
            r#"{"x":[true,false,null,{},[]],"y":""}"#
        );
    }
}
