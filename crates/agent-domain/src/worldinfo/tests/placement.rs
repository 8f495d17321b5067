//! Where activated content goes: every position, ordering within a position, ties.

use serde_json::json;

use super::support::Scenario;

fn every_position() -> Scenario {
    Scenario::new(json!([
        {"uid": 0, "constant": true, "position": 0, "order": 10, "content": "before 10 (first)"},
        {"uid": 1, "constant": true, "position": 0, "order": 30, "content": "before 30"},
        {"uid": 2, "constant": true, "position": 0, "order": 10, "content": "before 10 (second)"},
        {"uid": 3, "constant": true, "position": 1, "order": 5, "content": "after 5"},
        {"uid": 4, "constant": true, "position": 2, "order": 1, "content": "AN top 1"},
        {"uid": 5, "constant": true, "position": 2, "order": 2, "content": "AN top 2"},
        {"uid": 6, "constant": true, "position": 3, "content": "AN bottom"},
        {"uid": 7, "constant": true, "position": 4, "depth": 2, "role": 1, "order": 10,
         "content": "depth 2 user 10"},
        {"uid": 8, "constant": true, "position": 4, "depth": 2, "role": 1, "order": 20,
         "content": "depth 2 user 20"},
        {"uid": 9, "constant": true, "position": 4, "depth": 2, "role": 0,
         "content": "depth 2 system"},
        {"uid": 10, "constant": true, "position": 4, "depth": 0, "role": 2,
         "content": "depth 0 assistant"},
        {"uid": 11, "constant": true, "position": 4, "role": null,
         "content": "default depth 4, null role is system"},
        {"uid": 12, "constant": true, "position": 5, "order": 10,
         "content": "<START>\nTop ten"},
        {"uid": 13, "constant": true, "position": 5, "order": 20,
         "content": "Top twenty a\n<START>\nTop twenty b"},
        {"uid": 14, "constant": true, "position": 6, "order": 10, "content": "Bottom ten"},
        {"uid": 15, "constant": true, "position": 6, "order": 20, "content": "Bottom twenty"},
        {"uid": 16, "constant": true, "position": 7, "outletName": "Weather", "order": 10,
         "content": "rain"},
        {"uid": 17, "constant": true, "position": 7, "outletName": "Weather", "order": 20,
         "content": "storm"},
        {"uid": 18, "constant": true, "position": 7, "outletName": "", "content": "no outlet"},
        {"uid": 19, "constant": true, "position": 7, "outletName": "Mood", "content": "calm"},
        {"uid": 20, "constant": true, "position": 9, "content": "unknown position: nowhere"},
        {"uid": 21, "constant": true, "position": 0, "content": ""},
        {"uid": 22, "constant": true, "position": 1, "order": 50, "content": "{{char}} smiles."},
    ]))
}

#[test]
fn every_position_is_filled_in_order() {
    let result = every_position().run();
    insta::assert_yaml_snapshot!(result.placement);
    let placement = &result.placement;
    assert_eq!(
        placement.before, "before 10 (second)\nbefore 10 (first)\nbefore 30",
        "ascending order, ties in reverse activation order"
    );
    assert_eq!(
        placement.authors_note_with("The note."),
        "AN top 1\nAN top 2\nThe note.\nAN bottom"
    );
    assert_eq!(placement.outlet("Weather").as_deref(), Some("storm\nrain"));
    assert_eq!(placement.outlet(""), None);
    let keys: Vec<String> = placement.depth.iter().map(|d| d.prompt_key()).collect();
    assert_eq!(
        keys,
        [
            "customDepthWI_2_0",
            "customDepthWI_0_2",
            "customDepthWI_4_0",
            "customDepthWI_2_1"
        ],
        "buckets in the order the highest-order entries fill them"
    );
    assert_eq!(
        placement.depth[3].content(),
        "depth 2 user 10\ndepth 2 user 20"
    );
}
