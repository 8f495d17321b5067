#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Loading a character card from a realistic PNG: a 384×384 picture of noise (~590 KB, about
//! what a real card weighs, and barely compressible) whose `chara` and `ccv3` chunks sit after
//! the image data, as SillyTavern writes them. The `png` crate walks past the image data
//! without inflating it, so this should stay far below a millisecond.
//!
//! `cargo bench -p agent-infra-fs --bench card_read -- --warm-up-time 1 --measurement-time 3`

use std::fs;
use std::hint::black_box;

use agent_infra_fs::characters::FsCharacterCards;
use agent_infra_fs::layout::DataDir;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

const SIDE: u32 = 384;

fn card_png() -> Vec<u8> {
    let card = json!({
        "spec": "chara_card_v2", "spec_version": "2.0",
        "data": {"name": "Seraphina", "description": "A guardian of the glade. ".repeat(200),
                 "first_mes": "Welcome.", "alternate_greetings": ["Hello.", "Rain falls."],
                 "tags": ["fantasy"], "extensions": {"world": "Eldoria",
                 "depth_prompt": {"prompt": "", "depth": 4, "role": "system"}}}
    });
    let text = STANDARD.encode(card.to_string());
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, SIDE, SIDE);
    encoder.set_color(png::ColorType::Rgba);
    let mut writer = encoder.write_header().unwrap();
    let mut seed = 0x2545_F491_u32;
    let pixels: Vec<u8> = (0..SIDE * SIDE)
        .flat_map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed.to_le_bytes()
        })
        .collect();
    writer.write_image_data(&pixels).unwrap();
    for keyword in ["chara", "ccv3"] {
        writer
            .write_text_chunk(&png::text_metadata::TEXtChunk::new(keyword, text.as_str()))
            .unwrap();
    }
    writer.finish().unwrap();
    bytes
}

fn card_read(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    fs::create_dir_all(data.characters()).unwrap();
    let png = card_png();
    eprintln!("card_read: card PNG of {:.0} KB", png.len() as f64 / 1e3);
    fs::write(data.characters().join("Seraphina.png"), &png).unwrap();
    let cards = FsCharacterCards::new(data);

    let mut group = c.benchmark_group("card_read");
    group.bench_function("png_590kb", |b| {
        b.iter(|| {
            cards
                .load_blocking(black_box("Seraphina"))
                .unwrap()
                .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, card_read);
criterion_main!(benches);
