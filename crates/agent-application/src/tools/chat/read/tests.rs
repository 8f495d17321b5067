use agent_domain::event::ChatRef;
use agent_domain::tool::BuiltinTool::ChatReadMessages;
use serde_json::{Value, json};

use crate::ports::ChatRole::{Assistant, User};
use crate::tools::chat::test_support::Harness;

/// `count` lines of `width` characters each.
fn lines(count: usize, width: usize) -> String {
    (0..count)
        .map(|i| format!("{:0>width$}", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

fn read(indexes: &[u64]) -> Value {
    let items: Vec<Value> = indexes.iter().map(|i| json!({"index": i})).collect();
    json!({"messages": items})
}

#[tokio::test]
async fn whole_messages_read_as_plain_text() {
    let mut h = Harness::new(Vec::new());
    h.say(User, "Where is the lantern?");
    h.say(Assistant, "On the bridge.\nFollow the river.");
    let result = h.call(ChatReadMessages, read(&[1, 0])).await;
    assert!(!result.is_error);
    assert_eq!(
        result.content,
        "Read 2 messages of the current chat, which has 2 messages.\
         \n\nmessage 1 assistant Seraphina\nOn the bridge.\nFollow the river.\
         \n\nmessage 0 user Ann\nWhere is the lantern?"
    );
    assert_eq!(
        result.structured,
        json!({
            "totalMessages": 2,
            "messages": [
                {"index": 1, "role": "assistant", "name": "Seraphina", "sendDate": null,
                 "startLine": 1, "endLine": 2, "totalLines": 2, "preview": false, "complete": true,
                 "chars": 32, "words": 6, "ref": "chat:current#1"},
                {"index": 0, "role": "user", "name": "Ann", "sendDate": null,
                 "startLine": 1, "endLine": 1, "totalLines": 1, "preview": false, "complete": true,
                 "chars": 21, "words": 4, "ref": "chat:current#0"}
            ]
        })
    );
    assert_eq!(result.resource_refs, ["chat:current#1", "chat:current#0"]);
}

#[tokio::test]
async fn line_ranges_read_numbered_parts() {
    let mut h = Harness::new(Vec::new());
    h.say(Assistant, "one\ntwo\nthree\nfour");
    h.say(User, "");
    let args = json!({"messages": [{"index": 0, "start_line": 2, "line_count": 2}, {"index": 1}]});
    let result = h.call(ChatReadMessages, args).await;
    assert_eq!(
        result.content,
        "Read 2 messages of the current chat, which has 2 messages.\
         \n\nmessage 0 assistant Seraphina, lines 2-3 of 4\n2 | two\n3 | three\
         \n\nmessage 1 user Ann\n(empty)"
    );
    assert_eq!(
        result.resource_refs,
        ["chat:current#0:L2-L3", "chat:current#1"]
    );
    assert_eq!(result.structured["messages"][0]["nextStartLine"], 4);
    assert_eq!(result.structured["messages"][1]["totalLines"], 0);
}

#[tokio::test]
async fn a_long_message_comes_back_as_a_preview() {
    let mut h = Harness::new(Vec::new());
    // 100 lines of 100 characters, numbered `NN | ` when shown in part: 75 lines and
    // their breaks are 7,949 characters, and a 76th would pass 8,000.
    h.say(Assistant, &lines(100, 100));
    let result = h.call(ChatReadMessages, read(&[0])).await;
    assert!(!result.is_error);
    assert!(
        result
            .content
            .starts_with("Read 1 message of the current chat, which has 1 message.\n\nmessage 0 assistant Seraphina, lines 1-75 of 100\n 1 | 0000")
    );
    assert!(result.content.ends_with(
        "Showing lines 1-75 of 100; the rest did not fit the read budget. \
         Continue with chat_read_messages index=0 start_line=76."
    ));
    let entry = &result.structured["messages"][0];
    assert_eq!(entry["preview"], true);
    assert_eq!(entry["nextStartLine"], 76);
    // What the model reads: 75 × (`NN | ` + 100 characters) and 74 line breaks.
    assert_eq!(entry["chars"], 7_949);
    assert_eq!(result.resource_refs, ["chat:current#0:L1-L75"]);

    let args = json!({"messages": [{"index": 0, "start_line": 76}]});
    let rest = h.call(ChatReadMessages, args).await;
    assert!(
        rest.content.contains("lines 76-100 of 100\n 76 | "),
        "{}",
        rest.content
    );
    assert_eq!(rest.structured["messages"][0]["preview"], false);
}

#[tokio::test]
async fn a_single_overlong_line_is_cut_and_marked() {
    let mut h = Harness::new(Vec::new());
    h.say(User, &"a".repeat(9_000));
    let result = h.call(ChatReadMessages, read(&[0])).await;
    assert!(result.content.contains("[line cut: 1039 more characters]"));
    assert!(result.content.ends_with(
        "Showing lines 1-1 of 1; the rest did not fit the read budget. Line 1 is too long to \
         show in full and was cut; its remainder cannot be read with line ranges."
    ));
    assert_eq!(result.structured["messages"][0]["cutLines"], json!([1]));
}

#[tokio::test]
async fn the_call_budget_leaves_later_messages_for_another_call() {
    let mut h = Harness::new(Vec::new());
    for _ in 0..4 {
        // 7,000 characters each in lines of 100.
        h.say(Assistant, &lines(70, 100));
    }
    let result = h.call(ChatReadMessages, read(&[0, 1, 2, 3])).await;
    assert!(!result.is_error);
    assert!(
        result.content.starts_with(
            "Read 3 of 4 requested messages of the current chat, which has 4 messages."
        )
    );
    // Two whole messages use 2 × 7,069 characters (line breaks included); the third gets
    // the 5,862 left: 55 numbered lines.
    assert!(
        result
            .content
            .contains("message 2 assistant Seraphina, lines 1-55 of 70")
    );
    assert!(
        result
            .content
            .contains("Continue with chat_read_messages index=2 start_line=56.")
    );
    assert!(result.content.ends_with(
        "Not read, because this call's reading budget is used up: messages 3. \
         Call chat_read_messages again for them."
    ));
    assert_eq!(result.structured["notRead"], json!([3]));
    assert_eq!(result.structured["messages"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn indexes_outside_the_frozen_prefix_do_not_exist() {
    let mut h = Harness::new(Vec::new());
    h.say(User, "a");
    h.say(User, "b");
    let chat = h.run.chat.clone();
    h.store.push(
        &chat,
        Assistant,
        "Seraphina",
        "written after the run started",
    );
    let (code, message) = h.error(ChatReadMessages, read(&[0, 2])).await;
    assert_eq!(code, "chat.message_not_found");
    assert_eq!(
        message,
        "message index 2 does not exist in this chat; total messages: 2 (indexes 0-1)"
    );
    let mut empty = Harness::new(Vec::new());
    let (_, message) = empty.error(ChatReadMessages, read(&[0])).await;
    assert_eq!(
        message,
        "message index 0 does not exist: the current chat has no messages"
    );
}

#[tokio::test]
async fn bad_line_ranges_are_chat_errors() {
    let mut h = Harness::new(Vec::new());
    h.say(User, "one\ntwo");
    let cases = [
        (
            json!({"index": 0, "start_line": 5}),
            "messages[0] (message 0): start_line 5 is beyond the last line 2; use a start_line from 1 to 2",
        ),
        (
            json!({"index": 0, "start_line": 0}),
            "messages[0] (message 0): start_line must be 1 or more; line numbers start at 1",
        ),
        (
            json!({"index": 0, "line_count": 0}),
            "messages[0] (message 0): line_count must be 1 or more; omit it to read to the end",
        ),
    ];
    for (item, expected) in cases {
        let (code, message) = h.error(ChatReadMessages, json!({"messages": [item]})).await;
        assert_eq!(code, "chat.invalid_line_range");
        assert_eq!(message, expected);
    }
}

#[tokio::test]
async fn bad_arguments_name_the_argument() {
    let mut h = Harness::new(Vec::new());
    h.say(User, "a");
    let too_many: Vec<Value> = (0..21).map(|_| json!({"index": 0})).collect();
    let cases = [
        (
            json!({}),
            "`messages` is required: a list of {index, start_line?, line_count?}",
        ),
        (
            json!({"messages": []}),
            "`messages` must have 1 to 20 items",
        ),
        (
            json!({"messages": too_many}),
            "`messages` must have 1 to 20 items",
        ),
        (json!({"messages": [5]}), "`messages[0]` must be an object"),
        (
            json!({"messages": [{}]}),
            "messages[0]: `index` is required",
        ),
        (
            json!({"messages": [{"index": 0}, {"index": 0, "start_char": 10}]}),
            "messages[1]: `start_char` is not an argument of this tool; accepted arguments: \
             index, start_line, line_count",
        ),
        (
            json!({"messages": [{"index": "0"}]}),
            "messages[0]: `index` must be a non-negative integer",
        ),
    ];
    for (args, expected) in cases {
        let (code, message) = h.error(ChatReadMessages, args.clone()).await;
        assert_eq!(code, "tool.invalid_arguments", "{args}");
        assert_eq!(message, expected, "{args}");
    }
}

#[tokio::test]
async fn a_missing_chat_is_recoverable_and_a_shrunk_chat_is_fatal() {
    let mut h = Harness::new(Vec::new());
    h.say(User, "a");
    h.run.chat = ChatRef::Group {
        chat_id: "gone".into(),
    };
    let (code, _) = h.error(ChatReadMessages, read(&[0])).await;
    assert_eq!(code, "chat.not_found");

    let mut h = Harness::new(Vec::new());
    h.say(User, "a");
    h.run.input_message_count = 2;
    let fault = h.try_call(ChatReadMessages, read(&[1])).await.unwrap_err();
    assert_eq!(fault.code, "agent.input_history_conflict");
}

/// The `chars` of every entry of one call, summed: what the call returned by its own count.
fn returned_chars(result: &agent_domain::tool::AgentToolResult) -> u64 {
    result.structured["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["chars"].as_u64().unwrap())
        .sum()
}

#[tokio::test]
async fn a_call_may_fill_its_cap_exactly() {
    let mut h = Harness::new(Vec::new());
    for size in [8_000, 8_000, 4_000] {
        h.say(Assistant, &"m".repeat(size));
    }
    let result = h.call(ChatReadMessages, read(&[0, 1, 2])).await;
    assert!(
        result.structured.get("notRead").is_none(),
        "{}",
        result.content
    );
    assert_eq!(returned_chars(&result), 20_000);
}

#[tokio::test]
async fn one_character_over_the_cap_waits_for_the_next_call() {
    let mut h = Harness::new(Vec::new());
    for size in [8_000, 8_000, 4_001] {
        h.say(Assistant, &"m".repeat(size));
    }
    let result = h.call(ChatReadMessages, read(&[0, 1, 2])).await;
    assert_eq!(result.structured["notRead"], json!([2]));
    assert_eq!(returned_chars(&result), 16_000);
}

#[tokio::test]
async fn numbered_previews_count_their_prefixes_and_breaks() {
    let mut h = Harness::new(Vec::new());
    for _ in 0..4 {
        // 100 lines of 99 characters: 9,999 characters, too long for one message's 8,000.
        h.say(Assistant, &lines(100, 99));
    }
    let result = h.call(ChatReadMessages, read(&[0, 1, 2, 3])).await;
    let total = returned_chars(&result);
    assert!(total <= 20_000, "{total}");
    let shown: usize = result
        .content
        .split("\n\n")
        .filter(|block| block.starts_with("message "))
        .map(|block| {
            let body = block.split_once('\n').unwrap().1;
            let body = body.split("\nShowing lines").next().unwrap();
            body.chars().count()
        })
        .sum();
    assert_eq!(
        shown as u64, total,
        "the entries' chars are what the model reads"
    );
    assert_eq!(result.structured["notRead"], json!([3]));
}
