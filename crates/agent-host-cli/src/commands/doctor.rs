//! `doctor`: one check of the data directory's profiles, LLM connections and skills,
//! through the application's doctor. Exits 1 when anything is wrong.

use agent_application::doctor::{DoctorCheck, DoctorReport};
use agent_application::profiles::IssueSeverity;

use crate::exit::{CmdResult, Exit};
use crate::render::json;
use crate::wiring::Host;

pub async fn execute(host: &Host, as_json: bool) -> CmdResult {
    let report = host.doctor().check().await;
    if as_json {
        json::print_pretty(&report)?;
    } else {
        print!("{}", render(&report));
    }
    Ok(if report.healthy {
        Exit::Ok
    } else {
        Exit::Failure
    })
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
