#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The binary on real-shaped SillyTavern data (`tests/data/sillytavern/`, a TauriTavern
//! install written from SillyTavern's formats): names from cards and personas rather than
//! chat headers, world info activated from the card's lorebook, replies, swipes and group
//! replies shaped as SillyTavern writes them, rollback to the exact bytes, TauriTavern's
//! skill layout.

mod sillytavern_support;

use serde_json::{Value, json};

use sillytavern_support::{CURRENT_CHAT, Corpus, GROUP_CHAT, OLD_CHAT, run_id_of, scrub};

/// Reads the activated world info, writes the reply, commits it and finishes.
fn lore_script(reply: &str) -> Value {
    json!({"turns": [
        {"tool_calls": [{"name": "worldinfo_read_activated", "arguments": {}}]},
        {"tool_calls": [{"name": "workspace_write_file",
                         "arguments": {"path": "output/main.md", "content": reply}}]},
        {"tool_calls": [{"name": "workspace_commit", "arguments": {"reason": "the reply"}}]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
    ]})
}

fn reply_script(reply: &str) -> Value {
    json!({"turns": [
        {"tool_calls": [{"name": "workspace_write_file",
                         "arguments": {"path": "output/main.md", "content": reply}}]},
        {"tool_calls": [{"name": "workspace_commit", "arguments": {}}]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
    ]})
}

fn last_message(corpus: &Corpus, chat: &str) -> Value {
    serde_json::from_str(corpus.lines(chat).last().unwrap()).unwrap()
}

#[test]
fn a_reply_in_a_current_chat_is_named_after_the_card_and_reads_the_lore() {
    let corpus = Corpus::new();
    let before = corpus.lines(CURRENT_CHAT);
    let reply = "*Seraphina lifts the lantern.* Shadowfangs fear this light.\n";
    let assert = corpus.run(CURRENT_CHAT, &lore_script(reply), &[]).success();
    let run_id = run_id_of(&assert);

    let lines = corpus.lines(CURRENT_CHAT);
    assert_eq!(lines.len(), before.len() + 1);
    assert_eq!(
        lines[1..before.len()],
        before[1..],
        "every earlier message keeps its bytes"
    );
    // The sticky Shadowfang entry fired: its timed effect is saved in the header, in the
    // same write, and nothing else there changed.
    let header: Value = serde_json::from_str(&lines[0]).unwrap();
    let sticky = &header["chat_metadata"]["timedWorldInfo"]["sticky"]["Eldoria.2"];
    assert_eq!(
        (&sticky["start"], &sticky["end"], &sticky["protected"]),
        (&json!(4), &json!(7), &json!(false))
    );
    let mut header_before: Value = serde_json::from_str(&before[0]).unwrap();
    header_before["chat_metadata"]["timedWorldInfo"] =
        header["chat_metadata"]["timedWorldInfo"].clone();
    assert_eq!(header, header_before);
    let message = last_message(&corpus, CURRENT_CHAT);
    assert_eq!(message["name"], "Seraphina", "not the header's \"unused\"");
    assert_eq!(message["mes"], reply.trim());
    insta::assert_snapshot!(
        "current_chat_reply_line",
        scrub(lines.last().unwrap(), &before.join("\n"))
    );

    let snapshot = corpus.prompt_snapshot(&run_id);
    assert_eq!(snapshot["assembledBy"]["user"], "Ann");
    assert_eq!(snapshot["assembledBy"]["character"], "Seraphina");
    let activated: Vec<&str> = snapshot["worldInfoActivation"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["displayName"].as_str().unwrap())
        .collect();
    assert_eq!(
        activated,
        ["Eldoria", "Shadowfang", "The glade", "The oath"]
    );
    let results = corpus.tool_results(&run_id);
    let read = &results[0];
    assert_eq!(read["isError"], false, "{read}");
    assert_eq!(read["structured"]["totalEntries"], 4);
    assert!(
        read["content"]
            .as_str()
            .unwrap()
            .contains("worldinfo:Eldoria#2 | Shadowfang"),
        "{read}"
    );
}

#[test]
fn a_user_name_given_on_the_command_line_replaces_the_personas() {
    let corpus = Corpus::new();
    let assert = corpus
        .run(
            CURRENT_CHAT,
            &reply_script("Hello."),
            &["--user-name", "Wren"],
        )
        .success();
    let snapshot = corpus.prompt_snapshot(&run_id_of(&assert));
    assert_eq!(snapshot["assembledBy"]["user"], "Wren");
    let messages = snapshot["chatCompletionPayload"]["messages"].to_string();
    assert!(
        messages.contains("Rest, Wren."),
        "the greeting's {{{{user}}}} is Wren"
    );
    assert!(!messages.contains("{{user}}"));
}

#[test]
fn a_swipe_keeps_earlier_swipes_and_a_rollback_restores_every_byte() {
    let corpus = Corpus::new();
    let original = corpus.chat_text(OLD_CHAT);
    let assert = corpus
        .run(
            OLD_CHAT,
            &reply_script("*She smiles.* A glade older than the kingdom."),
            &["--generation-type", "swipe"],
        )
        .success();
    let run_id = run_id_of(&assert);
    let message = last_message(&corpus, OLD_CHAT);
    assert_eq!(
        message["swipes"],
        json!([
            "A refuge.",
            "*She gestures at the lantern.* A glade I have kept for a very long time.",
            "*She smiles.* A glade older than the kingdom."
        ])
    );
    assert_eq!(message["swipe_id"], 2);
    assert_ne!(
        message["gen_started"], "2024-09-28T08:12:30.000Z",
        "no stale timing"
    );
    assert_eq!(
        message["extra"]["tauritavern"]["agent"]["rollback"],
        json!({"strategy": "deleteSwipe", "swipeId": 2})
    );
    insta::assert_snapshot!(
        "old_chat_swipe_line",
        scrub(corpus.lines(OLD_CHAT).last().unwrap(), &original)
    );

    corpus
        .cmd()
        .args(["runs", "rollback", &run_id])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "message 2: swipe 2 removed, the message is as it was before the run",
        ));
    assert_eq!(corpus.chat_text(OLD_CHAT), original);
    let events = corpus.events(&run_id);
    assert_eq!(events.last().unwrap()["type"], "run_rolled_back");
    let again = corpus
        .cmd()
        .args(["runs", "rollback", &run_id])
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&again.get_output().stderr).into_owned();
    assert!(
        stderr.contains("agent.rollback_already_applied"),
        "{stderr}"
    );
}

#[test]
fn a_regenerate_adds_a_swipe_and_a_new_reply_rolls_back_to_nothing() {
    let corpus = Corpus::new();
    let original = corpus.chat_text(OLD_CHAT);
    let assert = corpus
        .run(
            OLD_CHAT,
            &reply_script("A new take."),
            &["--generation-type", "regenerate"],
        )
        .success();
    let run_id = run_id_of(&assert);
    let message = last_message(&corpus, OLD_CHAT);
    assert_eq!(message["swipes"].as_array().unwrap().len(), 3);
    assert_eq!(message["mes"], "A new take.");
    corpus
        .cmd()
        .args(["runs", "rollback", &run_id, "--json"])
        .assert()
        .success();
    assert_eq!(corpus.chat_text(OLD_CHAT), original);

    let before = corpus.chat_text(CURRENT_CHAT);
    let assert = corpus
        .run(CURRENT_CHAT, &reply_script("Hush."), &[])
        .success();
    let run_id = run_id_of(&assert);
    assert_ne!(
        corpus.lines(CURRENT_CHAT)[0],
        before.split('\n').next().unwrap(),
        "the run saved world info's timed effects in the header"
    );
    corpus
        .cmd()
        .args(["runs", "rollback", &run_id])
        .assert()
        .success()
        .stdout(predicates::str::contains("message 4: deleted"))
        .stdout(predicates::str::contains(
            "chat_metadata.timedWorldInfo: as it was before the run",
        ));
    assert_eq!(
        corpus.chat_text(CURRENT_CHAT),
        before,
        "the header's timed effects too"
    );
}

#[test]
fn a_regenerate_of_a_chat_ending_with_the_user_is_a_normal_reply() {
    let corpus = Corpus::new();
    let count = corpus.lines(CURRENT_CHAT).len();
    let assert = corpus
        .run(
            CURRENT_CHAT,
            &reply_script("Here."),
            &["--generation-type", "regenerate"],
        )
        .success();
    let run_id = run_id_of(&assert);
    assert_eq!(corpus.lines(CURRENT_CHAT).len(), count + 1);
    let intent = corpus
        .events(&run_id)
        .into_iter()
        .find(|e| e["type"] == "generation_intent_recorded")
        .unwrap();
    assert_eq!(
        intent["payload"],
        json!({"generationType": "normal", "requestedGenerationType": "regenerate", "source": "cli"})
    );
}

#[test]
fn a_group_reply_is_written_by_the_member_who_speaks() {
    let corpus = Corpus::new();
    let assert = corpus
        .run(
            GROUP_CHAT,
            &reply_script("*Bram strums.* A song of Eldoria!"),
            &[],
        )
        .success();
    let run_id = run_id_of(&assert);
    let message = last_message(&corpus, GROUP_CHAT);
    assert_eq!(message["name"], "Bram", "the member who spoke last");
    assert_eq!(message["original_avatar"], "Bram.png");
    assert_eq!(
        message["force_avatar"],
        "/thumbnail?type=avatar&file=Bram.png"
    );
    assert!(message["extra"]["gen_id"].as_u64().is_some());
    let snapshot = corpus.prompt_snapshot(&run_id);
    assert_eq!(
        snapshot["assembledBy"]["user"], "Sir Aldric",
        "the persona connected to the group"
    );
    assert_eq!(snapshot["assembledBy"]["group"], "Fireside");

    corpus
        .run(
            GROUP_CHAT,
            &reply_script("*Seraphina listens.*"),
            &["--as", "seraphina"],
        )
        .success();
    let message = last_message(&corpus, GROUP_CHAT);
    assert_eq!(
        (&message["name"], &message["original_avatar"]),
        (&json!("Seraphina"), &json!("Seraphina.png"))
    );

    let refused = corpus
        .run(GROUP_CHAT, &reply_script("x"), &["--as", "Nobody"])
        .code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(stderr.contains("chat.member_not_found"), "{stderr}");
}

#[test]
fn a_group_swipe_speaks_as_the_member_who_wrote_the_message() {
    let corpus = Corpus::new();
    corpus
        .run(
            GROUP_CHAT,
            &reply_script("*Seraphina listens.*"),
            &["--as", "Seraphina.png"],
        )
        .success();
    let count = corpus.lines(GROUP_CHAT).len();
    // Bram spoke last before Seraphina's reply; the swipe is still Seraphina's.
    corpus
        .run(
            GROUP_CHAT,
            &reply_script("*Seraphina hums along.*"),
            &["--generation-type", "swipe"],
        )
        .success();
    assert_eq!(corpus.lines(GROUP_CHAT).len(), count);
    let message = last_message(&corpus, GROUP_CHAT);
    assert_eq!(message["name"], "Seraphina");
    assert_eq!(message["original_avatar"], "Seraphina.png");
    assert_eq!(
        message["swipes"],
        json!(["*Seraphina listens.*", "*Seraphina hums along.*"])
    );

    let refused = corpus
        .run(
            GROUP_CHAT,
            &reply_script("x"),
            &["--generation-type", "regenerate", "--as", "bram"],
        )
        .code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(stderr.contains("chat.member_mismatch"), "{stderr}");
    assert_eq!(corpus.lines(GROUP_CHAT).len(), count, "nothing written");
}

#[test]
fn prompt_build_says_which_entries_fired_and_why() {
    let corpus = Corpus::new();
    let assert = corpus
        .cmd()
        .args(["prompt", "build", "--chat", CURRENT_CHAT])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    insta::assert_snapshot!("prompt_build_world_info", stderr);
    let stdout: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(
        stdout["worldInfoActivation"]["entries"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    assert_eq!(
        corpus.lines(CURRENT_CHAT).len(),
        5,
        "a preview writes nothing into the chat"
    );
}

#[test]
fn tauritaverns_skills_are_visible_to_runs_and_the_cli() {
    let corpus = Corpus::new();
    corpus
        .cmd()
        .args(["skills", "list"])
        .assert()
        .success()
        .stdout(predicates::str::contains("herbalism  global"));
    let script = json!({"turns": [
        {"tool_calls": [{"name": "skill_list", "arguments": {}}]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
    ]});
    let assert = corpus
        .run(CURRENT_CHAT, &script, &["--background"])
        .success();
    let results = corpus.tool_results(&run_id_of(&assert));
    assert!(
        results[0]["content"].as_str().unwrap().contains(
            "herbalism: Field notes on the herbs of Eldoria: what grows where, and what each is used for."
        ),
        "{}",
        results[0]
    );
    let index = std::fs::read_to_string(corpus.ours().join("skills/index/skills.json")).unwrap();
    let original = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/sillytavern/data/_tauritavern/skills/index/skills.json"),
    )
    .unwrap();
    assert_eq!(index, original, "a run never rewrites TauriTavern's index");
}

#[test]
fn skills_in_the_old_flat_layout_are_listed_and_moved_into_tauritaverns() {
    let corpus = Corpus::new();
    let skills = corpus.ours().join("skills");
    std::fs::remove_dir_all(&skills).unwrap();
    let flat = skills.join("installed/tea");
    std::fs::create_dir_all(&flat).unwrap();
    std::fs::write(
        flat.join("SKILL.md"),
        "---\nname: tea\ndescription: >\n  Brewing tea\n  for travellers.\n---\n# Tea\n",
    )
    .unwrap();
    std::fs::create_dir_all(skills.join("index")).unwrap();
    std::fs::write(
        skills.join("index/skills.json"),
        r#"[{"name": "tea", "description": "Brewing tea for travellers.", "files": ["SKILL.md"]}]"#,
    )
    .unwrap();
    corpus
        .cmd()
        .args(["skills", "list"])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "tea   global  Brewing tea for travellers.",
        ));
    assert!(
        skills.join("installed/global/tea/SKILL.md").is_file(),
        "moved"
    );
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(skills.join("index/skills.json")).unwrap())
            .unwrap();
    assert_eq!(index["version"], 2, "never a bare array again: {index}");
    assert_eq!(index["skills"][0]["name"], "tea");
}
