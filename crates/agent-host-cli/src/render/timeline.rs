//! The live timeline of `run` and `demo` on stderr: one line per model round and per tool
//! call (with a short summary of its arguments and how it ended), commits, retries and the
//! end of the run. A spinner shows while the model works; colours and the spinner appear
//! only on a terminal. On a terminal, a streamed model call's text shows as it arrives
//! (reasoning dimmed) and each tool call as a one-line preview redrawn as its arguments
//! stream; these live lines come from the runtime's activity channel, never the journal.

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use agent_application::ports::{ModelDelta, SkillScope};
use agent_application::runtime::ModelActivity;
use agent_domain::event::{
    InvocationKind, JournalLine, McpNoticeBody, McpNoticeReceivedPayload, ModelBindingMode,
    ROOT_INVOCATION_ID, RunEvent, RunFailurePayload, SkillDiagnostic, TaskStatus,
    ToolCallOutcomePayload,
};
use agent_domain::profile::ProfileSource;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;

use super::table::truncate;

/// `code: scope/folder: message`, as `skills list` prints a problem.
fn skill_diagnostic(diagnostic: &SkillDiagnostic) -> String {
    let scope = diagnostic
        .scope
        .clone()
        .and_then(|scope| serde_json::from_value::<SkillScope>(scope).ok())
        .map(|scope| scope.label());
    let place = match (scope, &diagnostic.folder) {
        (Some(scope), Some(folder)) => format!("{scope}/{folder}: "),
        (Some(scope), None) => format!("{scope}: "),
        (None, Some(folder)) => format!("{folder}: "),
        (None, None) => String::new(),
    };
    format!("{}: {place}{}", diagnostic.code, diagnostic.message)
}

/// Longest argument summary, in characters.
const ARGS_WIDTH: usize = 72;
/// Longest shown string value inside an argument summary.
const VALUE_WIDTH: usize = 32;
/// Argument keys shown first, in this order.
const LEADING_KEYS: [&str; 4] = ["path", "name", "query", "messages"];
/// Longest live tool-call preview line, in characters: it must fit an 80-column terminal
/// to be redrawn in place.
const PREVIEW_WIDTH: usize = 78;
/// Longest one-line message (errors, narration).
const MESSAGE_WIDTH: usize = 160;

/// ANSI styling, or none.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    colour: bool,
}

impl Style {
    /// Colours when stderr is a terminal and `NO_COLOR` is unset.
    pub fn for_stderr() -> Self {
        Self {
            colour: io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        }
    }

    #[cfg(test)]
    pub fn plain() -> Self {
        Self { colour: false }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    pub fn green(self, text: &str) -> String {
        self.paint("32", text)
    }

    pub fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }

    pub fn red(self, text: &str) -> String {
        self.paint("31", text)
    }

    pub fn cyan(self, text: &str) -> String {
        self.paint("36", text)
    }
}

/// Renders journal lines as they arrive.
#[derive(Debug)]
pub struct Timeline {
    style: Style,
    spinner_allowed: bool,
    spinner: Option<ProgressBar>,
    /// The run directory, for reading the arguments audit files of tool calls.
    run_dir: Option<PathBuf>,
    /// Argument summaries of requested calls, by call id, until the call ends.
    pending: HashMap<String, String>,
    /// Lines about a call that is still running, shown after its own line.
    deferred: HashMap<String, Vec<String>>,
    /// Profile of each non-root invocation and whether it is a delegated child (shown
    /// indented), for line prefixes.
    invocations: HashMap<String, (String, bool)>,
    /// The model call whose live text is showing: invocation, round, attempt.
    live_call: Option<(String, u32, u32)>,
    /// Whether live reasoning (rather than answer text) is showing.
    live_reasoning: bool,
    /// Whether live text left the cursor mid-line (the next line starts on a fresh one).
    live_open: Cell<bool>,
    /// Tool calls of the live model call: name and argument text so far.
    live_tools: HashMap<usize, (String, String)>,
    /// The tool call whose preview line is open, redrawn as its arguments stream.
    live_preview: Cell<Option<usize>>,
    /// What the open preview line shows.
    preview_line: String,
}

impl Timeline {
    /// A timeline on stderr; `run_dir` lets it show tool arguments.
    pub fn new(run_dir: Option<PathBuf>) -> Self {
        let style = Style::for_stderr();
        Self {
            style,
            spinner_allowed: io::stderr().is_terminal(),
            spinner: None,
            run_dir,
            pending: HashMap::new(),
            deferred: HashMap::new(),
            invocations: HashMap::new(),
            live_call: None,
            live_reasoning: false,
            live_open: Cell::new(false),
            live_tools: HashMap::new(),
            live_preview: Cell::new(None),
            preview_line: String::new(),
        }
    }

    /// Shows one delta of a streamed model call. A new call (or a retry) starts on a fresh
    /// line; text is written as it comes, reasoning dimmed.
    pub fn live(&mut self, activity: &ModelActivity) {
        let call = (
            activity.invocation_id.to_string(),
            activity.round,
            activity.attempt,
        );
        if self.live_call.as_ref() != Some(&call) {
            self.close_live_line();
            self.live_call = Some(call);
            self.live_reasoning = false;
            self.live_tools.clear();
        }
        let s = self.style;
        match &activity.delta {
            ModelDelta::Text(text) => {
                if self.live_reasoning {
                    self.close_live_line();
                    self.live_reasoning = false;
                }
                self.write_live(text, text);
            }
            ModelDelta::Reasoning(text) => {
                if !self.live_reasoning {
                    self.close_live_line();
                    self.live_reasoning = true;
                }
                self.write_live(&s.dim(text), text);
            }
            ModelDelta::ToolCallStarted { index, name } => {
                self.live_tools
                    .insert(*index, (name.clone(), String::new()));
                self.preview_tool(*index, false);
            }
            ModelDelta::ToolCallArguments { index, fragment } => {
                if let Some((_, arguments)) = self.live_tools.get_mut(index) {
                    arguments.push_str(fragment);
                    self.preview_tool(*index, false);
                }
            }
            ModelDelta::ToolCallFinished { index } => {
                self.preview_tool(*index, true);
                self.live_tools.remove(index);
            }
            ModelDelta::Usage(_) => {}
        }
    }

    /// Writes live text (`shown`, styled; `raw`, what it says) on the current line.
    fn write_live(&mut self, shown: &str, raw: &str) {
        if raw.is_empty() {
            return;
        }
        if self.live_preview.get().is_some() {
            self.close_live_line();
        }
        self.stop_spinner();
        let mut err = io::stderr().lock();
        let _ = write!(err, "{shown}");
        let _ = err.flush();
        self.live_open.set(!raw.ends_with('\n'));
    }

    /// Shows tool call `index` as one dimmed line, `  ⋯ alias arguments`, redrawn in
    /// place while its arguments stream (the start of the raw text) and ended with their
    /// summary once they are complete (`done`). The line is cut to fit a narrow terminal,
    /// so redrawing it never leaves a wrapped remainder behind.
    fn preview_tool(&mut self, index: usize, done: bool) {
        let Some((name, arguments)) = self.live_tools.get(&index) else {
            return;
        };
        let summary = if done {
            serde_json::from_str::<Value>(arguments)
                .map(|value| summarize_arguments(&value))
                .unwrap_or_else(|_| one_line(arguments))
        } else {
            // Only the start can show; what streams past it changes nothing.
            one_line(&arguments.chars().take(PREVIEW_WIDTH).collect::<String>())
        };
        let line = truncate(format!("  ⋯ {name} {summary}").trim_end(), PREVIEW_WIDTH);
        let open = self.live_preview.get() == Some(index);
        if open && !done && line == self.preview_line {
            return;
        }
        if !open {
            self.close_live_line();
        }
        self.stop_spinner();
        let mut err = io::stderr().lock();
        if open {
            // Back to the start of the line and clear it.
            let _ = write!(err, "\r\x1b[2K");
        }
        let _ = write!(err, "{}", self.style.dim(&line));
        if done {
            let _ = writeln!(err);
            self.live_preview.set(None);
            self.live_open.set(false);
        } else {
            self.live_preview.set(Some(index));
            self.live_open.set(true);
        }
        let _ = err.flush();
        self.preview_line = line;
    }

    /// Ends a line live text left open.
    fn close_live_line(&self) {
        self.live_preview.set(None);
        if self.live_open.replace(false) {
            let _ = writeln!(io::stderr().lock());
        }
    }

    /// Shows one journal line (most events print nothing).
    pub fn show(&mut self, line: &JournalLine) {
        let prefix = self.prefix(line);
        let s = self.style;
        match &line.event {
            RunEvent::ProfileResolved(p) => {
                let source = match p.source {
                    ProfileSource::BuiltIn => "built in",
                    _ => "saved",
                };
                self.say(&s.dim(&format!("profile {} ({source})", p.profile_id)));
            }
            RunEvent::SkillScopesResolved(p) => {
                for diagnostic in &p.diagnostics {
                    self.say(&s.yellow(&format!(
                        "{prefix}skill problem: {}",
                        truncate(&skill_diagnostic(diagnostic), MESSAGE_WIDTH)
                    )));
                }
            }
            RunEvent::AgentModelBindingResolved(p) if p.invocation_id == ROOT_INVOCATION_ID => {
                let model = match p.mode {
                    ModelBindingMode::Script => "scripted model".to_owned(),
                    ModelBindingMode::Connection => format!(
                        "connection {} ({})",
                        p.connection.as_deref().unwrap_or("?"),
                        p.model_id.as_deref().unwrap_or("?")
                    ),
                    _ => p.model_id.clone().unwrap_or_else(|| "model".to_owned()),
                };
                self.say(&s.dim(&format!("model {model}")));
            }
            RunEvent::AgentInvocationCreated(p) if p.invocation_id != ROOT_INVOCATION_ID => {
                let child = p.kind == InvocationKind::Subagent;
                self.invocations
                    .insert(p.invocation_id.clone(), (p.profile_id.clone(), child));
                let (indent, what) = if child {
                    ("  ", "delegated task")
                } else {
                    ("", "takes over the run")
                };
                self.say(&format!(
                    "{indent}{} {} {what} ({})",
                    s.cyan("→"),
                    p.profile_id,
                    p.invocation_id
                ));
            }
            RunEvent::AgentAwaitCompleted(p) => {
                let timed_out = if p.timed_out { ", timed out" } else { "" };
                self.say(&s.dim(&format!(
                    "{prefix}  awaited {} task(s){timed_out}",
                    p.task_count
                )));
            }
            RunEvent::AgentTaskFailed(p) => {
                let error = p.error.as_deref().unwrap_or("failed");
                self.say(&format!(
                    "  {} {} task failed: {}",
                    s.red("←"),
                    p.target_profile_id,
                    truncate(&one_line(error), MESSAGE_WIDTH)
                ));
            }
            RunEvent::AgentTaskCancelled(p) => {
                self.say(&format!(
                    "  {} {} task cancelled",
                    s.yellow("←"),
                    p.target_profile_id
                ));
            }
            RunEvent::ModelCallAttemptStarted(p) => {
                let attempt = if p.attempt > 1 {
                    format!(" (attempt {})", p.attempt)
                } else {
                    String::new()
                };
                self.spin(format!("{prefix}round {}: model working{attempt}", p.round));
            }
            RunEvent::ModelCallAttemptFailed(p) => {
                self.stop_spinner();
                let what = if p.will_retry {
                    s.yellow("model call failed, retrying")
                } else {
                    s.red("model call failed")
                };
                let code = p.code.as_deref().unwrap_or("model.error");
                self.say(&format!(
                    "{prefix}round {}: {what}: {code}: {}",
                    p.round,
                    truncate(&p.message, MESSAGE_WIDTH)
                ));
            }
            RunEvent::ModelCallRetryScheduled(p) => {
                self.say(&s.dim(&format!(
                    "{prefix}  retry {} in {}",
                    p.next_attempt,
                    millis(p.interval_ms)
                )));
            }
            RunEvent::ModelCompleted(p) => {
                self.stop_spinner();
                let calls = match p.tool_call_count {
                    0 => "no tool calls".to_owned(),
                    1 => "1 tool call".to_owned(),
                    n => format!("{n} tool calls"),
                };
                let mut text = format!(
                    "{prefix}{} · {calls}",
                    s.bold(&format!("round {}", p.round))
                );
                if let Some(usage) = &p.usage {
                    let _ = write!(
                        text,
                        " {}",
                        s.dim(&format!(
                            "· {} in / {} out tokens",
                            usage.input_tokens, usage.output_tokens
                        ))
                    );
                }
                if let Some(narration) = &p.narration {
                    let _ = write!(
                        text,
                        " {}",
                        s.dim(&format!(
                            "“{}”",
                            truncate(&one_line(&narration.text), MESSAGE_WIDTH)
                        ))
                    );
                } else if p.tool_call_count == 0 && p.has_assistant_text {
                    let _ = write!(
                        text,
                        " {}",
                        s.dim(&format!("(text only, {} chars)", p.assistant_text_chars))
                    );
                }
                self.say(&text);
            }
            RunEvent::DirectOutputCaptured(p) => {
                self.say(&s.dim(&format!("{prefix}  text saved to {}", p.path)));
            }
            RunEvent::DriftRecoveryAttempted(p) => {
                self.say(&format!(
                    "{prefix}  {} no tool call: reminded the model to use its tools ({}/{})",
                    s.yellow("!"),
                    p.attempt,
                    p.max_attempts
                ));
            }
            RunEvent::ToolCallRequested(p) => {
                let summary = self.arguments_summary(&p.arguments_ref);
                self.pending.insert(p.call_id.clone(), summary);
            }
            RunEvent::McpNoticeReceived(p) => {
                if let Some(text) = notice_line(s, p) {
                    self.say(&format!("{prefix}    {text}"));
                }
            }
            RunEvent::ToolCallCompleted(p) => self.tool_line(&prefix, p, true),
            RunEvent::ToolCallFailed(p) => self.tool_line(&prefix, p, false),
            RunEvent::ChatCommitCompleted(p) => {
                let message = p
                    .message_index
                    .map_or_else(|| p.message_id.clone(), |index| format!("#{index}"));
                let how = if p.is_explicit {
                    "committed"
                } else {
                    "auto-published"
                };
                let text = format!(
                    "{prefix}  {} {how} {} to the chat (message {message})",
                    s.green("↳"),
                    p.path
                );
                self.say_after_call(&p.call_id, text);
            }
            RunEvent::ChatCommitFailed(p) => {
                let text = format!(
                    "{prefix}  {} commit of {} failed: {}",
                    s.red("✗"),
                    p.path,
                    truncate(&p.message, MESSAGE_WIDTH)
                );
                self.say_after_call(&p.call_id, text);
            }
            RunEvent::PersistentChangesCommitted(p) if p.browsable_copy_error.is_some() => {
                let error = p.browsable_copy_error.as_deref().unwrap_or_default();
                self.say(&format!(
                    "{prefix}  {} persist: state {} saved; the chat's persist/ copy was not \
                     refreshed: {}",
                    s.yellow("!"),
                    p.state_id,
                    truncate(error, MESSAGE_WIDTH)
                ));
            }
            RunEvent::PersistentChangesCommitted(p) if p.change_count > 0 => {
                self.say(&s.dim(&format!(
                    "{prefix}  persist: {} change(s) saved as state {}",
                    p.change_count, p.state_id
                )));
            }
            RunEvent::TaskReturnCompleted(p) => {
                let status = match p.status {
                    TaskStatus::Completed => s.cyan("←"),
                    _ => s.yellow("←"),
                };
                let profile = self
                    .invocations
                    .get(&p.child_invocation_id)
                    .map_or("child", |(profile, _)| profile.as_str());
                self.say(&format!(
                    "  {status} {profile} returned {} ({})",
                    p.status.as_str(),
                    p.summary_ref
                ));
            }
            RunEvent::RunCancelRequested => {
                self.stop_spinner();
                self.say(&s.yellow("cancelling…"));
            }
            RunEvent::RunFailed(p) => {
                self.stop_spinner();
                self.say(&failure_line(s, "run failed", p));
            }
            RunEvent::RunPartialSuccess(p) => {
                self.stop_spinner();
                self.say(&failure_line(
                    s,
                    "run failed after committing (the committed message stays)",
                    &p.failure,
                ));
            }
            RunEvent::RunCompleted | RunEvent::RunCancelled(_) => self.stop_spinner(),
            _ => {}
        }
    }

    /// Clears the spinner, if one is showing.
    pub fn finish(&mut self) {
        self.stop_spinner();
        for line in std::mem::take(&mut self.deferred).into_values().flatten() {
            self.say(&line);
        }
    }

    /// `[editor] ` before a handoff target's lines, `  [researcher] ` (indented) before a
    /// delegated child's.
    fn prefix(&self, line: &JournalLine) -> String {
        line.event
            .scope()
            .and_then(|scope| self.invocations.get(&scope.invocation_id).cloned())
            .map(|(profile, child)| {
                let indent = if child { "  " } else { "" };
                format!("{indent}{} ", self.style.cyan(&format!("[{profile}]")))
            })
            .unwrap_or_default()
    }

    fn tool_line(&mut self, prefix: &str, p: &ToolCallOutcomePayload, ok: bool) {
        let s = self.style;
        let args = self.pending.remove(&p.call_id).unwrap_or_default();
        let mark = if ok { s.green("✓") } else { s.red("✗") };
        let mut text = format!("{prefix}  {mark} {}", p.tool_id.native_name());
        if !args.is_empty() {
            let _ = write!(text, " {}", s.dim(&args));
        }
        let _ = write!(text, " {}", s.dim(&format!("· {}", millis(p.elapsed_ms))));
        if !ok {
            let code = p.error_code.as_deref().unwrap_or("tool.error");
            let message = p.message.as_deref().map(one_line).unwrap_or_default();
            let fatal = if p.fatal { " (fatal)" } else { "" };
            let _ = write!(
                text,
                "\n{prefix}    {} {code}{fatal}: {}",
                s.red("→"),
                truncate(&message, MESSAGE_WIDTH)
            );
        }
        self.say(&text);
        for line in self.deferred.remove(&p.call_id).unwrap_or_default() {
            self.say(&line);
        }
    }

    /// Shows `text` right after the line of tool call `call_id` when that call is still
    /// running (a commit is reported before its call ends), else now.
    fn say_after_call(&mut self, call_id: &str, text: String) {
        if self.pending.contains_key(call_id) {
            self.deferred
                .entry(call_id.to_owned())
                .or_default()
                .push(text);
        } else {
            self.say(&text);
        }
    }

    fn arguments_summary(&self, arguments_ref: &str) -> String {
        let Some(dir) = &self.run_dir else {
            return String::new();
        };
        std::fs::read(dir.join(arguments_ref))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .map(|value| summarize_arguments(&value))
            .unwrap_or_default()
    }

    fn spin(&mut self, message: String) {
        if !self.spinner_allowed {
            return;
        }
        self.stop_spinner();
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner:.cyan} {msg} {elapsed:.dim}") {
            bar.set_style(style);
        }
        bar.set_message(message);
        bar.enable_steady_tick(Duration::from_millis(100));
        self.spinner = Some(bar);
    }

    fn stop_spinner(&mut self) {
        if let Some(bar) = self.spinner.take() {
            bar.finish_and_clear();
        }
    }

    fn say(&self, text: &str) {
        self.close_live_line();
        let print = || {
            let mut err = io::stderr().lock();
            let _ = writeln!(err, "{text}");
        };
        match &self.spinner {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }
}

/// `run failed: code: message`.
fn failure_line(s: Style, what: &str, failure: &RunFailurePayload) -> String {
    format!(
        "{}: {}: {}",
        s.red(what),
        failure.code,
        truncate(&one_line(&failure.message), MESSAGE_WIDTH)
    )
}

/// A short `key=value …` summary of tool arguments; raw (unparsed) argument text is shown
/// as is.
pub fn summarize_arguments(arguments: &Value) -> String {
    let text = match arguments {
        Value::Object(map) => {
            // The keys that say what a call is about come first.
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by_key(|(key, _)| {
                LEADING_KEYS
                    .iter()
                    .position(|lead| lead == key)
                    .unwrap_or(LEADING_KEYS.len())
            });
            entries
                .into_iter()
                .map(|(key, value)| format!("{key}={}", summarize_value(value)))
                .collect::<Vec<_>>()
                .join(" ")
        }
        Value::String(raw) => format!("(raw) {}", one_line(raw)),
        Value::Null => String::new(),
        other => summarize_value(other),
    };
    truncate(&text, ARGS_WIDTH)
}

fn summarize_value(value: &Value) -> String {
    match value {
        Value::String(text) => format!("{:?}", truncate(&one_line(text), VALUE_WIDTH)),
        Value::Array(items) => format!("[{} items]", items.len()),
        Value::Object(map) => format!("{{{} keys}}", map.len()),
        other => other.to_string(),
    }
}

/// Newlines and runs of whitespace become single spaces.
/// Log levels worth a timeline line; quieter ones stay in the journal.
const SHOWN_LOG_LEVELS: [&str; 5] = ["warning", "error", "critical", "alert", "emergency"];

/// The timeline line of an MCP server's notice during a call: progress, a log line at
/// warning or worse, or how many were left out; `None` for quieter log lines.
fn notice_line(s: Style, p: &McpNoticeReceivedPayload) -> Option<String> {
    let tool = p.tool_id.native_name();
    let text = match &p.notice {
        McpNoticeBody::Progress {
            progress,
            total,
            message,
        } => {
            let mut text = format!("{tool}: {progress}");
            if let Some(total) = total {
                let _ = write!(text, "/{total}");
            }
            if let Some(message) = message {
                let _ = write!(text, " {}", one_line(message));
            }
            s.dim(&format!("… {}", truncate(&text, MESSAGE_WIDTH)))
        }
        McpNoticeBody::Log { level, data } if SHOWN_LOG_LEVELS.contains(&level.as_str()) => {
            let data = match data {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let text = format!("{tool} logged {level}: {}", one_line(&data));
            format!("{} {}", s.yellow("!"), truncate(&text, MESSAGE_WIDTH))
        }
        McpNoticeBody::Log { .. } => return None,
        McpNoticeBody::Suppressed { count } => s.dim(&format!(
            "… {tool}: {count} more notices left out of the journal"
        )),
    };
    Some(text)
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `850 ms`, `1.2 s`, `2 min 5 s`.
pub fn millis(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} min {} s", ms / 60_000, ms % 60_000 / 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn argument_summaries_are_short() {
        assert_eq!(
            summarize_arguments(&json!({"path": "output/main.md", "content": "Hello\nworld"})),
            r#"path="output/main.md" content="Hello world""#
        );
        assert_eq!(
            summarize_arguments(&json!("{\"path\": ")),
            r#"(raw) {"path":"#
        );
        assert_eq!(summarize_arguments(&json!({})), "");
        let long =
            summarize_arguments(&json!({"content": "x".repeat(500), "n": 3, "list": [1, 2]}));
        assert!(long.chars().count() <= ARGS_WIDTH, "{long}");
        assert!(long.starts_with(r#"content="xxxx"#), "{long}");
    }

    #[test]
    fn durations() {
        assert_eq!(millis(850), "850 ms");
        assert_eq!(millis(1250), "1.2 s");
        assert_eq!(millis(125_000), "2 min 5 s");
    }

    #[test]
    fn mcp_notices_show_progress_and_loud_log_lines() {
        let payload = |notice| McpNoticeReceivedPayload {
            round: 1,
            invocation_id: ROOT_INVOCATION_ID.into(),
            call_id: "call_1".into(),
            tool_id: agent_domain::tool::ToolId::mcp(
                "0f8fad5b-d9cb-469f-a165-70867728950e",
                "index",
            )
            .unwrap(),
            notice,
        };
        let line = |notice| notice_line(Style::plain(), &payload(notice));
        let progress = McpNoticeBody::Progress {
            progress: 3.into(),
            total: Some(10.into()),
            message: Some("reading\nfiles".into()),
        };
        assert_eq!(
            line(progress).as_deref(),
            Some("… index: 3/10 reading files")
        );
        let log = |level: &str| McpNoticeBody::Log {
            level: level.into(),
            data: json!({"disk": "full"}),
        };
        assert_eq!(
            line(log("error")).as_deref(),
            Some(r#"! index logged error: {"disk":"full"}"#)
        );
        assert_eq!(line(log("info")), None);
        assert_eq!(
            line(McpNoticeBody::Suppressed { count: 80 }).as_deref(),
            Some("… index: 80 more notices left out of the journal")
        );
    }

    #[test]
    fn plain_style_adds_nothing() {
        assert_eq!(Style::plain().red("x"), "x");
    }
}
