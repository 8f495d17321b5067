//! Per-invocation read-state: what a model has seen of each workspace file, and the
//! compare-and-swap rules that keep its writes and patches grounded in that text.
//!
//! The book lives in one invocation's tool session and is never shared: a child or handoff
//! target starts empty. Hashes arrive as hex strings computed by the caller.
//!
//! Rules in short: a replace of an existing file needs *some* read-state whose sha matches
//! the file; a patch needs its `old_string` to be observed text (anywhere after a full read,
//! inside one read fragment after partial reads); any failed patch built on a partial read
//! makes the next patch of that file wait for a full read.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::ErrorCode;
use crate::workspace::WorkspacePath;

/// What the model has seen of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileReadState {
    /// Hex sha256 of the file version the state describes.
    pub sha256: String,
    /// The whole file is known: it was read in full, or written whole by this invocation.
    pub full: bool,
    /// Text fragments read by partial reads of this version (empty when `full`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observed: Vec<String>,
    /// Sticky: a patch based on a partial read failed, so the next patch needs a full read.
    #[serde(default)]
    pub patch_requires_full_read: bool,
}

impl FileReadState {
    fn full(sha256: &str) -> Self {
        Self {
            sha256: sha256.to_owned(),
            full: true,
            observed: Vec::new(),
            patch_requires_full_read: false,
        }
    }
}

/// Whether a permitted patch rests on a full or a partial read. Callers use it to word
/// messages; [`ReadStateBook::record_patch`] needs no hint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchBasis {
    /// The whole file is known.
    FullRead,
    /// `old_string` lies inside a fragment of a partial read.
    PartialRead,
}

/// One invocation's read-state, keyed by workspace path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ReadStateBook {
    files: BTreeMap<WorkspacePath, FileReadState>,
}

impl ReadStateBook {
    /// An empty book, for a new invocation.
    pub fn new() -> Self {
        Self::default()
    }

    /// The state of `path`, if the model has read or written it.
    pub fn get(&self, path: &WorkspacePath) -> Option<&FileReadState> {
        self.files.get(path)
    }

    /// Records a successful read of version `sha256`.
    ///
    /// A complete window (every line, none cut) makes the state full and clears the sticky
    /// flag. A partial read of a different version starts over from that version (keeping
    /// the flag); unless the state is full, `observed_text` (the window's plain text) is
    /// added as a fragment.
    pub fn record_read(
        &mut self,
        path: &WorkspacePath,
        sha256: &str,
        window_complete: bool,
        observed_text: &str,
    ) {
        if window_complete {
            self.files.insert(path.clone(), FileReadState::full(sha256));
            return;
        }
        let state = self
            .files
            .entry(path.clone())
            .or_insert_with(|| FileReadState {
                sha256: sha256.to_owned(),
                full: false,
                observed: Vec::new(),
                patch_requires_full_read: false,
            });
        if state.sha256 != sha256 {
            state.sha256 = sha256.to_owned();
            state.full = false;
            state.observed.clear();
        }
        if !state.full
            && !observed_text.is_empty()
            && !state.observed.iter().any(|seen| seen == observed_text)
        {
            state.observed.push(observed_text.to_owned());
        }
    }

    /// May a `replace` write go ahead? `current_sha256` is `None` when the file does not
    /// exist (creating needs no read). An existing file needs some read-state, partial is
    /// enough, whose sha matches the file.
    pub fn check_replace_write(
        &self,
        path: &WorkspacePath,
        current_sha256: Option<&str>,
    ) -> Result<(), ReadStateError> {
        let Some(current) = current_sha256 else {
            return Ok(());
        };
        match self.files.get(path) {
            None => Err(ReadStateError::WriteRequiresRead { path: path.clone() }),
            Some(state) if state.sha256 != current => {
                Err(ReadStateError::WriteStale { path: path.clone() })
            }
            Some(_) => Ok(()),
        }
    }

    /// Records a successful `replace` write: the model wrote the whole file, so knows it.
    pub fn record_replace_write(&mut self, path: &WorkspacePath, new_sha256: &str) {
        self.files
            .insert(path.clone(), FileReadState::full(new_sha256));
    }

    /// Records a successful `append`. The file becomes fully known only when the append
    /// created it (`previous_sha256` is `None`) or the model already knew the whole previous
    /// version; otherwise the state is left alone, so unread content never becomes a basis
    /// for a later rewrite or patch (the next replace finds the sha changed).
    pub fn record_append(
        &mut self,
        path: &WorkspacePath,
        previous_sha256: Option<&str>,
        new_sha256: &str,
    ) {
        let knew_previous = match previous_sha256 {
            None => true,
            Some(previous) => self
                .files
                .get(path)
                .is_some_and(|state| state.full && state.sha256 == previous),
        };
        if knew_previous {
            self.files
                .insert(path.clone(), FileReadState::full(new_sha256));
        }
    }

    /// May a patch go ahead? Checks, in order: some read-state; no sticky full-read flag;
    /// after a partial read, no `replace_all` and `old_string` inside one observed fragment;
    /// the file unchanged since (`current_sha256`); `match_count` (occurrences of
    /// `old_string` in the current file) is 1, or at least 1 with `replace_all`.
    ///
    /// A failure based on a partial read sets the sticky flag, hence `&mut self`. Run
    /// [`check_patch_strings`] first.
    pub fn check_patch(
        &mut self,
        path: &WorkspacePath,
        current_sha256: &str,
        old_string: &str,
        replace_all: bool,
        match_count: usize,
    ) -> Result<PatchBasis, ReadStateError> {
        let Some(state) = self.files.get_mut(path) else {
            return Err(ReadStateError::PatchRequiresRead { path: path.clone() });
        };
        let partial = !state.full;
        let fail = |state: &mut FileReadState, error: ReadStateError| {
            if partial {
                state.patch_requires_full_read = true;
            }
            Err(error)
        };
        let needs_full_read = |reason| ReadStateError::PatchRequiresFullRead {
            path: path.clone(),
            reason,
        };

        if state.patch_requires_full_read {
            return Err(needs_full_read(FullReadReason::EarlierPatchFailed));
        }
        if partial && replace_all {
            return fail(state, needs_full_read(FullReadReason::ReplaceAll));
        }
        if partial
            && !state
                .observed
                .iter()
                .any(|fragment| fragment.contains(old_string))
        {
            return fail(state, needs_full_read(FullReadReason::NotObserved));
        }
        if state.sha256 != current_sha256 {
            let error = ReadStateError::PatchStale {
                path: path.clone(),
                partial,
            };
            return fail(state, error);
        }
        if match_count == 0 {
            let error = ReadStateError::PatchOldStringNotFound {
                path: path.clone(),
                partial,
            };
            return fail(state, error);
        }
        if match_count > 1 && !replace_all {
            let error = ReadStateError::PatchOldStringNotUnique {
                path: path.clone(),
                matches: match_count,
                partial,
            };
            return fail(state, error);
        }
        Ok(if partial {
            PatchBasis::PartialRead
        } else {
            PatchBasis::FullRead
        })
    }

    /// Records that a patch permitted by [`Self::check_patch`] failed later (the guarded
    /// write found the file changed). Like any failed patch on a partial read, it sets the
    /// sticky flag.
    pub fn record_failed_patch(&mut self, path: &WorkspacePath) {
        if let Some(state) = self.files.get_mut(path)
            && !state.full
        {
            state.patch_requires_full_read = true;
        }
    }

    /// Records a successful patch that produced version `new_sha256`. A full state stays
    /// full; a partial state moves to the new version with the first occurrence of
    /// `old_string` in each fragment replaced, and the sticky flag cleared.
    pub fn record_patch(
        &mut self,
        path: &WorkspacePath,
        old_string: &str,
        new_string: &str,
        new_sha256: &str,
    ) {
        let Some(state) = self.files.get_mut(path) else {
            return;
        };
        state.sha256 = new_sha256.to_owned();
        state.patch_requires_full_read = false;
        for fragment in &mut state.observed {
            *fragment = fragment.replacen(old_string, new_string, 1);
        }
    }
}

/// The argument checks of `workspace_apply_patch` that need no file: an empty
/// `old_string`, or a patch that would change nothing.
pub fn check_patch_strings(old_string: &str, new_string: &str) -> Result<(), ReadStateError> {
    if old_string.is_empty() {
        return Err(ReadStateError::PatchEmptyOldString);
    }
    if old_string == new_string {
        return Err(ReadStateError::PatchNoChange);
    }
    Ok(())
}

/// Why a patch must wait for a full read of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FullReadReason {
    /// An earlier patch of this file based on a partial read failed.
    EarlierPatchFailed,
    /// `replace_all` could change parts of the file the model has not read.
    ReplaceAll,
    /// `old_string` is not inside any one fragment the model has read.
    NotObserved,
}

/// A write or patch the read-state rules refuse. All are recoverable: the message tells the
/// model what to read next.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadStateError {
    #[error("`{path}` already exists; read it with workspace_read_file before rewriting it")]
    WriteRequiresRead { path: WorkspacePath },
    #[error(
        "`{path}` changed since you last read or wrote it; \
         read it again with workspace_read_file before rewriting it"
    )]
    WriteStale { path: WorkspacePath },
    #[error(
        "read `{path}` with workspace_read_file before patching it; \
         old_string must be text you have read"
    )]
    PatchRequiresRead { path: WorkspacePath },
    #[error("{}; {READ_WHOLE_FILE}", full_read_reason(*reason, path))]
    PatchRequiresFullRead {
        path: WorkspacePath,
        reason: FullReadReason,
    },
    #[error("`{path}` changed since you last read it; {}", stale_advice(*partial))]
    PatchStale { path: WorkspacePath, partial: bool },
    #[error("old_string was not found in `{path}`; {}", not_found_advice(*partial))]
    PatchOldStringNotFound { path: WorkspacePath, partial: bool },
    #[error("old_string matched {matches} times in `{path}`; {}", not_unique_advice(*partial))]
    PatchOldStringNotUnique {
        path: WorkspacePath,
        matches: usize,
        partial: bool,
    },
    #[error("old_string must not be empty; give the exact text to replace")]
    PatchEmptyOldString,
    #[error("old_string and new_string are identical, so the patch would change nothing")]
    PatchNoChange,
}

/// The way out of every failure based on a partial read.
const READ_WHOLE_FILE: &str = "read the whole file with workspace_read_file \
     (omit start_line and line_count) before patching it again";

fn stale_advice(partial: bool) -> &'static str {
    if partial {
        READ_WHOLE_FILE
    } else {
        "read it again with workspace_read_file before patching it"
    }
}

fn not_found_advice(partial: bool) -> &'static str {
    if partial {
        READ_WHOLE_FILE
    } else {
        "copy it exactly from the text you read, without the `N | ` line-number prefixes"
    }
}

fn not_unique_advice(partial: bool) -> &'static str {
    if partial {
        "read the whole file with workspace_read_file (omit start_line and line_count), \
         then include more surrounding text in old_string or set replace_all=true"
    } else {
        "include more surrounding text in old_string, or set replace_all=true"
    }
}

fn full_read_reason(reason: FullReadReason, path: &WorkspacePath) -> String {
    match reason {
        FullReadReason::EarlierPatchFailed => {
            format!("an earlier patch of `{path}` based on a partial read failed")
        }
        FullReadReason::ReplaceAll => {
            format!("replace_all could change parts of `{path}` you have not read")
        }
        FullReadReason::NotObserved => {
            format!("old_string is not inside any single stretch of `{path}` you have read")
        }
    }
}

impl ErrorCode for ReadStateError {
    fn code(&self) -> &'static str {
        match self {
            Self::WriteRequiresRead { .. } => "workspace.write_requires_read",
            Self::WriteStale { .. } => "workspace.write_stale_file",
            Self::PatchRequiresRead { .. } => "workspace.patch_requires_read",
            Self::PatchRequiresFullRead { .. } => "workspace.patch_requires_full_read",
            Self::PatchStale { .. } => "workspace.patch_stale_file",
            Self::PatchOldStringNotFound { .. } => "workspace.patch_old_string_not_found",
            Self::PatchOldStringNotUnique { .. } => "workspace.patch_old_string_not_unique",
            Self::PatchEmptyOldString => "workspace.patch_empty_old_string",
            Self::PatchNoChange => "workspace.patch_no_change",
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn path() -> WorkspacePath {
        WorkspacePath::parse("output/main.md").unwrap()
    }

    /// One tool call in a scenario. Checks that pass are followed by the matching record.
    #[derive(Debug)]
    enum Step {
        /// workspace_read_file of version `sha`.
        Read {
            sha: &'static str,
            complete: bool,
            text: &'static str,
        },
        /// A `replace` write: check against the file's current sha, record `new` on success.
        Replace {
            current: Option<&'static str>,
            new: &'static str,
            expect: Result<(), &'static str>,
        },
        /// A successful `append` from `previous` (None: the file was created) to `new`.
        Append {
            previous: Option<&'static str>,
            new: &'static str,
        },
        /// A patch of the file at `current` where old_string occurs `matches` times.
        Patch {
            current: &'static str,
            old: &'static str,
            replace_all: bool,
            matches: usize,
            new: &'static str,
            expect: Result<PatchBasis, &'static str>,
        },
    }

    use Step::*;

    const REQUIRES_FULL: &str = "workspace.patch_requires_full_read";

    fn patch(
        current: &'static str,
        old: &'static str,
        matches: usize,
        expect: Result<PatchBasis, &'static str>,
    ) -> Step {
        Patch {
            current,
            old,
            replace_all: false,
            matches,
            new: "after-patch",
            expect,
        }
    }

    fn patch_all(current: &'static str, expect: Result<PatchBasis, &'static str>) -> Step {
        Patch {
            current,
            old: "x",
            replace_all: true,
            matches: 2,
            new: "after-patch",
            expect,
        }
    }

    fn full_read(sha: &'static str, text: &'static str) -> Step {
        Read {
            sha,
            complete: true,
            text,
        }
    }

    fn partial_read(sha: &'static str, text: &'static str) -> Step {
        Read {
            sha,
            complete: false,
            text,
        }
    }

    fn append(previous: Option<&'static str>, new: &'static str) -> Step {
        Append { previous, new }
    }

    fn replace(current: Option<&'static str>, expect: Result<(), &'static str>) -> Step {
        Replace {
            current,
            new: "after-write",
            expect,
        }
    }

    fn run(name: &str, steps: &[Step]) {
        let mut book = ReadStateBook::new();
        let p = path();
        for (index, step) in steps.iter().enumerate() {
            let at = format!("{name}, step {index}: {step:?}");
            match *step {
                Read {
                    sha,
                    complete,
                    text,
                } => book.record_read(&p, sha, complete, text),
                Replace {
                    current,
                    new,
                    expect,
                } => {
                    let outcome = book.check_replace_write(&p, current);
                    assert_eq!(
                        outcome.as_ref().map(|_| ()).map_err(|e| e.code()),
                        expect,
                        "{at}"
                    );
                    if outcome.is_ok() {
                        book.record_replace_write(&p, new);
                    }
                }
                Append { previous, new } => book.record_append(&p, previous, new),
                Patch {
                    current,
                    old,
                    replace_all,
                    matches,
                    new,
                    expect,
                } => {
                    let outcome = book.check_patch(&p, current, old, replace_all, matches);
                    assert_eq!(
                        outcome.as_ref().map_err(|e| e.code()).copied(),
                        expect,
                        "{at}"
                    );
                    if outcome.is_ok() {
                        book.record_patch(&p, old, "patched", new);
                    }
                }
            }
        }
    }

    #[test]
    fn read_state_matrix() {
        use PatchBasis::{FullRead, PartialRead};
        let scenarios: Vec<(&str, Vec<Step>)> = vec![
            (
                "full read, then replace, then replace again after the own write",
                vec![
                    full_read("s1", "a\nb"),
                    replace(Some("s1"), Ok(())),
                    replace(Some("after-write"), Ok(())),
                ],
            ),
            (
                "a partial read is enough for replace",
                vec![partial_read("s1", "a"), replace(Some("s1"), Ok(()))],
            ),
            (
                "replacing an unread existing file",
                vec![replace(Some("s1"), Err("workspace.write_requires_read"))],
            ),
            (
                "the file changed outside after the read",
                vec![
                    full_read("s1", "a"),
                    replace(Some("s9"), Err("workspace.write_stale_file")),
                ],
            ),
            (
                "creating a file needs no read and makes it fully known",
                vec![
                    replace(None, Ok(())),
                    patch_all("after-write", Ok(FullRead)),
                ],
            ),
            (
                "append after a partial read leaves the state, so the next replace is stale",
                vec![
                    partial_read("s1", "a"),
                    append(Some("s1"), "s2"),
                    replace(Some("s2"), Err("workspace.write_stale_file")),
                ],
            ),
            (
                "append to an unread file records nothing",
                vec![
                    append(Some("s1"), "s2"),
                    replace(Some("s2"), Err("workspace.write_requires_read")),
                ],
            ),
            (
                "append after a full read of the same version stays full",
                vec![
                    full_read("s1", "a"),
                    append(Some("s1"), "s2"),
                    replace(Some("s2"), Ok(())),
                ],
            ),
            (
                "append after a full read of an older version leaves the old state",
                vec![
                    full_read("s0", "a"),
                    append(Some("s1"), "s2"),
                    replace(Some("s2"), Err("workspace.write_stale_file")),
                ],
            ),
            (
                "append creating a new file makes it fully known",
                vec![append(None, "s1"), patch_all("s1", Ok(FullRead))],
            ),
            (
                "patch without any read",
                vec![patch("s1", "x", 1, Err("workspace.patch_requires_read"))],
            ),
            (
                "a failed patch after a partial read needs a full read, which clears it",
                vec![
                    partial_read("s1", "alpha beta"),
                    patch(
                        "s1",
                        "alpha",
                        2,
                        Err("workspace.patch_old_string_not_unique"),
                    ),
                    patch("s1", "alpha beta", 1, Err(REQUIRES_FULL)),
                    partial_read("s1", "alpha beta"),
                    patch("s1", "alpha beta", 1, Err(REQUIRES_FULL)),
                    full_read("s1", "alpha beta\ngamma"),
                    patch("s1", "alpha beta", 1, Ok(FullRead)),
                ],
            ),
            (
                "replace_all after a partial read needs a full read, and the flag sticks",
                vec![
                    partial_read("s1", "x"),
                    patch_all("s1", Err(REQUIRES_FULL)),
                    patch("s1", "x", 1, Err(REQUIRES_FULL)),
                ],
            ),
            (
                "replace_all after a full read",
                vec![full_read("s1", "x x"), patch_all("s1", Ok(FullRead))],
            ),
            (
                "old_string spanning two fragments needs a full read",
                vec![
                    partial_read("s1", "one\ntwo"),
                    partial_read("s1", "three\nfour"),
                    patch("s1", "two\nthree", 1, Err(REQUIRES_FULL)),
                ],
            ),
            (
                "old_string inside one fragment; the patched fragment stays usable",
                vec![
                    partial_read("s1", "one\ntwo"),
                    partial_read("s1", "three\nfour"),
                    patch("s1", "two", 1, Ok(PartialRead)),
                    patch("after-patch", "one\npatched", 1, Ok(PartialRead)),
                    patch("after-patch", "four", 1, Ok(PartialRead)),
                ],
            ),
            (
                "a stale patch after a partial read sets the flag, which a new partial read keeps",
                vec![
                    partial_read("s1", "x"),
                    patch("s2", "x", 1, Err("workspace.patch_stale_file")),
                    partial_read("s2", "x"),
                    patch("s2", "x", 1, Err(REQUIRES_FULL)),
                ],
            ),
            (
                "a stale patch after a full read sets no flag",
                vec![
                    full_read("s1", "x"),
                    patch("s2", "x", 1, Err("workspace.patch_stale_file")),
                    partial_read("s2", "x"),
                    patch("s2", "x", 1, Ok(PartialRead)),
                ],
            ),
            (
                "old_string not found after a full read can be retried",
                vec![
                    full_read("s1", "x"),
                    patch("s1", "y", 0, Err("workspace.patch_old_string_not_found")),
                    patch("s1", "x", 1, Ok(FullRead)),
                ],
            ),
            (
                "old_string not found after a partial read sets the flag",
                vec![
                    partial_read("s1", "x"),
                    patch("s1", "x", 0, Err("workspace.patch_old_string_not_found")),
                    patch("s1", "x", 1, Err(REQUIRES_FULL)),
                ],
            ),
            (
                "a partial read after a full read of the same version keeps it full",
                vec![
                    full_read("s1", "x\ny"),
                    partial_read("s1", "x"),
                    patch_all("s1", Ok(FullRead)),
                ],
            ),
            (
                "a partial read of a new version drops the old fragments",
                vec![
                    partial_read("s1", "old text"),
                    partial_read("s2", "new"),
                    patch("s2", "old text", 1, Err(REQUIRES_FULL)),
                ],
            ),
            (
                "the rules apply in order: the flag comes before staleness",
                vec![
                    partial_read("s1", "x"),
                    patch_all("s1", Err(REQUIRES_FULL)),
                    patch("s9", "x", 0, Err(REQUIRES_FULL)),
                ],
            ),
        ];
        for (name, steps) in &scenarios {
            run(name, steps);
        }
    }

    #[test]
    fn patches_update_partial_state() {
        let p = path();
        let mut book = ReadStateBook::new();
        book.record_read(&p, "s1", false, "a b a");
        book.record_read(&p, "s1", false, "c");
        book.record_read(&p, "s1", false, "c");
        assert_eq!(book.get(&p).unwrap().observed, ["a b a", "c"]);
        assert_eq!(
            book.check_patch(&p, "s1", "a", false, 1),
            Ok(PatchBasis::PartialRead)
        );
        book.record_patch(&p, "a", "z", "s2");
        assert_eq!(
            book.get(&p),
            Some(&FileReadState {
                sha256: "s2".into(),
                full: false,
                observed: vec!["z b a".into(), "c".into()],
                patch_requires_full_read: false,
            })
        );
    }

    #[test]
    fn a_late_write_conflict_sets_the_flag_only_for_partial_reads() {
        let p = path();
        let mut book = ReadStateBook::new();
        book.record_read(&p, "s1", false, "x");
        book.record_failed_patch(&p);
        assert!(book.get(&p).unwrap().patch_requires_full_read);

        let mut full = ReadStateBook::new();
        full.record_read(&p, "s1", true, "x");
        full.record_failed_patch(&p);
        assert!(!full.get(&p).unwrap().patch_requires_full_read);
    }

    #[test]
    fn string_prechecks() {
        assert_eq!(
            check_patch_strings("", "x").unwrap_err().code(),
            "workspace.patch_empty_old_string"
        );
        assert_eq!(
            check_patch_strings("x", "x").unwrap_err().code(),
            "workspace.patch_no_change"
        );
        assert_eq!(check_patch_strings("x", ""), Ok(()));
    }

    #[test]
    fn messages_name_the_path_and_the_next_tool() {
        let p = path();
        let errors = [
            ReadStateError::WriteRequiresRead { path: p.clone() },
            ReadStateError::WriteStale { path: p.clone() },
            ReadStateError::PatchRequiresRead { path: p.clone() },
            ReadStateError::PatchRequiresFullRead {
                path: p.clone(),
                reason: FullReadReason::NotObserved,
            },
            ReadStateError::PatchStale {
                path: p.clone(),
                partial: false,
            },
            ReadStateError::PatchOldStringNotFound {
                path: p.clone(),
                partial: true,
            },
            ReadStateError::PatchOldStringNotUnique {
                path: p.clone(),
                matches: 3,
                partial: true,
            },
        ];
        for error in &errors {
            let message = error.to_string();
            assert!(message.contains("`output/main.md`"), "{message}");
            assert!(
                message.contains("workspace_read_file")
                    || error.code() == "workspace.patch_old_string_not_found",
                "{message}"
            );
        }
        assert_eq!(
            errors[3].to_string(),
            "old_string is not inside any single stretch of `output/main.md` you have read; \
             read the whole file with workspace_read_file (omit start_line and line_count) \
             before patching it again"
        );
        assert_eq!(
            ReadStateError::PatchOldStringNotUnique {
                path: p,
                matches: 2,
                partial: false
            }
            .to_string(),
            "old_string matched 2 times in `output/main.md`; include more surrounding text in \
             old_string, or set replace_all=true"
        );
    }

    #[test]
    fn the_book_round_trips_as_json() {
        let p = path();
        let mut book = ReadStateBook::new();
        book.record_read(&p, "s1", false, "x");
        book.record_failed_patch(&p);
        let json = serde_json::to_value(&book).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "output/main.md": {
                    "sha256": "s1", "full": false, "observed": ["x"],
                    "patchRequiresFullRead": true
                }
            })
        );
        let back: ReadStateBook = serde_json::from_value(json).unwrap();
        assert_eq!(back, book);
    }
}
