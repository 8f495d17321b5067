//! What the runtime benches share: the scripted work (rounds of write + read + patch, then
//! write, commit, finish), a profile with room for it, a SillyTavern chat, the start
//! request, and the journal of a finished run.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_application::ports::{EventJournal, EventQuery};
use agent_application::runtime::StartRun;
use agent_application::testing::snapshot_request;
use agent_domain::event::{ChatRef, JournalLine};
use agent_domain::profile::default_writer;
use agent_domain::run::RunId;
use agent_gateway::scripted::ScriptedModel;
use agent_infra_fs::FsStorage;
use agent_infra_fs::durability::Durability;
use serde_json::{Value, json};

/// The profile every bench run uses.
pub const PROFILE_ID: &str = "bench-writer";

/// The script (`docs/scripted-model.md`): `work_rounds` rounds of write + read + patch of a
/// new `scratch/r<N>.log`, then a round that writes `output/main.md`, commits and finishes.
/// Model rounds: `work_rounds + 1`; tool calls: `3 * (work_rounds + 1)`.
pub fn script(work_rounds: u32) -> Value {
    let mut turns: Vec<Value> = (1..=work_rounds)
        .map(|n| {
            // Not a publishable text extension: auto-publish (a chat commit per round until the
            // first explicit commit) would otherwise dominate what the benches measure.
            let path = format!("scratch/r{n}.log");
            let content = format!(
                "# Round {n}\n\nThe keeper climbs the stairs ({n}).\nThe lamp is lit at dusk ({n}).\n\
                 The ships pass the rocks ({n}).\n"
            );
            json!({"tool_calls": [
                {"name": "workspace_write_file", "arguments": {"path": path, "content": content}},
                {"name": "workspace_read_file", "arguments": {"path": path}},
                {"name": "workspace_apply_patch", "arguments": {
                    "path": path,
                    "old_string": format!("The lamp is lit at dusk ({n})."),
                    "new_string": format!("The lamp is lit at nightfall ({n})."),
                }},
            ]})
        })
        .collect();
    turns.push(json!({"text": "Done.", "tool_calls": [
        {"name": "workspace_write_file", "arguments": {
            "path": "output/main.md",
            "content": "The keeper, Mara, climbs the hundred steps every dusk."
        }},
        {"name": "workspace_commit", "arguments": {"reason": "final"}},
        {"name": "workspace_finish", "arguments": {"reason": "done"}},
    ]}));
    json!({ "turns": turns })
}

/// The scripted model of [`script`].
pub fn model(work_rounds: u32) -> Arc<ScriptedModel> {
    Arc::new(ScriptedModel::from_json(&script(work_rounds).to_string()).unwrap())
}

/// The default writer, renamed, with room for `rounds` model rounds.
pub fn profile_text(rounds: u32) -> String {
    let mut profile = serde_json::to_value(default_writer()).unwrap();
    profile["id"] = json!(PROFILE_ID);
    profile["displayName"] = json!("Bench Writer");
    profile["tools"]["maxRounds"] = json!(rounds + 9);
    profile["tools"]["maxCallsPerRun"] = json!(3 * rounds + 97);
    serde_json::to_string_pretty(&profile).unwrap()
}

/// Writes a SillyTavern chat of `character` under `data/chats/<character>/chat.jsonl`: a
/// header with a stable id and two messages.
pub fn write_chat(data: &Path, character: &str) {
    let lines = [
        json!({
            "user_name": "Bob",
            "character_name": character,
            "create_date": "2026-01-01@10h00m00s",
            "chat_metadata": {"integrity": format!("stable-bench-chat-{character}")}
        }),
        json!({"name": character, "is_user": false, "is_system": false,
               "send_date": "2026-01-01T10:00:00.000Z", "mes": "The lighthouse is dark tonight.", "extra": {}}),
        json!({"name": "Bob", "is_user": true, "is_system": false,
               "send_date": "2026-01-01T10:01:00.000Z", "mes": "Tell me about the keeper.", "extra": {}}),
    ];
    let folder = data.join("chats").join(character);
    std::fs::create_dir_all(&folder).unwrap();
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(folder.join("chat.jsonl"), text).unwrap();
}

/// The request that starts the bench profile on `character`'s chat with `model`.
pub fn start_request(character: &str, model: &Arc<ScriptedModel>) -> StartRun {
    let chat = ChatRef::Character {
        character_id: character.into(),
        file_name: "chat".into(),
    };
    let mut run = snapshot_request(
        chat,
        "scripted",
        "script",
        json!([
            {"role": "system", "content": format!("You are {character}. Write the next reply.")},
            {"role": "user", "content": "Tell me about the keeper."}
        ]),
    );
    run.profile_id = Some(PROFILE_ID.to_owned());
    StartRun {
        run,
        model: model.clone(),
        models: None,
    }
}

/// tmpfs when the machine has it, so the disk stays out of the figure.
pub fn scratch_root() -> PathBuf {
    let shm = PathBuf::from("/dev/shm");
    if shm.is_dir() {
        shm
    } else {
        std::env::temp_dir()
    }
}

/// The durability policy `$TAVERN_AGENT_DURABILITY` names, else the default.
pub fn durability() -> Durability {
    std::env::var("TAVERN_AGENT_DURABILITY")
        .map(|name| name.parse().unwrap())
        .unwrap_or_default()
}

/// Every journal line of `run`, in order.
pub async fn events(storage: &FsStorage, run: &RunId) -> Vec<JournalLine> {
    let mut events = Vec::new();
    loop {
        let query = EventQuery {
            after_seq: Some(events.last().map_or(0, |line: &JournalLine| line.seq)),
            limit: Some(500),
            ..EventQuery::default()
        };
        let page = storage.journal.read(run, &query).await.unwrap();
        if page.is_empty() {
            return events;
        }
        events.extend(page);
    }
}
