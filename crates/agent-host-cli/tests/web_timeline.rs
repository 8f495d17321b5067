#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The web timeline of `tavern-agent serve` in headless Chromium, driven over WebDriver
//! (`chromedriver`) with fantoccini: the token from the URL fragment, a scripted run started
//! from the form and watched to its end, a tool call's detail, a file's detail showing the
//! text at its event after the run overwrote it, an older page of a long run,
//! cancel and guidance on a live run, a multi-agent run's nested subagents, a streaming
//! model's live text, and a phone-sized screen. The runs list, a run page and the phone
//! view are saved as screenshots: into `docs/img/` when `TAVERN_WRITE_SCREENSHOTS=1` (how
//! the docs' images are refreshed), else into the temp folder, so a test run leaves the
//! checkout as it was.
//!
//! The browser is Debian's `chromium` with `chromium-driver`, which `.ci/run` installs with
//! apt-get; `TAVERN_CHROMIUM` and `TAVERN_CHROMEDRIVER` may name other binaries. Without them
//! these tests fail with a message saying how to install them; they never skip.

mod cli_support;
mod serve_support;

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cli_support::*;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use serve_support::{Server, TOKEN};
/// How long a page may take to show what a test waits for before the test fails.
const PATIENCE: Duration = Duration::from_secs(60);

/// One browser at a time: the tests share two cores with the rest of the suite.
static BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A child process killed when the test ends, however it ends.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The binary named by `var`, else the Debian package's.
fn required_binary(var: &str, default: &str, package: &str) -> PathBuf {
    let path = std::env::var_os(var).map_or_else(|| PathBuf::from(default), PathBuf::from);
    assert!(
        path.is_file(),
        "the web timeline tests need {} (Debian's `{package}` package, which .ci/run installs \
         with apt-get; or set {var} to another binary)",
        path.display()
    );
    path
}

/// The page's address with the test token in its fragment, as `serve` prints it.
fn page_with_token(server: &Server) -> String {
    format!("{}/#token={TOKEN}", server.base)
}

/// A headless Chromium session of `width`×`height` CSS pixels.
struct Browser {
    client: Client,
    _driver: Reaped,
}

impl Browser {
    async fn open(width: u32, height: u32) -> Self {
        let chromium = required_binary("TAVERN_CHROMIUM", "/usr/bin/chromium", "chromium");
        let chromedriver = required_binary(
            "TAVERN_CHROMEDRIVER",
            "/usr/bin/chromedriver",
            "chromium-driver",
        );
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let driver = Reaped(
            Command::new(chromedriver)
                .arg(format!("--port={port}"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < PATIENCE, "chromedriver never listened");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut capabilities = serde_json::Map::new();
        capabilities.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--hide-scrollbars",
                         format!("--window-size={width},{height}")],
                "mobileEmulation": {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 1.0}}
            }),
        );
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = ClientBuilder::new(connector)
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .unwrap();
        Self {
            client,
            _driver: driver,
        }
    }

    async fn js(&self, script: &str) -> Value {
        self.client.execute(script, Vec::new()).await.unwrap()
    }

    /// Waits until `condition` (a JS expression) is true; fails naming `what`, with the
    /// page's notice and timeline text to tell why.
    /// Opens the page with the server's token in its address, as the printed link does.
    async fn sign_in(&self, server: &Server) {
        self.client.goto(&page_with_token(server)).await.unwrap();
    }

    /// Signs in and waits for the runs list.
    async fn open_runs_list(&self, server: &Server) {
        self.sign_in(server).await;
        self.until(
            "the runs list",
            "!document.getElementById('runs-view').hidden",
        )
        .await;
    }

    /// Goes to a run's page.
    async fn open_run(&self, server: &Server, run_id: &str) {
        let page = format!("{}/#/run/{run_id}", server.base);
        self.client.goto(&page).await.unwrap();
    }

    /// Goes to a finished run's page and waits for its last row.
    async fn open_finished_run(&self, server: &Server, run_id: &str) {
        self.open_run(server, run_id).await;
        self.until(
            "the end of the run",
            "document.querySelector('.row[data-type=run_completed]')",
        )
        .await;
    }

    async fn until(&self, what: &str, condition: &str) {
        let started = Instant::now();
        loop {
            let script = format!("return Boolean({condition});");
            if self.js(&script).await == json!(true) {
                return;
            }
            if started.elapsed() > PATIENCE {
                let state = self
                    .js("return {notice: document.getElementById('notice').textContent, \
                         hash: location.hash, rows: Array.from(document.querySelectorAll('.row')).map(r => r.textContent)};")
                    .await;
                panic!("the page never showed {what}; page state: {state:#}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn css(&self, selector: &str) -> fantoccini::elements::Element {
        self.client.find(Locator::Css(selector)).await.unwrap()
    }

    /// Clicks the element `selector` finds.
    async fn click(&self, selector: &str) {
        self.css(selector).await.click().await.unwrap();
    }

    /// Types `text` into the element `selector` finds, as a person would.
    async fn type_into(&self, selector: &str, text: &str) {
        self.css(selector).await.send_keys(text).await.unwrap();
    }

    /// Clicks the first timeline row `selector` matches, scrolled into view first.
    async fn click_row(&self, selector: &str) {
        self.until(selector, &format!("document.querySelector({selector:?})"))
            .await;
        self.js(&format!(
            "document.querySelector({selector:?}).scrollIntoView({{block: 'center'}});"
        ))
        .await;
        // The list re-renders after a scroll, replacing its rows: a row found just before
        // may be gone by the click, so find it again until a click lands.
        let started = Instant::now();
        loop {
            let clicked = match self.client.find(Locator::Css(selector)).await {
                Ok(row) => row.click().await,
                Err(error) => Err(error),
            };
            match clicked {
                Ok(()) => return,
                Err(error) if started.elapsed() > PATIENCE => {
                    panic!("could not click {selector}: {error}")
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    async fn screenshot(&self, name: &str) {
        let png = self.client.screenshot().await.unwrap();
        assert!(
            png.starts_with(b"\x89PNG"),
            "the screenshot {name} is not a PNG"
        );
        let dir = if std::env::var_os("TAVERN_WRITE_SCREENSHOTS").is_some_and(|v| v == "1") {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/img")
        } else {
            std::env::temp_dir().join("tavern-agent-web-timeline")
        };
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), png).unwrap();
    }

    async fn close(self) {
        self.client.close().await.unwrap();
    }
}

/// A run that writes, commits and finishes, slowly enough to be watched.
fn watched_script() -> Value {
    json!({"turns": [
        {"delay_ms": 300, "reasoning": "The guest wants a room and stew.",
         "tool_calls": [{"name": "workspace_write_file",
                         "arguments": {"path": "output/main.md", "content": REPLY}}]},
        {"delay_ms": 300, "text": "Committing the reply.",
         "tool_calls": [{"name": "workspace_commit", "arguments": {}}]},
        {"delay_ms": 300, "tool_calls": [{"name": "workspace_finish", "arguments": {"reason": "done"}}]}
    ]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_started_from_the_form_completes_live_and_shows_its_tool_call() {
    let _one = BROWSER.lock().await;
    let fx = Fixture::new();
    // Earlier runs, for a runs list with more than one status.
    fx.run_script(&failing_script(), &[]).failure();
    fx.run_script(&completing_script(), &[]).success();
    let server = Server::start(fx.path(), &[], &[]);
    let browser = Browser::open(1200, 760).await;
    // The token leaves the address bar at once and the runs list shows.
    browser.open_runs_list(&server).await;
    let hash = browser.js("return location.hash;").await;
    assert_eq!(hash, json!("#/runs"));

    browser.click("#start-details summary").await;
    browser.type_into("#start-chat", CHAT).await;
    browser.click("input[name=model][value=script]").await;
    // The textarea takes the script as typed text, as a person would paste it.
    browser
        .js(&format!(
            "document.getElementById('start-script').value = {};",
            serde_json::to_string(&watched_script().to_string()).unwrap()
        ))
        .await;
    browser.click("#start-submit").await;

    browser
        .until("the run page", "location.hash.startsWith('#/run/')")
        .await;
    let hash = browser.js("return location.hash;").await;
    let run_id = hash
        .as_str()
        .unwrap()
        .trim_start_matches("#/run/")
        .to_owned();
    browser
        .until(
            "the run's completion",
            "document.querySelector('.row[data-type=run_completed]')",
        )
        .await;
    browser
        .until(
            "the completed status",
            "document.querySelector('#run-title .status-completed')",
        )
        .await;
    let rows = browser
        .js("return Array.from(document.querySelectorAll('.row')).map(r => r.textContent).join('\\n');")
        .await;
    let rows = rows.as_str().unwrap();
    for expected in [
        "round 1 · 1 tool call",
        "workspace.write_file",
        "wrote output/main.md",
        "committed output/main.md to the chat",
        "run completed",
    ] {
        assert!(rows.contains(expected), "no {expected:?} in:\n{rows}");
    }
    // The tool row's one-line preview carries its arguments, fetched from the model turn.
    browser
        .until(
            "the write's argument preview",
            "document.querySelector('.row[data-type^=tool_call]')?.textContent.includes('path=\"output/main.md\"')",
        )
        .await;

    // The tool call's detail: its arguments and its stored result.
    browser.click_row(".row[data-type^=tool_call]").await;
    browser
        .until(
            "the tool call's arguments and result",
            "document.getElementById('detail-body').textContent.includes('Arguments (workspace_write_file)') && \
             document.getElementById('detail-body').textContent.includes('Result (')",
        )
        .await;
    let detail = browser
        .js("return document.getElementById('detail-body').textContent;")
        .await;
    assert!(
        detail.as_str().unwrap().contains("Room three"),
        "the arguments show the written text: {detail}"
    );

    // A model round's detail: its text and reasoning.
    browser.click_row(".row[data-type=model_completed]").await;
    browser
        .until(
            "the model turn",
            "document.getElementById('detail-body').textContent.includes('The guest wants a room')",
        )
        .await;

    // Back on the runs list (once the run's records are saved), the run is listed as
    // completed.
    server.wait_terminal(&run_id).await;
    browser.click("#home").await;
    browser
        .until(
            "the run in the list",
            &format!("document.querySelector('.run-card[data-run-id={run_id}] .status-completed')"),
        )
        .await;
    let listed = browser
        .js("return Array.from(document.querySelectorAll('.run-card .status')).map(s => s.textContent);")
        .await;
    assert_eq!(
        listed,
        json!(["completed", "completed", "failed"]),
        "newest first"
    );
    browser.screenshot("web-runs.png").await;
    browser.close().await;
}

/// The text the detail panel shows for the workspace file, or its muted note when the
/// file is not available at that event; `null` while the panel has neither.
const DETAIL_FILE: &str = "(() => { \
    const section = Array.from(document.querySelectorAll('#detail-body .detail-section')) \
        .find((s) => s.querySelector('h3')?.textContent.startsWith('Workspace file ')); \
    if (!section) return null; \
    const note = section.querySelector('.file-unavailable'); \
    if (note) return {unavailable: note.textContent}; \
    return {text: section.querySelector('pre').textContent, \
            facts: section.querySelector('.file-facts').textContent}; \
})()";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_detail_shows_the_file_as_it_stood_at_its_event_even_after_an_overwrite() {
    const DRAFT: &str = "A first draft: the keeper climbs the steps.";
    let _one = BROWSER.lock().await;
    let fx = Fixture::new();
    let write = |text: &str| {
        json!({"tool_calls": [{"name": "workspace_write_file",
            "arguments": {"path": "output/main.md", "content": text}}]})
    };
    let script = json!({"turns": [
        write(DRAFT),
        write(REPLY),
        {"tool_calls": [{"name": "workspace_commit", "arguments": {}}]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {"reason": "done"}}]}
    ]});
    fx.run_script(&script, &[]).success();
    let run_id = fx.run_ids().pop().unwrap();
    let server = Server::start(fx.path(), &[], &[]);
    let browser = Browser::open(1200, 760).await;
    browser.open_runs_list(&server).await;
    let open_run = || browser.open_finished_run(&server, &run_id);
    open_run().await;

    // The first write's tool call, and the first write itself: the draft, not the final text
    // the file holds now.
    for row in [
        ".row[data-type^=tool_call]",
        ".row[data-type=workspace_file_written]",
    ] {
        browser.click_row(row).await;
        browser
            .until(
                "the workspace file in the detail",
                &format!("{DETAIL_FILE}?.text !== undefined"),
            )
            .await;
        let file = browser.js(&format!("return {DETAIL_FILE};")).await;
        assert_eq!(file["text"], DRAFT, "{row}: {file}");
        let facts = file["facts"].as_str().unwrap();
        assert!(facts.contains("as of event #"), "{row}: {facts}");
        assert!(!facts.contains("changed later"), "{row}: {facts}");
    }
    // The second write's tool call shows the final text.
    browser
        .click_row(".row[data-type^=tool_call] ~ .row[data-type^=tool_call]")
        .await;
    browser
        .until(
            "the second write's file",
            &format!("{DETAIL_FILE}?.text === {REPLY:?}"),
        )
        .await;

    // Once retention slims the run, its checkpoints are gone and the panel says so.
    for (key, value) in [
        ("keep_full_recent_runs", "0"),
        ("keep_recent_terminal_runs", "1"),
    ] {
        fx.cmd()
            .args(["retention", "set", key, value])
            .assert()
            .success();
    }
    fx.cmd().args(["retention", "apply"]).assert().success();
    browser.client.refresh().await.unwrap();
    open_run().await;
    browser
        .click_row(".row[data-type=workspace_file_written]")
        .await;
    browser
        .until(
            "the note that the file is not available",
            &format!("{DETAIL_FILE}?.unavailable !== undefined"),
        )
        .await;
    let note = browser.js(&format!("return {DETAIL_FILE};")).await;
    let note = note["unavailable"].as_str().unwrap();
    assert!(note.contains("workspace.checkpoints_pruned"), "{note}");
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_run_takes_guidance_and_is_cancelled_from_the_page() {
    let _one = BROWSER.lock().await;
    let fx = Fixture::new();
    let server = Server::start(fx.path(), &[], &[]);
    let browser = Browser::open(1000, 700).await;
    browser.open_runs_list(&server).await;
    // A run whose first model call takes a minute, started over the API like any client.
    let run_id = server.start_run(slow_script()).await;
    browser.open_run(&server, &run_id).await;
    browser
        .until(
            "the run going, its model call not answered",
            "document.querySelector('.row[data-type=profile_resolved]') && \
             document.querySelector('.row[data-type=model_completed]') === null && \
             !document.getElementById('cancel-run').disabled",
        )
        .await;

    browser
        .type_into("#guidance-text", "Make the stew spicy.")
        .await;
    browser.click("#guidance-send").await;
    // The note waits in the run's mailbox for the next model request: the page says so.
    browser
        .until(
            "the guidance receipt",
            "document.getElementById('guidance-text').value === '' && \
             document.getElementById('notice').textContent.includes('Guidance queued')",
        )
        .await;

    // Cancelling ends the run before that request: the note is journaled and discarded,
    // and the page shows both and the end, live.
    browser.click("#cancel-run").await;
    browser
        .until(
            "the cancellation, live",
            "document.querySelector('.row[data-type=run_cancelled]')",
        )
        .await;
    browser
        .until(
            "the discarded guidance",
            "document.querySelector('.row[data-type=user_guidance_submitted]')?.textContent.includes('Make the stew spicy.') && \
             document.querySelector('.row[data-type=user_guidance_discarded]')",
        )
        .await;
    browser
        .until(
            "the cancelled status and disabled buttons",
            "document.querySelector('#run-title .status-cancelled') && document.getElementById('cancel-run').disabled",
        )
        .await;
    browser.close().await;
}

/// A run of `rounds` model rounds listing the workspace, then the completing script's
/// write, commit and finish.
fn long_script(rounds: usize) -> Value {
    let mut turns: Vec<Value> = (0..rounds)
        .map(|_| json!({"tool_calls": [{"name": "workspace_list_files", "arguments": {}}]}))
        .collect();
    turns.extend(
        completing_script()["turns"]
            .as_array()
            .unwrap()
            .iter()
            .cloned(),
    );
    json!({ "turns": turns })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_run_opens_at_its_end_and_loads_older_pages_on_scroll() {
    let _one = BROWSER.lock().await;
    let fx = Fixture::new();
    fx.run_script(&long_script(70), &[]).success();
    let run_id = fx.run_ids().pop().unwrap();
    let events = fx.events_jsonl(&run_id).lines().count();
    assert!(events > 600, "the run journals several pages: {events}");

    let server = Server::start(fx.path(), &[], &[]);
    let browser = Browser::open(1000, 700).await;
    browser.open_runs_list(&server).await;
    browser.open_finished_run(&server, &run_id).await;
    // Only the newest page is loaded, and only the rows in view are in the document.
    let oldest = "Math.min(...Array.from(document.querySelectorAll('.row[data-seq]')).map(r => Number(r.dataset.seq)))";
    let first_seen = browser.js(&format!("return {oldest};")).await;
    assert!(
        first_seen.as_u64().unwrap() > 200,
        "the page opened at the end: {first_seen}"
    );
    let start = browser
        .js("return document.querySelector('.row[data-type=profile_resolved]');")
        .await;
    assert_eq!(
        start,
        Value::Null,
        "the run's first events are not loaded yet"
    );

    // Scrolling to the top loads older pages until the run's first events show.
    browser
        .until(
            "the run's first events after scrolling up",
            "(document.getElementById('timeline').scrollTop = 0, \
              document.querySelector('.row[data-type=profile_resolved]'))",
        )
        .await;
    let rendered = browser
        .js("return document.querySelectorAll('.row').length;")
        .await;
    assert!(
        rendered.as_u64().unwrap() < 100,
        "windowed rendering keeps the document small: {rendered} rows"
    );
    // The first events stay in place: the view does not jump back to the end.
    let bottom = browser
        .js("return document.querySelector('.row[data-type=run_completed]');")
        .await;
    assert_eq!(bottom, Value::Null, "the end of the run is out of view");
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_fits_a_phone_and_explains_a_missing_or_refused_token() {
    let _one = BROWSER.lock().await;
    let fx = Fixture::new();
    fx.run_script(&completing_script(), &[]).success();
    let run_id = fx.run_ids().pop().unwrap();
    let server = Server::start(fx.path(), &[], &[]);
    let browser = Browser::open(390, 844).await;

    // No token: a message says where to find the address with one.
    browser
        .client
        .goto(&format!("{}/", server.base))
        .await
        .unwrap();
    browser
        .until(
            "the missing-token message",
            "document.getElementById('notice').textContent.includes('No access token')",
        )
        .await;
    // A wrong token: the server refuses it and the page says so.
    browser
        .client
        .goto(&format!("{}/#token=not-the-token", server.base))
        .await
        .unwrap();
    browser
        .until(
            "the refused-token message",
            "document.getElementById('notice').textContent.includes('serve.unauthorized')",
        )
        .await;

    browser.sign_in(&server).await;
    browser
        .until("the run in the list", "document.querySelector('.run-card')")
        .await;
    let no_overflow = "document.documentElement.scrollWidth <= window.innerWidth";
    assert_eq!(
        browser.js("return window.innerWidth;").await,
        json!(390),
        "a phone-sized viewport"
    );
    assert_eq!(
        browser.js(&format!("return {no_overflow};")).await,
        json!(true),
        "the runs list fits the phone's width"
    );
    browser.click(".run-card").await;
    browser
        .until(
            "the run page",
            &format!("location.hash === '#/run/{run_id}' && document.querySelector('.row[data-type=run_completed]')"),
        )
        .await;
    browser.click_row(".row[data-type^=tool_call]").await;
    browser
        .until(
            "the detail sheet",
            "!document.getElementById('detail').hidden && document.getElementById('detail-body').textContent.includes('Arguments')",
        )
        .await;
    let sheet = browser
        .js(
            "const r = document.getElementById('detail').getBoundingClientRect(); \
             return r.left >= 0 && r.right <= window.innerWidth && r.width > 300;",
        )
        .await;
    assert_eq!(
        sheet,
        json!(true),
        "the detail sheet spans the phone's width"
    );
    assert_eq!(
        browser.js(&format!("return {no_overflow};")).await,
        json!(true),
        "the run page fits the phone's width"
    );
    browser.screenshot("web-run-phone.png").await;
    browser.close().await;
}

/// One streamed OpenAI Chat Completions answer: reasoning and text in pieces, then one tool
/// call, as `text/event-stream` chunks.
fn streamed_answer(reasoning: &[&str], text: &[&str], alias: &str, arguments: Value) -> String {
    let chunk = |delta: Value, finish: Option<&str>| {
        let chunk = json!({"id": "chatcmpl-web", "object": "chat.completion.chunk",
                           "model": "mock-model",
                           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {chunk}\n\n")
    };
    let mut body: String = reasoning
        .iter()
        .map(|piece| chunk(json!({"reasoning_content": piece}), None))
        .chain(
            text.iter()
                .map(|piece| chunk(json!({"content": piece}), None)),
        )
        .collect();
    body += &chunk(
        json!({"tool_calls": [{"index": 0, "id": format!("call_{alias}"), "type": "function",
               "function": {"name": alias, "arguments": arguments.to_string()}}]}),
        None,
    );
    body += &chunk(json!({}), Some("tool_calls"));
    body + "data: [DONE]\n\n"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streaming_model_shows_its_text_live_on_a_run_started_with_a_connection() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    let _one = BROWSER.lock().await;
    let provider = MockServer::start().await;
    let answers = [
        streamed_answer(
            &["The guest ", "is hungry."],
            &["Writing the ", "reply now."],
            "workspace_write_file",
            json!({"path": "output/main.md", "content": REPLY}),
        ),
        streamed_answer(&[], &[], "workspace_commit", json!({})),
        streamed_answer(&[], &[], "workspace_finish", json!({"reason": "done"})),
    ];
    for (round, answer) in answers.into_iter().enumerate() {
        // The first answer is held back so the page is following the run when it streams.
        let delay = if round == 0 { 3000 } else { 0 };
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_raw(answer, "text/event-stream")
                    .set_delay(Duration::from_millis(delay)),
            )
            .up_to_n_times(1)
            .with_priority(u8::try_from(round + 1).unwrap())
            .mount(&provider)
            .await;
    }
    let fx = Fixture::new();
    let server = Server::start(fx.path(), &[], &[("WEB_TEST_KEY", "sk-web-test")]);
    let connection = json!({"kind": "tavern-agent.llmConnection", "schemaVersion": 1,
        "name": "mock", "format": "openai-chat", "model": "mock-model",
        "baseUrl": format!("{}/v1", provider.uri()), "apiKeyEnv": "WEB_TEST_KEY"});
    let (status, saved) = server
        .call(
            reqwest::Method::PUT,
            "/api/connections/mock",
            Some(connection),
        )
        .await;
    assert!(status.is_success(), "{saved}");

    let browser = Browser::open(1000, 700).await;
    browser.sign_in(&server).await;
    browser
        .until(
            "the saved connection in the form",
            "document.querySelector('#start-connection option[value=mock]')",
        )
        .await;
    // Every piece of text the live panel was given, recorded as it arrives (the panel
    // empties once the round is journaled, possibly in the same task).
    browser
        .js("window.liveSeen = ''; new MutationObserver((records) => { \
               for (const record of records) for (const node of record.addedNodes) \
                 window.liveSeen += node.textContent; \
             }).observe(document.getElementById('live'), {subtree: true, childList: true});")
        .await;
    browser.click("#start-details summary").await;
    browser.type_into("#start-chat", CHAT).await;
    browser
        .js("document.getElementById('start-connection').value = 'mock';")
        .await;
    browser.click("#start-submit").await;
    browser
        .until(
            "the run's completion",
            "document.querySelector('.row[data-type=run_completed]')",
        )
        .await;
    let seen = browser.js("return window.liveSeen;").await;
    let seen = seen.as_str().unwrap();
    for expected in [
        "The guest is hungry.",
        "Writing the reply now.",
        "workspace_write_file",
    ] {
        assert!(
            seen.contains(expected),
            "the live panel never showed {expected:?}: {seen}"
        );
    }
    let live_hidden = browser
        .js("return document.getElementById('live').hidden;")
        .await;
    assert_eq!(
        live_hidden,
        json!(true),
        "the live panel closes with the round"
    );
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_agent_run_shows_its_subagents_indented_under_the_lead() {
    let _one = BROWSER.lock().await;
    // `demo --multi-agent`: two researchers delegated in parallel, then a handoff to the editor.
    let tmp = tempfile::tempdir().unwrap();
    let demo = assert_cmd::Command::new(bin())
        .env("TMPDIR", tmp.path())
        .env("NO_COLOR", "1")
        .env_remove("TAVERN_AGENT_DATA_DIR")
        .args(["demo", "--multi-agent"])
        .assert()
        .code(0);
    let stderr = stderr_of(&demo);
    let data = stderr
        .lines()
        .find_map(|line| line.strip_prefix("demo data directory: "))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no data directory in:\n{stderr}"));
    let run_id = run_id_of(stderr.as_bytes());

    let server = Server::start(&data, &[], &[]);
    let browser = Browser::open(1200, 760).await;
    browser.sign_in(&server).await;
    browser
        .until("the runs list", "document.querySelector('.run-card')")
        .await;
    browser.open_finished_run(&server, &run_id).await;
    // At the top: the two delegations, then the researchers' own steps, indented and
    // labelled.
    browser
        .until(
            "the two delegations and the researchers' steps",
            "(document.getElementById('timeline').scrollTop = 0, \
              Array.from(document.querySelectorAll('.row[data-type=agent_invocation_created]')) \
                .filter(r => r.textContent.includes('researcher delegated task')).length === 2 && \
              document.querySelectorAll('.row.nested .who').length > 0)",
        )
        .await;
    let labels = browser
        .js("return Array.from(document.querySelectorAll('.row.nested .who')).map(w => w.textContent);")
        .await;
    assert!(
        labels
            .as_array()
            .unwrap()
            .iter()
            .all(|label| label == "[researcher]"),
        "only the delegated researchers are nested: {labels}"
    );
    // The editor takes over the run: its steps are labelled but not nested.
    browser
        .until(
            "the editor's steps",
            "(document.getElementById('timeline').scrollTop = 1e9, \
              Array.from(document.querySelectorAll('.row .who')).some(w => w.textContent === '[editor]'))",
        )
        .await;
    let editor_nested = browser
        .js("return Array.from(document.querySelectorAll('.row.nested .who')).some(w => w.textContent === '[editor]');")
        .await;
    assert_eq!(
        editor_nested,
        json!(false),
        "a handoff target is not nested"
    );

    // The page shown in the docs: the delegations in view, a researcher's tool call open.
    browser
        .js("document.getElementById('timeline').scrollTop = 0;")
        .await;
    browser.click_row(".row.nested[data-type^=tool_call]").await;
    browser
        .until(
            "the researcher's tool call",
            "document.getElementById('detail-body').textContent.includes('Arguments (')",
        )
        .await;
    browser.screenshot("web-run.png").await;
    browser.close().await;
}
