//! [`OrderedJson`]: an order-preserving JSON value with JavaScript's object semantics and a
//! `JSON.stringify`-compatible writer.
//!
//! SillyTavern's files are written by JavaScript, and other programs see what it wrote:
//! SillyTavern itself, TauriTavern, people diffing their chats. Code that edits a document
//! someone else wrote (a chat line), or must reproduce JavaScript's exact output (the
//! world-info entry hash that names an entry in a chat's timed effects), works on an
//! `OrderedJson`: reading keeps the document's key order, [`OrderedJson::insert`] replaces a
//! value in place or appends a new key last (as a JavaScript assignment does), and writing
//! produces what `JSON.stringify` would. The workspace's `serde_json` sorts object keys (its
//! `preserve_order` feature is off on purpose: turning it on would change every other JSON
//! this workspace writes), hence this small value type.
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

use serde::Serialize;
use serde_json::Value;

use self::js::{JsScalar, array_index, number_to_string};

pub(crate) mod js;

pub use self::js::js_trim;

#[cfg(test)]
mod tests;

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

    /// The value of `key`, for changing it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut OrderedJson> {
        self.members
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, value)| value)
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<OrderedJson> {
        let at = self.members.iter().position(|(k, _)| k == key)?;
        Some(self.members.remove(at).1)
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
    /// An empty object.
    pub fn object() -> Self {
        Self::Object(JsObject::new())
    }

    /// Parses JSON text the way `JSON.parse` would (see the module documentation).
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// [`parse`](Self::parse) of UTF-8 bytes.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }

    /// `value` as an ordered value, its objects keyed in the order its `Serialize` impl
    /// writes them (a struct's declared field order).
    pub fn from_serialize<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        Self::from_slice(&serde_json::to_vec(value)?)
    }

    /// The value as a (key-sorted) `serde_json::Value`, for reading.
    pub fn to_value(&self) -> Value {
        match self {
            Self::Null => Value::Null,
            Self::Bool(b) => Value::Bool(*b),
            Self::Number(n) => number_value(*n),
            Self::String(s) => Value::String(s.clone()),
            Self::Array(items) => Value::Array(items.iter().map(Self::to_value).collect()),
            Self::Object(object) => Value::Object(
                object
                    .iter()
                    .map(|(k, v)| (k.to_owned(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// The object's value at `key`.
    pub fn get(&self, key: &str) -> Option<&OrderedJson> {
        self.as_object()?.get(key)
    }

    /// The object's value at `key`, for changing it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut OrderedJson> {
        match self {
            Self::Object(object) => object.get_mut(key),
            _ => None,
        }
    }

    /// Sets `key` of an object like a JavaScript assignment; does nothing to a value that is
    /// not an object.
    pub fn insert(&mut self, key: &str, value: impl Into<OrderedJson>) {
        if let Self::Object(object) = self {
            object.insert(key, value.into());
        }
    }

    /// Removes `key` from an object, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<OrderedJson> {
        match self {
            Self::Object(object) => object.remove(key),
            _ => None,
        }
    }

    /// The object's value at `key`, made an empty object when missing or not an object.
    /// `None` when `self` is not an object.
    pub fn object_at(&mut self, key: &str) -> Option<&mut OrderedJson> {
        let Self::Object(object) = self else {
            return None;
        };
        if !matches!(object.get(key), Some(Self::Object(_))) {
            object.insert(key, Self::object());
        }
        object.get_mut(key)
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Self::Object(_))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Self::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// A number that is a non-negative integer JavaScript can hold exactly.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Self::Number(n) if *n >= 0.0 && n.fract() == 0.0 && *n <= MAX_SAFE_INTEGER => {
                Some(*n as u64)
            }
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<OrderedJson>> {
        match self {
            Self::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_array_mut(&mut self) -> Option<&mut Vec<OrderedJson>> {
        match self {
            Self::Array(items) => Some(items),
            _ => None,
        }
    }

    /// `JSON.stringify(value)` as bytes, for writing a line of a file.
    pub fn to_js_vec(&self) -> Vec<u8> {
        self.to_js_string().into_bytes()
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

/// The largest integer a JavaScript number holds exactly (2⁵³ − 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A JavaScript number as a `serde_json` number: an integer when it is one.
fn number_value(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER {
        Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

impl From<&Value> for OrderedJson {
    /// Objects come out in the `Value`'s (sorted) key order.
    fn from(value: &Value) -> Self {
        match value {
            Value::Null => Self::Null,
            Value::Bool(b) => Self::Bool(*b),
            Value::Number(n) => Self::Number(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => Self::String(s.clone()),
            Value::Array(items) => Self::Array(items.iter().map(Self::from).collect()),
            Value::Object(map) => {
                let mut object = JsObject::new();
                for (key, value) in map {
                    object.insert(key.as_str(), Self::from(value));
                }
                Self::Object(object)
            }
        }
    }
}

impl From<&str> for OrderedJson {
    fn from(value: &str) -> Self {
        Self::String(value.to_owned())
    }
}

impl From<String> for OrderedJson {
    fn from(value: String) -> Self {
        Self::String(value)
    }
}

impl From<bool> for OrderedJson {
    fn from(value: bool) -> Self {
        Self::Bool(value)
    }
}

impl From<u64> for OrderedJson {
    fn from(value: u64) -> Self {
        Self::Number(value as f64)
    }
}

impl From<usize> for OrderedJson {
    fn from(value: usize) -> Self {
        Self::Number(value as f64)
    }
}

impl<T: Into<OrderedJson>> From<Option<T>> for OrderedJson {
    fn from(value: Option<T>) -> Self {
        value.map_or(Self::Null, Into::into)
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
