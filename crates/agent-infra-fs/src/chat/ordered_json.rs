//! Writing an edited JSON line back in the key order it was read in.
//!
//! `serde_json::Value` sorts object keys unless the `preserve_order` feature happens to be on
//! somewhere in the build. To keep a changed chat line as close as possible to what
//! SillyTavern wrote, the original line's key order is read separately (a [`Shape`]) and the
//! edited value is written following it: existing keys stay where they were, new keys follow
//! in the value's own order. Output is compact, like `JSON.stringify`.

use std::collections::HashSet;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

/// `edited` as compact JSON, objects keyed in the order of the same objects in `original`.
pub(crate) fn to_vec_in_order(original: &[u8], edited: &Value) -> serde_json::Result<Vec<u8>> {
    let shape: Shape = serde_json::from_slice(original)?;
    serde_json::to_vec(&Guided {
        value: edited,
        shape: Some(&shape),
    })
}

/// The key order of every object in a JSON text.
enum Shape {
    Leaf,
    Array(Vec<Shape>),
    Object(Vec<(String, Shape)>),
}

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ShapeVisitor)
    }
}

struct ShapeVisitor;

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Shape, E> {
        Ok(Shape::Leaf)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Shape, E> {
        Ok(Shape::Leaf)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Shape, E> {
        Ok(Shape::Leaf)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Shape, E> {
        Ok(Shape::Leaf)
    }

    fn visit_str<E>(self, _: &str) -> Result<Shape, E> {
        Ok(Shape::Leaf)
    }

    fn visit_unit<E>(self) -> Result<Shape, E> {
        Ok(Shape::Leaf)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Shape::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let mut keys = Vec::new();
        while let Some(entry) = map.next_entry()? {
            keys.push(entry);
        }
        Ok(Shape::Object(keys))
    }
}

/// A value serialised following a shape (`None`: no guidance below this point).
struct Guided<'a> {
    value: &'a Value,
    shape: Option<&'a Shape>,
}

impl Serialize for Guided<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.value {
            Value::Object(map) => {
                let known: &[(String, Shape)] = match self.shape {
                    Some(Shape::Object(keys)) => keys,
                    _ => &[],
                };
                let mut out = serializer.serialize_map(Some(map.len()))?;
                let mut written = HashSet::new();
                for (key, shape) in known {
                    if let Some(value) = map.get(key)
                        && written.insert(key.as_str())
                    {
                        out.serialize_entry(
                            key,
                            &Guided {
                                value,
                                shape: Some(shape),
                            },
                        )?;
                    }
                }
                for (key, value) in map {
                    if !written.contains(key.as_str()) {
                        out.serialize_entry(key, &Guided { value, shape: None })?;
                    }
                }
                out.end()
            }
            Value::Array(items) => {
                let known: &[Shape] = match self.shape {
                    Some(Shape::Array(shapes)) => shapes,
                    _ => &[],
                };
                let mut out = serializer.serialize_seq(Some(items.len()))?;
                for (i, value) in items.iter().enumerate() {
                    out.serialize_element(&Guided {
                        value,
                        shape: known.get(i),
                    })?;
                }
                out.end()
            }
            leaf => leaf.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(original: &str, edit: impl FnOnce(&mut Value)) -> String {
        let mut value: Value = serde_json::from_str(original).unwrap();
        edit(&mut value);
        String::from_utf8(to_vec_in_order(original.as_bytes(), &value).unwrap()).unwrap()
    }

    #[test]
    fn an_unchanged_value_is_written_back_as_it_was() {
        let line = r#"{"zeta":1,"alpha":{"y":[{"b":1,"a":2}],"x":null},"mes":"é 🙂 \"q\""}"#;
        assert_eq!(rewrite(line, |_| {}), line);
    }

    #[test]
    fn edits_keep_positions_and_new_keys_follow() {
        let line = r#"{"zeta":1,"mes":"old","extra":{"z":true,"a":false}}"#;
        let got = rewrite(line, |v| {
            v["mes"] = "new".into();
            v["extra"]["m"] = 3.into();
            v["added"] = Value::Null;
        });
        assert_eq!(
            got,
            r#"{"zeta":1,"mes":"new","extra":{"z":true,"a":false,"m":3},"added":null}"#
        );
    }

    #[test]
    fn a_duplicated_key_is_written_once_with_the_value_json_kept() {
        assert_eq!(
            rewrite(r#"{"b":1,"a":2,"b":3}"#, |_| {}),
            r#"{"b":3,"a":2}"#
        );
    }
}
