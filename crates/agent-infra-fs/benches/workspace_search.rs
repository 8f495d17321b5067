#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `workspace.search_files` over a generated run workspace of 1,000 text files (~11 MB,
//! 2–20 KiB each, prose with some CJK, spread over the five roots and their subfolders):
//! collecting the corpus through `FsWorkspaceStore::search_corpus` (as the tool does: the
//! visible roots, depth 8, at most 1,000 files), the pure search core
//! (`agent_application::tools::search_corpus_hits`) on that corpus, and `rg -c` over the
//! same folders as the physical limit of one pass over the bytes.
//!
//! `cargo bench -p agent-infra-fs --bench workspace_search -- --warm-up-time 1 --measurement-time 3`
//!
//! Needs `rg` (ripgrep) on the PATH for the reference timings; without it they are skipped.

use std::fs;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use agent_application::ports::{RunStore, SearchCorpus, WorkspaceStore};
use agent_application::tools::search_corpus_hits;
use agent_domain::run::{AgentRun, RunId};
use agent_domain::text::search::Query;
use agent_domain::workspace::{RUNTIME_RESULTS_ROOT, WorkspacePath, WorkspaceRoot};
use agent_infra_fs::FsStorage;
use agent_infra_fs::layout::DataDir;
#[path = "support/ripgrep.rs"]
mod ripgrep;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ripgrep::{RG_RUNS, ripgrep_median};
use serde_json::json;
use tokio::runtime::Runtime;

const FILES: usize = 1_000;
/// What `workspace.search_files` passes to the store.
const SEARCH_DEPTH: u32 = 8;
const MAX_SEARCH_FILES: usize = 1_000;
/// The tool's defaults.
const CONTEXT_LINES: usize = 2;
const LIMIT: usize = 20;

/// A word in one file of 20 (~5%), a CJK phrase, and a word found nowhere.
const QUERIES: [&str; 3] = ["lighthouse", "北京烤鸭", "zeppelin"];
/// The sentence carrying the word query, put into every 20th file.
const RARE_SENTENCE: &str = "Beyond the cliffs the old lighthouse blinked twice and went dark.";

/// Sentences the prose is assembled from.
const SENTENCES: [&str; 16] = [
    "The lanterns along the river flickered as the evening wind rose.",
    "She paused at the old stone bridge and listened to the water.",
    "Merchants were folding their awnings and calling out the last prices of the day.",
    "A door closed somewhere, and the square fell quiet.",
    "He counted the coins twice before handing them over.",
    "The blue moon hung low over the harbor.",
    "Rain drummed on the tin roof of the tavern.",
    "Nobody in the village remembered who built the tower.",
    "The map was older than anyone had guessed.",
    "Smoke from cedar fires drifted across the fields.",
    "Her lantern swung as she climbed the stairs.",
    "The innkeeper wiped the counter and said nothing.",
    "Footsteps echoed in the empty corridor.",
    "They argued about the route until the candles burned down.",
    "A cat watched them from the windowsill, unimpressed.",
    "The letter was sealed with green wax.",
];

/// CJK sentences, used by about one file in three.
const CJK_SENTENCES: [&str; 6] = [
    "我最喜欢北京烤鸭，每次去都点一整只。",
    "夜风吹过古老的石桥，河水静静地流淌。",
    "商人们开始收起摊位，广场渐渐安静下来。",
    "本当にありがとうございます、また来ます。",
    "川の向こうで鐘が鳴る。",
    "雨の夜、酒場は旅人でいっぱいだった。",
];

/// Folders files are spread over (cycled), up to four levels deep.
const FOLDERS: [&str; 12] = [
    "output",
    "output/chapters",
    "output/chapters/act-1/drafts",
    "scratch",
    "scratch/notes",
    "scratch/notes/characters/minor",
    "plan",
    "plan/arcs",
    "summaries",
    "summaries/sessions/2026",
    "persist",
    "persist/world/places/towns",
];

/// A small deterministic generator (xorshift), so every run benches the same workspace.
struct Sequence(u64);

impl Sequence {
    fn next(&mut self, below: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % below as u64) as usize
    }
}

/// One file's text: a heading, then paragraph lines of 3–8 sentences up to 2–20 KiB.
fn file_text(index: usize, sequence: &mut Sequence) -> String {
    let target = 2 * 1024 + sequence.next(18 * 1024);
    let with_cjk = index % 3 == 1;
    let with_rare = index % 20 == 7;
    let mut text = format!("# Note {index}\n\n");
    let mut paragraph = 0;
    while text.len() < target {
        for _ in 0..3 + sequence.next(6) {
            let sentence = if with_cjk && sequence.next(4) == 0 {
                CJK_SENTENCES[sequence.next(CJK_SENTENCES.len())]
            } else {
                SENTENCES[sequence.next(SENTENCES.len())]
            };
            text.push_str(sentence);
            text.push(' ');
        }
        if with_rare && paragraph == 3 {
            text.push_str(RARE_SENTENCE);
        }
        text.push('\n');
        paragraph += 1;
    }
    if with_rare && paragraph <= 3 {
        text.push_str(RARE_SENTENCE);
        text.push('\n');
    }
    text
}

fn record() -> AgentRun {
    serde_json::from_value(json!({
        "id": "run_bench", "workspaceId": "chat_bench", "stableChatId": "stable",
        "chatRef": {"kind": "character", "characterId": "Bench", "fileName": "bench"},
        "generationType": "normal", "profileId": null, "status": "created",
        "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"
    }))
    .unwrap()
}

/// Creates the run and its workspace, writes the files into the run directory, and returns
/// the run, the run directory and the bytes written.
fn generate(runtime: &Runtime, storage: &FsStorage) -> (RunId, PathBuf, u64) {
    let run = record();
    runtime.block_on(async {
        storage.runs.create_run(&run).await.unwrap();
        storage.workspace.initialize(&run.id).await.unwrap();
    });
    let run_dir = storage.locator.run_dir(&run.id).unwrap().path().to_owned();
    let mut sequence = Sequence(0x9e37_79b9_7f4a_7c15);
    let mut bytes = 0;
    for index in 0..FILES {
        let folder = run_dir.join(FOLDERS[index % FOLDERS.len()]);
        fs::create_dir_all(&folder).unwrap();
        let text = file_text(index, &mut sequence);
        bytes += text.len() as u64;
        fs::write(folder.join(format!("note-{index:04}.md")), text).unwrap();
    }
    (run.id, run_dir, bytes)
}

/// The top-level folders the main agent sees, as `workspace.search_files` passes them.
fn visible_roots() -> Vec<WorkspacePath> {
    WorkspaceRoot::ALL
        .iter()
        .map(|root| root.as_str())
        .chain([RUNTIME_RESULTS_ROOT])
        .map(|name| WorkspacePath::parse(name).unwrap())
        .collect()
}

async fn collect(storage: &FsStorage, run: &RunId, roots: &[WorkspacePath]) -> SearchCorpus {
    storage
        .workspace
        .search_corpus(run, roots, SEARCH_DEPTH, MAX_SEARCH_FILES)
        .await
        .unwrap()
}

fn workspace_search(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let storage = FsStorage::open(DataDir::new(dir.path()));
    let (run, run_dir, bytes) = generate(&runtime, &storage);
    let roots = visible_roots();
    let root_dirs: Vec<PathBuf> = roots
        .iter()
        .map(|root| run_dir.join(root.as_str()))
        .collect();

    let started = Instant::now();
    let corpus = runtime.block_on(collect(&storage, &run, &roots));
    eprintln!(
        "workspace_search: {} files ({} truncated), {:.1} MB; one corpus collection: {:?}",
        corpus.files.len(),
        if corpus.truncated { "some" } else { "none" },
        bytes as f64 / 1e6,
        started.elapsed()
    );
    assert_eq!(corpus.files.len(), FILES);
    for query in QUERIES {
        let parsed = Query::parse(query).unwrap();
        let report = search_corpus_hits(&corpus, &parsed, CONTEXT_LINES, LIMIT);
        let best = report.hits.first().map_or(0.0, |hit| hit.score);
        let summary = format!(
            "workspace_search: `{query}`: {} hits kept (more: {}), best score {best:.3}",
            report.hits.len(),
            report.more_hits
        );
        match ripgrep_median(query, &root_dirs) {
            Some(rg) => eprintln!(
                "{summary}; rg -c median of {RG_RUNS}: {:?} ({} matching lines in {} files)",
                rg.median, rg.matching_lines, rg.matching_files
            ),
            None => eprintln!("{summary}; rg not found, reference skipped"),
        }
    }

    let mut collect_group = c.benchmark_group("workspace_search_collect_1000");
    collect_group.sample_size(10);
    collect_group.bench_function("search_corpus", |b| {
        b.to_async(&runtime)
            .iter(|| collect(&storage, black_box(&run), &roots))
    });
    collect_group.finish();

    let mut core = c.benchmark_group("workspace_search_core_1000");
    core.sample_size(10);
    for query in QUERIES {
        let parsed = Query::parse(query).unwrap();
        core.bench_with_input(BenchmarkId::from_parameter(query), &parsed, |b, parsed| {
            b.iter(|| search_corpus_hits(black_box(&corpus), parsed, CONTEXT_LINES, LIMIT))
        });
    }
    core.finish();
}

criterion_group!(benches, workspace_search);
criterion_main!(benches);
