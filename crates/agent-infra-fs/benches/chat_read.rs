#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Reading one message by index from a generated 100,000-message (~50 MB) chat once its line
//! index is built, and building that index (the first `open` of the chat).
//!
//! `cargo bench -p agent-infra-fs --bench chat_read -- --warm-up-time 1 --measurement-time 3`

use std::fs::{self, File};
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::time::Instant;

use agent_domain::event::ChatRef;
use agent_infra_fs::chat::FsChatStore;
use agent_infra_fs::layout::DataDir;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

const MESSAGES: usize = 100_000;

const PARAGRAPH: &str = "The lanterns along the river flickered as the evening wind rose, \
    carrying the smell of rain and cedar smoke across the old stone bridge. 川の向こうで鐘が鳴る。 \
    She paused, listening, then turned back toward the market where the merchants were \
    folding their awnings and calling out the last prices of the day 🌙. مساء الخير. \
    Somewhere a door closed, and the square fell quiet.";

/// Writes the chat into `data` and returns it.
fn generate(data: &DataDir) -> ChatRef {
    let path = data.chats().join("Bench/big.jsonl");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut out = BufWriter::new(File::create(&path).unwrap());
    let header = json!({"user_name": "Ann", "character_name": "Bench", "create_date": "2026-06-01@21h00m00s",
        "chat_metadata": {"integrity": "bench-chat", "note_prompt": ""}});
    serde_json::to_writer(&mut out, &header).unwrap();
    for i in 0..MESSAGES {
        let is_user = i % 2 == 0;
        let message = json!({
            "name": if is_user { "Ann" } else { "Bench" }, "is_user": is_user, "is_system": false,
            "send_date": "June 1, 2026 9:00pm", "mes": format!("Message {i}. {PARAGRAPH}"),
            "extra": {"api": "openai", "model": "gpt"},
        });
        out.write_all(b"\n").unwrap();
        serde_json::to_writer(&mut out, &message).unwrap();
    }
    out.flush().unwrap();
    ChatRef::Character {
        character_id: "Bench".into(),
        file_name: "big".into(),
    }
}

fn chat_read(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    let chat = generate(&data);
    let bytes = fs::metadata(data.chats().join("Bench/big.jsonl"))
        .unwrap()
        .len();

    let store = FsChatStore::new(data.clone());
    let started = Instant::now();
    let info = store.open_blocking(&chat).unwrap();
    eprintln!(
        "chat_read: first open (index build) of {} messages, {:.1} MB: {:?}",
        info.message_count,
        bytes as f64 / 1e6,
        started.elapsed()
    );

    let mut reads = c.benchmark_group("chat_read");
    for (label, index) in [("near_end", MESSAGES - 2), ("middle", MESSAGES / 2)] {
        reads.bench_function(label, |b| {
            b.iter(|| {
                store
                    .read_messages_blocking(&chat, black_box(index..index + 1))
                    .unwrap()
            })
        });
    }
    reads.finish();

    let mut build = c.benchmark_group("chat_index");
    build.sample_size(10);
    build.bench_function("build_100k", |b| {
        b.iter(|| FsChatStore::new(data.clone()).open_blocking(&chat).unwrap())
    });
    build.finish();
}

criterion_group!(benches, chat_read);
criterion_main!(benches);
