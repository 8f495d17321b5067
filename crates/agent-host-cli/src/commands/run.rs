//! `run`: start a run on a chat, show it live, and exit with its outcome.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agent_application::ports::EventStream;
use agent_application::prompt::PromptInput;
use agent_application::runtime::{
    ModelActivity, RunDeltas, RunOutcome, RunRequest, StartRun, StartRunError,
};
use agent_domain::ErrorCode;
use agent_domain::event::Presentation;
use agent_domain::run::RunId;
use futures::StreamExt;
use tokio::sync::broadcast;

use super::{model, resolve_chat};
use crate::cli::RunArgs;
use crate::exit::{CmdResult, Exit, Failed, OrCode, OrExit, codes, print_error};
use crate::input::{InputKind, read_input};
use crate::render::json;
use crate::render::timeline::{Timeline, millis};
use crate::wiring::Host;

/// How long to wait for the last events to be shown once the run's task has ended.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// How a run is shown.
#[derive(Debug, Clone, Copy, Default)]
pub struct View {
    /// Journal lines on stdout instead of the timeline and the message.
    pub json: bool,
    /// Only the committed message on stdout.
    pub quiet: bool,
}

pub async fn execute(host: &Host, args: RunArgs) -> CmdResult {
    let (chat, _) = resolve_chat(&host.storage.data, &args.chat)?;
    let prompt = prompt_input(args.prompt_snapshot.as_deref())?;
    let model = model::choose(host, &args.model, args.profile.as_deref()).await?;
    let request = StartRun {
        run: RunRequest {
            chat,
            profile_id: args.profile.clone(),
            generation_type: args.generation_type.into(),
            presentation: args.background.then_some(Presentation::Background),
            prompt,
            model_label: model.run.label,
            model_binding: model.run.binding,
            scene: args.scene.clone().into(),
        },
        model: model.run.gateway,
        models: model.binder,
    };
    let view = View {
        json: args.json,
        quiet: args.quiet,
    };
    let outcome = drive(host, request, view).await?;
    super::retention::after_run(host, args.json).await;
    Ok(Exit::of_run(outcome.status))
}

/// The prompt of a run: the snapshot file given, else assembled from the chat.
pub(crate) fn prompt_input(snapshot: Option<&Path>) -> CmdResult<PromptInput> {
    Ok(match snapshot {
        Some(path) => PromptInput::Snapshot(read_json(path)?),
        None => PromptInput::Assemble,
    })
}

/// Reads the prompt snapshot file; an unreadable file (`cli.file_unreadable`) or one that
/// is not JSON (`agent.invalid_prompt_snapshot`) is a usage error.
fn read_json(path: &Path) -> CmdResult<serde_json::Value> {
    let text = read_input(path, InputKind::Other)?;
    serde_json::from_str(&text).map_err(|err| {
        Failed::new(
            Exit::Usage,
            "agent.invalid_prompt_snapshot",
            format!("{}: not JSON: {err}", path.display()),
        )
    })
}

/// Starts the run, shows it until it ends (cancelling it on Ctrl-C, SIGTERM or SIGHUP),
/// and returns how it ended. A run that cannot start is a usage error: no run exists.
pub async fn drive(host: &Host, request: StartRun, view: View) -> CmdResult<RunOutcome> {
    let mut interrupts = Interrupts::install().or_code(Exit::Failure, codes::STARTUP_FAILED)?;
    // Subscribed before the run starts, so its first deltas are not missed; only a timeline
    // on a terminal shows them.
    let live = (!view.json && !view.quiet && io::stderr().is_terminal())
        .then(|| host.runtime.watch_activity());
    let started = host.runtime.start_run(request).await.map_err(start_error)?;
    let run_id = started.run.id.clone();
    if !view.quiet {
        let mut err = io::stderr().lock();
        let _ = writeln!(err, "run: {run_id}");
    }
    let events = host.storage.journal.follow(&run_id, 0).await.or_failure()?;
    let run_dir = host
        .storage
        .locator
        .run_dir(&run_id)
        .ok()
        .map(|dir| dir.path().to_path_buf());
    let clock = Instant::now();
    let mut task = tokio::spawn(started.task);
    let mut shown = tokio::spawn(show(events, live, run_id.clone(), view, run_dir));

    let mut cancelled = false;
    let outcome = loop {
        tokio::select! {
            joined = &mut task => break joined.or_code(Exit::Failure, "agent.runtime_fault")?,
            () = interrupts.recv() => {
                if cancelled {
                    // A second interrupt: stop waiting.
                    return Err(Failed::new(
                        Exit::Cancelled,
                        codes::INTERRUPTED,
                        format!("interrupted; run {run_id} may still be marked running"),
                    ));
                }
                cancelled = true;
                cancel(host, &run_id, view).await;
            }
        }
    };
    // The event stream ends with the terminal event the task journaled last.
    if tokio::time::timeout(DRAIN_TIMEOUT, &mut shown)
        .await
        .is_err()
    {
        shown.abort();
    }
    if !view.json {
        report(&outcome, clock.elapsed(), view.quiet);
    }
    Ok(outcome)
}

async fn cancel(host: &Host, run_id: &RunId, view: View) {
    if let Err(error) = host.runtime.cancel(run_id).await {
        print_error(
            view.json,
            error.code(),
            &format!("cannot cancel {run_id}: {error}"),
        );
    }
}

/// Renders the journal as it grows: JSON lines, the timeline (with the model's text as it
/// streams, when `live` listens), or nothing (`--quiet`).
async fn show(
    mut events: EventStream,
    live: Option<broadcast::Receiver<ModelActivity>>,
    run_id: RunId,
    view: View,
    run_dir: Option<PathBuf>,
) {
    if view.quiet {
        return;
    }
    let mut live = RunDeltas::new(live, run_id);
    let mut timeline = (!view.json).then(|| Timeline::new(run_dir));
    loop {
        let line = tokio::select! {
            biased;
            line = events.next() => line,
            activity = live.next() => {
                if let Some(timeline) = &mut timeline {
                    timeline.live(&activity);
                }
                continue;
            }
        };
        let Some(line) = line else { break };
        let line = match line {
            Ok(line) => line,
            Err(error) => {
                print_error(
                    view.json,
                    error.code(),
                    &format!("reading the journal: {error}"),
                );
                break;
            }
        };
        match &mut timeline {
            Some(timeline) => {
                // The deltas of a call were sent before the line that ends it was
                // journaled: show those still queued first.
                for activity in live.ended_by(&line) {
                    timeline.live(&activity);
                }
                timeline.show(&line);
            }
            None => {
                if json::write_line(&mut io::stdout().lock(), &line).is_err() {
                    break;
                }
            }
        }
    }
    if let Some(timeline) = &mut timeline {
        timeline.finish();
    }
}

/// The committed message on stdout, then (unless `quiet`) the run's status line on stderr.
fn report(outcome: &RunOutcome, elapsed: Duration, quiet: bool) {
    if let Some(text) = &outcome.committed_text {
        let mut out = io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
        if !text.ends_with('\n') {
            let _ = out.write_all(b"\n");
        }
        let _ = out.flush();
    }
    if quiet {
        return;
    }
    let style = crate::render::timeline::Style::for_stderr();
    let status = outcome.status.as_str();
    let status = match Exit::of_run(outcome.status) {
        Exit::Ok => style.green(status),
        Exit::Cancelled | Exit::PartialSuccess => style.yellow(status),
        _ => style.red(status),
    };
    let plural = |n: u32, one: &str, many: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let mut err = io::stderr().lock();
    let _ = writeln!(
        err,
        "{status} · {} · {} · {}",
        plural(outcome.rounds, "round", "rounds"),
        plural(outcome.tool_calls, "tool call", "tool calls"),
        millis(u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX))
    );
}

/// Every refusal to start is a usage error: the run does not exist.
fn start_error(error: StartRunError) -> Failed {
    let failed = Failed::of(Exit::Usage, &error);
    Failed {
        message: format!("cannot start the run: {}", failed.message),
        ..failed
    }
}

/// The signals that ask a run to stop: Ctrl-C, and on Unix also SIGTERM (what `kill`,
/// systemd and container runtimes send) and SIGHUP (the terminal went away). Each one is
/// handled like Ctrl-C, so the run ends `run_cancelled` with a complete journal instead of
/// being left mid-step. Registered at once (not on first poll), so a signal that arrives
/// while the run starts is not lost.
pub struct Interrupts {
    #[cfg(unix)]
    signals: Vec<tokio::signal::unix::Signal>,
    #[cfg(windows)]
    signal: tokio::signal::windows::CtrlC,
}

impl Interrupts {
    pub fn install() -> io::Result<Self> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let kinds = [
                SignalKind::interrupt(),
                SignalKind::terminate(),
                SignalKind::hangup(),
            ];
            let signals = kinds.into_iter().map(signal).collect::<io::Result<_>>()?;
            Ok(Self { signals })
        }
        #[cfg(windows)]
        Ok(Self {
            signal: tokio::signal::windows::ctrl_c()?,
        })
    }

    /// The next interrupt, from whichever signal comes first.
    pub async fn recv(&mut self) {
        #[cfg(unix)]
        let received = {
            let waits = self
                .signals
                .iter_mut()
                .map(|signal| Box::pin(signal.recv()));
            futures::future::select_all(waits).await.0
        };
        #[cfg(windows)]
        let received = self.signal.recv().await;
        if received.is_none() {
            // A handler is gone; never report another interrupt.
            std::future::pending::<()>().await;
        }
    }
}
