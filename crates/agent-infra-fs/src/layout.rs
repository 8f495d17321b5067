//! Where everything lives in a data directory. The only module that knows the layout.
//!
//! ```text
//! <data>/chats/<character>/<chat>.jsonl        SillyTavern character chats
//! <data>/group chats/<chat-id>.jsonl           SillyTavern group chats
//! <data>/characters/<character>.png|.json      SillyTavern character cards
//! <data>/settings.json                         SillyTavern user settings (read-only)
//! <data>/User Avatars/<avatar>                 SillyTavern persona avatars
//! <data>/worlds/<name>.json                    SillyTavern lorebooks
//! <data>/groups/<id>.json                      SillyTavern groups
//! <data>/_tauritavern/                        (on a TauriTavern install: <data>/../_tauritavern/)
//!   agent-workspaces/.staging/<writer>/        chats being written (see `staging.rs`)
//!   agent-workspaces/maintenance.lock          held by prunes and chat deletions
//!   agent-workspaces/index/runs/<run>.json     run index (mirror of run.json)
//!   agent-workspaces/index/run-summaries/<run>.json
//!   agent-workspaces/chats/<ws>/runs/<run>/    one run (see `RunDir`)
//!   agent-workspaces/chats/<ws>/persistent-states/<state>/
//!   agent-workspaces/chats/<ws>/persist/       newest state, for people to browse
//!   agent-workspaces/.trash/<ws>-<uuid>/       a deleted workspace being removed
//!   agent-profiles/profiles/<id>.json, agent-profiles/.staging/
//!   skills/installed/<scope dir>/<name>/       skills (`global`, `character_<16 hex>`, …)
//!   skills/index/skills.json, skills/.staging/
//!   llm-connections/<name>.json                one saved LLM connection
//!   mcp/, settings.json
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_application::ports::{EntryKind, InputDocument};
use agent_domain::connection::ConnectionName;
use agent_domain::run::{InvocationId, RunId, StateId, WorkspaceId};
use agent_domain::workspace::WorkspaceRoot;

use crate::cancel::CANCEL_REQUEST_FILE;
use crate::stale::{Sweeper, Writer};

/// The folder of everything that is ours rather than SillyTavern's.
const OURS: &str = "_tauritavern";

/// The root of a SillyTavern-shaped user data directory. Equal when the paths are.
#[derive(Debug, Clone)]
pub struct DataDir {
    root: PathBuf,
    /// Where `_tauritavern/` is (see [`DataDir::new`]).
    tauritavern: PathBuf,
    /// This process's writer of the directory: every temp staged in it names the writer,
    /// whose lock is held while any `DataDir` of it lives (see `stale.rs`).
    writer: Arc<Writer>,
}

impl PartialEq for DataDir {
    fn eq(&self, other: &Self) -> bool {
        (&self.root, &self.tauritavern) == (&other.root, &other.tauritavern)
    }
}

impl Eq for DataDir {}

impl DataDir {
    /// The user folder `root` (the one holding `chats/`). Our data lives in
    /// `<root>/_tauritavern/`, except on a TauriTavern install, which keeps `_tauritavern/`
    /// next to its user folders (`data/_tauritavern/` beside `data/default-user/`): when
    /// `root` has no `_tauritavern/` of its own and its parent has one, that one is used, so
    /// our runs, profiles, skills and connections are TauriTavern's.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let own = root.join(OURS);
        let beside = root.parent().map(|parent| parent.join(OURS));
        let tauritavern = match beside {
            Some(beside) if !own.exists() && beside.is_dir() => beside,
            _ => own,
        };
        let writer = Writer::for_data_dir(
            vec![root.clone(), tauritavern.clone()],
            staging_in(&tauritavern),
        );
        Self {
            root,
            tauritavern,
            writer,
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn chats(&self) -> PathBuf {
        self.root.join("chats")
    }

    pub fn group_chats(&self) -> PathBuf {
        self.root.join("group chats")
    }

    /// SillyTavern's character cards (`<character>.png`, or `<character>.json`).
    pub fn characters(&self) -> PathBuf {
        self.root.join("characters")
    }

    /// SillyTavern's own user settings (not ours: see [`Self::settings_file`]).
    pub fn sillytavern_settings_file(&self) -> PathBuf {
        self.root.join("settings.json")
    }

    /// SillyTavern's persona avatars.
    pub fn persona_avatars(&self) -> PathBuf {
        self.root.join("User Avatars")
    }

    /// SillyTavern's lorebooks (`<name>.json`).
    pub fn worlds(&self) -> PathBuf {
        self.root.join("worlds")
    }

    /// SillyTavern's groups (`<id>.json`).
    pub fn groups(&self) -> PathBuf {
        self.root.join("groups")
    }

    pub fn tauritavern(&self) -> PathBuf {
        self.tauritavern.clone()
    }

    pub fn agent_workspaces(&self) -> PathBuf {
        agent_workspaces_in(&self.tauritavern)
    }

    /// Where files bound for SillyTavern's folders are staged before they are renamed there
    /// (see `staging.rs`): ours, and on the same file system as the chats.
    pub fn staging(&self) -> PathBuf {
        staging_in(&self.tauritavern)
    }

    /// A sweeper of the temps of this data directory's dead writers (see `stale.rs`).
    pub fn sweeper(&self) -> Sweeper {
        self.writer.sweeper()
    }

    /// The lock maintenance (prunes, chat deletions) holds exclusively and run creation
    /// shared (see `retention.rs`).
    pub fn maintenance_lock(&self) -> PathBuf {
        self.agent_workspaces().join("maintenance.lock")
    }

    pub fn run_index_dir(&self) -> PathBuf {
        self.agent_workspaces().join("index").join("runs")
    }

    pub fn run_index_file(&self, run: &RunId) -> PathBuf {
        self.run_index_dir().join(format!("{run}.json"))
    }

    pub fn run_summaries_dir(&self) -> PathBuf {
        self.agent_workspaces().join("index").join("run-summaries")
    }

    pub fn run_summary_file(&self, run: &RunId) -> PathBuf {
        self.run_summaries_dir().join(format!("{run}.json"))
    }

    /// The folder of every chat's workspace.
    pub fn chat_workspaces(&self) -> PathBuf {
        self.agent_workspaces().join("chats")
    }

    pub fn chat_workspace(&self, workspace: &WorkspaceId) -> PathBuf {
        self.chat_workspaces().join(workspace.as_str())
    }

    /// Where a deleted workspace is renamed to before its files are removed (see
    /// `chat_workspaces.rs`); only maintenance, under its lock, writes here.
    pub fn trash(&self) -> PathBuf {
        self.agent_workspaces().join(".trash")
    }

    /// `.trash/<ws>-<unique>`: one deleted workspace.
    pub fn trash_entry(&self, workspace: &WorkspaceId, unique: &str) -> PathBuf {
        self.trash().join(format!("{workspace}-{unique}"))
    }

    pub fn run_dir(&self, workspace: &WorkspaceId, run: &RunId) -> RunDir {
        RunDir(
            self.chat_workspace(workspace)
                .join("runs")
                .join(run.as_str()),
        )
    }

    pub fn persistent_states(&self, workspace: &WorkspaceId) -> PathBuf {
        self.chat_workspace(workspace).join("persistent-states")
    }

    pub fn persistent_state(&self, workspace: &WorkspaceId, state: &StateId) -> PathBuf {
        self.persistent_states(workspace).join(state.as_str())
    }

    /// The chat's browsable copy of its newest persistent state.
    pub fn chat_persist(&self, workspace: &WorkspaceId) -> PathBuf {
        self.chat_workspace(workspace).join("persist")
    }

    pub fn profiles_dir(&self) -> PathBuf {
        self.tauritavern().join("agent-profiles").join("profiles")
    }

    /// `<profiles>/<id>.json`.
    pub fn profile_file(&self, id: &str) -> PathBuf {
        record_file(&self.profiles_dir(), id)
    }

    pub fn profiles_staging(&self) -> PathBuf {
        self.tauritavern().join("agent-profiles").join(".staging")
    }

    /// TauriTavern's skills folder.
    pub fn skills_root(&self) -> PathBuf {
        self.tauritavern().join("skills")
    }

    pub fn skills_installed(&self) -> PathBuf {
        self.skills_root().join("installed")
    }

    /// The folder of one skill scope: `installed/<scope dir>` (`global`, `preset_<16 hex>`,
    /// `profile_<16 hex>`, `character_<16 hex>`; the skills module names them).
    pub fn skills_scope_dir(&self, scope_dir: &str) -> PathBuf {
        self.skills_installed().join(scope_dir)
    }

    pub fn skills_index_file(&self) -> PathBuf {
        self.skills_root().join("index").join("skills.json")
    }

    pub fn skills_staging(&self) -> PathBuf {
        self.skills_root().join(".staging")
    }

    pub fn mcp_dir(&self) -> PathBuf {
        self.tauritavern().join("mcp")
    }

    /// MCP server registrations, `<uuid>.json` each.
    pub fn mcp_servers(&self) -> PathBuf {
        self.mcp_dir().join("servers")
    }

    /// Cached MCP tool catalogs, `<uuid>.json` each.
    pub fn mcp_catalogs(&self) -> PathBuf {
        self.mcp_dir().join("catalogs")
    }

    pub fn llm_connections(&self) -> PathBuf {
        self.tauritavern().join("llm-connections")
    }

    /// One saved connection. Takes a checked [`ConnectionName`], so a name can only become
    /// a path once it is known to be a single plain file name.
    pub fn llm_connection_file(&self, name: &ConnectionName) -> PathBuf {
        self.llm_connections().join(format!("{name}.json"))
    }

    /// The runtime's own settings (not SillyTavern's: see
    /// [`Self::sillytavern_settings_file`]).
    pub fn settings_file(&self) -> PathBuf {
        self.tauritavern().join("settings.json")
    }

    /// Every path of the layout with a fixed kind, and whether every data directory has it
    /// (only `chats/`: the rest is created when first needed), for the doctor.
    pub fn layout_entries(&self) -> Vec<(PathBuf, EntryKind, bool)> {
        use EntryKind::{Directory as Folder, File};
        let workspaces = self.agent_workspaces();
        vec![
            (self.chats(), Folder, true),
            (self.group_chats(), Folder, false),
            (self.characters(), Folder, false),
            (self.sillytavern_settings_file(), File, false),
            (self.persona_avatars(), Folder, false),
            (self.worlds(), Folder, false),
            (self.groups(), Folder, false),
            (self.tauritavern(), Folder, false),
            (workspaces.clone(), Folder, false),
            (self.staging(), Folder, false),
            (self.maintenance_lock(), File, false),
            (workspaces.join("index"), Folder, false),
            (self.run_index_dir(), Folder, false),
            (self.run_summaries_dir(), Folder, false),
            (workspaces.join("chats"), Folder, false),
            (self.profiles_dir(), Folder, false),
            (self.profiles_staging(), Folder, false),
            (self.skills_root(), Folder, false),
            (self.skills_installed(), Folder, false),
            (self.skills_index_file(), File, false),
            (self.skills_staging(), Folder, false),
            (self.mcp_dir(), Folder, false),
            (self.mcp_servers(), Folder, false),
            (self.mcp_catalogs(), Folder, false),
            (self.llm_connections(), Folder, false),
            (self.settings_file(), File, false),
        ]
    }

    /// Our folders whose every entry is one of [`Self::layout_entries`]: anything else in
    /// them is unknown to this version.
    pub fn closed_folders(&self) -> Vec<PathBuf> {
        let workspaces = self.agent_workspaces();
        vec![workspaces.join("index"), workspaces]
    }

    /// The folders chat files are in: `chats/<character>/` (one level down) and
    /// `group chats/`.
    pub fn chat_folders(&self) -> (PathBuf, PathBuf) {
        (self.chats(), self.group_chats())
    }
}

fn agent_workspaces_in(tauritavern: &Path) -> PathBuf {
    tauritavern.join("agent-workspaces")
}

fn staging_in(tauritavern: &Path) -> PathBuf {
    agent_workspaces_in(tauritavern).join(".staging")
}

/// One run's directory: `chats/<ws>/runs/<run>/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunDir(pub PathBuf);

impl RunDir {
    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn run_record(&self) -> PathBuf {
        self.0.join("run.json")
    }

    pub fn manifest(&self) -> PathBuf {
        self.0.join("manifest.json")
    }

    pub fn events(&self) -> PathBuf {
        self.0.join("events.jsonl")
    }

    /// User guidance waiting for the run's driver (see `guidance.rs`).
    pub fn guidance_mailbox(&self) -> PathBuf {
        self.0.join("guidance-mailbox.json")
    }

    /// The lock every change of the guidance mailbox holds.
    pub fn guidance_lock(&self) -> PathBuf {
        self.0.join("guidance-mailbox.lock")
    }

    pub fn input(&self) -> PathBuf {
        self.0.join("input")
    }

    pub fn invocations(&self) -> PathBuf {
        self.0.join("invocations")
    }

    pub fn tasks(&self) -> PathBuf {
        self.0.join("tasks")
    }

    pub fn tool_args(&self) -> PathBuf {
        self.0.join("tool-args")
    }

    pub fn tool_results(&self) -> PathBuf {
        self.0.join("tool-results")
    }

    pub fn agent_results(&self) -> PathBuf {
        self.0.join("agent-results")
    }

    pub fn model_responses(&self) -> PathBuf {
        self.0.join("model-responses")
    }

    pub fn checkpoints(&self) -> PathBuf {
        self.0.join("checkpoints")
    }

    /// `blobs/`: the run's content-addressed store (see `crate::blobs`).
    pub fn blobs(&self) -> PathBuf {
        self.0.join("blobs")
    }

    /// `blobs/sha256/`: where blobs are named by their SHA-256.
    pub fn sha256_blobs(&self) -> PathBuf {
        self.blobs().join("sha256")
    }

    /// `persist/`: the run's own copy of the chat's persistent files.
    pub fn persist(&self) -> PathBuf {
        self.0.join(WorkspaceRoot::Persist.as_str())
    }

    /// `cancel-requested`: the marker another process leaves to cancel the run.
    pub fn cancel_request(&self) -> PathBuf {
        self.0.join(CANCEL_REQUEST_FILE)
    }

    /// `tool-args/<stem>.json`, `stem` naming the call (`crate::digest::audit_stem`).
    pub fn tool_args_file(&self, stem: &str) -> PathBuf {
        self.tool_args().join(format!("{stem}.json"))
    }

    /// `tool-results/<stem>.json`.
    pub fn tool_result_file(&self, stem: &str) -> PathBuf {
        self.tool_results().join(format!("{stem}.json"))
    }

    /// `tool-results/<stem>.txt`: the readable view beside the result's audit.
    pub fn tool_result_view_file(&self, stem: &str) -> PathBuf {
        self.tool_results().join(format!("{stem}.txt"))
    }

    /// `agent-results/<inv>.json`: what a child invocation handed back.
    pub fn agent_result_file(&self, invocation: &InvocationId) -> PathBuf {
        self.agent_results()
            .join(format!("{}.json", invocation.as_str()))
    }

    /// `model-responses/round-NNN.json` for the root, `model-responses/<inv>/round-NNN.json`
    /// for other invocations.
    pub fn model_response_file(&self, invocation: &InvocationId, round: u32) -> PathBuf {
        let name = format!("round-{round:03}.json");
        if invocation.is_root() {
            self.model_responses().join(name)
        } else {
            self.model_responses().join(invocation.as_str()).join(name)
        }
    }

    /// `input/invocations/<inv>/`.
    pub fn invocation_input(&self, invocation: &InvocationId) -> PathBuf {
        self.input().join("invocations").join(invocation.as_str())
    }

    /// `input/invocations/<inv>/tool_snapshot.json`.
    pub fn tool_snapshot_file(&self, invocation: &InvocationId) -> PathBuf {
        self.invocation_input(invocation).join("tool_snapshot.json")
    }

    /// `input/<document>.json` for the root (or no invocation), else
    /// `input/invocations/<inv>/<document>.json`.
    pub fn input_file(
        &self,
        invocation: Option<&InvocationId>,
        document: InputDocument,
    ) -> PathBuf {
        let name = match document {
            InputDocument::PromptSnapshot => "prompt_snapshot.json",
            InputDocument::ResolvedProfile => "resolved_profile.json",
            InputDocument::ResolvedSkills => "resolved_skills.json",
            InputDocument::PersistSnapshot => "persist_snapshot.json",
            InputDocument::RollbackBase => "rollback_base.json",
        };
        match invocation.filter(|invocation| !invocation.is_root()) {
            None => self.input().join(name),
            Some(invocation) => self.invocation_input(invocation).join(name),
        }
    }
}

/// `<id>.json` in `dir`: how every record folder (runs, invocations, tasks, profiles, groups,
/// MCP registrations) names a record by its id.
pub fn record_file(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.json"))
}

/// `manifest.json` of the persistent state in `state_dir`
/// ([`DataDir::persistent_state`]).
pub fn persistent_state_manifest(state_dir: &Path) -> PathBuf {
    state_dir.join("manifest.json")
}

/// `persist/` inside the persistent state in `state_dir`: the state's files.
pub fn persistent_state_files(state_dir: &Path) -> PathBuf {
    state_dir.join(WorkspaceRoot::Persist.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tauritavern_install_keeps_our_folder_beside_the_user_folder() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("data/default-user");
        std::fs::create_dir_all(user.join("chats")).unwrap();
        assert_eq!(DataDir::new(&user).tauritavern(), user.join(OURS));
        std::fs::create_dir_all(dir.path().join("data").join(OURS)).unwrap();
        assert_eq!(
            DataDir::new(&user).tauritavern(),
            dir.path().join("data").join(OURS)
        );
        std::fs::create_dir_all(user.join(OURS)).unwrap();
        assert_eq!(
            DataDir::new(&user).tauritavern(),
            user.join(OURS),
            "the user folder's own wins"
        );
    }

    #[test]
    fn paths() {
        let data = DataDir::new("/d");
        let ws = WorkspaceId::parse("chat_1").unwrap();
        let run = RunId::parse("run_1").unwrap();
        assert_eq!(
            data.run_dir(&ws, &run).events(),
            PathBuf::from("/d/_tauritavern/agent-workspaces/chats/chat_1/runs/run_1/events.jsonl")
        );
        assert_eq!(
            data.run_index_file(&run),
            PathBuf::from("/d/_tauritavern/agent-workspaces/index/runs/run_1.json")
        );
        assert_eq!(data.group_chats(), PathBuf::from("/d/group chats"));
        assert_eq!(data.persona_avatars(), PathBuf::from("/d/User Avatars"));
        assert_eq!(
            data.sillytavern_settings_file(),
            PathBuf::from("/d/settings.json")
        );
        assert_eq!(
            data.settings_file(),
            PathBuf::from("/d/_tauritavern/settings.json")
        );
        let name = ConnectionName::parse("openai").unwrap();
        assert_eq!(
            data.llm_connection_file(&name),
            PathBuf::from("/d/_tauritavern/llm-connections/openai.json")
        );
    }
}
