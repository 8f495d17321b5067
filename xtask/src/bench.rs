//! `cargo xtask bench`: every criterion benchmark of the workspace with short settings, then
//! a summary of the medians — the one documented way to reproduce the performance figures.
//!
//! Three steps: make sure ripgrep is there (the search benches time `rg` as a reference),
//! run `cargo bench`, and print the median of every benchmark criterion has recorded, then
//! the performance goals of the project (issue 11's figures) computed from those medians.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// Criterion settings that fit a small shared machine, as (option, value).
const CRITERION_SETTINGS: &[(&str, &str)] = &[("--warm-up-time", "1"), ("--measurement-time", "3")];

pub fn run(manifest_path: &Path, offline: bool, extra_args: &[String]) -> Result<()> {
    let root = manifest_path.parent().unwrap_or(Path::new("."));
    println!("==> bench [1/3] ripgrep");
    match ensure_ripgrep(&mut RealSystem) {
        Ripgrep::Present => println!("rg is available"),
        Ripgrep::Installed => println!("rg installed with apt-get"),
        Ripgrep::Missing(reason) => eprintln!(
            "warning: ripgrep (`rg`) is not available ({reason}); \
             the rg reference timings will be skipped"
        ),
    }
    let args = cargo_bench_args(manifest_path, offline, extra_args);
    println!("==> bench [2/3] cargo {}", args.join(" "));
    let started = SystemTime::now();
    let status = crate::cargo()
        .args(&args)
        .current_dir(root)
        .status()
        .context("could not run `cargo bench`")?;
    if !status.success() {
        bail!("`cargo bench` exited with {status}");
    }
    let dir = criterion_dir(root);
    println!("==> bench [3/3] medians from {}", dir.display());
    let medians = collect_medians(&dir)?;
    print!("{}", format_summary(&medians, started));
    println!();
    print!("{}", format_goals(&medians));
    Ok(())
}

/// Tool calls of one `loop_overhead` run (`crates/agent-host-cli/benches/loop_overhead.rs`:
/// 200 rounds of three calls and a last round of three).
const LOOP_OVERHEAD_TOOL_CALLS: f64 = 603.0;

/// One performance goal: what it measures, the goal as text, and how to compute the figure
/// (as shown, and whether it meets the goal) from the medians; `None` when a median it
/// needs was not recorded.
struct Goal {
    figure: &'static str,
    goal: &'static str,
    measure: fn(&[Median]) -> Option<(String, bool)>,
}

const GOALS: &[Goal] = &[
    Goal {
        figure: "loop overhead per tool call (loop_overhead)",
        goal: "<= 0.5 ms",
        measure: |medians| {
            let run = nanos(medians, "loop_overhead/scripted_run_201_rounds")?;
            let per_call = run / LOOP_OVERHEAD_TOOL_CALLS;
            Some((format_nanos(per_call), per_call <= 0.5e6))
        },
    },
    Goal {
        figure: "journal appends per second, no fsync",
        goal: ">= 200000",
        measure: |medians| {
            let per_second = 1e9 / nanos(medians, "journal_append/normal_no_fsync")?;
            Some((format!("{per_second:.0}"), per_second >= 200_000.0))
        },
    },
    Goal {
        figure: "chat.search / rg -c, slowest query",
        goal: "<= 1.5x",
        measure: |medians| {
            let (query, ratio) = medians
                .iter()
                .filter_map(|median| {
                    let query = median.id.strip_prefix("chat_search_core_100k/")?;
                    let rg = nanos(medians, &format!("chat_search_rg_100k/{query}"))?;
                    Some((query, median.nanos / rg))
                })
                .max_by(|a, b| a.1.total_cmp(&b.1))?;
            Some((format!("{ratio:.2}x ({query})"), ratio <= 1.5))
        },
    },
    Goal {
        figure: "snapshot compile, 200 tools",
        goal: "<= 100 µs",
        measure: |medians| {
            let compile = nanos(medians, "compile_snapshot_200_tools")?;
            Some((format_nanos(compile), compile <= 100e3))
        },
    },
    Goal {
        figure: "100 runs at once / (one by one / 2 cores)",
        goal: "<= 1.2",
        measure: |medians| {
            let at_once = nanos(medians, "concurrent_runs_100/at_once")?;
            let one_by_one = nanos(medians, "concurrent_runs_100/one_by_one")?;
            let ratio = at_once / (one_by_one / 2.0);
            Some((format!("{ratio:.2}"), ratio <= 1.2))
        },
    },
    Goal {
        figure: "8 delegated children of 100 ms, one run",
        goal: "<= 130 ms",
        measure: |medians| {
            let run = nanos(medians, "delegation_8x100ms/parallel")?;
            Some((format_nanos(run), run <= 130e6))
        },
    },
];

/// The median recorded for `id`.
fn nanos(medians: &[Median], id: &str) -> Option<f64> {
    medians
        .iter()
        .find(|median| median.id == id)
        .map(|median| median.nanos)
}

/// The goals table: figure, measured value, goal, and `ok`, `MISSED` or `not measured`.
fn format_goals(medians: &[Median]) -> String {
    let rows: Vec<[String; 4]> = GOALS
        .iter()
        .map(|goal| {
            let (value, verdict) = match (goal.measure)(medians) {
                Some((value, true)) => (value, "ok"),
                Some((value, false)) => (value, "MISSED"),
                None => ("-".to_owned(), "not measured"),
            };
            [
                goal.figure.to_owned(),
                value,
                goal.goal.to_owned(),
                verdict.to_owned(),
            ]
        })
        .collect();
    let header = ["goal", "measured", "target", ""].map(str::to_owned);
    let widths: Vec<usize> = (0..4)
        .map(|column| {
            rows.iter()
                .chain([&header])
                .map(|row| display_width(&row[column]))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in [&header].into_iter().chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell}{}", " ".repeat(width - display_width(cell))))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// `cargo bench` over every bench target of the workspace, with the criterion settings and
/// `extra_args` (a filter, other criterion options) after `--`. A setting given in
/// `extra_args` replaces the default one (criterion refuses an option given twice).
///
/// `--bench '*'` selects the bench targets only: libtest, which runs library and binary
/// targets under plain `cargo bench`, rejects criterion's options.
fn cargo_bench_args(manifest_path: &Path, offline: bool, extra_args: &[String]) -> Vec<String> {
    let mut args: Vec<String> = ["bench", "--workspace", "--bench", "*", "--manifest-path"]
        .map(str::to_owned)
        .to_vec();
    args.push(manifest_path.display().to_string());
    if offline {
        args.push("--offline".to_owned());
    }
    args.push("--".to_owned());
    for (option, value) in CRITERION_SETTINGS {
        let overridden = extra_args.iter().any(|arg| {
            arg == option
                || arg
                    .strip_prefix(option)
                    .is_some_and(|rest| rest.starts_with('='))
        });
        if !overridden {
            args.extend([(*option).to_owned(), (*value).to_owned()]);
        }
    }
    args.extend(extra_args.iter().cloned());
    args
}

/// Where criterion writes its results: `$CRITERION_HOME`, else `criterion/` in
/// `$CARGO_TARGET_DIR`, else in the workspace's `target/`.
fn criterion_dir(root: &Path) -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    target.join("criterion")
}

/// Whether ripgrep is usable after [`ensure_ripgrep`].
#[derive(Debug, PartialEq, Eq)]
enum Ripgrep {
    Present,
    Installed,
    /// Not available, and why it was not installed.
    Missing(&'static str),
}

/// What [`ensure_ripgrep`] needs from the machine, so tests can fake it.
trait System {
    /// Runs `program` silently; whether it ran and succeeded.
    fn probe(&mut self, program: &str, args: &[&str]) -> bool;
    /// Runs `program` with its output shown; whether it ran and succeeded.
    fn run(&mut self, program: &str, args: &[&str]) -> bool;
    fn is_root(&mut self) -> bool;
}

struct RealSystem;

impl System for RealSystem {
    fn probe(&mut self, program: &str, args: &[&str]) -> bool {
        Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    }

    fn run(&mut self, program: &str, args: &[&str]) -> bool {
        println!("{program} {}", args.join(" "));
        Command::new(program)
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdin(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    }

    fn is_root(&mut self) -> bool {
        Command::new("id")
            .arg("-u")
            .stderr(Stdio::null())
            .output()
            .is_ok_and(|output| output.status.success() && output.stdout.trim_ascii() == b"0")
    }
}

/// Makes `rg` available if it can: installed with `apt-get` when running as root on a
/// Debian-like system, with `apt-get update` only if the first install fails.
fn ensure_ripgrep(system: &mut impl System) -> Ripgrep {
    if system.probe("rg", &["--version"]) {
        return Ripgrep::Present;
    }
    if !system.probe("apt-get", &["--version"]) {
        return Ripgrep::Missing("not on the PATH, and no apt-get to install it");
    }
    if !system.is_root() {
        return Ripgrep::Missing("not on the PATH, and installing it needs root");
    }
    const INSTALL: &[&str] = &["install", "-y", "ripgrep"];
    if !system.run("apt-get", INSTALL) {
        // Fails on a missing package list, as in a fresh container.
        system.run("apt-get", &["update"]);
        system.run("apt-get", INSTALL);
    }
    if system.probe("rg", &["--version"]) {
        Ripgrep::Installed
    } else {
        Ripgrep::Missing("`apt-get install -y ripgrep` did not install it")
    }
}

/// One benchmark's recorded median.
#[derive(Debug, Clone, PartialEq)]
struct Median {
    /// Criterion's id, `group/function[/value]`.
    id: String,
    nanos: f64,
    /// When criterion wrote it (to tell this run's results from older ones).
    modified: Option<SystemTime>,
}

/// The medians of every `**/new/estimates.json` under `dir`, sorted by id; none when `dir`
/// does not exist.
fn collect_medians(dir: &Path) -> Result<Vec<Median>> {
    let mut files = Vec::new();
    if dir.is_dir() {
        find_estimates(dir, &mut files)?;
    }
    let mut medians = files
        .iter()
        .map(|file| read_median(dir, file))
        .collect::<Result<Vec<_>>>()?;
    medians.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(medians)
}

/// Every `new/estimates.json` below `dir`.
fn find_estimates(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = fs::read_dir(dir).with_context(|| format!("could not list {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("could not list {}", dir.display()))?;
        let path = entry.path();
        let file_type = entry.file_type()?;
        if file_type.is_dir() {
            find_estimates(&path, out)?;
        } else if file_type.is_file()
            && entry.file_name() == "estimates.json"
            && dir.file_name().is_some_and(|name| name == "new")
        {
            out.push(path);
        }
    }
    Ok(())
}

/// The median of one `<bench>/new/estimates.json`, named by the `full_id` of the
/// `benchmark.json` beside it, else by the bench folder's path under `criterion_dir`.
fn read_median(criterion_dir: &Path, estimates: &Path) -> Result<Median> {
    let read_json = |path: &Path| -> Result<Value> {
        let text = fs::read_to_string(path)
            .with_context(|| format!("could not read {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))
    };
    let nanos = read_json(estimates)?
        .pointer("/median/point_estimate")
        .and_then(Value::as_f64)
        .with_context(|| format!("{} has no median.point_estimate", estimates.display()))?;
    let new_dir = estimates.parent().unwrap_or(criterion_dir);
    let benchmark = new_dir.join("benchmark.json");
    let full_id = benchmark
        .is_file()
        .then(|| read_json(&benchmark))
        .transpose()?
        .and_then(|json| json.get("full_id")?.as_str().map(str::to_owned));
    let id = full_id.unwrap_or_else(|| folder_id(criterion_dir, new_dir));
    let modified = fs::metadata(estimates).and_then(|m| m.modified()).ok();
    Ok(Median {
        id,
        nanos,
        modified,
    })
}

/// `a/b` for `<criterion_dir>/a/b/new`.
fn folder_id(criterion_dir: &Path, new_dir: &Path) -> String {
    let bench_dir = new_dir.parent().unwrap_or(new_dir);
    let relative = bench_dir.strip_prefix(criterion_dir).unwrap_or(bench_dir);
    relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The summary table: one line per benchmark, id then median; results older than
/// `run_started` (benchmarks this run filtered out) are marked `*`.
fn format_summary(medians: &[Median], run_started: SystemTime) -> String {
    if medians.is_empty() {
        return "no criterion results found\n".to_owned();
    }
    let rows: Vec<(&str, String, bool)> = medians
        .iter()
        .map(|median| {
            let earlier = median.modified.is_some_and(|time| time < run_started);
            (median.id.as_str(), format_nanos(median.nanos), earlier)
        })
        .collect();
    let id_width = rows
        .iter()
        .map(|(id, _, _)| display_width(id))
        .chain([display_width("benchmark")])
        .max()
        .unwrap_or(0);
    let time_width = rows
        .iter()
        .map(|(_, time, _)| display_width(time))
        .chain([display_width("median")])
        .max()
        .unwrap_or(0);
    let line = |id: &str, time: &str, mark: &str| {
        let id_pad = " ".repeat(id_width - display_width(id));
        let time_pad = " ".repeat(time_width - display_width(time));
        format!("{id}{id_pad}  {time_pad}{time}{mark}\n")
    };
    let mut out = line("benchmark", "median", "");
    for (id, time, earlier) in &rows {
        out.push_str(&line(id, time, if *earlier { " *" } else { "" }));
    }
    if rows.iter().any(|(_, _, earlier)| *earlier) {
        out.push_str("* from an earlier run (not measured by this one)\n");
    }
    out
}

/// Terminal columns of `text`, counting East Asian wide characters (CJK, kana, hangul,
/// full-width forms) as two, so ids such as `北京烤鸭` stay aligned.
fn display_width(text: &str) -> usize {
    text.chars()
        .map(|c| match u32::from(c) {
            0x1100..=0x115F
            | 0x2E80..=0xA4CF
            | 0xAC00..=0xD7A3
            | 0xF900..=0xFAFF
            | 0xFE30..=0xFE4F
            | 0xFF00..=0xFF60
            | 0xFFE0..=0xFFE6
            | 0x20000..=0x3FFFD => 2,
            _ => 1,
        })
        .sum()
}

/// A duration in nanoseconds with 3 significant digits in the largest unit that keeps it
/// at least 1: `812 ns`, `4.46 µs`, `12.3 ms`, `1.50 s`.
fn format_nanos(nanos: f64) -> String {
    const UNITS: [(&str, f64); 4] = [("ns", 1.0), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)];
    if !nanos.is_finite() || nanos <= 0.0 {
        return format!("{nanos} ns");
    }
    // Round first, so 999.96 µs shows as 1.00 ms rather than 1000 µs.
    let rounded = round_significant(nanos, 3);
    let (unit, scale) = UNITS
        .iter()
        .rev()
        .find(|(_, scale)| rounded >= *scale)
        .copied()
        .unwrap_or(UNITS[0]);
    let value = rounded / scale;
    let decimals = match value {
        v if v < 10.0 => 2,
        v if v < 100.0 => 1,
        _ => 0,
    };
    format!("{value:.decimals$} {unit}")
}

fn round_significant(value: f64, digits: i32) -> f64 {
    let magnitude = value.abs().log10().floor() as i32;
    let exponent = digits - 1 - magnitude;
    // Powers of ten up to 1e22 are exact, so scale by one rather than by its inverse.
    if exponent >= 0 {
        let factor = 10f64.powi(exponent);
        (value * factor).round() / factor
    } else {
        let factor = 10f64.powi(-exponent);
        (value / factor).round() * factor
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn formats_three_significant_digits() {
        let cases = [
            (0.5, "0.50 ns"),
            (812.4, "812 ns"),
            (999.6, "1.00 µs"),
            (4_462.28, "4.46 µs"),
            (12_345.0, "12.3 µs"),
            (123_456.0, "123 µs"),
            (999_960.0, "1.00 ms"),
            (12_345_678.0, "12.3 ms"),
            (1_499_000_000.0, "1.50 s"),
            (123_456_000_000.0, "123 s"),
        ];
        for (nanos, expected) in cases {
            assert_eq!(format_nanos(nanos), expected, "{nanos}");
        }
        assert_eq!(format_nanos(0.0), "0 ns");
    }

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn estimates(median: f64) -> String {
        format!(
            r#"{{"mean":{{"point_estimate":1.0}},"median":{{"confidence_interval":{{}},"point_estimate":{median}}}}}"#
        )
    }

    #[test]
    fn collects_medians_of_new_estimates_sorted_by_id() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(&root.join("zeta/one/new/estimates.json"), &estimates(2.5e6));
        write(
            &root.join("zeta/one/new/benchmark.json"),
            r#"{"group_id":"zeta","function_id":"one","full_id":"zeta/one"}"#,
        );
        // Criterion's folder names are sanitised; `full_id` keeps the real id.
        write(
            &root.join("alpha/a_b/new/estimates.json"),
            &estimates(812.0),
        );
        write(
            &root.join("alpha/a_b/new/benchmark.json"),
            r#"{"full_id":"alpha/a?b"}"#,
        );
        // No benchmark.json: the folder path names it.
        write(&root.join("mid/x/new/estimates.json"), &estimates(4462.0));
        // Not `new/`, or not estimates: ignored.
        write(&root.join("mid/x/base/estimates.json"), &estimates(1.0));
        write(&root.join("mid/x/change/estimates.json"), &estimates(1.0));
        write(&root.join("mid/x/new/sample.json"), "{}");
        write(&root.join("report/index.html"), "<html>");

        let medians = collect_medians(root).unwrap();
        let ids: Vec<(&str, f64)> = medians.iter().map(|m| (m.id.as_str(), m.nanos)).collect();
        assert_eq!(
            ids,
            [("alpha/a?b", 812.0), ("mid/x", 4462.0), ("zeta/one", 2.5e6)]
        );
        assert!(medians.iter().all(|m| m.modified.is_some()));
    }

    #[test]
    fn missing_dir_has_no_medians_and_bad_estimates_fail() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            collect_medians(&dir.path().join("absent"))
                .unwrap()
                .is_empty()
        );
        write(&dir.path().join("b/new/estimates.json"), r#"{"mean":{}}"#);
        let error = collect_medians(dir.path()).unwrap_err();
        assert!(format!("{error:#}").contains("median.point_estimate"));
        write(&dir.path().join("b/new/estimates.json"), "not json");
        assert!(collect_medians(dir.path()).is_err());
    }

    #[test]
    fn summary_aligns_columns_and_marks_earlier_results() {
        let started = SystemTime::UNIX_EPOCH + Duration::from_secs(100);
        let median = |id: &str, nanos: f64, at: u64| Median {
            id: id.to_owned(),
            nanos,
            modified: Some(SystemTime::UNIX_EPOCH + Duration::from_secs(at)),
        };
        let summary = format_summary(
            &[
                median("chat_read/middle", 4462.28, 150),
                median("journal_append/one_event", 35_260.0, 50),
                median("x", 1.2e9, 100),
                median("core/北京烤鸭", 4.04e6, 100),
            ],
            started,
        );
        let expected = "\
benchmark                  median
chat_read/middle          4.46 µs
journal_append/one_event  35.3 µs *
x                          1.20 s
core/北京烤鸭             4.04 ms
* from an earlier run (not measured by this one)
";
        assert_eq!(summary, expected);
        assert_eq!(format_summary(&[], started), "no criterion results found\n");
    }

    #[test]
    fn goals_are_computed_from_the_medians() {
        let median = |id: &str, nanos: f64| Median {
            id: id.to_owned(),
            nanos,
            modified: None,
        };
        let medians = [
            median("loop_overhead/scripted_run_201_rounds", 603.0 * 0.4e6),
            median("journal_append/normal_no_fsync", 10_000.0),
            median("chat_search_core_100k/lantern", 12e6),
            median("chat_search_rg_100k/lantern", 10e6),
            median("chat_search_core_100k/zeppelin", 20e6),
            median("chat_search_rg_100k/zeppelin", 10e6),
            median("concurrent_runs_100/one_by_one", 10e9),
            median("concurrent_runs_100/at_once", 5.5e9),
            median("delegation_8x100ms/parallel", 140e6),
        ];
        let table = format_goals(&medians);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 1 + GOALS.len(), "{table}");
        let row = |start: &str| *lines.iter().find(|line| line.starts_with(start)).unwrap();
        assert!(row("loop overhead").contains("400 µs"), "{table}");
        assert!(row("loop overhead").ends_with(" ok"), "{table}");
        assert!(row("journal appends").contains("100000"), "{table}");
        assert!(row("journal appends").ends_with("MISSED"), "{table}");
        assert!(row("chat.search").contains("2.00x (zeppelin)"), "{table}");
        assert!(row("snapshot compile").ends_with("not measured"), "{table}");
        assert!(row("100 runs").contains("1.10"), "{table}");
        assert!(row("100 runs").ends_with(" ok"), "{table}");
        assert!(row("8 delegated").ends_with("MISSED"), "{table}");
    }

    /// Records calls; `rg` appears once `apt-get install` has run `installs_needed` times.
    struct FakeSystem {
        rg: bool,
        apt: bool,
        root: bool,
        installs_needed: usize,
        calls: Vec<String>,
    }

    impl FakeSystem {
        fn new(rg: bool, apt: bool, root: bool, installs_needed: usize) -> Self {
            Self {
                rg,
                apt,
                root,
                installs_needed,
                calls: Vec::new(),
            }
        }
    }

    impl System for FakeSystem {
        fn probe(&mut self, program: &str, _args: &[&str]) -> bool {
            match program {
                "rg" => self.rg,
                "apt-get" => self.apt,
                _ => false,
            }
        }

        fn run(&mut self, program: &str, args: &[&str]) -> bool {
            self.calls.push(format!("{program} {}", args.join(" ")));
            if args.first() == Some(&"install") {
                self.installs_needed = self.installs_needed.saturating_sub(1);
                self.rg = self.installs_needed == 0;
                return self.rg;
            }
            true
        }

        fn is_root(&mut self) -> bool {
            self.root
        }
    }

    #[test]
    fn ripgrep_is_installed_only_when_missing_as_root_with_apt() {
        let mut present = FakeSystem::new(true, true, true, 0);
        assert_eq!(ensure_ripgrep(&mut present), Ripgrep::Present);
        assert!(present.calls.is_empty());

        let mut first_try = FakeSystem::new(false, true, true, 1);
        assert_eq!(ensure_ripgrep(&mut first_try), Ripgrep::Installed);
        assert_eq!(first_try.calls, ["apt-get install -y ripgrep"]);

        let mut after_update = FakeSystem::new(false, true, true, 2);
        assert_eq!(ensure_ripgrep(&mut after_update), Ripgrep::Installed);
        assert_eq!(
            after_update.calls,
            [
                "apt-get install -y ripgrep",
                "apt-get update",
                "apt-get install -y ripgrep"
            ]
        );

        let mut never = FakeSystem::new(false, true, true, 3);
        assert!(matches!(ensure_ripgrep(&mut never), Ripgrep::Missing(_)));

        for mut cannot in [
            FakeSystem::new(false, true, false, 1),
            FakeSystem::new(false, false, true, 1),
        ] {
            assert!(matches!(ensure_ripgrep(&mut cannot), Ripgrep::Missing(_)));
            assert!(cannot.calls.is_empty());
        }
    }

    #[test]
    fn cargo_bench_passes_criterion_settings_then_extra_args() {
        let args = cargo_bench_args(Path::new("/w/Cargo.toml"), true, &["chat_search".into()]);
        assert_eq!(
            args.join(" "),
            "bench --workspace --bench * --manifest-path /w/Cargo.toml --offline -- \
             --warm-up-time 1 --measurement-time 3 chat_search"
        );
        let extra = ["--measurement-time".to_owned(), "10".to_owned()];
        let args = cargo_bench_args(Path::new("Cargo.toml"), false, &extra);
        assert_eq!(
            args.join(" "),
            "bench --workspace --bench * --manifest-path Cargo.toml -- \
             --warm-up-time 1 --measurement-time 10"
        );
        let args = cargo_bench_args(Path::new("Cargo.toml"), false, &["--warm-up-time=2".into()]);
        assert!(args.ends_with(&[
            "--measurement-time".into(),
            "3".into(),
            "--warm-up-time=2".into()
        ]));
    }
}
