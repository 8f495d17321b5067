use agent_domain::event::ChatRef;
use agent_domain::tool::BuiltinTool::ChatSearch;
use serde_json::json;

use crate::ports::ChatRole::{Assistant, System, User};
use crate::tools::chat::test_support::Harness;

/// A chat with one user message per text.
fn chat_of(texts: &[&str]) -> Harness {
    let mut h = Harness::new(Vec::new());
    for text in texts {
        h.say(User, text);
    }
    h
}

/// The documented worked examples, end to end: (query, message, score as shown).
#[tokio::test]
async fn worked_examples_score_as_documented() {
    let cases = [
        ("北京烤鸭", "我最喜欢北京烤鸭，每次都点。", "1.000"),
        ("北京烤鸭", "今天我们去北京吃烤鸭。", "0.400"),
        ("lanterns", "the blue lantern", "0.545"),
        ("blue moon", "blue sky", "0.500"),
        ("hello_world", "hello world", "0.800"),
        ("ありがとう", "ありがと！", "0.462"),
        ("東京 タワー", "東京駅で会おう", "0.400"),
        ("我们今天晚上去看电影 OK", "今天晚上OK吗", "0.500"),
        ("Café 2024", "cafe 2024", "0.500"),
        ("lant", "dry land", "0.400"),
        ("!!", "Wait!! What?", "1.000"),
    ];
    for (query, text, score) in cases {
        let mut h = chat_of(&[text]);
        let result = h.call(ChatSearch, json!({"query": query})).await;
        assert!(!result.is_error, "{query}: {}", result.content);
        let line = format!("message 0 user score {score} ref chat:current#0\n{text}");
        assert!(
            result.content.ends_with(&line),
            "{query}: {}",
            result.content
        );
        let shown: f64 = score.parse().unwrap();
        assert_eq!(
            result.structured["hits"][0]["score"],
            json!(shown),
            "{query}"
        );
    }
}

#[tokio::test]
async fn a_full_result() {
    let mut h = chat_of(&[]);
    h.say(User, "Did you see the blue lantern?");
    h.say(Assistant, "The lanterns were lit at dusk.");
    h.say(User, "No lights tonight.");
    let result = h.call(ChatSearch, json!({"query": "lanterns"})).await;
    assert_eq!(
        result.content,
        "`lanterns` matched 2 messages in the current chat. \
         Read a whole message with chat_read_messages and its index.\
         \n\nmessage 1 assistant score 1.000 ref chat:current#1\nThe lanterns were lit at dusk.\
         \n\nmessage 0 user score 0.545 ref chat:current#0\nDid you see the blue lantern?"
    );
    assert_eq!(
        result.structured,
        json!({
            "query": "lanterns",
            "hits": [
                {"index": 1, "role": "assistant", "score": 1.0, "snippet": "The lanterns were lit at dusk.",
                 "chars": 30, "words": 6, "ref": "chat:current#1"},
                {"index": 0, "role": "user", "score": 0.545, "snippet": "Did you see the blue lantern?",
                 "chars": 29, "words": 6, "ref": "chat:current#0"}
            ],
            "matched": 2,
            "scanned": 3
        })
    );
    assert_eq!(result.resource_refs, ["chat:current#1", "chat:current#0"]);
}

#[tokio::test]
async fn zero_hits_are_a_success() {
    let mut h = chat_of(&["Wait! What?", "fine"]);
    let result = h.call(ChatSearch, json!({"query": "!!"})).await;
    assert!(!result.is_error);
    assert_eq!(
        result.content,
        "No messages matched `!!` in the current chat (searched messages 0-1)."
    );
    assert_eq!(result.structured["hits"], json!([]));
    let result = h
        .call(ChatSearch, json!({"query": "zebra", "role": "assistant"}))
        .await;
    assert_eq!(
        result.content,
        "No messages matched `zebra` in the current chat (searched assistant messages 0-1)."
    );
    let mut empty = chat_of(&[]);
    let result = empty.call(ChatSearch, json!({"query": "x"})).await;
    assert_eq!(
        result.content,
        "No messages to search for `x`: the current chat has no messages."
    );
    assert_eq!(result.structured["scanned"], 0);
}

#[tokio::test]
async fn ties_rank_newer_messages_first_and_limit_keeps_the_best() {
    let texts: Vec<String> = (0..30).map(|i| format!("moon {i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut h = chat_of(&refs);
    h.say(User, "blue moon");
    let result = h.call(ChatSearch, json!({"query": "blue moon"})).await;
    let indexes: Vec<u64> = result.structured["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["index"].as_u64().unwrap())
        .collect();
    assert_eq!(indexes.len(), 20);
    assert_eq!(&indexes[..3], [30, 29, 28]);
    assert!(
        result.content.starts_with(
            "`blue moon` matched 31 messages in the current chat; showing the best 20."
        )
    );
    let result = h
        .call(ChatSearch, json!({"query": "blue moon", "limit": 2}))
        .await;
    assert_eq!(result.structured["hits"].as_array().unwrap().len(), 2);
    assert_eq!(result.structured["matched"], 31);
}

#[tokio::test]
async fn role_and_index_window_filter_the_scan() {
    let mut h = chat_of(&[]);
    for i in 0..10 {
        let role = [User, Assistant, System][i % 3];
        h.say(role, "star");
    }
    let hits = |result: &agent_domain::tool::AgentToolResult| -> Vec<u64> {
        result.structured["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|hit| hit["index"].as_u64().unwrap())
            .collect()
    };
    let users = h
        .call(ChatSearch, json!({"query": "star", "role": " USER "}))
        .await;
    assert_eq!(hits(&users), [9, 6, 3, 0]);
    let window = h
        .call(
            ChatSearch,
            json!({"query": "star", "start_message": 2, "end_message": 4}),
        )
        .await;
    assert_eq!(hits(&window), [4, 3, 2]);
    assert_eq!(window.structured["scanned"], 3);
    let clamped = h
        .call(
            ChatSearch,
            json!({"query": "star", "start_message": 8, "end_message": 500}),
        )
        .await;
    assert_eq!(hits(&clamped), [9, 8]);
    let recent = h
        .call(ChatSearch, json!({"query": "star", "scan_limit": 3}))
        .await;
    assert_eq!(hits(&recent), [9, 8, 7]);
    let recent_in_window = h
        .call(
            ChatSearch,
            json!({"query": "star", "end_message": 5, "scan_limit": 2}),
        )
        .await;
    assert_eq!(hits(&recent_in_window), [5, 4]);
    let past = h
        .call(ChatSearch, json!({"query": "star", "start_message": 10}))
        .await;
    assert!(!past.is_error);
    assert_eq!(
        past.content,
        "No messages to search for `star`: start_message 10 is past the last message, 9."
    );
}

#[tokio::test]
async fn only_the_frozen_prefix_is_searched() {
    let mut h = chat_of(&["old star"]);
    let chat = h.run.chat.clone();
    h.store.push(&chat, Assistant, "Seraphina", "new star");
    let result = h.call(ChatSearch, json!({"query": "star"})).await;
    assert_eq!(result.structured["matched"], 1);
    assert_eq!(result.structured["hits"][0]["index"], 0);
}

#[tokio::test]
async fn long_chats_are_read_in_pages_newest_first() {
    let mut h = chat_of(&[]);
    let chat = h.run.chat.clone();
    let messages = (0..2_500)
        .map(|i| crate::ports::ChatMessage::new(i, User, "Ann", &format!("line {i}")))
        .collect();
    h.store.put(&chat, messages);
    h.run.input_message_count = 2_500;
    let result = h.call(ChatSearch, json!({"query": "1234"})).await;
    assert_eq!(h.store.reads(), [1_500..2_500, 500..1_500, 0..500]);
    assert_eq!(result.structured["scanned"], 2_500);
    assert_eq!(result.structured["hits"][0]["index"], 1_234);
    let _ = h
        .call(
            ChatSearch,
            json!({"query": "line", "start_message": 100, "scan_limit": 1_200}),
        )
        .await;
    assert_eq!(&h.store.reads()[3..], [1_500..2_500, 1_300..1_500]);
}

#[tokio::test]
async fn bad_arguments_name_the_argument() {
    let mut h = chat_of(&["a"]);
    let cases = [
        (json!({}), "`query` is required"),
        (json!({"query": "  "}), "`query` is required"),
        (
            json!({"query": "a", "limit": 0}),
            "`limit` must be at least 1",
        ),
        (
            json!({"query": "a", "limit": 51}),
            "`limit` must be at most 50",
        ),
        (
            json!({"query": "a", "role": "narrator"}),
            "`role` must be one of user, assistant, system",
        ),
        (json!({"query": "a", "role": 1}), "`role` must be a string"),
        (
            json!({"query": "a", "start_message": 5, "end_message": 2}),
            "`start_message` (5) must not be after `end_message` (2)",
        ),
        (
            json!({"query": "a", "scan_limit": 0}),
            "`scan_limit` must be at least 1",
        ),
        (
            json!({"query": "a", "scan_limit": 100_001}),
            "`scan_limit` must be at most 100000",
        ),
        (
            json!({"query": "a", "start_message": -1}),
            "`start_message` must be a non-negative integer",
        ),
        (
            json!({"query": "a", "chat": "other"}),
            "`chat` is not an argument of this tool; accepted arguments: query, limit, role, \
             start_message, end_message, scan_limit",
        ),
    ];
    for (args, message) in cases {
        let (code, content) = h.error(ChatSearch, args.clone()).await;
        assert_eq!(code, "tool.invalid_arguments", "{args}");
        assert_eq!(content, message, "{args}");
    }
}

#[tokio::test]
async fn a_missing_chat_is_recoverable_and_a_shrunk_chat_is_fatal() {
    let mut h = chat_of(&["a"]);
    h.run.chat = ChatRef::Group {
        chat_id: "gone".into(),
    };
    let (code, message) = h.error(ChatSearch, json!({"query": "a"})).await;
    assert_eq!(code, "chat.not_found");
    assert!(
        message.contains("Continue with the context you already have."),
        "{message}"
    );

    let mut h = chat_of(&["a"]);
    h.run.input_message_count = 3;
    let fault = h
        .try_call(ChatSearch, json!({"query": "a"}))
        .await
        .unwrap_err();
    assert_eq!(fault.code, "agent.input_history_conflict");
}
