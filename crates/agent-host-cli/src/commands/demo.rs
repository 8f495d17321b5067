//! `demo`: the whole loop, offline, on bundled sample data in a fresh temporary data
//! directory (kept afterwards so it can be explored).

use std::io::{self, Write};
use std::path::Path;

use agent_application::prompt::PromptInput;
use agent_application::runtime::{RunRequest, StartRun};
use agent_application::scene::SceneRequest;
use agent_domain::run::GenerationType;
use agent_gateway::scripted::ScriptedModel;
use agent_infra_fs::chat::ChatLocator;
use agent_infra_fs::durability::Durability;
use agent_infra_fs::layout::DataDir;

use super::model;
use super::run::{View, drive};
use crate::exit::{CmdResult, Exit, OrCode, OrExit};
use crate::wiring::Host;

/// The chat the demo answers, relative to `chats/`.
const DEMO_CHAT: &str = "Seraphina/Forest Meeting.jsonl";

/// The scripted model's part.
const DEMO_SCRIPT: &str = include_str!("../../demo/script.json");

/// The scripted models of `demo --multi-agent`: the lead writer's turns, then the
/// researchers' and the editor's.
const MULTI_AGENT_SCRIPT: &str = include_str!("../../demo/multi-agent-script.json");

/// The profile that leads `demo --multi-agent`.
const MULTI_AGENT_PROFILE: &str = "lead-writer";

/// Every file of `demo/data/`, by its path in the data directory.
const DEMO_FILES: &[(&str, &[u8])] = &[
    (
        "chats/Seraphina/Forest Meeting.jsonl",
        include_bytes!("../../demo/data/chats/Seraphina/Forest Meeting.jsonl"),
    ),
    (
        "characters/Seraphina.json",
        include_bytes!("../../demo/data/characters/Seraphina.json"),
    ),
    (
        "_tauritavern/skills/installed/global/scene-writing/SKILL.md",
        include_bytes!(
            "../../demo/data/_tauritavern/skills/installed/global/scene-writing/SKILL.md"
        ),
    ),
    (
        "_tauritavern/agent-profiles/profiles/lead-writer.json",
        include_bytes!("../../demo/data/_tauritavern/agent-profiles/profiles/lead-writer.json"),
    ),
    (
        "_tauritavern/agent-profiles/profiles/researcher.json",
        include_bytes!("../../demo/data/_tauritavern/agent-profiles/profiles/researcher.json"),
    ),
    (
        "_tauritavern/agent-profiles/profiles/editor.json",
        include_bytes!("../../demo/data/_tauritavern/agent-profiles/profiles/editor.json"),
    ),
    (
        "_tauritavern/skills/index/skills.json",
        include_bytes!("../../demo/data/_tauritavern/skills/index/skills.json"),
    ),
    // An example MCP registration (server-filesystem through npx). The demo never starts
    // it: it has no cached catalog, every tool is off and the demo profile allows none, so
    // the demo stays offline. `mcp refresh notes` lists its tools.
    (
        "_tauritavern/mcp/servers/5d3b2a7e-8c41-4f6a-9e0b-2b7c1d9f4a63.json",
        include_bytes!(
            "../../demo/data/_tauritavern/mcp/servers/5d3b2a7e-8c41-4f6a-9e0b-2b7c1d9f4a63.json"
        ),
    ),
];

/// Runs the demo; `multi_agent` plays the lead writer, two researchers and an editor.
pub async fn execute(durability: Durability, multi_agent: bool) -> CmdResult {
    let root = tempfile::Builder::new()
        .prefix("tavern-agent-demo-")
        .tempdir()
        .or_code(Exit::Failure, "agent.storage_io")?
        .keep();
    write_files(&root).or_code(Exit::Failure, "agent.storage_io")?;
    say(&format!("demo data directory: {}", root.display()));

    let data = DataDir::new(root.clone());
    let (chat, _) = ChatLocator::resolve(&data, DEMO_CHAT).or_failure()?;
    let (script, profile) = if multi_agent {
        (MULTI_AGENT_SCRIPT, Some(MULTI_AGENT_PROFILE.to_owned()))
    } else {
        (DEMO_SCRIPT, None)
    };
    let model = model::scripted(ScriptedModel::from_json(script).or_failure()?);
    let host = Host::open(data, durability);
    let request = StartRun {
        run: RunRequest {
            chat,
            profile_id: profile,
            generation_type: GenerationType::Normal,
            presentation: None,
            prompt: PromptInput::Assemble,
            model_label: model.run.label,
            model_binding: model.run.binding,
            scene: SceneRequest::default(),
        },
        model: model.run.gateway,
        models: model.binder,
    };
    let outcome = drive(&host, request, View::default()).await?;
    let dir = root.display();
    say(&format!(
        "\nThe demo's data directory is {dir}\n\
         Look around:\n  \
         tavern-agent --data-dir \"{dir}\" runs show {run}\n  \
         tavern-agent --data-dir \"{dir}\" runs events {run}\n  \
         tavern-agent --data-dir \"{dir}\" runs file {run} output/main.md\n  \
         tail -n 1 \"{chat}\"",
        run = outcome.run_id,
        chat = root.join("chats").join(DEMO_CHAT).display(),
    ));
    Ok(Exit::of_run(outcome.status))
}

/// Copies the bundled files into `root`.
fn write_files(root: &Path) -> io::Result<()> {
    for (path, bytes) in DEMO_FILES {
        let target = root.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(target, bytes)?;
    }
    Ok(())
}

fn say(text: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn files_under(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files_under(&path, base, out);
            } else {
                let relative = path.strip_prefix(base).unwrap();
                out.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }

    #[test]
    fn every_demo_file_is_embedded() {
        let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("demo/data");
        let mut on_disk = Vec::new();
        files_under(&base, &base, &mut on_disk);
        on_disk.sort();
        let mut embedded: Vec<String> = DEMO_FILES.iter().map(|(p, _)| (*p).to_owned()).collect();
        embedded.sort();
        assert_eq!(
            embedded, on_disk,
            "list every file of demo/data in DEMO_FILES"
        );
    }

    #[test]
    fn the_script_loads() {
        assert!(ScriptedModel::from_json(DEMO_SCRIPT).is_ok());
    }
}
