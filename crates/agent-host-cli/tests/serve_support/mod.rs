//! The `tavern-agent serve` binary on a real loopback listener, an HTTP client that keeps
//! every response body it read (for the key-leak check), and a Server-Sent Events reader.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures::StreamExt;
use reqwest::{Method, StatusCode};
use serde_json::Value;

/// The token every test server is started with.
pub const TOKEN: &str = "serve-test-token-0123456789";

/// A running `tavern-agent serve`; killed when dropped.
pub struct Server {
    pub child: Child,
    pub base: String,
    pub client: reqwest::Client,
    /// Every response body read through [`Server::call`], for the key-leak check.
    pub bodies: std::sync::Mutex<Vec<String>>,
}

impl Server {
    /// Starts the binary on `data` with `extra` flags after `serve --bind 127.0.0.1:0` and
    /// `env` set; waits for its `listening on` line.
    pub fn start(data: &Path, extra: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tavern-agent"));
        command
            .arg("--data-dir")
            .arg(data)
            .args(["serve", "--bind", "127.0.0.1:0"])
            .args(extra)
            .env("TAVERN_AGENT_SERVE_TOKEN", TOKEN)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut first = String::new();
        BufReader::new(stdout).read_line(&mut first).unwrap();
        let base = first
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
            .to_owned();
        Self {
            child,
            base,
            client: reqwest::Client::new(),
            bodies: std::sync::Mutex::new(Vec::new()),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// An authorized request.
    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.client
            .request(method, self.url(path))
            .bearer_auth(TOKEN)
    }

    /// Sends `request`, keeps its body and answers the status and the body as JSON.
    pub async fn send(&self, request: reqwest::RequestBuilder) -> (StatusCode, Value) {
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        self.bodies.lock().unwrap().push(text.clone());
        let value =
            serde_json::from_str(&text).unwrap_or_else(|err| panic!("not JSON ({err}): {text}"));
        (status, value)
    }

    /// An authorized call with an optional JSON body.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = self.request(method, path);
        if let Some(body) = body {
            request = request.json(&body);
        }
        self.send(request).await
    }

    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.call(Method::GET, path, None).await
    }

    /// Starts a run on the fixture's chat with `script`; answers its id.
    pub async fn start_run(&self, script: Value) -> String {
        let body = serde_json::json!({"chat": super::cli_support::CHAT, "script": script});
        let (status, run) = self.call(Method::POST, "/api/runs", Some(body)).await;
        assert_eq!(status, StatusCode::CREATED, "{run}");
        run["id"].as_str().unwrap().to_owned()
    }

    /// Polls the run until its status is terminal (the terminal event can be journaled a
    /// moment before the status says so); answers the summary.
    pub async fn wait_terminal(&self, run: &str) -> Value {
        let mut last = Value::Null;
        for _ in 0..600 {
            let (status, summary) = self.get(&format!("/api/runs/{run}")).await;
            assert_eq!(status, StatusCode::OK, "{summary}");
            let status = summary["status"].as_str().unwrap_or_default();
            let ended = ["completed", "partial_success", "cancelled", "failed"].contains(&status);
            if summary["terminal"].is_object() && ended {
                return summary;
            }
            last = summary;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("run {run} did not end: {last}");
    }

    /// Opens the run's event stream with `last_event_id` sent as `Last-Event-ID`.
    pub async fn stream(&self, run: &str, last_event_id: Option<u64>) -> Sse {
        let mut request = self.request(Method::GET, &format!("/api/runs/{run}/stream"));
        if let Some(seq) = last_event_id {
            request = request.header("Last-Event-ID", seq.to_string());
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            response.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        Sse {
            body: Box::pin(response.bytes_stream()),
            buffer: String::new(),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One Server-Sent Event.
#[derive(Debug, Clone)]
pub struct SseEvent {
    pub id: Option<u64>,
    pub event: String,
    pub data: String,
}

impl SseEvent {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap()
    }
}

/// Reads events off a `text/event-stream` body.
pub struct Sse {
    body: std::pin::Pin<Box<dyn futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
    buffer: String,
}

impl Sse {
    /// The next event (comments skipped); `None` when the stream ended.
    pub async fn next(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = SseEvent {
                    id: None,
                    event: "message".to_owned(),
                    data: String::new(),
                };
                let mut any = false;
                for line in block.lines() {
                    if let Some(id) = line.strip_prefix("id: ") {
                        event.id = Some(id.parse().unwrap());
                        any = true;
                    } else if let Some(name) = line.strip_prefix("event: ") {
                        event.event = name.to_owned();
                        any = true;
                    } else if let Some(data) = line.strip_prefix("data: ") {
                        event.data.push_str(data);
                        any = true;
                    }
                }
                if any {
                    return Some(event);
                }
                continue;
            }
            let chunk = tokio::time::timeout(Duration::from_secs(60), self.body.next())
                .await
                .expect("the stream stalled")?;
            self.buffer
                .push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
        }
    }

    /// Every `run_event` until the stream ends.
    pub async fn run_events(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            if event.event == "run_event" {
                events.push(event);
            }
        }
        events
    }
}
