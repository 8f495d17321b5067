//! `GET /api/runs/{id}/stream`: a run as Server-Sent Events. Each journal event is one
//! `run_event` with `id: <seq>`, so a client that reconnects with `Last-Event-ID` (or
//! `?afterSeq=`) gets exactly the events after the last one it saw: the journal's backlog
//! first, then new events as they are appended, ending after the terminal event. Live model
//! deltas go out between them as `model_delta` events without an id (they are never
//! journaled, so there is nothing to resume).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

use agent_application::ports::{EventStream, ModelDelta};
use agent_application::runtime::{ModelActivity, RunDeltas};
use agent_domain::ErrorCode;
use agent_domain::event::JournalLine;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::get;
use futures::stream::{self, Stream, StreamExt};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::AppState;
use crate::error::{ApiError, ApiResult, codes};
use crate::runs::{Params, run_id};

pub fn routes() -> Router<AppState> {
    Router::new().route("/runs/{id}/stream", get(stream_run))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StreamParams {
    after_seq: Option<u64>,
}

async fn stream_run(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Params(params): Params<StreamParams>,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let run = run_id(&id)?;
    let after = resume_position(&headers)?.or(params.after_seq).unwrap_or(0);
    let services = &state.services;
    services.runtime.load_run(&run).await?;
    // Listening before following, so no delta of the next model call is missed.
    let deltas = RunDeltas::new(Some(services.runtime.watch_activity()), run.clone());
    let events = services.host.follow(&run, after).await?;
    let stream = run_stream(events, deltas, state.live.closed());
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// `Last-Event-ID`, when the client sent one: the seq of the last event it received.
fn resume_position(headers: &HeaderMap) -> ApiResult<Option<u64>> {
    let Some(value) = headers.get("last-event-id") else {
        return Ok(None);
    };
    value
        .to_str()
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .map(Some)
        .ok_or_else(|| {
            ApiError::bad_request(codes::BAD_REQUEST, "Last-Event-ID is not an event seq")
        })
}

/// The run's journal events and live deltas, merged (a call's deltas before the journal
/// line that ends it); ends after the terminal event, when the journal fails (with an
/// `error` event), or when the server closes.
pub fn run_stream(
    events: EventStream,
    deltas: RunDeltas,
    closed: CancellationToken,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let state = Some((events, deltas, VecDeque::<Event>::new()));
    stream::unfold(state, |state| async move {
        let (mut events, mut deltas, mut ready) = state?;
        loop {
            if let Some(event) = ready.pop_front() {
                return Some((Ok(event), Some((events, deltas, ready))));
            }
            tokio::select! {
                biased;
                line = events.next() => match line {
                    None => return None,
                    Some(Ok(line)) => {
                        ready.extend(deltas.ended_by(&line).iter().filter_map(delta_event));
                        ready.push_back(line_event(&line));
                    }
                    Some(Err(error)) => {
                        let body = json!({"code": error.code(), "message": error.to_string()});
                        let event = Event::default().event("error").data(body.to_string());
                        return Some((Ok(event), None));
                    }
                },
                delta = deltas.next() => ready.extend(delta_event(&delta)),
            }
        }
    })
    .take_until(async move { closed.cancelled().await })
}

/// `id: <seq>`, `event: run_event`, the journal line as data.
pub fn line_event(line: &JournalLine) -> Event {
    let data = serde_json::to_string(line).unwrap_or_else(|_| "{}".to_owned());
    Event::default()
        .id(line.seq.to_string())
        .event("run_event")
        .data(data)
}

/// `event: model_delta` with the call it belongs to and what arrived; usage counts are
/// left to the journal.
fn delta_event(activity: &ModelActivity) -> Option<Event> {
    let (kind, detail): (&str, Value) = match &activity.delta {
        ModelDelta::Text(text) => ("text", json!({"text": text})),
        ModelDelta::Reasoning(text) => ("reasoning", json!({"text": text})),
        ModelDelta::ToolCallStarted { index, name } => {
            ("tool_call_started", json!({"index": index, "name": name}))
        }
        ModelDelta::ToolCallArguments { index, fragment } => (
            "tool_call_arguments",
            json!({"index": index, "fragment": fragment}),
        ),
        ModelDelta::ToolCallFinished { index } => ("tool_call_finished", json!({"index": index})),
        ModelDelta::Usage(_) => return None,
    };
    let mut data = json!({
        "invocationId": activity.invocation_id.as_str(),
        "round": activity.round,
        "attempt": activity.attempt,
        "kind": kind,
    });
    if let (Some(data), Value::Object(detail)) = (data.as_object_mut(), detail) {
        data.extend(detail);
    }
    Some(Event::default().event("model_delta").data(data.to_string()))
}
