//! No form of a key survives redaction: a property test over random printable keys and every
//! way a provider echoes one (raw, JSON with `\/`, JSON with every character as `\uXXXX`,
//! percent- and form-encoded, base64 in both alphabets with and without padding, of the key
//! alone and of `Bearer <key>` / `user:<key>`), and the same echoes through the real HTTP
//! path, in a 401's body and code and in a 200's text.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use agent_application::ports::ModelGateway;
use agent_domain::connection::ChatDialect;
use agent_domain::model::AgentModelContentPart;
use agent_gateway::http::{Redactor, WITHHELD};
use agent_gateway::{HttpConnection, HttpModelGateway};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use proptest::prelude::*;
use serde_json::json;
use support::*;
use wiremock::{MockServer, ResponseTemplate};

/// Keys with every character that escapes differently, one outside ASCII.
const KEYS: &[&str] = &[
    "sk-proj/Ab+cD==",
    r#"sk-"quoted"\back\slash/"#,
    "sk-ünï/cødé+key=",
    "sk with spaces & <angles>",
];

/// JSON string content (no quotes), `/` written as `\/` as PHP does.
fn json_slashes(key: &str) -> String {
    let quoted = serde_json::to_string(key).unwrap();
    quoted[1..quoted.len() - 1].replace('/', "\\/")
}

/// Every UTF-16 unit as `\uXXXX`.
fn json_unicode(key: &str, upper: bool) -> String {
    key.encode_utf16()
        .map(|u| {
            if upper {
                format!("\\u{u:04X}")
            } else {
                format!("\\u{u:04x}")
            }
        })
        .collect()
}

/// Percent-encoding of everything outside RFC 3986's unreserved set; `form` writes a space
/// as `+` the way `application/x-www-form-urlencoded` does.
fn percent(key: &str, upper: bool, form: bool) -> String {
    key.bytes()
        .map(|b| match b {
            b' ' if form => "+".to_owned(),
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                char::from(b).to_string()
            }
            _ if upper => format!("%{b:02X}"),
            _ => format!("%{b:02x}"),
        })
        .collect()
}

/// Every way the tests echo `key`.
fn echoes(key: &str) -> Vec<String> {
    let mut echoes = vec![
        key.to_owned(),
        json_slashes(key),
        json_unicode(key, false),
        json_unicode(key, true),
        percent(key, true, false),
        percent(key, false, false),
        percent(key, true, true),
    ];
    for data in [
        key.to_owned(),
        format!("Bearer {key}"),
        format!("user:{key}"),
    ] {
        for engine in [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD] {
            echoes.push(engine.encode(&data));
        }
    }
    echoes
}

/// Fails when any echo of `key` (or the key itself) occurs in `text`.
fn assert_no_form(text: &str, key: &str) {
    for form in echoes(key) {
        assert!(!text.contains(&form), "`{form}` survived in {text}");
    }
}

/// A 401 body the way a provider writes one, echoing `echo` in its message.
fn echoing_body(echo: &str) -> String {
    format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {echo}. Find your key at https:\/\/example.invalid\/keys.","type":"invalid_request_error","code":"invalid_api_key"}}}}"#
    )
}

#[test]
fn keys_with_special_characters_are_cut_in_every_echo() {
    for key in KEYS {
        let redactor = Redactor::new([*key]);
        for echo in echoes(key) {
            let out = redactor.excerpt(&echoing_body(&echo));
            assert_ne!(
                out, WITHHELD,
                "{key}: a single-layer echo is cut, not withheld"
            );
            assert!(out.contains("[REDACTED]"), "{out}");
            assert_no_form(&out, key);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_echo_of_a_random_printable_key_survives(
        key in proptest::collection::vec(0x20_u8..=0x7e, 8..64)
            .prop_map(|bytes| String::from_utf8(bytes).unwrap())
            .prop_filter("not blank", |k| !k.trim().is_empty())
    ) {
        let redactor = Redactor::new([key.clone()]);
        for echo in echoes(&key) {
            let out = redactor.excerpt(&echoing_body(&echo));
            prop_assert_ne!(&out, WITHHELD, "echo {}", echo);
            for form in echoes(&key) {
                prop_assert!(!out.contains(&form), "echo {} left {} in {}", echo, form, out);
            }
        }
    }
}

const E2E_KEY: &str = r#"sk-e2e/Zx9+q="w\é"#;

fn gateway(server: &MockServer) -> HttpModelGateway {
    HttpModelGateway::new(
        HttpConnection::openai_chat(format!("{}/v1", server.uri()), "m", ChatDialect::Openai)
            .with_api_key(E2E_KEY),
    )
    .unwrap()
}

/// A 401 echoing the key, escaped every way, in its message and its code: the error keeps
/// its class and code, and neither its message, its provider code nor its `Debug` print
/// holds any form of the key.
#[tokio::test]
async fn a_401_echoing_the_escaped_key_leaks_no_form_of_it() {
    for echo in echoes(E2E_KEY) {
        let server = MockServer::start().await;
        let body = echoing_body(&echo).replace("invalid_api_key", &echo);
        answer_once(
            &server,
            ResponseTemplate::new(401).set_body_raw(body, "application/json"),
        )
        .await;
        let error = gateway(&server)
            .generate(call(opening(), 1))
            .await
            .unwrap_err();
        assert_eq!(error.code, "model.unauthorized", "{echo}: {error:?}");
        assert!(error.message.contains("[REDACTED]"), "{}", error.message);
        let everything = format!(
            "{} {:?} {error:?}",
            error.message,
            error.provider_code.as_deref()
        );
        assert_no_form(&everything, E2E_KEY);
    }
}

/// A server that echoes the key into a successful answer: the decoded text is masked, so
/// the transcript (and the journal it goes to) never holds it.
#[tokio::test]
async fn a_200_echoing_the_key_is_masked_in_the_decoded_response() {
    let server = MockServer::start().await;
    let text = format!("your key is {E2E_KEY}, base64 {}", STANDARD.encode(E2E_KEY));
    let body = json!({"id": "c", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}]});
    answer_once(&server, ResponseTemplate::new(200).set_body_json(body)).await;
    let response = gateway(&server).generate(call(opening(), 1)).await.unwrap();
    let texts: Vec<&str> = response
        .message
        .parts
        .iter()
        .filter_map(|p| match p {
            AgentModelContentPart::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        texts,
        ["your key is [REDACTED], base64 [REDACTED]"],
        "{response:?}"
    );
    assert_no_form(&format!("{response:?}"), E2E_KEY);
}
