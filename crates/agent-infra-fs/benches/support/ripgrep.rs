//! ripgrep as the physical-limit reference for search benches: how fast a tuned grep scans
//! the same bytes. Included by the search benches with `#[path]`; each uses the fields it
//! reports, hence the allowance below.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// How often `rg` runs per query; the median is reported.
pub const RG_RUNS: usize = 7;

pub fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// What `rg -c` reported over some paths.
pub struct RgTiming {
    pub median: Duration,
    pub matching_lines: u64,
    pub matching_files: usize,
}

/// Runs `rg -c -- <query> <paths…>` once; `None` without ripgrep.
pub fn rg_count(query: &str, paths: &[PathBuf]) -> Option<std::process::Output> {
    Command::new("rg")
        .arg("-c")
        .arg("--")
        .arg(query)
        .args(paths)
        .output()
        .ok()
}

/// Median wall time of `rg -c <query> <paths…>`, or `None` without ripgrep. `rg -c` prints
/// `path:count` per matching file (just `count` for a single file), nothing when none match.
pub fn ripgrep_median(query: &str, paths: &[PathBuf]) -> Option<RgTiming> {
    let mut times = Vec::new();
    let mut stdout = Vec::new();
    for _ in 0..RG_RUNS {
        let started = Instant::now();
        let output = rg_count(query, paths)?;
        times.push(started.elapsed());
        stdout = output.stdout;
    }
    let counts: Vec<u64> = String::from_utf8_lossy(&stdout)
        .lines()
        .filter_map(|line| {
            let count = line.rsplit_once(':').map_or(line, |(_, count)| count);
            count.trim().parse().ok()
        })
        .collect();
    Some(RgTiming {
        median: median(times),
        matching_lines: counts.iter().sum(),
        matching_files: counts.len(),
    })
}
