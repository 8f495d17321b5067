//! The scripts the campaign plays: random runs (seeded) made of the steps a real agent
//! takes — write, read, patch, write to `persist/`, commit, revise, finish — with scripted
//! delays, so a kill at a random moment lands in a model call, in a tool, in a checkpoint
//! or in a chat commit.

use fastrand::Rng;
use serde_json::{Value, json};

/// The longest scripted delay before one turn, in milliseconds.
const MAX_DELAY_MS: u64 = 120;

/// One run's script and how long it is expected to take uncut.
#[derive(Debug)]
pub struct Scenario {
    pub script: Value,
    /// What the run does, for the progress line (`write 640 KiB, patch, commit, finish`).
    pub summary: String,
    /// Sum of the scripted delays.
    pub delays_ms: u64,
    /// Model turns, each of which costs a model call, a tool call and its audit files.
    pub turns: u32,
}

impl Scenario {
    /// A random run: sometimes a large scratch file first (so writing and checkpointing it
    /// take a while), then a small draft, then a random selection of the other steps, always
    /// with a commit before the finish so the run can complete. Drafts stay small: every
    /// commit lands in the chat, and every later run reads and snapshots the whole chat.
    pub fn random(rng: &mut Rng, iteration: u32) -> Self {
        let mut builder = Builder::new(rng);
        let marker = format!("MARK-{iteration}");
        if builder.rng.u8(..4) == 0 {
            let size = builder.rng.usize(256 * 1024..=1024 * 1024);
            builder.turn(
                &format!("scratch {}", human_size(size)),
                call(
                    "workspace_write_file",
                    json!({"path": "scratch/research.md", "content": draft(iteration, "notes", size)}),
                ),
            );
        }
        let size = builder.rng.usize(200..=4096);
        builder.turn(
            &format!("write {}", human_size(size)),
            call(
                "workspace_write_file",
                json!({"path": "output/main.md", "content": draft(iteration, &marker, size)}),
            ),
        );
        if builder.rng.bool() {
            builder.turn(
                "read",
                call("workspace_read_file", json!({"path": "output/main.md"})),
            );
        }
        let patched = builder.rng.bool();
        if patched {
            builder.turn("patch", patch(&marker, &format!("PATCHED-{iteration}")));
        }
        if builder.rng.bool() {
            // No trailing newline: a chat message keeps a committed text trimmed, and the
            // check compares its digest with the commit's.
            let note = format!("notes of iteration {iteration}");
            builder.turn(
                "persist",
                call(
                    "workspace_write_file",
                    json!({"path": format!("persist/notes-{iteration}.md"), "content": note}),
                ),
            );
        }
        builder.turn(
            "commit",
            call("workspace_commit", json!({"reason": "draft"})),
        );
        if builder.rng.bool() {
            let (from, to) = if patched {
                (
                    format!("PATCHED-{iteration}"),
                    format!("REVISED-{iteration}"),
                )
            } else {
                (marker.clone(), format!("REVISED-{iteration}"))
            };
            builder.turn("revise", patch(&from, &to));
            builder.turn(
                "commit",
                call("workspace_commit", json!({"reason": "revised"})),
            );
        }
        builder.turn(
            "finish",
            call("workspace_finish", json!({"reason": "crash campaign"})),
        );
        builder.build()
    }

    /// The run the campaign makes after each kill: one small commit, no delays. It must
    /// complete on whatever the kill left behind.
    pub fn recovery(iteration: u32) -> Value {
        json!({"turns": [
            {"tool_calls": [call("workspace_write_file", json!({
                "path": "output/main.md",
                "content": format!("Seraphina nods (recovery after kill {iteration})."),
            }))]},
            {"tool_calls": [call("workspace_commit", json!({"reason": "recovery"}))]},
            {"tool_calls": [call("workspace_finish", json!({"reason": "recovered"}))]},
        ]})
    }
}

struct Builder<'a> {
    rng: &'a mut Rng,
    turns: Vec<Value>,
    steps: Vec<String>,
    delays_ms: u64,
}

impl<'a> Builder<'a> {
    fn new(rng: &'a mut Rng) -> Self {
        Self {
            rng,
            turns: Vec::new(),
            steps: Vec::new(),
            delays_ms: 0,
        }
    }

    fn turn(&mut self, step: &str, tool_call: Value) {
        let delay = self.rng.u64(..=MAX_DELAY_MS);
        self.delays_ms += delay;
        self.steps.push(step.to_owned());
        self.turns
            .push(json!({"delay_ms": delay, "tool_calls": [tool_call]}));
    }

    fn build(self) -> Scenario {
        Scenario {
            turns: u32::try_from(self.turns.len()).unwrap_or(u32::MAX),
            script: json!({"turns": self.turns}),
            summary: self.steps.join(", "),
            delays_ms: self.delays_ms,
        }
    }
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

fn patch(old: &str, new: &str) -> Value {
    call(
        "workspace_apply_patch",
        json!({"path": "output/main.md", "old_string": old, "new_string": new}),
    )
}

/// A draft of about `size` bytes holding `marker` exactly once, near the start. It has no
/// surrounding whitespace, so the chat message (the committed file trimmed) is the file
/// byte for byte and the checks can compare digests.
fn draft(iteration: u32, marker: &str, size: usize) -> String {
    let mut text = format!("*Seraphina lifts the lantern ({marker}).*\n\n");
    let line = format!("The glade is quiet; the rain has stopped (kill {iteration}).\n");
    while text.len() < size {
        text.push_str(&line);
    }
    text.trim_end().to_owned()
}

fn human_size(bytes: usize) -> String {
    if bytes >= 1024 {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_are_reproducible_from_the_seed_and_always_commit_then_finish() {
        for seed in 0..50 {
            let a = Scenario::random(&mut Rng::with_seed(seed), 7);
            let b = Scenario::random(&mut Rng::with_seed(seed), 7);
            assert_eq!(a.script, b.script);
            let names: Vec<&str> = a.script["turns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|turn| turn["tool_calls"][0]["name"].as_str().unwrap())
                .collect();
            assert_eq!(names.first(), Some(&"workspace_write_file"));
            let draft = a.script["turns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|turn| &turn["tool_calls"][0]["arguments"])
                .find(|args| args["path"] == "output/main.md")
                .unwrap();
            assert!(draft["content"].as_str().unwrap().len() <= 4096 + 100);
            assert_eq!(names.last(), Some(&"workspace_finish"));
            assert!(names.contains(&"workspace_commit"), "{names:?}");
            assert_eq!(names.len() as u32, a.turns);
            assert!(a.delays_ms <= MAX_DELAY_MS * u64::from(a.turns));
        }
    }

    #[test]
    fn patches_find_their_text() {
        for seed in 0..50 {
            let scenario = Scenario::random(&mut Rng::with_seed(seed), 3);
            let turns = scenario.script["turns"].as_array().unwrap();
            let mut text = turns
                .iter()
                .map(|turn| &turn["tool_calls"][0]["arguments"])
                .find(|args| args["path"] == "output/main.md")
                .and_then(|args| args["content"].as_str())
                .unwrap()
                .to_owned();
            for turn in turns {
                let call = &turn["tool_calls"][0];
                if call["name"] == "workspace_apply_patch" {
                    let old = call["arguments"]["old_string"].as_str().unwrap();
                    assert_eq!(text.matches(old).count(), 1, "{old} in seed {seed}");
                    text = text.replace(old, call["arguments"]["new_string"].as_str().unwrap());
                }
            }
        }
    }
}
