//! `retention show | set | plan | apply`: the run retention policy and pruning
//! (`docs/storage/retention.md`), and the prune the CLI runs after each run it drove when the
//! policy enables it.

use std::time::Duration;

use agent_application::retention::{ApplyReport, RetentionServiceError};
use agent_domain::ErrorCode;
use agent_domain::retention::{DetailLimit, PruneReport, RetentionKey, RetentionSettings};
use clap::Subcommand;

use crate::exit::{CmdResult, Exit, Failed, codes, print_error};
use crate::render::{json, table};
use crate::wiring::Host;

/// How long the automatic prune after a run may take before it is given up (the run's
/// outcome is never affected).
const AUTO_PRUNE_BUDGET: Duration = Duration::from_secs(20);

/// `tavern-agent retention …`.
#[derive(Debug, Subcommand)]
pub enum RetentionCommand {
    /// Print the retention policy.
    Show {
        #[arg(long)]
        json: bool,
    },
    /// Change one setting: auto_prune_enabled (true|false), keep_recent_terminal_runs or
    /// keep_full_recent_runs (0 to 10000, full at most recent).
    Set {
        key: String,
        /// The new value (a negative number is read as a value, and refused by validation).
        #[arg(allow_hyphen_values = true)]
        value: String,
        #[arg(long)]
        json: bool,
    },
    /// Show what a prune would do now, changing nothing.
    Plan {
        /// How many candidates and blocked runs to list (0 to 1000; totals are always exact).
        #[arg(long, value_name = "N")]
        detail_limit: Option<u64>,
        #[arg(long)]
        json: bool,
    },
    /// Prune now: slim and delete finished runs as the policy says.
    #[command(
        after_help = "Exit status: 0 when every planned change was made (runs a \
                            process holds are left alone and listed), 1 when some failed."
    )]
    Apply {
        /// How many candidates and blocked runs to list (0 to 1000).
        #[arg(long, value_name = "N")]
        detail_limit: Option<u64>,
        #[arg(long)]
        json: bool,
    },
}

/// A policy that does not hold is a usage error; storage failing is a failure.
fn failed(error: RetentionServiceError) -> Failed {
    match error {
        RetentionServiceError::Policy(_) => Failed::of(Exit::Usage, &error),
        _ => Failed::of(Exit::Failure, &error),
    }
}

fn limit(raw: Option<u64>) -> CmdResult<DetailLimit> {
    DetailLimit::new(raw).map_err(|err| Failed::of(Exit::Usage, &err))
}

pub async fn execute(host: &Host, command: RetentionCommand) -> CmdResult {
    let service = host.retention();
    match command {
        RetentionCommand::Show { json } => {
            let settings = service.settings().await.map_err(failed)?;
            print_settings(&settings, json)?;
        }
        RetentionCommand::Set { key, value, json } => {
            let key: RetentionKey = key.parse().map_err(|err| Failed::of(Exit::Usage, &err))?;
            let settings = service.set(key, &value).await.map_err(failed)?;
            print_settings(&settings, json)?;
        }
        RetentionCommand::Plan { detail_limit, json } => {
            let report = service.plan(limit(detail_limit)?).await.map_err(failed)?;
            if json {
                json::print_pretty(&report)?;
            } else {
                print!("{}", plan_text(&report));
            }
        }
        RetentionCommand::Apply { detail_limit, json } => {
            let report = service.apply(limit(detail_limit)?).await.map_err(failed)?;
            if json {
                json::print_pretty(&report)?;
            } else {
                print!("{}", apply_text(&report));
            }
            if !report.failed_runs.is_empty() {
                return Ok(Exit::Failure);
            }
        }
    }
    Ok(Exit::Ok)
}

/// After a run this process drove ended: prune if the policy enables it, within
/// [`AUTO_PRUNE_BUDGET`]. Whatever happens is at most a warning on stderr.
pub async fn after_run(host: &Host, json: bool) {
    let service = host.retention();
    match tokio::time::timeout(AUTO_PRUNE_BUDGET, service.apply_if_enabled()).await {
        Ok(Ok(_)) => {}
        Ok(Err(err)) => print_error(json, err.code(), &format!("automatic prune skipped: {err}")),
        Err(_) => print_error(
            json,
            codes::AUTO_PRUNE_TIMEOUT,
            &format!(
                "automatic prune gave up after {} s; run `tavern-agent retention apply`",
                AUTO_PRUNE_BUDGET.as_secs()
            ),
        ),
    }
}

fn print_settings(settings: &RetentionSettings, json: bool) -> CmdResult<()> {
    if json {
        return json::print_pretty(settings);
    }
    let rows = vec![
        vec![
            RetentionKey::AutoPruneEnabled.to_string(),
            settings.auto_prune_enabled.to_string(),
        ],
        vec![
            RetentionKey::KeepRecentTerminalRuns.to_string(),
            settings.keep_recent_terminal_runs.to_string(),
        ],
        vec![
            RetentionKey::KeepFullRecentRuns.to_string(),
            settings.keep_full_recent_runs.to_string(),
        ],
    ];
    print!("{}", table::render(&["SETTING", "VALUE"], &rows));
    Ok(())
}

/// Totals first, then the listed candidates and blocked runs, then what was left out.
fn plan_text(report: &PruneReport) -> String {
    let t = &report.totals;
    let mut out = format!(
        "{} runs: {} finished and ranked, {} not finished, {} blocked\n\
         keep:   {} runs (the newest {} whole, up to {} with their history)\n\
         slim:   {} runs, {} files, {} bytes\n\
         delete: {} runs, {} files, {} bytes\n",
        t.scanned_runs,
        t.ranked_runs,
        t.non_terminal_runs,
        t.blocked_runs,
        t.kept_runs,
        report.settings.keep_full_recent_runs,
        report.settings.keep_recent_terminal_runs,
        t.slim_runs,
        t.slim_files,
        t.slim_bytes,
        t.delete_runs,
        t.delete_files,
        t.delete_bytes,
    );
    if !report.candidates.is_empty() {
        let rows: Vec<Vec<String>> = report
            .candidates
            .iter()
            .map(|c| {
                vec![
                    c.run_id.to_string(),
                    json::name_of(&c.action),
                    c.rank.to_string(),
                    c.ended_at.clone(),
                    c.files.to_string(),
                    c.bytes.to_string(),
                ]
            })
            .collect();
        out.push('\n');
        out.push_str(&table::render(
            &["RUN", "ACTION", "RANK", "ENDED", "FILES", "BYTES"],
            &rows,
        ));
    }
    if !report.blocked.is_empty() {
        out.push_str("\nblocked (never touched):\n");
        for blocked in &report.blocked {
            out.push_str(&format!(
                "- {} {}{}\n",
                blocked.run_id,
                json::name_of(&blocked.reason),
                blocked
                    .detail
                    .as_deref()
                    .map(|detail| format!(": {detail}"))
                    .unwrap_or_default()
            ));
        }
    }
    if report.omitted_candidates + report.omitted_blocked > 0 {
        out.push_str(&format!(
            "\n{} candidates and {} blocked runs not listed (--detail-limit)\n",
            report.omitted_candidates, report.omitted_blocked
        ));
    }
    out
}

fn apply_text(report: &ApplyReport) -> String {
    let mut out = plan_text(&report.plan);
    out.push_str(&format!(
        "\napplied: {} runs slimmed, {} deleted, {} files and {} bytes removed\n",
        report.slimmed_runs, report.deleted_runs, report.removed_files, report.removed_bytes
    ));
    for held in &report.held_runs {
        out.push_str(&format!(
            "- {}: left alone, a process took hold of it\n",
            held.run_id
        ));
    }
    for failed in &report.failed_runs {
        out.push_str(&format!(
            "- {}: {} failed: {}: {}\n",
            failed.run_id,
            json::name_of(&failed.action),
            failed.code,
            failed.message
        ));
    }
    out
}
