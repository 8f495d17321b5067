use pretty_assertions::assert_eq;
use serde::Serialize;
use serde_json::json;

use super::OrderedJson;

fn text(value: &OrderedJson) -> String {
    String::from_utf8(value.to_json_vec().unwrap()).unwrap()
}

#[test]
fn key_order_survives_a_round_trip() {
    let line = r#"{"zeta":1,"alpha":{"y":[{"b":1,"a":2}],"x":null},"mid":"é\n"}"#;
    let value = OrderedJson::parse(line.as_bytes()).unwrap();
    assert_eq!(text(&value), line);
}

#[test]
fn inserts_replace_in_place_or_append_and_removes_drop() {
    let mut value = OrderedJson::parse(br#"{"b":1,"a":2}"#).unwrap();
    value.insert("b", "one");
    value.insert("c", true);
    assert_eq!(text(&value), r#"{"b":"one","a":2,"c":true}"#);
    assert_eq!(value.remove("a"), Some(OrderedJson::Number(2.into())));
    assert_eq!(value.remove("a"), None);
    assert_eq!(text(&value), r#"{"b":"one","c":true}"#);
    value.object_at("extra").unwrap().insert("api", "openai");
    assert_eq!(
        text(&value),
        r#"{"b":"one","c":true,"extra":{"api":"openai"}}"#
    );
    value.insert("b", 3u64);
    assert_eq!(value.object_at("b").map(|v| v.is_object()), Some(true));
    let mut scalar = OrderedJson::from("x");
    assert!(scalar.object_at("k").is_none());
}

#[test]
fn a_repeated_key_keeps_its_first_place_and_last_value() {
    let value = OrderedJson::parse(br#"{"a":1,"b":2,"a":3}"#).unwrap();
    assert_eq!(text(&value), r#"{"a":3,"b":2}"#);
}

#[test]
fn structs_keep_their_field_order() {
    #[derive(Serialize)]
    struct Reply {
        zed: u8,
        alpha: Option<u8>,
    }
    let value = OrderedJson::from_serialize(&Reply {
        zed: 1,
        alpha: None,
    })
    .unwrap();
    assert_eq!(text(&value), r#"{"zed":1,"alpha":null}"#);
    assert_eq!(value.to_value(), json!({"alpha": null, "zed": 1}));
    assert_eq!(
        OrderedJson::from(&json!({"b": [1.5], "a": -2})).to_value(),
        json!({"a": -2, "b": [1.5]})
    );
}
