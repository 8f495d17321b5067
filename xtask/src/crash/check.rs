//! The invariants a kill must never break, checked by reading the data directory's files
//! directly (`docs/crash-testing.md`):
//!
//! * every journal reads: `seq` 1..n without gaps or duplicates, only the last line may be
//!   torn (and none may be once the next writer has been through), at most one terminal
//!   event and nothing after it;
//! * the chat is valid JSONL, its original lines are untouched, every message a run wrote is
//!   there once, holds only commits its run's journal requested, shows the text of its
//!   latest commit, and every commit the journal acknowledged (`chat_commit_completed`) is
//!   in it, at the index the journal says;
//! * every JSON document under `_tauritavern/` parses, every persistent state matches its
//!   manifest, and the chat's browsable `persist/` is a whole state;
//! * after the next run: every run ended (run record and journal agree), and no temp or
//!   staging file is left anywhere, above all in SillyTavern's chat folder.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The events that end a run.
const TERMINAL: &[&str] = &[
    "run_completed",
    "run_partial_success",
    "run_cancelled",
    "run_failed",
];

/// The chat as the campaign set it up, before any run.
#[derive(Debug)]
pub struct Baseline {
    /// The chat file.
    pub chat: PathBuf,
    /// Its stable id (`chat_metadata.integrity`).
    pub integrity: String,
    /// Its message lines, byte for byte; runs only ever append after them.
    pub messages: Vec<String>,
}

/// When the check runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Moment {
    /// Right after a SIGKILL: a torn journal tail, unfinished runs and temp files are
    /// expected.
    AfterKill,
    /// After the interrupted run was cancelled and a next run completed; `newest_state` is
    /// the persistent state that run promoted, which the browsable `persist/` must show.
    AfterRecovery { newest_state: String },
}

/// What the checks need of one run's journal, as read from `events.jsonl`.
#[derive(Debug, Clone, Default)]
pub struct Journal {
    /// The type of every whole event, in order.
    pub types: Vec<String>,
    /// `chat_commit_requested`: commit id → sha256 of the committed file.
    pub requested: HashMap<String, String>,
    /// `chat_commit_completed`: commit id and the message index the host reported.
    pub completed: Vec<(String, Option<u64>)>,
    /// Bytes after the last newline: a line cut by the kill.
    pub torn_tail: usize,
}

impl Journal {
    /// The type of the last whole event that is not a status change.
    pub fn last_step(&self) -> Option<&str> {
        self.types
            .iter()
            .rev()
            .find(|t| *t != "status_changed")
            .map(String::as_str)
    }

    /// The terminal event, if the run ended.
    pub fn terminal(&self) -> Option<&str> {
        self.types
            .iter()
            .find(|t| TERMINAL.contains(&t.as_str()))
            .map(String::as_str)
    }

    fn add(&mut self, event: &Value) {
        let payload = &event["payload"];
        let text = |key: &str| payload[key].as_str().unwrap_or_default().to_owned();
        match event["type"].as_str().unwrap_or_default() {
            "chat_commit_requested" => {
                self.requested.insert(text("commitId"), text("sha256"));
            }
            "chat_commit_completed" => self
                .completed
                .push((text("commitId"), payload["messageIndex"].as_u64())),
            _ => {}
        }
        self.types
            .push(event["type"].as_str().unwrap_or_default().to_owned());
    }
}

/// What a check found: the violations, and the journals it read (by run id).
#[derive(Debug, Default)]
pub struct Report {
    pub violations: Vec<String>,
    pub journals: BTreeMap<String, Journal>,
}

/// A file's length and modification time: unchanged, a file is not read again.
type Stamp = (u64, Option<SystemTime>);

fn stamp(path: &Path) -> Stamp {
    fs::metadata(path)
        .map(|m| (m.len(), m.modified().ok()))
        .unwrap_or_default()
}

/// Checks a data directory again and again, remembering what it found sound and cannot
/// have changed: a JSON document or a journal whose length and modification time are the
/// same, a persistent state (immutable once in place). Every run stores a prompt snapshot
/// as large as the chat, so reading everything at every check would grow with the square
/// of the runs.
#[derive(Debug)]
pub struct Checker {
    pub data: PathBuf,
    pub baseline: Baseline,
    parsed: HashMap<PathBuf, Stamp>,
    journals: HashMap<PathBuf, (Stamp, Journal)>,
    states: HashMap<PathBuf, BTreeMap<String, String>>,
}

impl Checker {
    pub fn new(data: PathBuf, baseline: Baseline) -> Self {
        Self {
            data,
            baseline,
            parsed: HashMap::new(),
            journals: HashMap::new(),
            states: HashMap::new(),
        }
    }

    /// Checks every invariant at `moment`.
    pub fn check(&mut self, moment: &Moment) -> Report {
        let data = self.data.clone();
        let mut report = Report::default();
        for (run_id, dir) in &run_dirs(&data) {
            let journal = self.journal(&dir.join("events.jsonl"), run_id, moment, &mut report);
            if let Moment::AfterRecovery { .. } = moment {
                check_ended(dir, run_id, &journal, &mut report.violations);
            }
            report.journals.insert(run_id.clone(), journal);
        }
        check_chat(&self.baseline, &report.journals, &mut report.violations);
        check_json_documents(
            &data.join("_tauritavern"),
            &mut self.parsed,
            &mut report.violations,
        );
        check_persistent_states(&data, moment, &mut self.states, &mut report.violations);
        if let Moment::AfterRecovery { .. } = moment {
            check_leftovers(&data, &mut report.violations);
        }
        report
    }

    /// A journal, from the cache while its file is unchanged since a read that found it
    /// sound.
    fn journal(
        &mut self,
        path: &Path,
        run_id: &str,
        moment: &Moment,
        report: &mut Report,
    ) -> Journal {
        let now = stamp(path);
        if let Some((cached, journal)) = self.journals.get(path)
            && *cached == now
        {
            return journal.clone();
        }
        let mut violations = Vec::new();
        let journal = read_journal(path, run_id, moment, &mut violations);
        if violations.is_empty() && journal.torn_tail == 0 {
            self.journals
                .insert(path.to_path_buf(), (now, journal.clone()));
        }
        report.violations.extend(violations);
        journal
    }
}

/// The ids of every run that has a directory.
pub fn run_ids(data: &Path) -> BTreeSet<String> {
    run_dirs(data).into_keys().collect()
}

/// Every run directory, by run id.
fn run_dirs(data: &Path) -> BTreeMap<String, PathBuf> {
    let mut runs = BTreeMap::new();
    for workspace in children(&data.join("_tauritavern/agent-workspaces/chats")) {
        for run in children(&workspace.join("runs")) {
            if let Some(name) = file_name(&run).filter(|n| !is_temp_name(n)) {
                runs.insert(name, run);
            }
        }
    }
    runs
}

fn read_journal(
    path: &Path,
    run_id: &str,
    moment: &Moment,
    violations: &mut Vec<String>,
) -> Journal {
    let mut journal = Journal::default();
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        // A run killed before its first event has no journal yet.
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return journal,
        Err(err) => {
            violations.push(format!("{run_id}: events.jsonl cannot be read: {err}"));
            return journal;
        }
    };
    let mut lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    // After the last newline: empty, or a line the kill cut.
    journal.torn_tail = lines.pop().map_or(0, <[u8]>::len);
    if journal.torn_tail > 0 && *moment != Moment::AfterKill {
        violations.push(format!(
            "{run_id}: events.jsonl ends in a torn line of {} bytes after the next writer \
             went through (it should have been cut away)",
            journal.torn_tail
        ));
    }
    let mut ids = BTreeSet::new();
    for (index, line) in lines.iter().enumerate() {
        let number = index + 1;
        let event: Value = match serde_json::from_slice(line) {
            Ok(Value::Object(map)) => Value::Object(map),
            _ => {
                violations.push(format!(
                    "{run_id}: events.jsonl line {number} is not a JSON object (only the last \
                     line may be torn): {}",
                    preview(line)
                ));
                return journal;
            }
        };
        if event["seq"].as_u64() != Some(number as u64) {
            violations.push(format!(
                "{run_id}: events.jsonl line {number} has seq {} (expected {number}: no gaps, \
                 no duplicates)",
                event["seq"]
            ));
        }
        if event["runId"] != run_id {
            violations.push(format!(
                "{run_id}: events.jsonl line {number} belongs to run {}",
                event["runId"]
            ));
        }
        if !ids.insert(event["id"].to_string()) {
            violations.push(format!(
                "{run_id}: events.jsonl line {number} repeats event id {}",
                event["id"]
            ));
        }
        if let Some(terminal) = journal.terminal()
            && event["type"] != "run_rolled_back"
        {
            violations.push(format!(
                "{run_id}: events.jsonl line {number} ({}) comes after the terminal event \
                 {terminal}",
                event["type"]
            ));
        }
        journal.add(&event);
    }
    journal
}

/// After recovery: the run ended, and its record says how, as its journal does.
fn check_ended(dir: &Path, run_id: &str, journal: &Journal, violations: &mut Vec<String>) {
    let Some(terminal) = journal.terminal() else {
        violations.push(format!(
            "{run_id}: still unfinished after `runs cancel` and a next run (last event: {})",
            journal.last_step().unwrap_or("none")
        ));
        return;
    };
    let expected = terminal.strip_prefix("run_").unwrap_or(terminal);
    let record = read_json(&dir.join("run.json"));
    let status = record.as_ref().ok().and_then(|r| r["status"].as_str());
    if status != Some(expected) {
        violations.push(format!(
            "{run_id}: run.json says status {status:?} but the journal ended with {terminal}"
        ));
    }
}

/// The chat: valid JSONL, the original lines untouched, then only messages of runs, each
/// matching what its run's journal says about its commits.
fn check_chat(baseline: &Baseline, journals: &BTreeMap<String, Journal>, out: &mut Vec<String>) {
    let text = match fs::read_to_string(&baseline.chat) {
        Ok(text) => text,
        Err(err) => {
            out.push(format!("the chat cannot be read as UTF-8 text: {err}"));
            return;
        }
    };
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let header = serde_json::from_str::<Value>(lines.first().copied().unwrap_or_default());
    match header {
        Ok(header) if header["chat_metadata"]["integrity"] == baseline.integrity.as_str() => {}
        _ => out.push("the chat's header line is gone or changed its integrity".to_owned()),
    }
    for (index, original) in baseline.messages.iter().enumerate() {
        if lines.get(index + 1) != Some(&original.as_str()) {
            out.push(format!(
                "the chat's message {index} is no longer the original line byte for byte"
            ));
            return;
        }
    }
    let mut by_run: HashMap<String, Vec<(usize, Value)>> = HashMap::new();
    for (offset, line) in lines[baseline.messages.len() + 1..].iter().enumerate() {
        let index = baseline.messages.len() + offset;
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            out.push(format!(
                "chat message {index} is not JSON (torn or mixed write): {}",
                preview(line.as_bytes())
            ));
            continue;
        };
        let agent = &message["extra"]["tauritavern"]["agent"];
        match agent["runId"].as_str() {
            Some(run) => by_run
                .entry(run.to_owned())
                .or_default()
                .push((index, message.clone())),
            None => out.push(format!("chat message {index} was written by no run")),
        }
    }
    for (run, messages) in &by_run {
        if messages.len() > 1 {
            let indexes: Vec<usize> = messages.iter().map(|(i, _)| *i).collect();
            out.push(format!(
                "run {run} is in the chat {} times (messages {indexes:?}): a duplicated commit",
                messages.len()
            ));
        }
        let Some(journal) = journals.get(run) else {
            out.push(format!("chat message of run {run}, which has no journal"));
            continue;
        };
        for (index, message) in messages {
            check_message(run, *index, message, journal, out);
        }
    }
    for (run, journal) in journals {
        let message = by_run.get(run).and_then(|m| m.first());
        for (commit, reported_index) in &journal.completed {
            let Some((index, message)) = message else {
                out.push(format!(
                    "run {run}: commit {commit} is acknowledged in the journal but the chat has \
                     no message of the run (a lost commit)"
                ));
                break;
            };
            let listed = message["extra"]["tauritavern"]["agent"]["commits"]
                .as_array()
                .is_some_and(|commits| commits.iter().any(|c| c["commitId"] == commit.as_str()));
            if !listed {
                out.push(format!(
                    "run {run}: commit {commit} is acknowledged in the journal but missing from \
                     its message's commits (a lost commit)"
                ));
            }
            if *reported_index != Some(*index as u64) {
                out.push(format!(
                    "run {run}: the journal acknowledged commit {commit} at message \
                     {reported_index:?} but the run's message is at {index}"
                ));
            }
        }
    }
}

/// One message of `run`: its commits are ones the journal requested, and its text is the
/// text of its latest commit. The message holds the committed file trimmed; the campaign
/// commits texts without surrounding whitespace, so the digests compare as they are.
fn check_message(
    run: &str,
    index: usize,
    message: &Value,
    journal: &Journal,
    out: &mut Vec<String>,
) {
    let requested = &journal.requested;
    let agent = &message["extra"]["tauritavern"]["agent"];
    for commit in agent["commits"].as_array().into_iter().flatten() {
        let id = commit["commitId"].as_str().unwrap_or_default();
        if !requested.contains_key(id) {
            out.push(format!(
                "chat message {index} of run {run} holds commit {id}, which the run's journal \
                 never requested"
            ));
        }
    }
    let latest = agent["commitId"].as_str().unwrap_or_default();
    match requested.get(latest) {
        None => out.push(format!(
            "chat message {index} of run {run} names latest commit {latest:?}, unknown to the \
             run's journal"
        )),
        Some(sha) => {
            let text = message["mes"].as_str().unwrap_or_default();
            if sha256_hex(text.as_bytes()) != *sha {
                out.push(format!(
                    "chat message {index} of run {run}: its text is not the text of commit \
                     {latest} (sha256 differs)"
                ));
            }
        }
    }
}

/// Every `.json` file under `root` (temp files aside) parses; `parsed` remembers the
/// length and modification time of those that did.
fn check_json_documents(
    root: &Path,
    parsed: &mut HashMap<PathBuf, (u64, Option<SystemTime>)>,
    out: &mut Vec<String>,
) {
    for path in walk(root) {
        let temp = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .components()
            .any(|c| is_temp_name(&c.as_os_str().to_string_lossy()));
        if temp || path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let stamp = fs::metadata(&path)
            .map(|m| (m.len(), m.modified().ok()))
            .unwrap_or_default();
        if parsed.get(&path) == Some(&stamp) {
            continue;
        }
        match read_json(&path) {
            Ok(_) => {
                parsed.insert(path, stamp);
            }
            Err(err) => out.push(format!("{}: torn or invalid JSON: {err}", path.display())),
        }
    }
}

/// Every persistent state holds exactly the files its manifest lists, and the chat's
/// browsable `persist/` is one whole state (after recovery: the newest).
fn check_persistent_states(
    data: &Path,
    moment: &Moment,
    sound: &mut HashMap<PathBuf, BTreeMap<String, String>>,
    out: &mut Vec<String>,
) {
    for workspace in children(&data.join("_tauritavern/agent-workspaces/chats")) {
        let mut states: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for state in children(&workspace.join("persistent-states")) {
            let Some(id) = file_name(&state).filter(|n| !is_temp_name(n)) else {
                continue;
            };
            if let Some(files) = sound.get(&state) {
                states.insert(id, files.clone());
                continue;
            }
            let manifest = match read_json(&state.join("manifest.json")) {
                Ok(manifest) => manifest,
                Err(err) => {
                    out.push(format!("persistent state {id}: manifest.json: {err}"));
                    continue;
                }
            };
            let listed: BTreeMap<String, String> = manifest["files"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| {
                    Some((
                        f["path"].as_str()?.to_owned(),
                        f["sha256"].as_str()?.to_owned(),
                    ))
                })
                .collect();
            let held = tree_digests(&state, "persist");
            if held == listed {
                sound.insert(state.clone(), listed.clone());
            } else {
                out.push(format!(
                    "persistent state {id}: its files do not match its manifest (a torn state)"
                ));
            }
            states.insert(id, listed);
        }
        let browsable = tree_digests(&workspace, "persist");
        let whole = states.values().any(|files| *files == browsable)
            || (states.is_empty() && browsable.is_empty());
        if !whole {
            out.push(format!(
                "{}: the browsable persist/ is no whole persistent state (a torn refresh)",
                workspace.display()
            ));
        }
        if let Moment::AfterRecovery { newest_state } = moment
            && let Some(newest) = states.get(newest_state)
            && *newest != browsable
        {
            out.push(format!(
                "{}: the browsable persist/ does not show the newest state {newest_state}",
                workspace.display()
            ));
        }
    }
}

/// After the next run nothing staged is left: no temp file or folder anywhere, and
/// SillyTavern's chat folders hold only chats.
fn check_leftovers(data: &Path, out: &mut Vec<String>) {
    let mut stack = vec![data.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for path in children(&dir) {
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            let relative = path.strip_prefix(data).unwrap_or(&path);
            let name = file_name(&path).unwrap_or_default();
            // An empty `.staging/` is where the next writer stages; what it holds is litter.
            let temp = is_temp_name(&name) || (name == ".staging" && !children(&path).is_empty());
            let in_chats = relative
                .components()
                .next()
                .is_some_and(|c| c.as_os_str() == "chats" || c.as_os_str() == "group chats");
            if meta.is_dir() && !temp {
                stack.push(path);
                continue;
            }
            let not_a_chat = path.extension().is_none_or(|e| e != "jsonl");
            if !(temp || (in_chats && not_a_chat)) {
                continue;
            }
            let size = if meta.is_dir() {
                walk(&path)
                    .iter()
                    .filter_map(|f| fs::metadata(f).ok())
                    .map(|m| m.len())
                    .sum()
            } else {
                meta.len()
            };
            let what = if meta.is_dir() { "folder" } else { "file" };
            let shown = relative.display();
            if in_chats {
                out.push(format!(
                    "leftover {what} in SillyTavern's chat folder after the next run: {shown} \
                     ({size} bytes). A chat write cut by the kill staged it beside the chat, \
                     where SillyTavern sees it, and no later open removed it: temp files \
                     belong outside SillyTavern's folders and stale ones must be cleaned on \
                     the next open"
                ));
            } else {
                out.push(format!(
                    "leftover temp {what} after the next run: {shown} ({size} bytes), staged \
                     by a writer the kill cut and never cleaned up"
                ));
            }
        }
    }
}

/// `.<name>.tmp-<uuid>`, `.cp_000001.tmp-<uuid>`, `.persist.tmp-<uuid>`,
/// `.persist.old-<uuid>`: what the stores stage before a rename.
fn is_temp_name(name: &str) -> bool {
    name.contains(".tmp-") || name.ends_with(".tmp") || name.contains(".old-")
}

/// Path (relative to `dir`, `/`-separated, starting with `root`) → sha256 of every file
/// under `dir/root`.
fn tree_digests(dir: &Path, root: &str) -> BTreeMap<String, String> {
    walk(&dir.join(root))
        .into_iter()
        .filter_map(|path| {
            let relative = path.strip_prefix(dir).ok()?;
            let name = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            Some((name, sha256_hex(&fs::read(&path).ok()?)))
        })
        .collect()
}

/// Every file under `dir` (not following links), in sorted order.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in children(&dir) {
            match fs::symlink_metadata(&entry) {
                Ok(meta) if meta.is_dir() => stack.push(entry),
                Ok(_) => files.push(entry),
                Err(_) => {}
            }
        }
    }
    files.sort();
    files
}

/// The entries of `dir`, sorted; none when it does not exist.
fn children(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    entries
}

fn file_name(path: &Path) -> Option<String> {
    Some(path.file_name()?.to_string_lossy().into_owned())
}

fn read_json(path: &Path) -> Result<Value, String> {
    let bytes = fs::read(path).map_err(|err| err.to_string())?;
    serde_json::from_slice(&bytes).map_err(|err| err.to_string())
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn preview(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let cut: String = text.chars().take(80).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

#[cfg(test)]
mod tests;
