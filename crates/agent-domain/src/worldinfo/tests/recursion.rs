//! Recursion: activated content scanned for more entries, with exclude, prevent and delay
//! levels, and the step cap.

use serde_json::json;

use super::support::Scenario;

fn chain() -> serde_json::Value {
    json!([
        {"uid": 0, "key": ["dragon"], "content": "The dragon guards the crystal."},
        {"uid": 1, "key": ["crystal"], "content": "The crystal hums near the tower."},
        {"uid": 2, "key": ["tower"], "content": "The tower keeps a lantern."},
        {"uid": 3, "key": ["lantern"], "content": "The lantern never dies."},
    ])
}

#[test]
fn recursion_follows_activated_content() {
    let off = Scenario::new(chain()).chat(&[("Alex", "a dragon!")]);
    assert_eq!(off.fired(), ["Lore.0"]);
    let on = off.settings(|s| s.recursive = true);
    insta::assert_yaml_snapshot!(on.summary());
}

#[test]
fn max_recursion_steps_caps_the_passes() {
    let capped = Scenario::new(chain())
        .chat(&[("Alex", "a dragon!")])
        .settings(|s| {
            s.recursive = true;
            s.max_recursion_steps = 2;
        });
    let result = capped.run();
    assert_eq!(super::support::fired(&result), ["Lore.0", "Lore.1"]);
    assert_eq!(result.passes, 2);
}

#[test]
fn exclude_and_prevent_recursion() {
    let scenario = Scenario::new(json!([
        {"uid": 0, "key": ["dragon"], "content": "The dragon guards the crystal and the tower."},
        {"uid": 1, "key": ["crystal"], "excludeRecursion": true,
         "content": "Cannot be reached by recursion."},
        {"uid": 2, "key": ["tower"], "preventRecursion": true,
         "content": "Reached, but its lantern is not scanned."},
        {"uid": 3, "key": ["lantern"], "content": "Never reached."},
        {"uid": 4, "key": ["dragon"], "excludeRecursion": true,
         "content": "Found in the chat on the first pass: fine."},
    ]))
    .chat(&[("Alex", "a dragon!")])
    .settings(|s| s.recursive = true);
    insta::assert_yaml_snapshot!(scenario.summary());
}

#[test]
fn delay_until_recursion_levels_open_one_by_one() {
    let entries = json!([
        {"uid": 0, "key": ["dragon"], "content": "A plain entry."},
        {"uid": 1, "key": ["dragon"], "delayUntilRecursion": true, "content": "Level 1."},
        {"uid": 2, "key": ["dragon"], "delayUntilRecursion": 2, "content": "Level 2."},
        {"uid": 3, "key": ["dragon"], "delayUntilRecursion": 2, "sticky": 1,
         "content": "Level 2 but sticky from an earlier generation."},
    ]);
    let plain = Scenario::new(entries).chat(&[("Alex", "a dragon!")]);
    let hash = plain.entries[3].hash;
    let plain = plain.input(|i| {
        i.timed_state = Some(
            json!({"sticky": {"Lore.3": {"hash": hash, "start": 0, "end": 5,
            "protected": false}}, "cooldown": {}}),
        );
    });
    // Without recursion the remaining levels still run, starting with the second: the first
    // level is preset before the first pass.
    insta::assert_yaml_snapshot!("delay_levels_without_recursion", plain.summary());
    let recursive = plain.settings(|s| s.recursive = true);
    insta::assert_yaml_snapshot!("delay_levels_with_recursion", recursive.summary());
}
