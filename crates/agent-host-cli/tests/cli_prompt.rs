#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent prompt build`, and feeding its snapshot back to `run`.

mod cli_support;

use cli_support::*;
use serde_json::Value;

#[test]
fn the_built_prompt_runs_as_a_snapshot() {
    let fx = Fixture::new();
    let built = fx
        .cmd()
        .args(["prompt", "build", "--chat", CHAT, "--json"])
        .assert()
        .code(0);
    let snapshot: Value = serde_json::from_str(&stdout_of(&built)).unwrap();
    let messages = snapshot["chatCompletionPayload"]["messages"]
        .as_array()
        .unwrap();
    assert_eq!(messages[0]["role"], "system");
    let text = serde_json::to_string(messages).unwrap();
    assert!(text.contains("And a bowl of stew."), "{text}");
    // Building a prompt starts no run.
    assert!(fx.run_ids().is_empty());

    let path = fx.write_json("snapshot.json", &snapshot);
    let script = fx.write_json("script.json", &completing_script());
    fx.cmd()
        .args(["run", "--chat", CHAT, "--script"])
        .arg(&script)
        .arg("--prompt-snapshot")
        .arg(&path)
        .assert()
        .code(0);
}

#[test]
fn prompt_build_refuses_bad_input_with_2() {
    let fx = Fixture::new();
    fx.cmd()
        .args(["prompt", "build", "--chat", "Alice/missing.jsonl"])
        .assert()
        .code(2);
    fx.cmd()
        .args(["prompt", "build", "--chat", CHAT, "--profile", "nobody"])
        .assert()
        .code(2);
    // The chat ends with a user message: there is nothing to swipe.
    fx.cmd()
        .args([
            "prompt",
            "build",
            "--chat",
            CHAT,
            "--generation-type",
            "swipe",
        ])
        .assert()
        .code(2);
}
