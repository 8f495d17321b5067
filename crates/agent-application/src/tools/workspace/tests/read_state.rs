//! The read-state and compare-and-swap rules, walked through the real tools.

use serde_json::json;

use super::*;

const FILE: &str = "output/main.md";
const ORIGINAL: &str = "alpha\nbeta\ngamma\nbeta\n";

/// One step of a scenario; `Ok(())` or the error code expected.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Someone outside the invocation replaces the file.
    OutsideChange(&'static str),
    /// `workspace_read_file` of the whole file.
    ReadAll,
    /// `workspace_read_file` of `line_count` lines from `start_line`.
    ReadLines(u64, u64),
    Replace(&'static str, Result<(), &'static str>),
    Append(&'static str, Result<(), &'static str>),
    Patch {
        old: &'static str,
        new: &'static str,
        all: bool,
        expect: Result<(), &'static str>,
    },
}

use Step::*;

const fn patch(old: &'static str, new: &'static str, expect: Result<(), &'static str>) -> Step {
    Patch {
        old,
        new,
        all: false,
        expect,
    }
}

const fn patch_all(old: &'static str, new: &'static str, expect: Result<(), &'static str>) -> Step {
    Patch {
        old,
        new,
        all: true,
        expect,
    }
}

const FULL: &str = "workspace.patch_requires_full_read";

/// Each scenario starts with `ORIGINAL` at `FILE`, written by someone else (`None` starts
/// with no file), and ends with the file's expected text.
struct Scenario {
    name: &'static str,
    start: Option<&'static str>,
    steps: Vec<Step>,
    end: &'static str,
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "full read, then replace twice (the own write keeps the state)",
            start: Some(ORIGINAL),
            steps: vec![ReadAll, Replace("one", Ok(())), Replace("two", Ok(()))],
            end: "two",
        },
        Scenario {
            name: "a partial read is enough to replace",
            start: Some(ORIGINAL),
            steps: vec![ReadLines(2, 1), Replace("new", Ok(()))],
            end: "new",
        },
        Scenario {
            name: "replacing an unread file",
            start: Some(ORIGINAL),
            steps: vec![Replace("new", Err("workspace.write_requires_read"))],
            end: ORIGINAL,
        },
        Scenario {
            name: "append after a partial read; the next replace must re-read",
            start: Some(ORIGINAL),
            steps: vec![
                ReadLines(1, 1),
                Append("delta\n", Ok(())),
                Replace("new", Err("workspace.write_stale_file")),
                ReadLines(1, 1),
                Replace("new", Ok(())),
            ],
            end: "new",
        },
        Scenario {
            name: "append after a full read keeps the whole file known",
            start: Some(ORIGINAL),
            steps: vec![
                ReadAll,
                Append("delta\n", Ok(())),
                patch("delta", "epsilon", Ok(())),
            ],
            end: "alpha\nbeta\ngamma\nbeta\nepsilon\n",
        },
        Scenario {
            name: "append creating the file makes it known",
            start: None,
            steps: vec![Append("x x", Ok(())), patch_all("x", "y", Ok(()))],
            end: "y y",
        },
        Scenario {
            name: "creating with replace needs no read and allows replace_all",
            start: None,
            steps: vec![Replace("a a", Ok(())), patch_all("a", "b", Ok(()))],
            end: "b b",
        },
        Scenario {
            name: "a failed patch after a partial read needs a full read",
            start: Some(ORIGINAL),
            steps: vec![
                ReadLines(2, 3),
                patch("beta", "BETA", Err("workspace.patch_old_string_not_unique")),
                patch("gamma", "GAMMA", Err(FULL)),
                ReadLines(2, 3),
                patch("gamma", "GAMMA", Err(FULL)),
                ReadAll,
                patch("gamma", "GAMMA", Ok(())),
            ],
            end: "alpha\nbeta\nGAMMA\nbeta\n",
        },
        Scenario {
            name: "old_string must lie inside one stretch that was read",
            start: Some(ORIGINAL),
            steps: vec![
                ReadLines(1, 1),
                ReadLines(2, 1),
                patch("alpha\nbeta", "x", Err(FULL)),
            ],
            end: ORIGINAL,
        },
        Scenario {
            name: "patches after a partial read keep working inside the read stretch",
            start: Some(ORIGINAL),
            steps: vec![
                ReadLines(1, 3),
                patch("alpha", "ALPHA", Ok(())),
                patch("ALPHA\nbeta", "A\nB", Ok(())),
            ],
            end: "A\nB\ngamma\nbeta\n",
        },
        Scenario {
            name: "an outside change makes replace and patch stale",
            start: Some(ORIGINAL),
            steps: vec![
                ReadAll,
                OutsideChange("alpha\n"),
                Replace("new", Err("workspace.write_stale_file")),
                patch("alpha", "x", Err("workspace.patch_stale_file")),
                ReadAll,
                patch("alpha", "x", Ok(())),
            ],
            end: "x\n",
        },
        Scenario {
            name: "a stale patch after a partial read needs a full read",
            start: Some(ORIGINAL),
            steps: vec![
                ReadLines(1, 1),
                OutsideChange("alpha\nzeta\n"),
                patch("alpha", "x", Err("workspace.patch_stale_file")),
                ReadLines(1, 1),
                patch("alpha", "x", Err(FULL)),
            ],
            end: "alpha\nzeta\n",
        },
        Scenario {
            name: "replace_all after a partial read is refused and sticks",
            start: Some(ORIGINAL),
            steps: vec![
                ReadLines(2, 1),
                patch_all("beta", "BETA", Err(FULL)),
                patch("beta", "BETA", Err(FULL)),
                ReadAll,
                patch_all("beta", "BETA", Ok(())),
            ],
            end: "alpha\nBETA\ngamma\nBETA\n",
        },
        Scenario {
            name: "replace_all after a full read",
            start: Some(ORIGINAL),
            steps: vec![ReadAll, patch_all("beta", "b", Ok(()))],
            end: "alpha\nb\ngamma\nb\n",
        },
        Scenario {
            name: "a preview of a long file is a partial read",
            start: Some(ORIGINAL),
            steps: vec![
                OutsideChange(LONG_MARKER),
                ReadAll,
                patch_all("line", "row", Err(FULL)),
            ],
            end: LONG_MARKER,
        },
    ]
}

/// Stands for a file longer than one read window; replaced by [`long_file`].
const LONG_MARKER: &str = "<long file>";

fn long_file() -> String {
    (1..=1_500).map(|n| format!("line {n}\n")).collect()
}

fn actual(text: &str) -> String {
    if text == LONG_MARKER {
        long_file()
    } else {
        text.to_owned()
    }
}

async fn run(h: &mut Harness, step: Step) -> Result<(), String> {
    let (tool, args) = match step {
        OutsideChange(text) => {
            h.put(FILE, actual(text));
            return Ok(());
        }
        ReadAll => (READ, json!({"path": FILE})),
        ReadLines(start, count) => (
            READ,
            json!({"path": FILE, "start_line": start, "line_count": count}),
        ),
        Replace(content, _) => (WRITE, json!({"path": FILE, "content": content})),
        Append(content, _) => (
            WRITE,
            json!({"path": FILE, "content": content, "mode": "append"}),
        ),
        Patch { old, new, all, .. } => (
            PATCH,
            json!({"path": FILE, "old_string": old, "new_string": new, "replace_all": all}),
        ),
    };
    let result = h.call(tool, args).await.unwrap().result;
    match result.error_code {
        None => Ok(()),
        Some(code) => Err(code),
    }
}

fn expected(step: Step) -> Result<(), &'static str> {
    match step {
        Replace(_, expect) | Append(_, expect) | Patch { expect, .. } => expect,
        OutsideChange(_) | ReadAll | ReadLines(..) => Ok(()),
    }
}

#[tokio::test]
async fn read_state_and_cas_matrix() {
    for scenario in scenarios() {
        let mut h = Harness::new().await;
        if let Some(start) = scenario.start {
            h.put(FILE, actual(start));
        }
        for (index, step) in scenario.steps.iter().enumerate() {
            let outcome = run(&mut h, *step).await;
            assert_eq!(
                outcome,
                expected(*step).map_err(str::to_owned),
                "{}: step {index} {step:?}",
                scenario.name
            );
        }
        assert_eq!(
            h.text(FILE).unwrap_or_default(),
            actual(scenario.end),
            "{}",
            scenario.name
        );
    }
}
