use agent_domain::ErrorCode;
use agent_domain::model::{AgentModelContentPart, AgentModelMessage, MediaData, ModelRole};
use serde_json::{Value, json};

use crate::prompt::{PromptError, validate_prompt_snapshot};

fn code(value: Value) -> &'static str {
    validate_prompt_snapshot(&value).unwrap_err().code()
}

fn payload(extra: Value) -> Value {
    let mut payload = json!({"messages": [{"role": "user", "content": "Hi"}]});
    if let (Some(payload), Some(extra)) = (payload.as_object_mut(), extra.as_object()) {
        payload.extend(extra.clone());
    }
    json!({"chatCompletionPayload": payload})
}

#[test]
fn a_snapshot_becomes_canonical_messages_and_keeps_its_raw_form() {
    let value = json!({
        "chatCompletionPayload": {
            "messages": [
                {"role": "system", "content": "Be kind."},
                {"role": "user", "content": [{"type": "text", "text": "Hello "}, {"type": "text", "text": "there"}]},
                {"role": "assistant", "content": "Welcome, traveller."},
                {"role": "user", "content": ""}
            ],
            "stream": false,
            "temperature": 0.8,
            "chat_completion_source": "openai"
        },
        "worldInfoActivation": {"entries": []},
        "note": "kept"
    });
    let snapshot = validate_prompt_snapshot(&value).unwrap();
    assert_eq!(
        snapshot.messages,
        [
            AgentModelMessage::system("Be kind."),
            AgentModelMessage::new(
                ModelRole::User,
                vec![
                    AgentModelContentPart::text("Hello "),
                    AgentModelContentPart::text("there")
                ]
            ),
            AgentModelMessage::assistant("Welcome, traveller."),
        ]
    );
    assert_eq!(snapshot.world_info, Some(json!({"entries": []})));
    assert_eq!(snapshot.raw, value);
}

#[test]
fn every_payload_key_and_the_bare_payload_are_accepted() {
    let messages = json!([{"role": "user", "content": "Hi"}]);
    for key in [
        "chatCompletionPayload",
        "chat_completion_payload",
        "generateData",
        "generate_data",
    ] {
        let value = json!({ key: {"messages": messages.clone(), "stream": true} });
        // `stream: true` is refused wherever the payload is…
        assert_eq!(
            code(value.clone()),
            "agent.phase2b_stream_unsupported",
            "{key}"
        );
        // …and forced to false in the raw form when it is false or missing.
        let mut value = value;
        value[key]["stream"] = Value::Null;
        let snapshot = validate_prompt_snapshot(&value).unwrap();
        assert_eq!(snapshot.messages, [AgentModelMessage::user("Hi")], "{key}");
        assert_eq!(snapshot.raw[key]["stream"], json!(false), "{key}");
    }
    let bare = json!({"messages": messages, "model": "x"});
    let snapshot = validate_prompt_snapshot(&bare).unwrap();
    assert_eq!(
        snapshot.raw,
        json!({"messages": messages, "model": "x", "stream": false})
    );
    // A null key is skipped in favour of the next one.
    let value = json!({"chatCompletionPayload": null, "generate_data": {"messages": messages}});
    assert!(validate_prompt_snapshot(&value).is_ok());
}

#[test]
fn rules_apply_in_order() {
    // 1. Streaming beats a missing payload and everything after it.
    assert_eq!(
        code(json!({"stream": true})),
        "agent.phase2b_stream_unsupported"
    );
    assert_eq!(
        code(payload(
            json!({"stream": true, "tools": [{"type": "function"}]})
        )),
        "agent.phase2b_stream_unsupported"
    );
    // 2. A payload with messages is required.
    for value in [
        json!({}),
        json!({"worldInfoActivation": {}}),
        json!({"chatCompletionPayload": "text"}),
        json!({"chatCompletionPayload": {"messages": []}}),
        json!({"chatCompletionPayload": {"messages": "hi"}}),
        json!({"chatCompletionPayload": {"prompt": "Once upon a time"}}),
        json!({"prompt": "Once upon a time"}),
        json!([1]),
    ] {
        assert_eq!(
            code(value.clone()),
            "agent.invalid_prompt_snapshot",
            "{value}"
        );
    }
    assert_eq!(
        code(json!({"chatCompletionPayload": {"messages": [], "tools": [{}]}})),
        "agent.invalid_prompt_snapshot"
    );
    // 3. External tools, then 4. any tool_choice, then 5. tool turns.
    let tool_turn = json!([{"role": "tool", "tool_call_id": "c1", "content": "x"}]);
    assert_eq!(
        code(payload(
            json!({"tools": [{"type": "function"}], "tool_choice": "auto"})
        )),
        "agent.external_tools_unsupported_phase2b"
    );
    assert_eq!(
        code(payload(
            json!({"tool_choice": null, "messages": tool_turn.clone()})
        )),
        "agent.external_tool_choice_unsupported_phase2b"
    );
    assert_eq!(
        code(payload(json!({"messages": tool_turn}))),
        "agent.external_tool_turns_unsupported_phase2b"
    );
    // Empty tool lists say nothing and pass.
    assert!(validate_prompt_snapshot(&payload(json!({"tools": [], "stream": false}))).is_ok());
    assert!(validate_prompt_snapshot(&payload(json!({"tools": null}))).is_ok());
}

#[test]
fn tool_turns_of_every_spelling_are_refused_with_their_index() {
    let cases = [
        (json!({"role": "tool", "content": "x"}), "role `tool`"),
        (
            json!({"role": "function", "name": "f", "content": "x"}),
            "role `function`",
        ),
        (
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1"}]}),
            "`tool_calls`",
        ),
        (
            json!({"role": "assistant", "content": "x", "function_call": {"name": "f"}}),
            "`function_call`",
        ),
    ];
    for (message, expected) in cases {
        let value = payload(json!({"messages": [{"role": "user", "content": "Hi"}, message]}));
        assert_eq!(
            validate_prompt_snapshot(&value).unwrap_err(),
            PromptError::ExternalToolTurns {
                index: 1,
                what: expected
            }
        );
    }
    let empty_calls = payload(json!({"messages": [
        {"role": "assistant", "content": "x", "tool_calls": [], "function_call": null}
    ]}));
    assert!(validate_prompt_snapshot(&empty_calls).is_ok());
}

#[test]
fn messages_that_do_not_convert_are_named() {
    let cases = [
        (
            json!({"role": "narrator", "content": "x"}),
            "messages[0].role `narrator`",
        ),
        (json!({"content": "x"}), "messages[0].role is missing"),
        (json!("hello"), "messages[0] must be an object"),
        (
            json!({"role": "user", "content": 7}),
            "messages[0].content must be",
        ),
        (
            json!({"role": "user", "content": [{"type": "input_audio"}]}),
            "messages[0].content[0] has type `input_audio`",
        ),
        (
            json!({"role": "user", "content": [{"type": "text", "text": 1}]}),
            "messages[0].content[0].text",
        ),
        (
            json!({"role": "user", "content": [{"type": "image_url", "image_url": {}}]}),
            "messages[0].content[0].image_url.url",
        ),
        (
            json!({"role": "user", "content": [{"type": "image_url", "image_url": "data:image/png,abc"}]}),
            "data URL without base64",
        ),
        (
            json!({"role": "user", "content": "x", "name": 3}),
            "messages[0].name",
        ),
    ];
    for (message, expected) in cases {
        let err = validate_prompt_snapshot(&payload(json!({"messages": [message]}))).unwrap_err();
        assert_eq!(err.code(), "agent.invalid_prompt_snapshot");
        assert!(err.to_string().contains(expected), "{err} / {expected}");
    }
    let all_empty = payload(json!({"messages": [{"role": "user", "content": null}]}));
    assert_eq!(code(all_empty), "agent.invalid_prompt_snapshot");
}

#[test]
fn images_names_and_developer_messages_convert() {
    let value = payload(json!({"messages": [
        {"role": "developer", "content": "Rules."},
        {"role": "system", "name": "example_user", "content": "Hi there"},
        {"role": "user", "name": "Ann", "content": [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}},
            {"type": "text", "text": "Look at this."},
            {"type": "image_url", "image_url": "https://example.invalid/map.JPG?size=2"}
        ]},
        {"role": "assistant", "name": "Seraphina", "content": "Seraphina: Lovely."}
    ]}));
    let snapshot = validate_prompt_snapshot(&value).unwrap();
    let media = |mime: &str, data: MediaData| AgentModelContentPart::Media {
        mime_type: mime.into(),
        data,
    };
    assert_eq!(
        snapshot.messages,
        [
            AgentModelMessage::system("Rules."),
            AgentModelMessage::system("example_user: Hi there"),
            AgentModelMessage::new(
                ModelRole::User,
                vec![
                    AgentModelContentPart::text("Ann:"),
                    media("image/png", MediaData::Base64("iVBORw0KGgo=".into())),
                    AgentModelContentPart::text("Look at this."),
                    media(
                        "image/jpeg",
                        MediaData::Url("https://example.invalid/map.JPG?size=2".into())
                    ),
                ]
            ),
            AgentModelMessage::assistant("Seraphina: Lovely."),
        ]
    );
}

#[test]
fn world_info_must_be_an_object_or_null() {
    let mut value = payload(json!({}));
    value["worldInfoActivation"] = Value::Null;
    assert_eq!(validate_prompt_snapshot(&value).unwrap().world_info, None);
    value["worldInfoActivation"] = json!([1]);
    assert_eq!(
        validate_prompt_snapshot(&value).unwrap_err().code(),
        "agent.invalid_worldinfo_activation_snapshot"
    );
}

#[test]
fn sampling_parameters_are_read_from_the_payload() {
    let value = payload(json!({
        "temperature": 0.7, "top_p": 0.9, "max_tokens": 400, "stop": ["\nAnn:"]
    }));
    let parameters = validate_prompt_snapshot(&value).unwrap().parameters();
    assert_eq!(parameters.temperature, Some(0.7));
    assert_eq!(parameters.top_p, Some(0.9));
    assert_eq!(parameters.max_output_tokens, Some(400));
    assert_eq!(parameters.stop, ["\nAnn:"]);

    let value = payload(
        json!({"max_tokens": 10, "max_completion_tokens": 20, "stop": "END", "temperature": "hot"}),
    );
    let parameters = validate_prompt_snapshot(&value).unwrap().parameters();
    assert_eq!(parameters.max_output_tokens, Some(20));
    assert_eq!(parameters.stop, ["END"]);
    assert_eq!(parameters.temperature, None);
}
