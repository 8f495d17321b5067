#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The live timeline in a real terminal: `tavern-agent run --connection NAME` runs in a
//! pseudo-terminal against a local mock provider that streams OpenAI Chat Completions
//! chunks (reasoning, then text, then a tool call whose arguments arrive in pieces). What
//! the terminal shows must have the model's text as it arrived, before the round's step
//! line, reasoning dimmed, and a one-line preview of the tool call; `--quiet` must show only
//! the committed message, and `--json` exactly the journal.

mod cli_support;

use std::io::Read;

use cli_support::*;
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk-e2e-live-Vb7distinctiveKEY";
const KEY_ENV: &str = "TAVERN_E2E_LIVE_API_KEY";
const MODEL: &str = "mock-model";
const REASONING: [&str; 2] = ["Weighing which ", "room is free."];
const TEXT: [&str; 2] = ["Writing the ", "reply now."];
/// SGR 2 (faint), as the timeline dims reasoning.
const DIM: &str = "\x1b[2m";

/// One chunk of round `round`'s stream with `delta` (and `finish` as its finish reason).
fn chunk(round: usize, delta: &Value, finish: Option<&str>) -> Value {
    json!({"id": format!("chatcmpl-{round}"), "object": "chat.completion.chunk", "model": MODEL,
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

/// Round `round`'s answer as server-sent events: in round 1 reasoning and text in pieces,
/// then in every round one tool call (write, commit, finish) whose arguments come in two
/// fragments, the finish reason, the usage and `[DONE]`.
fn events(round: usize) -> String {
    let (id, alias, arguments) = match round {
        1 => (
            "call_write",
            "workspace_write_file",
            json!({"path": "output/main.md", "content": REPLY}).to_string(),
        ),
        2 => ("call_commit", "workspace_commit", "{}".to_owned()),
        _ => (
            "call_finish",
            "workspace_finish",
            json!({"reason": "done"}).to_string(),
        ),
    };
    let mut chunks = Vec::new();
    if round == 1 {
        for piece in REASONING {
            chunks.push(chunk(round, &json!({"reasoning_content": piece}), None));
        }
        for piece in TEXT {
            chunks.push(chunk(round, &json!({"content": piece}), None));
        }
    }
    chunks.push(chunk(
        round,
        &json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
                                "function": {"name": alias, "arguments": ""}}]}),
        None,
    ));
    let (head, tail) = arguments.split_at(arguments.len() / 2);
    for fragment in [head, tail] {
        chunks.push(chunk(
            round,
            &json!({"tool_calls": [{"index": 0, "function": {"arguments": fragment}}]}),
            None,
        ));
    }
    chunks.push(chunk(round, &json!({}), Some("tool_calls")));
    chunks.push(
        json!({"id": format!("chatcmpl-{round}"), "object": "chat.completion.chunk",
        "model": MODEL, "choices": [],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}),
    );
    chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n"))
        .collect::<String>()
        + "data: [DONE]\n\n"
}

/// A provider that streams the three rounds, one per request.
async fn streaming_provider() -> MockServer {
    let server = MockServer::start().await;
    for round in 1..=3 {
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(
                ResponseTemplate::new(200).set_body_raw(events(round), "text/event-stream"),
            )
            .up_to_n_times(1)
            .with_priority(u8::try_from(round).unwrap())
            .mount(&server)
            .await;
    }
    server
}

/// A fixture with connection `mock` saved, pointing at `server`.
fn fixture(server: &MockServer) -> Fixture {
    let fx = Fixture::new();
    fx.cmd()
        .args(["connections", "add", "mock", "--format", "openai-chat"])
        .args(["--model", MODEL, "--api-key-env", KEY_ENV])
        .arg("--base-url")
        .arg(format!("{}/v1", server.uri()))
        .assert()
        .success();
    fx
}

/// Runs `run --chat … --connection mock [extra…]` with stdout and stderr on a
/// pseudo-terminal, as a person would see it; returns the exit code and everything the
/// terminal received.
async fn run_in_terminal(fx: &Fixture, extra: &[&str]) -> (u32, String) {
    let data_dir = fx.path().to_path_buf();
    let extra: Vec<String> = extra.iter().map(|arg| (*arg).to_owned()).collect();
    tokio::task::spawn_blocking(move || {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 50,
                cols: 200,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new(bin());
        cmd.env_remove("TAVERN_AGENT_DATA_DIR");
        cmd.env_remove("NO_COLOR");
        cmd.env("TERM", "xterm-256color");
        cmd.env(KEY_ENV, KEY);
        cmd.arg("--data-dir");
        cmd.arg(&data_dir);
        cmd.args(["run", "--chat", CHAT, "--connection", "mock"]);
        cmd.args(&extra);
        let mut child = pair.slave.spawn_command(cmd).unwrap();
        // The terminal's reading end sees its end only once no writer is left.
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let mut screen = Vec::new();
        let mut buffer = [0_u8; 8192];
        loop {
            match reader.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => screen.extend_from_slice(&buffer[..n]),
            }
        }
        let status = child.wait().unwrap();
        (
            status.exit_code(),
            String::from_utf8_lossy(&screen).into_owned(),
        )
    })
    .await
    .unwrap()
}

/// Where `needle` first is in `screen`.
fn at(screen: &str, needle: &str) -> usize {
    screen
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} is not on the terminal:\n{screen:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_shows_the_stream_as_it_arrives_then_the_step_lines() {
    let server = streaming_provider().await;
    let fx = fixture(&server);
    let (code, screen) = run_in_terminal(&fx, &[]).await;
    assert_eq!(code, 0, "{screen:?}");
    assert!(fx.chat_text().contains("Room three"));

    // Reasoning is dimmed, piece by piece as it came.
    let reasoning = at(&screen, &format!("{DIM}{}", REASONING[0]));
    at(&screen, &format!("{DIM}{}", REASONING[1]));
    // The text follows it, undimmed, on a line of its own.
    let text = at(&screen, &TEXT.concat());
    assert!(reasoning < text, "{screen:?}");
    assert!(!screen.contains(&format!("{DIM}{}", TEXT[0])), "{screen:?}");
    // The tool call shows as one dimmed line while its arguments stream: first the start
    // of the raw arguments, then their summary once complete.
    let preview = at(&screen, "⋯ workspace_write_file {");
    let summary = at(
        &screen,
        r#"⋯ workspace_write_file path="output/main.md" content="Alice smiles"#,
    );
    assert!(text < preview && preview < summary, "{screen:?}");
    // All of it before the round's step line, which comes from the journal.
    let step = at(&screen, "· 1 tool call");
    assert!(summary < step, "{screen:?}");
    let tool_line = at(&screen, "workspace.write_file");
    assert!(step < tool_line, "{screen:?}");
    // Later rounds preview their calls too, each before its own step line.
    let commit = at(&screen, "⋯ workspace_commit {}");
    assert!(tool_line < commit, "{screen:?}");
    assert!(
        commit < at(&screen, "round 2\x1b[0m · 1 tool call"),
        "{screen:?}"
    );
    // Then the committed message and the status line.
    let message = at(&screen, REPLY);
    assert!(commit < message, "{screen:?}");
    at(&screen, "completed\x1b[0m · 3 rounds · 3 tool calls");
    assert!(!screen.contains(KEY));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quiet_shows_only_the_committed_message() {
    let server = streaming_provider().await;
    let fx = fixture(&server);
    let (code, screen) = run_in_terminal(&fx, &["--quiet"]).await;
    assert_eq!(code, 0, "{screen:?}");
    // The terminal turns each newline into CR LF.
    assert_eq!(screen, format!("{REPLY}\r\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_in_a_terminal_is_exactly_the_journal() {
    let server = streaming_provider().await;
    let fx = fixture(&server);
    let (code, screen) = run_in_terminal(&fx, &["--json"]).await;
    assert_eq!(code, 0, "{screen:?}");
    let run_id = run_id_of(screen.as_bytes());
    let journal = fx.events_jsonl(&run_id);
    assert_eq!(
        screen,
        format!("run: {run_id}\n{journal}").replace('\n', "\r\n"),
        "only the run line (stderr) and the journal (stdout)"
    );
}
