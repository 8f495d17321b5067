//! The HTTP answer classifier and the redactor on any status, body and secret. Input: the
//! secret, a newline, two status bytes, the body. Nothing panics, and no text taken from
//! the answer (an error's message and provider code, every string of a success body after
//! redaction, as `post_json` does it) shows the secret. Secrets that the message's own
//! wording or the mask could spell together with their neighbours are not checked.
#![no_main]

use agent_gateway::http::{HttpReply, Redactor, WITHHELD, classify_reply};
use libfuzzer_sys::fuzz_target;
use reqwest::header::HeaderMap;
use serde_json::Value;

/// Every fixed word an error message adds around the body excerpt.
const WORDING: &str = "HTTP with an empty body the body is not a JSON object body";

/// Every string of `value`, object keys included.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            out.push(k.clone());
            strings(v, out);
        }),
        _ => {}
    }
}

fuzz_target!(|input: &[u8]| {
    let Some(newline) = input.iter().position(|&b| b == b'\n') else {
        return;
    };
    let Ok(secret) = std::str::from_utf8(&input[..newline]) else {
        return;
    };
    let [high, low, body @ ..] = &input[newline + 1..] else {
        return;
    };
    let status = 100 + u16::from_be_bytes([*high, *low]) % 500;
    let redactor = Redactor::new([secret]);
    let reply = HttpReply {
        status,
        headers: HeaderMap::new(),
        body: String::from_utf8_lossy(body).into_owned(),
    };
    let shown = match classify_reply(reply, &redactor) {
        Ok(mut value) => {
            redactor.redact_json(&mut value);
            let mut out = Vec::new();
            strings(&value, &mut out);
            out
        }
        Err(error) => vec![error.message, error.provider_code.unwrap_or_default()],
    };
    let checkable = !secret.trim().is_empty()
        && !"[REDACTED]".contains(secret)
        && !secret.contains(|c: char| c.is_whitespace() || "()[]:;…".contains(c))
        && !secret.bytes().all(|b| b.is_ascii_digit())
        && !WORDING.contains(secret)
        && !WITHHELD.contains(secret);
    if checkable {
        for text in shown {
            assert!(!text.contains(secret), "{secret:?} survived in {text}");
        }
    }
});
