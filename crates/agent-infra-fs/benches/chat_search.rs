#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `chat_search` over a generated 100,000-message (~50 MB) chat: the search core
//! (`agent_application::tools::search_messages`) on messages read from the JSONL file through
//! `FsChatStore`, the paged read itself, and `rg -c` over the same file as the physical
//! limit of one pass over the bytes (`chat_search_rg_100k`, the same query ids, timed by
//! criterion like the core: process start included).
//!
//! `cargo bench -p agent-infra-fs --bench chat_search -- --warm-up-time 1 --measurement-time 5`
//!
//! Needs `rg` (ripgrep) on the PATH for the reference timings; without it they are skipped.

use std::fs::{self, File};
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::time::Instant;

use agent_application::ports::ChatMessage;
use agent_application::tools::{ChatSearchFilter, search_messages};
use agent_domain::event::ChatRef;
use agent_domain::text::search::Query;
use agent_infra_fs::chat::FsChatStore;
use agent_infra_fs::layout::DataDir;
#[path = "support/ripgrep.rs"]
mod ripgrep;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ripgrep::{RG_RUNS, rg_count, ripgrep_median};
use serde_json::json;

const MESSAGES: usize = 100_000;
/// The page size `chat_search` reads with.
const PAGE: usize = 1_000;

/// Queries of different shapes: a common word, a partial word, two words, CJK without
/// spaces, kana, punctuation, and a word found nowhere.
const QUERIES: [&str; 7] = [
    "lantern",
    "lanterns",
    "blue moon",
    "北京烤鸭",
    "ありがとう",
    "!!",
    "zeppelin",
];

/// Sentences messages are assembled from; a few carry the rarer query terms.
const SENTENCES: [&str; 24] = [
    "The lanterns along the river flickered as the evening wind rose.",
    "She paused at the old stone bridge and listened to the water.",
    "Merchants were folding their awnings and calling out the last prices of the day.",
    "A door closed somewhere, and the square fell quiet.",
    "He counted the coins twice before handing them over.",
    "The blue moon hung low over the harbor.",
    "Rain drummed on the tin roof of the tavern.",
    "Nobody in the village remembered who built the tower.",
    "Wait!! Did you hear that?",
    "The map was older than anyone had guessed.",
    "Smoke from cedar fires drifted across the fields.",
    "Her lantern swung as she climbed the stairs.",
    "我最喜欢北京烤鸭，每次去都点一整只。",
    "今天我们去北京吃烤鸭，然后在湖边散步。",
    "夜风吹过古老的石桥，河水静静地流淌。",
    "商人们开始收起摊位，广场渐渐安静下来。",
    "本当にありがとうございます、また来ます。",
    "川の向こうで鐘が鳴る。",
    "雨の夜、酒場は旅人でいっぱいだった。",
    "The innkeeper wiped the counter and said nothing.",
    "Footsteps echoed in the empty corridor.",
    "They argued about the route until the candles burned down.",
    "A cat watched them from the windowsill, unimpressed.",
    "The letter was sealed with green wax.",
];

/// A small deterministic generator (xorshift), so every run benches the same chat.
struct Sequence(u64);

impl Sequence {
    fn next(&mut self, below: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % below as u64) as usize
    }
}

/// Writes the chat into `data` and returns it with the file's path.
fn generate(data: &DataDir) -> (ChatRef, std::path::PathBuf) {
    let path = data.chats().join("Bench/search.jsonl");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut out = BufWriter::new(File::create(&path).unwrap());
    let header = json!({"user_name": "Ann", "character_name": "Bench",
        "create_date": "2026-06-01@21h00m00s",
        "chat_metadata": {"integrity": "bench-search", "note_prompt": ""}});
    serde_json::to_writer(&mut out, &header).unwrap();
    let mut sequence = Sequence(0x9e37_79b9_7f4a_7c15);
    for i in 0..MESSAGES {
        let is_user = i % 2 == 0;
        let mut text = format!("Message {i}.");
        for _ in 0..5 + sequence.next(5) {
            text.push(' ');
            text.push_str(SENTENCES[sequence.next(SENTENCES.len())]);
        }
        let message = json!({
            "name": if is_user { "Ann" } else { "Bench" }, "is_user": is_user, "is_system": false,
            "send_date": "June 1, 2026 9:00pm", "mes": text,
            "extra": {"api": "openai", "model": "gpt"},
        });
        out.write_all(b"\n").unwrap();
        serde_json::to_writer(&mut out, &message).unwrap();
    }
    out.flush().unwrap();
    let chat = ChatRef::Character {
        character_id: "Bench".into(),
        file_name: "search".into(),
    };
    (chat, path)
}

/// Every message, read newest page first as `chat_search` reads them.
fn read_pages(store: &FsChatStore, chat: &ChatRef) -> Vec<ChatMessage> {
    let mut pages = Vec::new();
    let mut end = MESSAGES;
    while end > 0 {
        let start = end.saturating_sub(PAGE);
        pages.push(store.read_messages_blocking(chat, start..end).unwrap());
        end = start;
    }
    pages.into_iter().rev().flatten().collect()
}

fn chat_search(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    let (chat, file) = generate(&data);
    let bytes = fs::metadata(&file).unwrap().len();
    let store = FsChatStore::new(data.clone());
    store.open_blocking(&chat).unwrap();

    let started = Instant::now();
    let messages = read_pages(&store, &chat);
    eprintln!(
        "chat_search: {} messages, {:.1} MB; one paged read through FsChatStore: {:?}",
        messages.len(),
        bytes as f64 / 1e6,
        started.elapsed()
    );
    let filter = ChatSearchFilter::default();
    for query in QUERIES {
        let parsed = Query::parse(query).unwrap();
        let hits = search_messages(&messages, &parsed, &filter, 20);
        let best = hits.first().map_or(0.0, |hit| hit.score);
        match ripgrep_median(query, std::slice::from_ref(&file)) {
            Some(rg) => eprintln!(
                "chat_search: `{query}`: {} hits kept, best score {best:.3}; \
                 rg -c median of {RG_RUNS}: {:?} ({} matching lines)",
                hits.len(),
                rg.median,
                rg.matching_lines
            ),
            None => eprintln!("chat_search: `{query}`: rg not found, reference skipped"),
        }
    }

    let mut search = c.benchmark_group("chat_search_core_100k");
    search.sample_size(10);
    for query in QUERIES {
        let parsed = Query::parse(query).unwrap();
        search.bench_with_input(BenchmarkId::from_parameter(query), &parsed, |b, parsed| {
            b.iter(|| search_messages(black_box(&messages), parsed, &filter, 20))
        });
    }
    search.finish();

    // The reference, timed the same way: `cargo xtask bench` divides each query's
    // `chat_search_core_100k` median by its median here.
    if rg_count("probe", std::slice::from_ref(&file)).is_some() {
        let mut rg = c.benchmark_group("chat_search_rg_100k");
        rg.sample_size(10);
        for query in QUERIES {
            rg.bench_with_input(BenchmarkId::from_parameter(query), query, |b, query| {
                b.iter(|| rg_count(query, std::slice::from_ref(&file)))
            });
        }
        rg.finish();
    }

    let mut read = c.benchmark_group("chat_search_read_100k");
    read.sample_size(10);
    read.bench_function("pages_of_1000", |b| {
        b.iter(|| read_pages(&store, black_box(&chat)))
    });
    read.finish();
}

criterion_group!(benches, chat_search);
criterion_main!(benches);
