use agent_domain::tool::BuiltinTool::WorldInfoReadActivated as READ;
use serde_json::{Value, json};

use crate::tools::chat::test_support::Harness;

fn with_activation(activation: Value) -> Harness {
    let mut h = Harness::new(Vec::new());
    h.run.world_info = Some(activation);
    h
}

fn eldoria() -> Harness {
    with_activation(json!({
        "timestampMs": 1_767_225_600_000_u64,
        "trigger": "normal",
        "entries": [
            {"world": "Eldoria", "uid": 12, "displayName": "The capital", "position": "before",
             "constant": true, "content": "Alden is the capital.\nIt sits on the river."},
            {"world": "Eldoria", "uid": "harbor", "comment": "Harbor", "position": 4,
             "content": "Ships come and go."},
            {"uid": 3, "content": ""}
        ]
    }))
}

fn read(refs: &[&str]) -> Value {
    let items: Vec<Value> = refs.iter().map(|r| json!({"ref": r})).collect();
    json!({"entries": items})
}

#[tokio::test]
async fn without_arguments_it_lists_the_entries() {
    let mut h = eldoria();
    let result = h.call(READ, json!({})).await;
    assert!(!result.is_error);
    assert_eq!(
        result.content,
        "3 world info entries were activated for this generation. Read texts with \
         worldinfo_read_activated entries=[{\"ref\": \"<ref>\"}].\
         \n1. worldinfo:Eldoria#12 | The capital | world=Eldoria | position=before | constant | lines=2 | chars=43\
         \n2. worldinfo:Eldoria#harbor | Harbor | world=Eldoria | position=atDepth | lines=1 | chars=18\
         \n3. worldinfo:activated#2 | 3 | lines=0 | chars=0"
    );
    assert_eq!(
        result.structured["entries"][0],
        json!({"ref": "worldinfo:Eldoria#12", "name": "The capital", "world": "Eldoria", "uid": 12,
               "position": "before", "constant": true, "totalLines": 2, "totalChars": 43, "totalWords": 9})
    );
    assert_eq!(result.structured["mode"], "index");
    assert_eq!(result.structured["timestampMs"], 1_767_225_600_000_u64);
    assert_eq!(result.structured["trigger"], "normal");
    assert_eq!(result.structured["totalEntries"], 3);
    assert_eq!(
        result.resource_refs,
        [
            "worldinfo:Eldoria#12",
            "worldinfo:Eldoria#harbor",
            "worldinfo:activated#2"
        ]
    );
    assert!(!result.content.contains("Alden"), "the index holds no text");

    let mut none = with_activation(json!({"entries": []}));
    let result = none.call(READ, Value::Null).await;
    assert_eq!(
        result.content,
        "No world info entries were activated for this generation."
    );
}

#[tokio::test]
async fn entries_read_by_ref() {
    let mut h = eldoria();
    let result = h
        .call(
            READ,
            read(&["worldinfo:Eldoria#harbor", "worldinfo:Eldoria#12"]),
        )
        .await;
    assert_eq!(
        result.content,
        "Read 2 activated world info entries.\
         \n\nentry worldinfo:Eldoria#harbor | Harbor\nShips come and go.\
         \n\nentry worldinfo:Eldoria#12 | The capital\nAlden is the capital.\nIt sits on the river."
    );
    assert_eq!(result.structured["mode"], "content");
    assert_eq!(
        result.structured["entries"][0],
        json!({"ref": "worldinfo:Eldoria#harbor", "name": "Harbor", "world": "Eldoria",
               "uid": "harbor", "position": "atDepth", "constant": false, "startLine": 1,
               "endLine": 1, "totalLines": 1, "preview": false, "complete": true,
               "chars": 18, "words": 4})
    );
    assert_eq!(
        result.resource_refs,
        ["worldinfo:Eldoria#harbor", "worldinfo:Eldoria#12"]
    );

    let part = h
        .call(
            READ,
            json!({"entries": [{"ref": "worldinfo:Eldoria#12", "start_line": 2}]}),
        )
        .await;
    assert_eq!(
        part.content,
        "Read 1 activated world info entry.\
         \n\nentry worldinfo:Eldoria#12 | The capital, lines 2-2 of 2\n2 | It sits on the river."
    );
    assert_eq!(part.resource_refs, ["worldinfo:Eldoria#12:L2-L2"]);
}

#[tokio::test]
async fn long_entries_come_back_as_previews_within_the_call_budget() {
    let body: String = (0..100)
        .map(|i| format!("{:0>100}", i + 1))
        .collect::<Vec<_>>()
        .join("\n");
    let entries: Vec<Value> = (0..4)
        .map(|i| json!({"world": "W", "uid": i, "content": body}))
        .collect();
    let mut h = with_activation(json!({"entries": entries}));
    let result = h
        .call(
            READ,
            read(&[
                "worldinfo:W#0",
                "worldinfo:W#1",
                "worldinfo:W#2",
                "worldinfo:W#3",
            ]),
        )
        .await;
    assert!(!result.is_error);
    assert!(
        result
            .content
            .starts_with("Read 3 of 4 requested world info entries.")
    );
    assert!(
        result
            .content
            .contains("Continue with worldinfo_read_activated ref=worldinfo:W#0 start_line=76.")
    );
    // Two previews of 75 numbered lines (7,949 characters each) leave 4,102 of the call's
    // 20,000: 38 lines of the third entry.
    assert!(
        result
            .content
            .contains("entry worldinfo:W#2 | 2, lines 1-38 of 100")
    );
    assert!(result.content.ends_with(
        "Not read, because this call's reading budget is used up: entries worldinfo:W#3. \
         Call worldinfo_read_activated again for them."
    ));
    assert_eq!(result.structured["notRead"], json!(["worldinfo:W#3"]));
}

#[tokio::test]
async fn unknown_refs_and_bad_ranges_are_recoverable() {
    let mut h = eldoria();
    let (code, message) = h.error(READ, read(&["worldinfo:Eldoria#99"])).await;
    assert_eq!(code, "worldinfo.entry_not_found");
    assert_eq!(
        message,
        "No activated world info entry has ref `worldinfo:Eldoria#99`. Call \
         worldinfo_read_activated without arguments for the list of refs."
    );
    let args = json!({"entries": [{"ref": "worldinfo:Eldoria#harbor", "start_line": 3}]});
    let (code, message) = h.error(READ, args).await;
    assert_eq!(code, "worldinfo.invalid_line_range");
    assert_eq!(
        message,
        "entries[0] (worldinfo:Eldoria#harbor): start_line 3 is beyond the last line 1; \
         use a start_line from 1 to 1"
    );
}

#[tokio::test]
async fn bad_arguments_name_the_argument() {
    let mut h = eldoria();
    let cases = [
        (
            json!({"ref": "worldinfo:Eldoria#12"}),
            "`ref` is not an argument of this tool; accepted arguments: entries",
        ),
        (json!({"entries": []}), "`entries` must have 1 to 20 items"),
        (json!({"entries": [{}]}), "entries[0]: `ref` is required"),
        (
            json!({"entries": [{"ref": "worldinfo:Eldoria#12", "max_chars": 10}]}),
            "entries[0]: `max_chars` is not an argument of this tool; accepted arguments: \
             ref, start_line, line_count",
        ),
    ];
    for (args, expected) in cases {
        let (code, message) = h.error(READ, args.clone()).await;
        assert_eq!(code, "tool.invalid_arguments", "{args}");
        assert_eq!(message, expected, "{args}");
    }
}

#[tokio::test]
async fn a_missing_activation_is_recoverable_and_a_malformed_one_fatal() {
    let mut h = Harness::new(Vec::new());
    let (code, message) = h.error(READ, json!({})).await;
    assert_eq!(code, "worldinfo.activation_unavailable");
    assert!(
        message.starts_with("No world info activation was captured"),
        "{message}"
    );

    let mut h = with_activation(json!({"entries": [{"content": 5}]}));
    let fault = h.try_call(READ, json!({})).await.unwrap_err();
    assert_eq!(fault.code, "agent.invalid_worldinfo_activation_snapshot");
}
