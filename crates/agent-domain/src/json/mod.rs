//! [`OrderedJson`]: a JSON value that keeps its objects' keys in the order they were written.
//!
//! SillyTavern's files are written by JavaScript, whose objects keep insertion order, and
//! other programs (SillyTavern itself, TauriTavern, people diffing their chats) see that
//! order. `serde_json::Value` sorts keys (this workspace builds serde_json without
//! `preserve_order`, so that every record we serialise from a struct keeps its declared
//! order and every `Value` stays deterministic). Code that edits a document someone else
//! wrote, or must reproduce JavaScript's key order, works on an `OrderedJson` instead:
//! reading keeps the file's order, [`OrderedJson::insert`] replaces a value in place or
//! appends a new key last (as assigning a property in JavaScript does), and writing
//! produces compact JSON like `JSON.stringify`.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Number, Value};

#[cfg(test)]
mod tests;

/// A JSON value whose objects are ordered lists of keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderedJson {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<OrderedJson>),
    /// Keys in document order; each key at most once.
    Object(Vec<(String, OrderedJson)>),
}

impl OrderedJson {
    /// An empty object.
    pub fn object() -> Self {
        Self::Object(Vec::new())
    }

    /// Parses JSON text, keeping key order. A key given twice keeps its first place and its
    /// last value, as `JSON.parse` does.
    pub fn parse(text: &[u8]) -> serde_json::Result<Self> {
        serde_json::from_slice(text)
    }

    /// `value` as an ordered value, in the order its `Serialize` impl writes keys (a
    /// struct's declared field order).
    pub fn from_serialize<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Self> {
        Self::parse(&serde_json::to_vec(value)?)
    }

    /// Compact JSON text, as `JSON.stringify` writes it.
    pub fn to_json_vec(&self) -> serde_json::Result<Vec<u8>> {
        serde_json::to_vec(self)
    }

    /// The value as a (key-sorted) `serde_json::Value`, for reading.
    pub fn to_value(&self) -> Value {
        match self {
            Self::Null => Value::Null,
            Self::Bool(b) => Value::Bool(*b),
            Self::Number(n) => Value::Number(n.clone()),
            Self::String(s) => Value::String(s.clone()),
            Self::Array(items) => Value::Array(items.iter().map(Self::to_value).collect()),
            Self::Object(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// The object's value at `key`.
    pub fn get(&self, key: &str) -> Option<&OrderedJson> {
        match self {
            Self::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The object's value at `key`, for changing it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut OrderedJson> {
        match self {
            Self::Object(entries) => entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets `key` of an object: an existing key keeps its place, a new one goes last. Does
    /// nothing to a value that is not an object.
    pub fn insert(&mut self, key: &str, value: impl Into<OrderedJson>) {
        let Self::Object(entries) = self else {
            return;
        };
        let value = value.into();
        match entries.iter_mut().find(|(k, _)| k == key) {
            Some((_, slot)) => *slot = value,
            None => entries.push((key.to_owned(), value)),
        }
    }

    /// Removes `key` from an object, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<OrderedJson> {
        let Self::Object(entries) = self else {
            return None;
        };
        let at = entries.iter().position(|(k, _)| k == key)?;
        Some(entries.remove(at).1)
    }

    /// The object's value at `key`, created as an empty object when missing (or replaced
    /// by one when it is not an object). `None` when `self` is not an object.
    pub fn object_at(&mut self, key: &str) -> Option<&mut OrderedJson> {
        if !matches!(self.get(key), Some(Self::Object(_))) {
            if !matches!(self, Self::Object(_)) {
                return None;
            }
            self.insert(key, Self::object());
        }
        self.get_mut(key)
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

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Self::Number(n) => n.as_u64(),
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

    pub fn is_object(&self) -> bool {
        matches!(self, Self::Object(_))
    }
}

impl From<&Value> for OrderedJson {
    /// Objects come out in the `Value`'s (sorted) key order.
    fn from(value: &Value) -> Self {
        match value {
            Value::Null => Self::Null,
            Value::Bool(b) => Self::Bool(*b),
            Value::Number(n) => Self::Number(n.clone()),
            Value::String(s) => Self::String(s.clone()),
            Value::Array(items) => Self::Array(items.iter().map(Self::from).collect()),
            Value::Object(map) => {
                Self::Object(map.iter().map(|(k, v)| (k.clone(), v.into())).collect())
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
        Self::Number(value.into())
    }
}

impl From<usize> for OrderedJson {
    fn from(value: usize) -> Self {
        Self::Number((value as u64).into())
    }
}

impl<T: Into<OrderedJson>> From<Option<T>> for OrderedJson {
    fn from(value: Option<T>) -> Self {
        value.map_or(Self::Null, Into::into)
    }
}

impl<'de> Deserialize<'de> for OrderedJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(OrderedVisitor)
    }
}

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = OrderedJson;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Number(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<OrderedJson, E> {
        Ok(Number::from_f64(value).map_or(OrderedJson::Null, OrderedJson::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<OrderedJson, E> {
        Ok(OrderedJson::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<OrderedJson, E> {
        Ok(OrderedJson::String(value))
    }

    fn visit_unit<E>(self) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Null)
    }

    fn visit_none<E>(self) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OrderedJson, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(OrderedJson::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedJson, A::Error> {
        let mut object = OrderedJson::object();
        while let Some((key, value)) = map.next_entry::<String, OrderedJson>()? {
            object.insert(&key, value);
        }
        Ok(object)
    }
}

impl Serialize for OrderedJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Null => serializer.serialize_unit(),
            Self::Bool(b) => serializer.serialize_bool(*b),
            Self::Number(n) => n.serialize(serializer),
            Self::String(s) => serializer.serialize_str(s),
            Self::Array(items) => {
                let mut out = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    out.serialize_element(item)?;
                }
                out.end()
            }
            Self::Object(entries) => {
                let mut out = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    out.serialize_entry(key, value)?;
                }
                out.end()
            }
        }
    }
}
