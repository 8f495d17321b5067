//! `doctor`: one check of the data directory through the application's doctor, and with
//! `--fix` its repairs (abandoned runs marked failed, stale temps removed) and a second
//! check. Exits 1 when anything is (still) wrong.

use agent_application::doctor::{DoctorCheck, DoctorFixReport, DoctorReport};
use agent_application::profiles::IssueSeverity;
use serde_json::json;

use crate::exit::{CmdResult, Exit};
use crate::render::json;
use crate::wiring::Host;

pub async fn execute(host: &Host, fix: bool, as_json: bool) -> CmdResult {
    let doctor = host.doctor();
    let report = doctor.check().await;
    let verdict = if fix {
        let fixed = doctor.fix().await;
        let after = doctor.check().await;
        if as_json {
            json::print_pretty(&json!({"before": report, "fixed": fixed, "after": after}))?;
        } else {
            print!("{}", render(&report));
            print!("{}", render_fixed(&fixed));
            println!("after the fixes:");
            print!("{}", render(&after));
        }
        after.healthy
    } else {
        if as_json {
            json::print_pretty(&report)?;
        } else {
            print!("{}", render(&report));
        }
        report.healthy
    };
    Ok(if verdict { Exit::Ok } else { Exit::Failure })
}

/// What `--fix` did, one line each.
fn render_fixed(fixed: &DoctorFixReport) -> String {
    let mut out = String::new();
    for run in &fixed.runs {
        out.push_str(&format!(
            "fixed: run {} marked {}\n",
            run.run_id,
            run.status.as_str()
        ));
    }
    if fixed.temps_removed > 0 {
        out.push_str(&format!(
            "fixed: {} stale temp{} removed\n",
            fixed.temps_removed,
            if fixed.temps_removed == 1 { "" } else { "s" }
        ));
    }
    for failure in &fixed.failures {
        out.push_str(&format!(
            "not fixed: {}: {}: {}\n",
            failure.code, failure.subject, failure.message
        ));
    }
    if out.is_empty() {
        out.push_str("nothing to fix\n");
    }
    out
}

/// One line per area, its findings below it (each error starting with its code), and a
/// verdict.
fn render(report: &DoctorReport) -> String {
    let mut out = String::new();
    for check in &report.checks {
        out.push_str(&area_line(check));
        for finding in &check.findings {
            let line = format!("{}: {}: {}", finding.code, finding.subject, finding.message);
            match finding.severity {
                IssueSeverity::Error => out.push_str(&format!("  {line}\n")),
                _ => out.push_str(&format!("  warning: {line}\n")),
            }
            out.push_str(&format!("    fix: {}\n", finding.fix));
        }
    }
    let (errors, warnings) = (
        report.count(IssueSeverity::Error),
        report.count(IssueSeverity::Warning),
    );
    let counted = [(errors, "error"), (warnings, "warning")]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, word)| format!("{n} {word}{}", if n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join(", ");
    out.push_str(&match (report.healthy, counted.is_empty()) {
        (true, true) => "healthy\n".to_owned(),
        (true, false) => format!("healthy, with {counted}\n"),
        (false, _) => format!("not healthy: {counted}\n"),
    });
    out
}

fn area_line(check: &DoctorCheck) -> String {
    let area = json::name_of(&check.area);
    let status = json::name_of(&check.status);
    format!("{area:<12} {status:<8} {} usable\n", check.usable)
}
