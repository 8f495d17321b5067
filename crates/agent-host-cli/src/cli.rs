//! The command line: every subcommand, flag and argument of `tavern-agent` (`docs/cli.md`).

use std::path::PathBuf;

use agent_application::scene::SceneRequest;
use agent_domain::ErrorCode;
use agent_domain::connection::{ConnectionTransport, UnknownTransport};
use agent_domain::event::RunStatus;
use agent_domain::run::GenerationType;
use agent_infra_fs::durability::{Durability, UnknownDurability};
use clap::{Args, Parser, Subcommand, ValueEnum};

/// Run TauriTavern-style agents on SillyTavern chats from the terminal.
#[derive(Debug, Parser)]
#[command(
    name = "tavern-agent",
    version,
    after_help = "Exit status: 0 success, 1 failure, 2 bad arguments or a missing object. \
                  `run` and `demo`: 0 completed, 2 no run created, 3 partial success, 4 failed, \
                  130 cancelled. Errors print `error: <code>: <message>` on stderr, or with \
                  --json one object {\"code\", \"message\"}. See docs/cli.md."
)]
pub struct Cli {
    /// The data directory (a SillyTavern user folder). Default: `$TAVERN_AGENT_DATA_DIR`,
    /// else the platform data directory.
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// When writes of runs reach the disk: `strict` (every write synced) or `normal`
    /// (synced together at each model round, commit and run end). Default:
    /// `$TAVERN_AGENT_DURABILITY`, else `normal`. See docs/storage/durability.md.
    #[arg(long, global = true, value_name = "POLICY", value_parser = parse_durability)]
    pub durability: Option<Durability>,

    #[command(subcommand)]
    pub command: Command,
}

/// A durability policy by name; the error starts with its code.
fn parse_durability(name: &str) -> Result<Durability, String> {
    name.parse()
        .map_err(|err: UnknownDurability| format!("{}: {err}", err.code()))
}

/// A connection transport by name; the error starts with its code.
fn parse_transport(name: &str) -> Result<ConnectionTransport, String> {
    name.parse()
        .map_err(|err: UnknownTransport| format!("connection.invalid_transport: {err}"))
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run an agent on a chat and commit its answer.
    #[command(
        after_help = "Exit status: 0 run_completed, 2 bad arguments or configuration (no run \
                      created), 3 run_partial_success, 4 run_failed, 130 run_cancelled (Ctrl-C, \
                      SIGTERM or SIGHUP)."
    )]
    Run(RunArgs),
    /// Run the bundled offline demo in a fresh temporary data directory.
    Demo {
        /// A lead writer delegates two researchers in parallel, awaits them, drafts, and
        /// hands off to an editor who publishes and finishes.
        #[arg(long)]
        multi_agent: bool,
    },
    /// Inspect and cancel runs.
    Runs {
        #[command(subcommand)]
        command: RunsCommand,
    },
    /// Inspect the tools an agent can be given.
    Tools {
        #[command(subcommand)]
        command: ToolsCommand,
    },
    /// Manage agent profiles.
    Profiles {
        #[command(subcommand)]
        command: ProfilesCommand,
    },
    /// Manage saved LLM connections (provider format, server, model, key variable).
    Connections {
        #[command(subcommand)]
        command: ConnectionsCommand,
    },
    /// Manage MCP servers whose tools agents may use (docs/mcp.md).
    Mcp {
        #[command(subcommand)]
        command: McpCommand,
    },
    /// Inspect the prompt a run would start from.
    Prompt {
        #[command(subcommand)]
        command: PromptCommand,
    },
    /// Inspect the skills of every scope (TauriTavern's skills folder).
    Skills {
        #[command(subcommand)]
        command: SkillsCommand,
    },
    /// The run retention policy, and pruning old runs (docs/storage/retention.md).
    Retention {
        #[command(subcommand)]
        command: crate::commands::retention::RetentionCommand,
    },
    /// Chats and their agent workspaces: list them, delete a chat with its workspace, and
    /// remove workspaces whose chat is gone.
    Chats {
        #[command(subcommand)]
        command: crate::commands::chats::ChatsCommand,
    },
    /// Check the data directory: layout and stray temps, profiles, LLM connections and
    /// their key variables, skills, chats, and runs left behind by a process that died.
    #[command(
        after_help = "Exit status: 0 when nothing is wrong (warnings are shown but pass), 1 \
                      when something is (with --fix: when something still is)."
    )]
    Doctor {
        /// Mark every abandoned run failed and remove stale temps, then check again.
        #[arg(long)]
        fix: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Serve the runtime over HTTP (a JSON API, live run events, the web timeline) until
    /// Ctrl-C or SIGTERM (docs/serve.md).
    #[command(
        after_help = "Prints `listening on http://ADDR:PORT` on stdout, then the page's URL with \
                      the access token on stderr. Every /api request needs `Authorization: \
                      Bearer <token>`; the token is $TAVERN_AGENT_SERVE_TOKEN, else generated. \
                      Exit status: 0 after a clean shutdown, 1 when it cannot listen."
    )]
    Serve(ServeArgs),
}

/// `tavern-agent serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on; port 0 picks a free one.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8787")]
    pub bind: std::net::SocketAddr,
    /// Let pages of this origin call the API from a browser (CORS), e.g.
    /// `http://localhost:8000` for a SillyTavern extension. Repeatable; none by default.
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// The largest request body accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = agent_host_http::DEFAULT_BODY_LIMIT)]
    pub max_body_bytes: usize,
}

/// `tavern-agent run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The chat: a `.jsonl` path, absolute or relative to `<data-dir>/chats/`.
    #[arg(long, value_name = "PATH")]
    pub chat: String,
    /// The agent profile (default: the built-in `default-writer`).
    #[arg(long, value_name = "ID")]
    pub profile: Option<String>,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Start from this prompt snapshot (JSON) instead of assembling one from the chat.
    #[arg(long, value_name = "FILE")]
    pub prompt_snapshot: Option<PathBuf>,
    /// How the answer relates to the chat.
    #[arg(long, value_enum, default_value_t = GenerationArg::Normal)]
    pub generation_type: GenerationArg,
    /// Run in the background: the agent may finish without committing.
    #[arg(long)]
    pub background: bool,
    #[command(flatten)]
    pub scene: SceneArgs,
    /// Print every journal event as one JSON line on stdout instead of the timeline.
    #[arg(long, conflicts_with = "quiet")]
    pub json: bool,
    /// Print only the committed message: no timeline, no live text, no status line.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// The model a run calls (`run`, `prompt prepare`): `--script`, else `--connection`, else
/// the profile's own binding.
#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// Call the model of this saved LLM connection.
    #[arg(long, value_name = "NAME", conflicts_with = "script")]
    pub connection: Option<String>,
    /// Play the model from this script file (offline; see docs/scripted-model.md).
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
}

/// SillyTavern's generation types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GenerationArg {
    Normal,
    Regenerate,
    Swipe,
}

impl From<GenerationArg> for GenerationType {
    fn from(arg: GenerationArg) -> Self {
        match arg {
            GenerationArg::Normal => Self::Normal,
            GenerationArg::Regenerate => Self::Regenerate,
            GenerationArg::Swipe => Self::Swipe,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum RunsCommand {
    /// List runs, newest first.
    List {
        /// Only runs of this chat.
        #[arg(long, value_name = "PATH")]
        chat: Option<String>,
        /// Only runs in this status (repeatable).
        #[arg(long, value_enum, value_name = "STATUS")]
        status: Vec<StatusArg>,
        /// At most this many runs (1..=200, default 50).
        #[arg(long, value_name = "N")]
        limit: Option<u32>,
        /// The next page: only runs older than this run (the cursor the previous page
        /// printed).
        #[arg(long, value_name = "RUN_ID")]
        before: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Print a run's journal events.
    Events {
        run_id: String,
        /// Only events before this seq (the newest page of them).
        #[arg(long, value_name = "N", conflicts_with = "after_seq")]
        before_seq: Option<u64>,
        /// Only events after this seq.
        #[arg(long, value_name = "N")]
        after_seq: Option<u64>,
        /// At most this many events (1..=500, default 100).
        #[arg(long, value_name = "N")]
        limit: Option<u32>,
        /// Print every event after `--after-seq` (default: all), then new ones until the
        /// run ends.
        #[arg(long, conflicts_with_all = ["before_seq", "limit"])]
        follow: bool,
        /// Only the events of one invocation's timeline (`inv_root`, a child's or a
        /// handoff target's id; `runs show` lists them).
        #[arg(long, value_name = "ID")]
        invocation: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Show a run's summary.
    Show {
        run_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Print a file of a run's workspace (`output/main.md`, `tool-results/…`).
    File {
        run_id: String,
        path: String,
        /// The file as it stood at the event with this seq, from the run's checkpoints,
        /// rather than as it is now.
        #[arg(long, value_name = "SEQ")]
        at_seq: Option<u64>,
        /// Print the file record (path, content, metrics) as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show one model round of a run.
    Turn {
        run_id: String,
        round: u32,
        /// The invocation (default: the root invocation).
        #[arg(long, value_name = "ID")]
        invocation: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Ask a running run to stop.
    Cancel {
        run_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Send a note to a live run (driven by this or another process): it joins the next
    /// root or handoff round as a `<user_guidance>` user message (see docs/runtime.md).
    Guide {
        run_id: String,
        /// The note, at most 16,000 characters.
        text: String,
        /// Your own id for the note, echoed in its events.
        #[arg(long)]
        client_id: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Undo an ended run's output on the chat: delete the message it created, or remove the
    /// swipe it added (see docs/sillytavern.md).
    Rollback {
        run_id: String,
        #[arg(long)]
        json: bool,
    },
}

/// Who is in the chat, when the command line decides it instead of the chat.
#[derive(Debug, Clone, Default, Args)]
pub struct SceneArgs {
    /// The user's name in the prompt, instead of the name of the persona the chat uses.
    #[arg(long, value_name = "NAME")]
    pub user_name: Option<String>,
    /// In a group chat, the member to write as: its card file, the file's name without
    /// extension, or the character's name (default: the member who spoke last).
    #[arg(long = "as", value_name = "MEMBER")]
    pub speak_as: Option<String>,
}

impl From<SceneArgs> for SceneRequest {
    fn from(args: SceneArgs) -> Self {
        Self {
            user_name: args.user_name,
            speak_as: args.speak_as,
        }
    }
}

/// Run statuses, as `--status` spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum StatusArg {
    Created,
    InitializingWorkspace,
    AssemblingContext,
    CallingModel,
    DispatchingTool,
    ApplyingWorkspacePatch,
    CreatingCheckpoint,
    AwaitingHostCommit,
    Finishing,
    Completed,
    PartialSuccess,
    Cancelling,
    Cancelled,
    Failed,
}

impl From<StatusArg> for RunStatus {
    fn from(arg: StatusArg) -> Self {
        match arg {
            StatusArg::Created => Self::Created,
            StatusArg::InitializingWorkspace => Self::InitializingWorkspace,
            StatusArg::AssemblingContext => Self::AssemblingContext,
            StatusArg::CallingModel => Self::CallingModel,
            StatusArg::DispatchingTool => Self::DispatchingTool,
            StatusArg::ApplyingWorkspacePatch => Self::ApplyingWorkspacePatch,
            StatusArg::CreatingCheckpoint => Self::CreatingCheckpoint,
            StatusArg::AwaitingHostCommit => Self::AwaitingHostCommit,
            StatusArg::Finishing => Self::Finishing,
            StatusArg::Completed => Self::Completed,
            StatusArg::PartialSuccess => Self::PartialSuccess,
            StatusArg::Cancelling => Self::Cancelling,
            StatusArg::Cancelled => Self::Cancelled,
            StatusArg::Failed => Self::Failed,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// List the tools with their canonical ids and model aliases.
    List {
        /// Print JSON (one array of descriptors) instead of a table.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum ProfilesCommand {
    /// List the profiles (the built-in `default-writer` and the saved ones).
    List {
        #[arg(long)]
        json: bool,
    },
    /// Scan the saved profile files: each that cannot be used, with its suggested repair.
    /// Exits 1 when any file has a problem.
    Health {
        #[arg(long)]
        json: bool,
    },
    /// Apply the suggested repair to a saved profile file (delete it, or rewrite its
    /// header).
    Repair {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Print a profile document.
    Show {
        id: String,
        /// Print compact JSON (default: pretty JSON).
        #[arg(long)]
        json: bool,
    },
    /// Validate and save a profile document from a file (its `id` names it).
    Save {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Delete a saved profile.
    Delete {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Check a profile and report every problem found.
    Diagnose {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Print the agent system prompt a profile runs with.
    SystemPrompt {
        id: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConnectionsCommand {
    /// Save a connection; an existing one of the same name is replaced only with --force.
    #[command(
        after_help = "Keys are never stored: --api-key-env names the environment \
                            variable read when a call is made. See docs/connections.md."
    )]
    Add(ConnectionAddArgs),
    /// List the saved connections, and whether each one's key variable is set.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Show one connection.
    Show {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Remove a saved connection.
    Remove {
        name: String,
        #[arg(long)]
        json: bool,
    },
}

/// `tavern-agent connections add`. Values are checked by the connection rules, not by clap,
/// so a bad one is reported with its `connection.*` code.
#[derive(Debug, Args)]
pub struct ConnectionAddArgs {
    /// The connection's name: 1-64 of `A-Z a-z 0-9 . _ -`, starting with a letter or digit.
    pub name: String,
    /// The wire format: openai-chat, openai-responses, anthropic, gemini,
    /// gemini-interactions.
    #[arg(long, value_name = "FORMAT")]
    pub format: String,
    /// The model id sent to the provider.
    #[arg(long, value_name = "MODEL")]
    pub model: String,
    /// The API base (OpenAI formats include the version, e.g. `https://api.openai.com/v1`;
    /// Anthropic and Gemini do not). Default: the provider's public API.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The environment variable holding the key, read at call time.
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// The Chat Completions dialect: openai, deepseek, openrouter or generic (openai-chat
    /// only). Default: follow the base URL's host.
    #[arg(long, value_name = "DIALECT")]
    pub dialect: Option<String>,
    /// How long one model call may take, in seconds (default 600; up to 86400). A streamed
    /// call may take longer, as long as no gap between two pieces of it is longer.
    #[arg(long = "timeout", value_name = "SECS")]
    pub timeout_secs: Option<u64>,
    /// Whether model calls stream their answer as it is written: true or false (default
    /// true). Gemini Interactions answers whole either way.
    #[arg(long, value_name = "BOOL")]
    pub stream: Option<bool>,
    /// How model calls travel: http or websocket (openai-responses only: one persistent
    /// socket per invocation). Default: websocket for a ws:// or wss:// base URL, else http.
    #[arg(long, value_name = "TRANSPORT", value_parser = parse_transport)]
    pub transport: Option<ConnectionTransport>,
    /// An extra request header (repeatable).
    #[arg(long = "header", value_name = "NAME=VALUE")]
    pub headers: Vec<String>,
    /// An extra request body field (repeatable); VALUE is JSON when it parses as JSON
    /// (`temperature=0.2`, `store=true`), else a string.
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// Replace a connection of the same name.
    #[arg(long)]
    pub force: bool,
    /// Print the saved record as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Register a server (stdio with --command, or Streamable HTTP with --url), print its
    /// registration id and refresh its tool catalog. Every tool starts Off.
    #[command(
        after_help = "Secrets are never stored: `--env KEY` passes KEY through from this \
                      process's environment and `--header-env NAME=VAR` reads VAR at each \
                      connection. See docs/mcp.md."
    )]
    Add(McpAddArgs),
    /// Add every server of a `{"mcpServers": {...}}` file (the desktop MCP clients' format).
    Import {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// List the registered servers.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Show one server (by name or id) and its cached tools.
    Show {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Remove a server and its cached catalog.
    Remove {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Pause a server: agents lose its tools until it is resumed.
    Pause {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Resume a paused server.
    Resume {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// List the server's tools now and replace the cached catalog (permissions are kept).
    Refresh {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// The cached tools: ToolId (`mcp/<uuid>:<tool>`), model alias and permission.
    Tools {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Set the permission of one cached tool, or of all with '*'.
    Permission {
        name: String,
        /// A native tool name, or '*' for every cached tool.
        tool: String,
        /// off, ask or allow (ask runs like allow: there is no approval prompt yet).
        permission: String,
        #[arg(long)]
        json: bool,
    },
}

/// `tavern-agent mcp add`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["command", "url"])))]
pub struct McpAddArgs {
    /// The server's display name (1-64 characters; unique ignoring case).
    pub name: String,
    /// A stdio server: the program to run.
    #[arg(long, value_name = "PROGRAM")]
    pub command: Option<String>,
    /// An argument of the program (repeatable; may start with `-`).
    #[arg(
        long = "arg",
        value_name = "ARG",
        allow_hyphen_values = true,
        requires = "command"
    )]
    pub args: Vec<String>,
    /// `KEY=VALUE` sets KEY; `KEY` alone passes KEY through from this process's environment
    /// (read when the server starts; repeatable).
    #[arg(long = "env", value_name = "KEY[=VALUE]", requires = "command")]
    pub env: Vec<String>,
    /// The program's working directory.
    #[arg(long, value_name = "DIR", requires = "command")]
    pub cwd: Option<String>,
    /// A Streamable HTTP server: its endpoint (https://, or http:// to a local host).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// A request header (repeatable).
    #[arg(long = "header", value_name = "NAME=VALUE", requires = "url")]
    pub headers: Vec<String>,
    /// A request header whose value is read from environment variable VAR at connect time.
    #[arg(long = "header-env", value_name = "NAME=VAR", requires = "url")]
    pub header_envs: Vec<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// List the skills of every scope, then every skill that cannot be read. Exits 0 even
    /// when there are problems.
    List {
        /// Print `{skills, problems}` as JSON.
        #[arg(long)]
        json: bool,
    },
    /// One skill: its front matter, index facts, files and problems (a broken skill too).
    Show {
        name: String,
        #[command(flatten)]
        scope: SkillScopeArg,
        #[arg(long)]
        json: bool,
    },
    /// Install a skill folder or `.zip`/`.skill` archive; prints what it installs first.
    Import {
        path: PathBuf,
        #[command(flatten)]
        scope: SkillScopeArg,
        /// Only print what would be installed (name, description, files, conflicts).
        #[arg(long)]
        preview: bool,
        /// Replace an installed skill of the same name.
        #[arg(long, conflicts_with = "preview")]
        replace: bool,
        #[arg(long)]
        json: bool,
    },
    /// Copy a skill to DEST, which must not exist: a folder, or an archive when DEST ends
    /// in `.zip` or `.skill`.
    Export {
        name: String,
        dest: PathBuf,
        #[command(flatten)]
        scope: SkillScopeArg,
        #[arg(long)]
        json: bool,
    },
    /// Print a file of a skill (default `SKILL.md`).
    Read {
        name: String,
        file: Option<String>,
        #[command(flatten)]
        scope: SkillScopeArg,
        #[arg(long)]
        json: bool,
    },
    /// Replace or create a file of a skill with standard input; the skill must stay valid.
    Write {
        name: String,
        file: String,
        #[command(flatten)]
        scope: SkillScopeArg,
        #[arg(long)]
        json: bool,
    },
    /// Rename a skill within its scope (its folder and its front matter `name`).
    Move {
        name: String,
        new_name: String,
        #[command(flatten)]
        scope: SkillScopeArg,
        #[arg(long)]
        json: bool,
    },
    /// Uninstall a skill.
    Remove {
        name: String,
        #[command(flatten)]
        scope: SkillScopeArg,
        #[arg(long)]
        json: bool,
    },
}

/// The scope a skills subcommand works in.
#[derive(Debug, Args)]
pub struct SkillScopeArg {
    /// `global`, `preset:<apiId>:<name>`, `profile:<id>` or `character:<id>`.
    #[arg(long, value_name = "SCOPE", default_value = "global")]
    pub scope: String,
}

#[derive(Debug, Subcommand)]
pub enum PromptCommand {
    /// Print the prompt snapshot a run on this chat would start from.
    Build {
        /// The chat: a `.jsonl` path, absolute or relative to `<data-dir>/chats/`.
        #[arg(long, value_name = "PATH")]
        chat: String,
        #[arg(long, value_name = "ID")]
        profile: Option<String>,
        #[arg(long, value_enum, default_value_t = GenerationArg::Normal)]
        generation_type: GenerationArg,
        /// Count world info's token budget with this model's tokenizer (default: cl100k).
        #[arg(long, value_name = "MODEL")]
        model: Option<String>,
        #[command(flatten)]
        scene: SceneArgs,
        /// Print the snapshot as compact JSON (default: pretty JSON, and which world-info
        /// entries fired and why on stderr).
        #[arg(long)]
        json: bool,
    },
    /// Print the request a run's first model round would send (model binding, messages,
    /// tools, tool choice), without starting a run.
    #[command(
        after_help = "Exit status: 0 printed; 2 when the chat, profile, model or \
                            snapshot is unusable (as `run`), 1 on a storage fault."
    )]
    Prepare {
        /// The chat: a `.jsonl` path, absolute or relative to `<data-dir>/chats/`.
        #[arg(long, value_name = "PATH")]
        chat: String,
        #[arg(long, value_name = "ID")]
        profile: Option<String>,
        #[command(flatten)]
        model: ModelArgs,
        /// Start from this prompt snapshot (JSON) instead of assembling one from the chat.
        #[arg(long, value_name = "FILE")]
        prompt_snapshot: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = GenerationArg::Normal)]
        generation_type: GenerationArg,
        /// As a background run would (it may finish without committing).
        #[arg(long)]
        background: bool,
        #[command(flatten)]
        scene: SceneArgs,
        /// Print the whole prepared request as JSON.
        #[arg(long)]
        json: bool,
    },
}
