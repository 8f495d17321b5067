//! `cargo xtask crash [N]`: the crash campaign (`docs/crash-testing.md`). It builds the
//! `tavern-agent` binary, sets up a data directory with the demo's SillyTavern chat (padded
//! so a commit takes a while), and N times starts a scripted run and SIGKILLs it: at a
//! random moment, or just after a chosen journal event (a model call, a tool call, a chat
//! commit, the finish) so kills land inside every kind of step. After each kill it checks
//! every invariant of [`check`], cancels what the kill left unfinished, makes one normal
//! run, and checks again, now also that nothing staged is left behind.
//!
//! Everything random comes from one seeded generator; the seed is printed and `--seed`
//! replays the same scripts and kill plans (the moments themselves depend on timing).

mod check;
mod scenario;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use fastrand::Rng;
use serde_json::Value;

use check::{Baseline, Checker, Moment, Report};
use scenario::Scenario;

/// Kills when no count is given.
const DEFAULT_KILLS: u32 = 30;

/// The chat every run answers, as `--chat` names it (the demo's).
const CHAT: &str = "Seraphina/Forest Meeting.jsonl";

/// Filler messages appended to the chat (about 370 KB), so that a commit, which rewrites
/// the whole file, takes long enough (tens of milliseconds) for kills to land inside it,
/// while every run, which stores the chat prefix in its prompt snapshot, stays quick.
const PAD_MESSAGES: usize = 600;

/// How long a triggered kill waits at most for its event before killing anyway.
const TRIGGER_TIMEOUT: Duration = Duration::from_secs(60);

/// Journal events a kill can be aimed at: what a kill right after them interrupts, and the
/// longest wait after the event (short for the steps that are short, such as a commit).
const TRIGGERS: &[(&str, &str, u64)] = &[
    ("model_call_attempt_started", "model call", 100),
    ("tool_call_started", "tool call", 40),
    ("workspace_file_written", "checkpoint", 20),
    ("chat_commit_requested", "chat commit", 15),
    ("chat_commit_completed", "commit bookkeeping", 20),
    ("agent_loop_finished", "finishing", 40),
    ("persistent_changes_committed", "persist refresh", 20),
    (
        "persistent_state_metadata_update_requested",
        "chat metadata write",
        15,
    ),
];

/// `cargo xtask crash` options.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub kills: Option<u32>,
    pub seed: Option<u64>,
    pub release: bool,
    /// Passed to every run as `--durability <policy>`.
    pub durability: Option<String>,
    /// Keep the campaign's folder even when every check passed.
    pub keep: bool,
    /// Go on after a failed check and report every failure at the end.
    pub keep_going: bool,
}

/// Parses the arguments after `crash`: `[N] [--seed S] [--release] [--durability P]
/// [--keep] [--keep-going]`.
pub fn parse_options(args: &[String]) -> Result<Options> {
    let mut options = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .cloned()
                .with_context(|| format!("{name} needs a value"))
        };
        match arg.as_str() {
            "--seed" => {
                let seed = value("--seed")?;
                options.seed = Some(seed.parse().with_context(|| format!("bad seed `{seed}`"))?);
            }
            "--durability" => options.durability = Some(value("--durability")?),
            "--release" => options.release = true,
            "--keep" => options.keep = true,
            "--keep-going" => options.keep_going = true,
            count if options.kills.is_none() && !count.starts_with('-') => {
                let kills: u32 = count
                    .parse()
                    .with_context(|| format!("the number of kills is a count, not `{count}`"))?;
                if kills == 0 {
                    bail!("the number of kills must be at least 1");
                }
                options.kills = Some(kills);
            }
            other => bail!("unknown argument `{other}` for `crash`"),
        }
    }
    Ok(options)
}

pub fn run(manifest_path: &Path, offline: bool, options: &Options) -> Result<()> {
    let started = Instant::now();
    let kills = options.kills.unwrap_or(DEFAULT_KILLS);
    let seed = options.seed.unwrap_or_else(|| fastrand::u64(..));
    let root = manifest_path.parent().unwrap_or(Path::new("."));
    let counted = format!("{kills} kill{}", if kills == 1 { "" } else { "s" });
    println!("==> crash: {counted}, seed {seed} (replay: cargo xtask crash {kills} --seed {seed})");
    let binary = build(manifest_path, offline, options.release)?;
    // Kept unless everything passes, so that whatever stops the campaign can be looked at.
    let folder = tempfile::Builder::new()
        .prefix("tavern-agent-crash-")
        .tempdir()
        .context("cannot create the campaign folder")?
        .keep();
    println!("==> campaign folder {}", folder.display());
    let mut campaign = Campaign::set_up(binary, &folder, root, options.durability.clone())?;

    let mut rng = Rng::with_seed(seed);
    let (warm_up, warm_up_time) = campaign.complete_run(&Scenario::recovery(0), "warm-up")?;
    let clean = campaign.check(&Moment::AfterRecovery {
        newest_state: warm_up,
    });
    if !clean.violations.is_empty() {
        bail!(
            "the data directory breaks the invariants before any kill:\n  {}",
            clean.violations.join("\n  ")
        );
    }
    println!(
        "==> a normal run takes {} ms; killing",
        warm_up_time.as_millis()
    );

    let mut phases: BTreeMap<&str, u32> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    let mut reported: BTreeSet<String> = BTreeSet::new();
    for iteration in 1..=kills {
        let iteration_started = Instant::now();
        let scenario = Scenario::random(&mut rng, iteration);
        let plan = KillPlan::random(&mut rng, &scenario, warm_up_time);
        let killed = campaign.kill_run(iteration, &scenario, &plan)?;
        let after_kill = campaign.check(&Moment::AfterKill);
        let phase = killed.phase(&after_kill);
        *phases.entry(phase).or_default() += 1;
        let mut violations = after_kill.violations.clone();
        violations.extend(campaign.recover(iteration, &killed, &after_kill)?);
        let fresh: Vec<String> = violations
            .into_iter()
            .filter(|v| reported.insert(v.clone()))
            .collect();
        let verdict = if fresh.is_empty() { "ok" } else { "FAILED" };
        println!(
            "[{iteration:>3}/{kills}] {} · {phase} · {} · {verdict} ({:.1} s)",
            plan.describe(&killed),
            scenario.summary,
            iteration_started.elapsed().as_secs_f64()
        );
        for violation in &fresh {
            println!("      ✗ {violation}");
        }
        if !fresh.is_empty() {
            failures.extend(fresh.iter().map(|v| format!("kill {iteration}: {v}")));
            if !options.keep_going {
                break;
            }
        }
    }

    let spread: Vec<String> = phases.iter().map(|(p, n)| format!("{n} {p}")).collect();
    let elapsed = started.elapsed().as_secs_f64();
    println!("==> where the kills landed: {}", spread.join(", "));
    if failures.is_empty() && !options.keep {
        fs::remove_dir_all(&folder)
            .with_context(|| format!("cannot remove {}", folder.display()))?;
    } else {
        println!("==> campaign folder kept: {}", folder.display());
    }
    if !failures.is_empty() {
        bail!(
            "crash campaign failed after {elapsed:.1} s (seed {seed}; replay with `cargo xtask \
             crash {kills} --seed {seed}`):\n  {}",
            failures.join("\n  ")
        );
    }
    println!("==> crash campaign passed: {counted} in {elapsed:.1} s (seed {seed})");
    Ok(())
}

/// Builds `tavern-agent` and returns the path of the executable cargo reports.
fn build(manifest_path: &Path, offline: bool, release: bool) -> Result<PathBuf> {
    let mut args = vec![
        "build",
        "--package",
        "agent-host-cli",
        "--bin",
        "tavern-agent",
        "--message-format",
        "json-render-diagnostics",
    ];
    if release {
        args.push("--release");
    }
    if offline {
        args.push("--offline");
    }
    println!("==> cargo {}", args.join(" "));
    let output = crate::cargo()
        .args(&args)
        .arg("--manifest-path")
        .arg(manifest_path)
        .stderr(Stdio::inherit())
        .output()
        .context("could not run `cargo build`")?;
    if !output.status.success() {
        bail!("`cargo build` exited with {}", output.status);
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["target"]["name"] == "tavern-agent")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .context("cargo did not report the tavern-agent executable")
}

/// When to kill a run.
#[derive(Debug)]
enum KillPlan {
    /// This long after the start.
    At(Duration),
    /// `offset` after the `nth` journal event of this type appears on `--json` stdout.
    After {
        event: &'static str,
        label: &'static str,
        nth: u32,
        offset: Duration,
    },
}

impl KillPlan {
    /// Half the kills at a random moment of the run's expected span, half aimed just after a
    /// random one of [`TRIGGERS`].
    fn random(rng: &mut Rng, scenario: &Scenario, normal_run: Duration) -> Self {
        if rng.bool() {
            // A normal run has three turns, and much of its time is the start; a longer
            // one takes a sixth of it more per extra turn, plus its scripted delays.
            let normal = normal_run.as_millis() as u64;
            let span = normal * (u64::from(scenario.turns) + 3) / 6 + scenario.delays_ms;
            return Self::At(Duration::from_millis(rng.u64(..=span)));
        }
        let (event, label, longest) = TRIGGERS[rng.usize(..TRIGGERS.len())];
        let repeats = matches!(event, "model_call_attempt_started" | "tool_call_started");
        Self::After {
            event,
            label,
            nth: if repeats { rng.u32(1..=3) } else { 1 },
            offset: Duration::from_millis(rng.u64(..=longest)),
        }
    }

    fn describe(&self, killed: &Killed) -> String {
        let when = match self {
            Self::At(at) => format!("at {} ms", at.as_millis()),
            Self::After {
                event,
                label,
                nth,
                offset,
            } => format!(
                "aimed at the {label}, {} ms after {event} #{nth}",
                offset.as_millis()
            ),
        };
        match &killed.finished {
            Some(code) => format!("planned {when}, but it exited first ({code})"),
            None => format!("killed {when} ({} ms in)", killed.elapsed.as_millis()),
        }
    }
}

/// What a kill left.
#[derive(Debug)]
struct Killed {
    /// The run the killed process created, if it got that far.
    run: Option<String>,
    /// The exit status, when the process ended before the kill.
    finished: Option<String>,
    elapsed: Duration,
}

impl Killed {
    /// Where in the run the kill landed, from the last whole event of its journal other
    /// than a status change.
    fn phase(&self, report: &Report) -> &'static str {
        if self.finished.is_some() {
            return "exited before the kill";
        }
        let Some(journal) = self.run.as_ref().and_then(|run| report.journals.get(run)) else {
            return "before the run existed";
        };
        if journal.terminal().is_some() {
            return "after the terminal event";
        }
        match journal.last_step() {
            None => "before the first step",
            Some("model_request_created" | "model_call_attempt_started") => "mid model call",
            Some(
                "model_response_stored"
                | "model_completed"
                | "tool_call_requested"
                | "tool_call_started"
                | "checkpoint_created"
                | "tool_result_stored"
                | "tool_result_readable_view_stored",
            ) => "mid tool call",
            Some("workspace_file_written" | "workspace_patch_applied") => "mid checkpoint",
            Some("chat_commit_started" | "chat_commit_requested") => "mid chat commit",
            Some("chat_commit_completed" | "chat_commit_recorded") => "mid commit bookkeeping",
            Some("agent_loop_finished" | "agent_invocation_completed") => "mid finishing",
            Some("persistent_changes_committed") => "mid persist refresh",
            Some("persistent_state_metadata_update_requested") => "mid chat metadata write",
            Some("persistent_state_metadata_updated") => "before the terminal event",
            Some(_) => "between steps",
        }
    }
}

/// The campaign's binary, data directory and checker.
struct Campaign {
    binary: PathBuf,
    data: PathBuf,
    scripts: PathBuf,
    logs: PathBuf,
    checker: Checker,
    durability: Option<String>,
}

impl Campaign {
    /// Copies the demo data into `folder/data` and pads its chat.
    fn set_up(
        binary: PathBuf,
        folder: &Path,
        workspace: &Path,
        durability: Option<String>,
    ) -> Result<Self> {
        let data = folder.join("data");
        let scripts = folder.join("scripts");
        let logs = folder.join("logs");
        for dir in [&data, &scripts, &logs] {
            fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let demo = workspace.join("crates/agent-host-cli/demo/data");
        let copy = fs_extra::dir::CopyOptions::new().content_only(true);
        fs_extra::dir::copy(&demo, &data, &copy)
            .with_context(|| format!("cannot copy {}", demo.display()))?;
        let chat = data.join("chats").join(CHAT);
        let baseline = pad_chat(&chat)?;
        Ok(Self {
            binary,
            checker: Checker::new(data.clone(), baseline),
            data,
            scripts,
            logs,
            durability,
        })
    }

    fn check(&mut self, moment: &Moment) -> Report {
        self.checker.check(moment)
    }

    /// `tavern-agent --data-dir <data>`.
    fn tavern(&self) -> Command {
        let mut command = Command::new(&self.binary);
        command
            .env_remove("TAVERN_AGENT_DATA_DIR")
            .env("NO_COLOR", "1")
            .arg("--data-dir")
            .arg(&self.data);
        command
    }

    /// `tavern-agent run` of a script on the campaign's chat, with the durability policy.
    fn run_command(&self, script: &Path) -> Command {
        let mut command = self.tavern();
        command
            .args(["run", "--chat", CHAT, "--json", "--script"])
            .arg(script);
        if let Some(policy) = &self.durability {
            command.args(["--durability", policy]);
        }
        command
    }

    fn write_script(&self, name: &str, script: &Value) -> Result<PathBuf> {
        let path = self.scripts.join(format!("{name}.json"));
        fs::write(&path, serde_json::to_vec_pretty(script)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(path)
    }

    /// Runs a script to its end; it must complete (exit 0). Returns the run id and how
    /// long it took.
    fn complete_run(&self, script: &Value, name: &str) -> Result<(String, Duration)> {
        let path = self.write_script(name, script)?;
        let started = Instant::now();
        let output = self
            .run_command(&path)
            .output()
            .context("cannot start tavern-agent")?;
        let elapsed = started.elapsed();
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() {
            bail!(
                "the {name} run did not complete ({}):\n{stderr}",
                output.status
            );
        }
        let run = stderr
            .lines()
            .find_map(|line| line.strip_prefix("run: "))
            .with_context(|| format!("no `run:` line from the {name} run:\n{stderr}"))?;
        Ok((run.trim().to_owned(), elapsed))
    }

    /// Starts the scenario's run and SIGKILLs it as planned.
    fn kill_run(&self, iteration: u32, scenario: &Scenario, plan: &KillPlan) -> Result<Killed> {
        let script = self.write_script(&format!("kill-{iteration:03}"), &scenario.script)?;
        let before = check::run_ids(&self.data);
        let stderr = fs::File::create(self.logs.join(format!("kill-{iteration:03}.stderr")))?;
        let started = Instant::now();
        let mut child = self
            .run_command(&script)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .context("cannot start tavern-agent")?;
        let events = watch_events(
            &mut child,
            &self.logs.join(format!("kill-{iteration:03}.jsonl")),
        );
        match plan {
            KillPlan::At(at) => wait_until(&mut child, started + *at)?,
            KillPlan::After {
                event, nth, offset, ..
            } => {
                let deadline = started + TRIGGER_TIMEOUT;
                let mut seen = 0;
                while seen < *nth {
                    let left = deadline.saturating_duration_since(Instant::now());
                    match events.recv_timeout(left) {
                        Ok(kind) if kind == *event => seen += 1,
                        Ok(_) => {}
                        // The run ended (or took too long) without it.
                        Err(_) => break,
                    }
                }
                thread::sleep(*offset);
            }
        }
        let finished = match child.try_wait()? {
            Some(status) => Some(status.to_string()),
            None => {
                child.kill().context("cannot kill tavern-agent")?;
                child.wait()?;
                None
            }
        };
        let elapsed = started.elapsed();
        let run = check::run_ids(&self.data)
            .into_iter()
            .find(|id| !before.contains(id));
        Ok(Killed {
            run,
            finished,
            elapsed,
        })
    }

    /// After a kill: `runs cancel` every run the kill touched (it finishes a run without its
    /// terminal event, brings a record left behind its finished journal up to date, and
    /// leaves an ended run alone), make a normal run, read
    /// the killed run back with `runs show`, and check every invariant again, now with no
    /// unfinished run and no temp file allowed. Returns the violations found.
    fn recover(
        &mut self,
        iteration: u32,
        killed: &Killed,
        after_kill: &Report,
    ) -> Result<Vec<String>> {
        let mut violations = Vec::new();
        for run in after_kill.journals.keys() {
            let output = self
                .tavern()
                .args(["runs", "cancel", run, "--json"])
                .output()?;
            if !output.status.success() {
                violations.push(format!(
                    "`runs cancel {run}` failed ({}): {}",
                    output.status,
                    String::from_utf8_lossy(&output.stderr).trim()
                ));
            }
        }
        let (recovery, _) = self.complete_run(
            &Scenario::recovery(iteration),
            &format!("recovery-{iteration:03}"),
        )?;
        let mut reads = vec![vec![
            "runs".to_owned(),
            "list".to_owned(),
            "--json".to_owned(),
        ]];
        if let Some(run) = &killed.run {
            reads.push(vec![
                "runs".into(),
                "show".into(),
                run.clone(),
                "--json".into(),
            ]);
        }
        for args in reads {
            let output = self.tavern().args(&args).output()?;
            if !output.status.success() {
                violations.push(format!(
                    "`{}` failed ({}): {}",
                    args.join(" "),
                    output.status,
                    String::from_utf8_lossy(&output.stderr).trim()
                ));
            }
        }
        let report = self.check(&Moment::AfterRecovery {
            newest_state: recovery,
        });
        violations.extend(report.violations);
        Ok(violations)
    }
}

/// Waits until `deadline`, or until the child ends before it.
fn wait_until(child: &mut Child, deadline: Instant) -> Result<()> {
    while child.try_wait()?.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        thread::sleep(left.min(Duration::from_millis(5)));
    }
    Ok(())
}

/// Reads the run's `--json` stdout on a thread: every line goes to `log`, every event type
/// to the returned channel. Reading also keeps the pipe from filling up.
fn watch_events(child: &mut Child, log: &Path) -> mpsc::Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    let stdout = child.stdout.take();
    let log = log.to_path_buf();
    thread::spawn(move || {
        let Some(stdout) = stdout else { return };
        let mut copy = String::new();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            copy.push_str(&line);
            copy.push('\n');
            let kind = serde_json::from_str::<Value>(&line)
                .ok()
                .and_then(|event| event["type"].as_str().map(str::to_owned));
            if let Some(kind) = kind {
                // The receiver may be gone once the kill is done; the log still fills.
                let _ = sender.send(kind);
            }
        }
        let _ = fs::write(log, copy);
    });
    receiver
}

/// Appends [`PAD_MESSAGES`] filler messages to the chat, keeping its final newline, and
/// returns what the checks compare against.
fn pad_chat(chat: &Path) -> Result<Baseline> {
    let text =
        fs::read_to_string(chat).with_context(|| format!("cannot read {}", chat.display()))?;
    let ends_with_newline = text.ends_with('\n');
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let header: Value = serde_json::from_str(lines.first().map_or("", String::as_str))
        .context("the demo chat has no header line")?;
    let integrity = header["chat_metadata"]["integrity"]
        .as_str()
        .context("the demo chat has no chat_metadata.integrity")?
        .to_owned();
    for n in 0..PAD_MESSAGES {
        let is_user = n % 2 == 0;
        let message = serde_json::json!({
            "name": if is_user { "Wren" } else { "Seraphina" },
            "is_user": is_user,
            "is_system": false,
            "send_date": "June 1, 2026 9:30pm",
            "mes": format!("Filler message {n}. ").repeat(30),
            "extra": {},
        });
        lines.push(message.to_string());
    }
    let mut padded = lines.join("\n");
    if ends_with_newline {
        padded.push('\n');
    }
    fs::write(chat, padded).with_context(|| format!("cannot write {}", chat.display()))?;
    Ok(Baseline {
        chat: chat.to_path_buf(),
        integrity,
        messages: lines.split_off(1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options> {
        parse_options(&args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn parses_the_count_and_the_flags() {
        assert_eq!(parse(&[]).unwrap(), Options::default());
        let options = parse(&[
            "12",
            "--seed",
            "7",
            "--durability",
            "strict",
            "--keep-going",
        ]);
        assert_eq!(
            options.unwrap(),
            Options {
                kills: Some(12),
                seed: Some(7),
                durability: Some("strict".to_owned()),
                keep_going: true,
                ..Options::default()
            }
        );
        assert!(parse(&["--release", "--keep"]).unwrap().release);
    }

    #[test]
    fn refuses_bad_arguments() {
        assert!(parse(&["0"]).is_err());
        assert!(parse(&["many"]).is_err());
        assert!(parse(&["3", "4"]).is_err());
        assert!(parse(&["--seed"]).is_err());
        assert!(parse(&["--seed", "x"]).is_err());
        assert!(parse(&["--fast"]).is_err());
    }
}
