#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `FsCharacterCards`: cards in PNG `tEXt` chunks and bare JSON files, and the ways a card
//! file can be broken.

use std::fs;
use std::path::Path;

use agent_application::ports::{CharacterCard, CharacterCards, StoreError};
use agent_domain::ErrorCode;
use agent_infra_fs::FsStorage;
use agent_infra_fs::characters::FsCharacterCards;
use agent_infra_fs::layout::DataDir;
use serde_json::{Value, json};

const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for group in bytes.chunks(3) {
        let n = group
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= group.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut out = u32::try_from(data.len()).unwrap().to_be_bytes().to_vec();
    let mut covered = kind.to_vec();
    covered.extend_from_slice(data);
    out.extend_from_slice(&covered);
    out.extend_from_slice(&crc32(&covered).to_be_bytes());
    out
}

fn text_chunk(keyword: &str, card: &Value) -> Vec<u8> {
    let mut data = keyword.as_bytes().to_vec();
    data.push(0);
    data.extend_from_slice(base64(card.to_string().as_bytes()).as_bytes());
    chunk(b"tEXt", &data)
}

/// A 1×1 PNG (the pixel data is not a real image; nobody decodes it) with extra chunks.
fn png(extra: &[Vec<u8>]) -> Vec<u8> {
    let mut out = SIGNATURE.to_vec();
    out.extend(chunk(b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]));
    for chunk in extra {
        out.extend_from_slice(chunk);
    }
    out.extend(chunk(b"IDAT", &[0x78, 0x9c, 0x63, 0, 0, 0, 2, 0, 1]));
    out.extend(chunk(b"IEND", &[]));
    out
}

fn v2_card() -> Value {
    json!({
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
            "tags": ["fantasy"],
            "extensions": {}
        }
    })
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
    write(
        &data,
        "Seraphina.png",
        &png(&[text_chunk("chara", &v2_card())]),
    );
    let card = cards.load("Seraphina").await.unwrap().unwrap();
    assert_eq!(
        card,
        CharacterCard {
            name: "Seraphina".into(),
            description: "{{char}} guards the glade — 森の守り手.".into(),
            personality: "Gentle, watchful.".into(),
            scenario: "A lost traveller.".into(),
            first_message: "Welcome, {{user}}.".into(),
            example_dialogue: "<START>\n{{user}}: Who are you?".into(),
            creator_notes: Some("For testing.".into()),
        }
    );
}

#[tokio::test]
async fn a_v3_chunk_wins_over_the_v2_one() {
    let (_dir, data, cards) = setup();
    let mut v3 = v2_card();
    v3["spec"] = json!("chara_card_v3");
    v3["data"]["name"] = json!("Seraphina (v3)");
    write(
        &data,
        "Seraphina.png",
        &png(&[text_chunk("chara", &v2_card()), text_chunk("ccv3", &v3)]),
    );
    let card = cards.load("Seraphina").await.unwrap().unwrap();
    assert_eq!(card.name, "Seraphina (v3)");
}

#[tokio::test]
async fn json_cards_and_plain_avatars() {
    let (_dir, data, cards) = setup();
    assert_eq!(cards.load("Nobody").await.unwrap(), None);

    write(
        &data,
        "Bram.json",
        json!({"name": "Bram", "description": "A innkeeper.", "first_mes": "Ale?"})
            .to_string()
            .as_bytes(),
    );
    let card = cards.load("Bram").await.unwrap().unwrap();
    assert_eq!(
        (card.name.as_str(), card.first_message.as_str()),
        ("Bram", "Ale?")
    );
    assert_eq!(card.creator_notes, None);

    // An avatar without a card chunk falls back to the JSON card, or to nothing.
    write(
        &data,
        "Bram.png",
        &png(&[text_chunk("Comment", &json!("hi"))]),
    );
    assert_eq!(cards.load("Bram").await.unwrap().unwrap().name, "Bram");
    write(&data, "Elowen.png", &png(&[]));
    assert_eq!(cards.load("Elowen").await.unwrap(), None);
}

#[tokio::test]
async fn broken_cards_name_their_file() {
    let (_dir, data, cards) = setup();
    let good = png(&[text_chunk("chara", &v2_card())]);

    let mut bad_crc = good.clone();
    let crc_at = 8 + 25 + 8 + 6 + base64(v2_card().to_string().as_bytes()).len();
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
    assert!(message.contains("not a PNG"), "{message}");

    let mut data_bytes = b"chara\0".to_vec();
    data_bytes.extend_from_slice(b"not base64!");
    write(&data, "Garbled.png", &png(&[chunk(b"tEXt", &data_bytes)]));
    let message = integrity_message(cards.load("Garbled").await.unwrap_err());
    assert!(
        message.contains("`chara` chunk") && message.contains("base64"),
        "{message}"
    );

    write(
        &data,
        "Text.png",
        &png(&[text_chunk("chara", &json!("just text"))]),
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
}
