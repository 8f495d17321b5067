use pretty_assertions::assert_eq;
use serde::Serialize;
use serde_json::json;

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
    let line = r#"{"zeta":1,"alpha":{"y":[{"b":1,"a":2}],"x":null},"mid":"é\n"}"#;
    assert_eq!(round_trip(line), line);
}

#[test]
fn inserts_replace_in_place_or_append_and_removes_drop() {
    let mut value = OrderedJson::parse(r#"{"b":1,"a":2}"#).unwrap();
    value.insert("b", "one");
    value.insert("c", true);
    assert_eq!(value.to_js_string(), r#"{"b":"one","a":2,"c":true}"#);
    assert_eq!(value.remove("a"), Some(OrderedJson::Number(2.0)));
    assert_eq!(value.remove("a"), None);
    value.object_at("extra").unwrap().insert("api", "openai");
    assert_eq!(
        value.to_js_string(),
        r#"{"b":"one","c":true,"extra":{"api":"openai"}}"#
    );
    value.insert("b", 3u64);
    assert_eq!(value.get("b").and_then(OrderedJson::as_u64), Some(3));
    assert_eq!(value.object_at("b").map(|v| v.is_object()), Some(true));
    let mut scalar = OrderedJson::from("x");
    assert!(scalar.object_at("k").is_none());
    assert_eq!(OrderedJson::Number(1.5).as_u64(), None);
    assert_eq!(OrderedJson::Number(-1.0).as_u64(), None);
}

#[test]
fn structs_keep_their_field_order_and_read_back_as_values() {
    #[derive(Serialize)]
    struct Reply {
        zed: u8,
        alpha: Option<u8>,
        ratio: f64,
    }
    let value = OrderedJson::from_serialize(&Reply {
        zed: 1,
        alpha: None,
        ratio: 0.5,
    })
    .unwrap();
    assert_eq!(
        value.to_js_string(),
        r#"{"zed":1,"alpha":null,"ratio":0.5}"#
    );
    assert_eq!(
        value.to_value(),
        json!({"alpha": null, "ratio": 0.5, "zed": 1})
    );
    assert_eq!(
        String::from_utf8(value.to_js_vec()).unwrap(),
        value.to_js_string()
    );
}
