//! JSON output: journal lines exactly as `events.jsonl` holds them, and records as
//! camelCase JSON.

use std::io::{self, Write};

use agent_domain::event::JournalLine;
use serde::Serialize;

use crate::exit::{CmdResult, Exit, OrCode, codes};

/// Writes `line` as one compact JSON line, byte for byte as the journal file stores it.
pub fn write_line(out: &mut impl Write, line: &JournalLine) -> io::Result<()> {
    let mut bytes = serde_json::to_vec(line).map_err(io::Error::other)?;
    bytes.push(b'\n');
    out.write_all(&bytes)?;
    out.flush()
}

/// Prints `value` as pretty JSON on stdout.
pub fn print_pretty(value: &impl Serialize) -> CmdResult<()> {
    let text = serde_json::to_string_pretty(value).or_code(Exit::Failure, codes::OUTPUT_FAILED)?;
    print_text(&text)
}

/// Prints `value` as compact JSON on one line of stdout.
pub fn print_compact(value: &impl Serialize) -> CmdResult<()> {
    let text = serde_json::to_string(value).or_code(Exit::Failure, codes::OUTPUT_FAILED)?;
    print_text(&text)
}

fn print_text(text: &str) -> CmdResult<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "{text}")
        .and_then(|()| out.flush())
        .or_code(Exit::Failure, codes::OUTPUT_FAILED)
}

/// The serialised name of a unit enum value (`built_in`, `foreground`, `warning`).
pub fn name_of(value: &impl Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|value| value.as_str().map(str::to_owned))
        .unwrap_or_default()
}
