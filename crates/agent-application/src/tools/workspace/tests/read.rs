use agent_domain::workspace::WorkspaceRoot::{Output, Scratch};
use serde_json::json;

use super::*;
use crate::testing::fake_sha256_hex;

fn numbered_file(lines: usize) -> String {
    (1..=lines).map(|n| format!("line {n}\n")).collect()
}

#[tokio::test]
async fn a_whole_small_file_comes_back_numbered_and_fully_read() {
    let mut h = Harness::new().await;
    h.put("output/main.md", "# Title\n\nBody text.\n");
    let result = h.ok(READ, json!({"path": "output/main.md"})).await;
    assert_eq!(result.content, "1 | # Title\n2 | \n3 | Body text.");
    assert_eq!(
        result.structured,
        json!({
            "path": "output/main.md",
            "sha256": fake_sha256_hex(b"# Title\n\nBody text.\n"),
            "startLine": 1, "endLine": 3, "totalLines": 3,
            "preview": false, "complete": true,
            "chars": 19, "words": 3,
        })
    );
    assert_eq!(result.resource_refs, ["workspace:output/main.md#L1-L3"]);
    let state = h.session.read_state.get(&path("output/main.md")).unwrap();
    assert!(state.full);
}

#[tokio::test]
async fn a_range_is_partial_and_says_where_it_is() {
    let mut h = Harness::new().await;
    h.put("output/main.md", "a\nb\nc\n");
    let result = h
        .ok(
            READ,
            json!({"path": " output/main.md ", "start_line": 2, "line_count": 1}),
        )
        .await;
    assert_eq!(result.content, "2 | b\n\nLines 2-2 of 3.");
    assert_eq!(result.structured["nextStartLine"], json!(3));
    assert_eq!(result.resource_refs, ["workspace:output/main.md#L2-L2"]);
    let state = h.session.read_state.get(&path("output/main.md")).unwrap();
    assert!(!state.full);
    assert_eq!(state.observed, ["b"]);

    let tail = h
        .ok(READ, json!({"path": "output/main.md", "start_line": 2}))
        .await;
    assert_eq!(tail.content, "2 | b\n3 | c\n\nLines 2-3 of 3.");
    let past_end = h
        .ok(READ, json!({"path": "output/main.md", "line_count": 99}))
        .await;
    assert_eq!(past_end.content, "1 | a\n2 | b\n3 | c");
    assert!(
        h.session
            .read_state
            .get(&path("output/main.md"))
            .unwrap()
            .full
    );
}

#[tokio::test]
async fn a_long_file_comes_back_as_a_preview_that_says_how_to_continue() {
    let mut h = Harness::new().await;
    h.put("output/long.md", numbered_file(2_000));
    let first = h.ok(READ, json!({"path": "output/long.md"})).await;
    assert!(first.content.starts_with("   1 | line 1\n   2 | line 2\n"));
    assert!(first.content.contains("\n1200 | line 1200\n\n"));
    assert!(first.content.ends_with(
        "Showing lines 1-1200 of 2000; the rest did not fit the read budget. Continue with \
         workspace_read_file path=output/long.md start_line=1201."
    ));
    assert_eq!(first.structured["nextStartLine"], json!(1201));
    assert_eq!(first.structured["preview"], json!(true));
    assert_eq!(first.structured["complete"], json!(false));
    assert_eq!(first.resource_refs, ["workspace:output/long.md#L1-L1200"]);

    let rest = h
        .ok(READ, json!({"path": "output/long.md", "start_line": 1201}))
        .await;
    assert!(rest.content.starts_with("1201 | line 1201\n"));
    assert!(
        rest.content
            .ends_with("2000 | line 2000\n\nLines 1201-2000 of 2000.")
    );
    assert_eq!(rest.structured.get("nextStartLine"), None);
    let state = h.session.read_state.get(&path("output/long.md")).unwrap();
    assert!(!state.full);
    assert_eq!(state.observed.len(), 2);
}

#[tokio::test]
async fn a_giant_single_line_is_cut_and_marked() {
    let mut h = Harness::new().await;
    let line = "x".repeat(300_000);
    h.put("scratch/blob.txt", format!("{line}\nnext\n"));
    let result = h.ok(READ, json!({"path": "scratch/blob.txt"})).await;
    let shown = "x".repeat(262_144);
    assert!(result.content.starts_with(&format!(
        "1 | {shown} … [line cut: 37856 more characters]\n\n"
    )));
    assert!(result.content.ends_with(
        "Showing lines 1-1 of 2; the rest did not fit the read budget. Line 1 is too long to \
         show in full and was cut; its remainder cannot be read with line ranges. Continue with \
         workspace_read_file path=scratch/blob.txt start_line=2."
    ));
    assert_eq!(result.structured["cutLines"], json!([1]));
    let state = h.session.read_state.get(&path("scratch/blob.txt")).unwrap();
    assert_eq!(state.observed, [shown]);

    let ranged = h
        .ok(READ, json!({"path": "scratch/blob.txt", "line_count": 1}))
        .await;
    assert!(
        ranged
            .content
            .contains("[line cut: 220000 more characters]")
    );
}

#[tokio::test]
async fn cjk_text_and_crlf_line_ends() {
    let mut h = Harness::new().await;
    h.put("output/zh.md", "你好，世界\r\n北京烤鸭\r\n");
    let result = h.ok(READ, json!({"path": "output/zh.md"})).await;
    assert_eq!(result.content, "1 | 你好，世界\n2 | 北京烤鸭");
    assert_eq!(result.structured["chars"], json!(10));
    assert_eq!(result.structured["words"], json!(8));
    assert_eq!(result.structured["totalLines"], json!(2));
}

#[tokio::test]
async fn an_empty_file_says_so() {
    let mut h = Harness::new().await;
    h.put("output/empty.md", "");
    let result = h.ok(READ, json!({"path": "output/empty.md"})).await;
    assert_eq!(result.content, "`output/empty.md` is empty.");
    assert_eq!(result.resource_refs, ["workspace:output/empty.md"]);
    assert_eq!(result.structured["totalLines"], json!(0));
    assert!(
        h.session
            .read_state
            .get(&path("output/empty.md"))
            .unwrap()
            .full
    );
}

#[tokio::test]
async fn tool_results_are_readable() {
    let mut h = Harness::new().await;
    h.put("tool-results/call_1.txt", "result text");
    let result = h.ok(READ, json!({"path": "tool-results/call_1.txt"})).await;
    assert_eq!(result.content, "1 | result text");
}

#[tokio::test]
async fn bad_ranges_are_recoverable() {
    let mut h = Harness::new().await;
    h.put("output/main.md", "a\nb\n");
    let cases = [
        (json!({"start_line": 0}), "start_line must be 1 or more"),
        (json!({"line_count": 0}), "line_count must be 1 or more"),
        (
            json!({"start_line": 5}),
            "start_line 5 is beyond the last line 2; use a start_line from 1 to 2",
        ),
    ];
    for (range, wording) in cases {
        let mut args = range.clone();
        args["path"] = json!("output/main.md");
        let message = h
            .expect_code(READ, args, "workspace.invalid_line_range")
            .await;
        assert!(
            message.starts_with("Cannot read `output/main.md`: "),
            "{message}"
        );
        assert!(message.contains(wording), "{message}");
    }
    for args in [
        json!({"path": "output/main.md", "start_line": "1"}),
        json!({"path": "output/main.md", "start_line": -1}),
        json!({"path": "output/main.md", "start_char": 0}),
        json!({"path": "output/main.md", "max_chars": 10}),
        json!({}),
        json!({"path": 7}),
        json!("{\"path\": "),
    ] {
        h.expect_code(READ, args, "tool.invalid_arguments").await;
    }
}

#[tokio::test]
async fn missing_folders_binary_and_hidden_files_are_recoverable() {
    let mut h = Harness::with_roots(roots(&[Output, Scratch], &[Output])).await;
    h.put("output/bin.dat", vec![0xff, 0xfe, 0x00]);
    h.put("output/notes/a.md", "a");
    h.put("persist/memory.md", "m");

    h.expect_code(
        READ,
        json!({"path": "output/bin.dat"}),
        "workspace.file_not_text",
    )
    .await;
    for folder in ["output", "output/notes", "tool-results"] {
        let message = h
            .expect_code(READ, json!({"path": folder}), "workspace.path_is_directory")
            .await;
        assert!(
            message.contains(&format!("workspace_list_files path={folder}")),
            "{message}"
        );
    }
    let message = h
        .expect_code(
            READ,
            json!({"path": "output/missing.md"}),
            "workspace.file_not_found",
        )
        .await;
    assert!(message.contains("`output/missing.md`"), "{message}");
    for hidden in [
        "persist/memory.md",
        "input/prompt_snapshot.json",
        "events.jsonl",
    ] {
        h.expect_code(READ, json!({"path": hidden}), "workspace.path_not_visible")
            .await;
    }
    for bad in [
        "",
        "  ",
        "./",
        "../secret",
        "/etc/passwd",
        "\\\\server\\x",
        "C:\\x",
        "output/../../x",
    ] {
        let message = h
            .expect_code(READ, json!({"path": bad}), "workspace.invalid_path")
            .await;
        assert!(message.contains("output/main.md"), "{message}");
    }
    assert!(h.session.read_state.get(&path("output/bin.dat")).is_none());
}
