#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `FsCharacterCards`: cards in PNG `tEXt` chunks (where SillyTavern puts them: after the
//! image data) and bare JSON files, in the V1, V2 and V3 formats, and the ways a card file
//! can be broken.

use std::fs;
use std::path::Path;

use agent_application::ports::{CharacterCards, StoreError};
use agent_domain::ErrorCode;
use agent_infra_fs::FsStorage;
use agent_infra_fs::characters::FsCharacterCards;
use agent_infra_fs::layout::DataDir;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

/// A PNG of `width`×`height` RGBA pixels from `pixel`, with text chunks written `before` and
/// `after` the image data, as `(keyword, text)`.
fn png_with(
    (width, height): (u32, u32),
    mut pixel: impl FnMut(u32) -> [u8; 4],
    before: &[(&str, String)],
    after: &[(&str, String)],
) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgba);
    for (keyword, text) in before {
        encoder
            .add_text_chunk((*keyword).to_owned(), text.clone())
            .unwrap();
    }
    let mut writer = encoder.write_header().unwrap();
    let pixels: Vec<u8> = (0..width * height).flat_map(&mut pixel).collect();
    writer.write_image_data(&pixels).unwrap();
    for (keyword, text) in after {
        writer
            .write_text_chunk(&png::text_metadata::TEXtChunk::new(*keyword, text.as_str()))
            .unwrap();
    }
    writer.finish().unwrap();
    bytes
}

/// The card chunk text SillyTavern writes: the card JSON, base64-encoded.
fn encoded(card: &Value) -> String {
    STANDARD.encode(card.to_string())
}

/// A small card PNG with its card chunks after the image data, as SillyTavern writes them.
fn card_png(chunks: &[(&str, &Value)]) -> Vec<u8> {
    let after: Vec<_> = chunks
        .iter()
        .map(|(keyword, card)| (*keyword, encoded(card)))
        .collect();
    png_with((2, 2), |i| [i as u8, 80, 120, 255], &[], &after)
}

/// A V2 card as SillyTavern 1.18 exports it: V1 fields mirrored at the top level, the truth
/// under `data`.
fn v2_card() -> Value {
    json!({
        "name": "Seraphina",
        "description": "stale top-level copy",
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {
            "name": "Seraphina",
            "description": "{{char}} guards the glade — 森の守り手.",
            "personality": "Gentle, watchful.",
            "scenario": "A lost traveller.",
            "first_mes": "Welcome, {{user}}.",
            "mes_example": "<START>\n{{user}}: Who are you?",
            "creator_notes": "For testing.",
            "system_prompt": "",
            "post_history_instructions": "",
            "alternate_greetings": ["You wake in the glade.", "Rain falls."],
            "tags": ["fantasy", "guardian"],
            "creator": "tests",
            "character_version": "1.0",
            "extensions": {
                "talkativeness": "0.5",
                "fav": false,
                "world": "",
                "depth_prompt": {"prompt": "", "depth": 4, "role": "system"}
            }
        }
    })
}

/// The V3 card of the same character: what SillyTavern puts in `ccv3`.
fn v3_card() -> Value {
    let mut card = v2_card();
    card["spec"] = json!("chara_card_v3");
    card["spec_version"] = json!("3.0");
    card["data"]["name"] = json!("Seraphina (v3)");
    card["data"]["group_only_greetings"] = json!([]);
    card["data"]["extensions"]["world"] = json!("Eldoria");
    card
}

fn setup() -> (tempfile::TempDir, DataDir, FsCharacterCards) {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    fs::create_dir_all(data.characters()).unwrap();
    let cards = FsCharacterCards::new(data.clone());
    (dir, data, cards)
}

fn write(data: &DataDir, name: &str, bytes: &[u8]) {
    fs::write(data.characters().join(name), bytes).unwrap();
}

fn integrity_message(err: StoreError) -> String {
    assert_eq!(err.code(), "agent.storage_integrity", "{err}");
    err.to_string()
}

#[tokio::test]
async fn a_v2_card_is_read_from_its_png() {
    let (_dir, data, cards) = setup();
    write(&data, "Seraphina.png", &card_png(&[("chara", &v2_card())]));
    let card = cards.load("Seraphina").await.unwrap().unwrap();
    insta::assert_yaml_snapshot!("v2_png_card", card);
}

#[tokio::test]
async fn the_v3_chunk_wins_over_the_v2_one_after_the_image_data() {
    let (_dir, data, cards) = setup();
    write(
        &data,
        "Seraphina.png",
        &card_png(&[("chara", &v2_card()), ("ccv3", &v3_card())]),
    );
    let card = cards.load("Seraphina").await.unwrap().unwrap();
    assert_eq!(card.name, "Seraphina (v3)");
    assert_eq!(card.world.as_deref(), Some("Eldoria"));
    assert_eq!(card.avatar, "Seraphina.png");

    // Chunks ahead of the image data are found too (other writers put them there).
    let before = png_with(
        (1, 1),
        |_| [0; 4],
        &[
            ("chara", encoded(&v2_card())),
            ("ccv3", encoded(&v3_card())),
        ],
        &[],
    );
    write(&data, "Early.png", &before);
    let card = cards.load("Early").await.unwrap().unwrap();
    assert_eq!(card.name, "Seraphina (v3)");
    assert_eq!(card.avatar, "Early.png");
}

#[tokio::test]
async fn a_v3_json_card_carries_its_world_depth_prompt_and_book() {
    let (_dir, data, cards) = setup();
    let card = json!({
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "data": {
            "name": "Elowen",
            "description": "A cartographer of {{user}}'s homeland.",
            "personality": "Precise.",
            "scenario": "",
            "first_mes": "Maps, {{user}}?",
            "mes_example": "",
            "creator_notes": "",
            "system_prompt": "Write as {{char}}.",
            "post_history_instructions": "Stay in character.",
            "alternate_greetings": [],
            "tags": [],
            "group_only_greetings": ["The group gathers."],
            "character_book": {
                "name": "Elowen's atlas",
                "entries": [
                    {"keys": ["atlas"], "content": "The atlas is old.", "enabled": true,
                     "insertion_order": 100, "id": 0, "extensions": {"position": 0}}
                ],
                "extensions": {}
            },
            "extensions": {
                "world": "Eldoria",
                "depth_prompt": {"prompt": "{{char}} never lies about distances.",
                                 "depth": 2, "role": "user"}
            }
        }
    });
    write(&data, "Elowen.json", card.to_string().as_bytes());
    let card = cards.load("Elowen").await.unwrap().unwrap();
    assert!(card.has_character_book());
    insta::assert_yaml_snapshot!("v3_json_card", card);
}

#[tokio::test]
async fn a_v1_card_is_flat() {
    let (_dir, data, cards) = setup();
    let card = json!({
        "name": "Bram",
        "description": "An innkeeper.",
        "personality": "Gruff.",
        "scenario": "The inn at dusk.",
        "first_mes": "Ale?",
        "mes_example": "<START>\n{{char}}: We're closed.",
        "creatorcomment": "Converted from TavernAI.",
        "avatar": "none",
        "chat": "Bram - 2023-05-01@12h00m00s",
        "talkativeness": "0.5",
        "fav": false,
        "tags": ["inn"],
        "create_date": "2023-05-01@12h00m00s"
    });
    write(&data, "Bram.png", &card_png(&[("chara", &card)]));
    let card = cards.load("Bram").await.unwrap().unwrap();
    insta::assert_yaml_snapshot!("v1_png_card", card);
}

#[tokio::test]
async fn json_cards_plain_avatars_and_the_listing() {
    let (_dir, data, cards) = setup();
    assert_eq!(cards.load("Nobody").await.unwrap(), None);
    assert!(cards.list().await.unwrap().is_empty());

    write(
        &data,
        "Bram.json",
        json!({"name": "Bram", "first_mes": "Ale?"})
            .to_string()
            .as_bytes(),
    );
    let card = cards.load("Bram").await.unwrap().unwrap();
    assert_eq!(
        (card.name.as_str(), card.avatar.as_str()),
        ("Bram", "Bram.json")
    );

    // An avatar without a card chunk falls back to the JSON card, or to nothing.
    let comment = png_with((1, 1), |_| [0; 4], &[], &[("Comment", "hi".into())]);
    write(&data, "Bram.png", &comment);
    assert_eq!(
        cards.load("Bram").await.unwrap().unwrap().avatar,
        "Bram.json"
    );
    write(&data, "Elowen.png", &comment);
    assert_eq!(cards.load("Elowen").await.unwrap(), None);

    write(&data, "Seraphina.png", &card_png(&[("chara", &v2_card())]));
    write(&data, "notes.txt", b"not a card");
    assert_eq!(cards.list().await.unwrap(), ["Bram", "Elowen", "Seraphina"]);
}

#[tokio::test]
async fn a_realistic_card_reads_whole() {
    // A 384×384 picture of noise (~590 KB, about what a real card weighs) whose card chunks
    // sit after several IDAT chunks.
    let (_dir, data, cards) = setup();
    let mut seed = 0x2545_F491_u32;
    let noise = png_with(
        (384, 384),
        |_| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed.to_le_bytes()
        },
        &[],
        &[
            ("chara", encoded(&v2_card())),
            ("ccv3", encoded(&v3_card())),
        ],
    );
    assert!(noise.len() > 500_000, "{}", noise.len());
    write(&data, "Seraphina.png", &noise);
    let card = cards.load("Seraphina").await.unwrap().unwrap();
    assert_eq!(card.name, "Seraphina (v3)");
}

#[tokio::test]
async fn broken_cards_name_their_file() {
    let (_dir, data, cards) = setup();
    let good = card_png(&[("chara", &v2_card())]);

    // The card chunk's CRC is the 4 bytes before IEND (12 bytes).
    let mut bad_crc = good.clone();
    let crc_at = bad_crc.len() - 12 - 2;
    bad_crc[crc_at] ^= 0xFF;
    write(&data, "Crc.png", &bad_crc);
    let message = integrity_message(cards.load("Crc").await.unwrap_err());
    assert!(
        message.contains("Crc.png") && message.contains("CRC"),
        "{message}"
    );

    write(&data, "Short.png", &good[..good.len() / 2]);
    let message = integrity_message(cards.load("Short").await.unwrap_err());
    assert!(
        message.contains("Short.png") && message.contains("truncated"),
        "{message}"
    );

    write(&data, "Gif.png", b"GIF89a....");
    let message = integrity_message(cards.load("Gif").await.unwrap_err());
    assert!(message.contains("not a readable PNG"), "{message}");

    let garbled = png_with((1, 1), |_| [0; 4], &[], &[("chara", "not base64!".into())]);
    write(&data, "Garbled.png", &garbled);
    let message = integrity_message(cards.load("Garbled").await.unwrap_err());
    assert!(
        message.contains("`chara` chunk") && message.contains("base64"),
        "{message}"
    );

    write(
        &data,
        "Text.png",
        &card_png(&[("chara", &json!("just text"))]),
    );
    let message = integrity_message(cards.load("Text").await.unwrap_err());
    assert!(message.contains("not a JSON object"), "{message}");

    write(
        &data,
        "Typed.json",
        br#"{"spec":"chara_card_v2","data":{"description":["x"]}}"#,
    );
    let message = integrity_message(cards.load("Typed").await.unwrap_err());
    assert!(
        message.contains("Typed.json") && message.contains("`data.description`"),
        "{message}"
    );

    write(
        &data,
        "Depth.json",
        br#"{"spec":"chara_card_v2","data":{"extensions":{"depth_prompt":{"depth":"4"}}}}"#,
    );
    let message = integrity_message(cards.load("Depth").await.unwrap_err());
    assert!(
        message.contains("`data.extensions.depth_prompt.depth`"),
        "{message}"
    );
}

#[tokio::test]
async fn ids_that_are_not_file_names_are_refused() {
    let (_dir, _data, cards) = setup();
    for id in [
        "",
        ".",
        "..",
        "../Seraphina",
        "a/b",
        "a\\b",
        ".hidden",
        "nul\0",
    ] {
        let err = cards.load(id).await.unwrap_err();
        assert_eq!(err.code(), "agent.invalid_character_id", "{id:?}");
    }
}

#[cfg(unix)]
#[tokio::test]
async fn a_linked_card_is_refused() {
    let (dir, data, cards) = setup();
    let outside = dir.path().join("outside.json");
    fs::write(&outside, json!({"name": "Elsewhere"}).to_string()).unwrap();
    std::os::unix::fs::symlink(&outside, data.characters().join("Link.json")).unwrap();
    let message = integrity_message(cards.load("Link").await.unwrap_err());
    assert!(message.contains("symbolic link"), "{message}");
    assert!(cards.list().await.unwrap().is_empty());
}

#[tokio::test]
async fn storage_wires_the_cards_and_the_demo_card_reads() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../agent-host-cli/demo/data");
    let storage = FsStorage::open(DataDir::new(demo));
    let card = storage.characters.load("Seraphina").await.unwrap().unwrap();
    assert_eq!(card.name, "Seraphina");
    for field in [
        &card.description,
        &card.personality,
        &card.scenario,
        &card.first_message,
        &card.example_dialogue,
    ] {
        assert!(!field.trim().is_empty(), "{card:?}");
    }
    assert!(
        storage
            .characters
            .list()
            .await
            .unwrap()
            .contains(&"Seraphina".to_owned())
    );
}
