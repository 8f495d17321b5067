//! Turning the command line's `K=V` arguments into connection headers and parameters.

use serde_json::{Map, Value};

use super::config::{shown_name, validate_param_name};
use super::{ConnectionError, ConnectionHeader};

/// Splits `K=V` at the first `=`, so values may contain `=` themselves (`q=a=b` is `q` and
/// `a=b`). `None` when there is no `=`.
pub fn parse_assignment(raw: &str) -> Option<(&str, &str)> {
    raw.split_once('=')
}

/// A `--header NAME=VALUE` argument. Spaces and tabs around the value are dropped, as HTTP
/// drops them; the name is checked by [`ConnectionConfig::validate`].
///
/// A missing `=` is `connection.invalid_header`. The message shows the name only, never the
/// rest: `Authorization: Bearer …` is a common slip.
///
/// [`ConnectionConfig::validate`]: super::ConnectionConfig::validate
pub fn parse_header_arg(raw: &str) -> Result<ConnectionHeader, ConnectionError> {
    let Some((name, value)) = parse_assignment(raw) else {
        return Err(ConnectionError::InvalidHeader {
            header: shown_name(raw),
            reason: "must be given as NAME=VALUE".to_owned(),
        });
    };
    Ok(ConnectionHeader::new(name, value.trim_matches([' ', '\t'])))
}

/// A `--param KEY=VALUE` argument. The value is JSON when it parses as JSON
/// (`temperature=0.2` is a number, `store=true` a bool, `stop=["a"]` an array, `x="1"` a
/// string) and otherwise the text as given (`reasoning_effort=high` is the string `high`,
/// `suffix=` the empty string).
pub fn parse_param_arg(raw: &str) -> Result<(String, Value), ConnectionError> {
    let Some((key, value)) = parse_assignment(raw) else {
        return Err(ConnectionError::InvalidParam {
            param: shown_name(raw),
            reason: "must be given as KEY=VALUE".to_owned(),
        });
    };
    validate_param_name(key)?;
    let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_owned()));
    Ok((key.to_owned(), value))
}

/// Every `--header` argument, in order. Duplicate names are left for
/// [`ConnectionConfig::validate`](super::ConnectionConfig::validate) to refuse.
pub fn headers_from_args<S: AsRef<str>>(
    args: &[S],
) -> Result<Vec<ConnectionHeader>, ConnectionError> {
    args.iter()
        .map(|arg| parse_header_arg(arg.as_ref()))
        .collect()
}

/// Every `--param` argument as one object. A key given twice is refused rather than
/// letting the last one win silently.
pub fn params_from_args<S: AsRef<str>>(args: &[S]) -> Result<Map<String, Value>, ConnectionError> {
    let mut params = Map::new();
    for arg in args {
        let (key, value) = parse_param_arg(arg.as_ref())?;
        if params.contains_key(&key) {
            return Err(ConnectionError::InvalidParam {
                param: key,
                reason: "is given more than once".to_owned(),
            });
        }
        params.insert(key, value);
    }
    Ok(params)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::connection::{ConnectionConfig, ProviderFormat};

    use super::*;
    use crate::ErrorCode;

    #[test]
    fn assignments_split_at_the_first_equals_sign() {
        assert_eq!(parse_assignment("a=b=c"), Some(("a", "b=c")));
        assert_eq!(parse_assignment("a="), Some(("a", "")));
        assert_eq!(parse_assignment("=b"), Some(("", "b")));
        assert_eq!(parse_assignment("ab"), None);
    }

    #[test]
    fn param_values_are_json_when_they_parse() {
        let cases = [
            ("temperature=0.2", json!(0.2)),
            ("max_tokens=1024", json!(1024)),
            ("store=true", json!(true)),
            ("stop=[\"a\",\"b\"]", json!(["a", "b"])),
            ("reasoning={\"effort\":\"high\"}", json!({"effort": "high"})),
            ("seed=null", json!(null)),
            ("reasoning_effort=high", json!("high")),
            ("quoted=\"007\"", json!("007")),
            ("suffix=", json!("")),
            ("expr=a=b", json!("a=b")),
            ("broken=[1,", json!("[1,")),
        ];
        for (raw, expected) in cases {
            let (_, value) = parse_param_arg(raw).unwrap();
            assert_eq!(value, expected, "{raw}");
        }
    }

    #[test]
    fn bad_params_are_refused() {
        for raw in ["temperature", "=1", "max tokens=1"] {
            let err = parse_param_arg(raw).unwrap_err();
            assert_eq!(err.code(), "connection.invalid_param", "{raw:?}");
        }
        let err = params_from_args(&["a=1", "a=2"]).unwrap_err();
        assert_eq!(err.code(), "connection.invalid_param");
        let params = params_from_args(&["b=1", "a=x"]).unwrap();
        assert_eq!(Value::Object(params), json!({"a": "x", "b": 1}));
    }

    #[test]
    fn headers_keep_order_and_hide_values_in_errors() {
        let headers = headers_from_args(&["X-Title= My App ", "anthropic-beta=a,b"]).unwrap();
        assert_eq!(
            headers,
            [
                ConnectionHeader::new("X-Title", "My App"),
                ConnectionHeader::new("anthropic-beta", "a,b"),
            ]
        );
        let err = parse_header_arg("Authorization: Bearer sk-secret").unwrap_err();
        assert_eq!(err.code(), "connection.invalid_header");
        assert!(!err.to_string().contains("sk-secret"), "{err}");
        assert!(err.to_string().contains("Authorization"), "{err}");
    }

    #[test]
    fn a_pasted_credential_never_reaches_a_message() {
        let secret = "dXNlcjpzZWNyZXQ";
        let slips = [
            parse_header_arg(&format!("Authorization: Basic {secret}")).unwrap_err(),
            parse_header_arg(&format!("Authorization: Basic {secret}=="))
                .map(|header| {
                    let mut config = ConnectionConfig::new("c", ProviderFormat::Anthropic, "m");
                    config.headers.push(header);
                    config.validate().unwrap_err()
                })
                .unwrap_or_else(|e| e),
            parse_param_arg(&format!("api_key {secret}")).unwrap_err(),
            parse_param_arg(&format!("api key {secret}=x")).unwrap_err(),
        ];
        for error in slips {
            let message = error.to_string();
            assert!(!message.contains(secret), "{message}");
            assert!(message.contains('…'), "the cut is marked: {message}");
        }
        let mut config = ConnectionConfig::new("c", ProviderFormat::Anthropic, "m");
        config.api_key_env = Some(format!("sk-{secret}"));
        let message = config.validate().unwrap_err().to_string();
        assert!(!message.contains(secret), "{message}");
    }
}
