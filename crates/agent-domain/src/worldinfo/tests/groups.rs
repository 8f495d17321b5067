//! Inclusion groups: sticky members, scoring, override, weighted draws, groups already
//! activated, and the visiting order of several groups.

use serde_json::json;

use super::support::Scenario;

fn pair(extra_x: serde_json::Value, extra_y: serde_json::Value) -> serde_json::Value {
    let mut x = json!({"uid": 0, "key": ["dragon"], "group": "beasts", "content": "X"});
    let mut y = json!({"uid": 1, "key": ["dragon"], "group": "beasts", "content": "Y"});
    for (entry, extra) in [(&mut x, extra_x), (&mut y, extra_y)] {
        if let (Some(entry), Some(extra)) = (entry.as_object_mut(), extra.as_object()) {
            entry.extend(extra.clone());
        }
    }
    json!([x, y])
}

#[test]
fn a_weighted_draw_picks_one_member() {
    let entries = pair(json!({"groupWeight": 100}), json!({"groupWeight": 300}));
    let draw = |roll: f64| {
        Scenario::new(entries.clone())
            .chat(&[("Alex", "a red dragon")])
            .chance(&[roll])
            .fired()
    };
    // Total weight 400: a roll up to 100 is X, above is Y (the boundary belongs to X).
    assert_eq!(draw(0.1), ["Lore.0"]);
    assert_eq!(draw(0.25), ["Lore.0"]);
    assert_eq!(draw(0.2501), ["Lore.1"]);
    assert_eq!(draw(0.99), ["Lore.1"]);
    let explained = Scenario::new(entries)
        .chat(&[("Alex", "a red dragon")])
        .chance(&[0.5]);
    insta::assert_yaml_snapshot!(explained.summary());
}

#[test]
fn override_picks_the_highest_order_member() {
    let scenario = Scenario::new(json!([
        {"uid": 0, "key": ["dragon"], "group": "g", "order": 200, "content": "no override"},
        {"uid": 1, "key": ["dragon"], "group": "g", "groupOverride": true, "order": 50,
         "content": "override, low"},
        {"uid": 2, "key": ["dragon"], "group": "g", "groupOverride": true, "order": 80,
         "content": "override, high"},
    ]))
    .chat(&[("Alex", "a dragon")]);
    let result = scenario.run();
    assert_eq!(super::support::fired(&result), ["Lore.2"]);
    insta::assert_yaml_snapshot!(super::support::Summary::of(&result).skipped);
}

#[test]
fn scoring_keeps_the_members_with_the_most_matching_keys() {
    let scenario = Scenario::new(json!([
        {"uid": 0, "key": ["dragon"], "group": "g", "content": "one key"},
        {"uid": 1, "key": ["dragon", "red"], "group": "g", "content": "two keys"},
        {"uid": 2, "key": ["dragon"], "keysecondary": ["red", "cave"], "selectiveLogic": 0,
         "group": "g", "content": "AND ANY: one primary plus one secondary"},
        {"uid": 3, "key": ["dragon"], "keysecondary": ["red", "cave"], "selectiveLogic": 3,
         "selective": false, "group": "g",
         "content": "not selective, so a candidate; AND ALL incomplete: scores primary only"},
        {"uid": 4, "key": ["dragon"], "group": "g", "useGroupScoring": false,
         "content": "unscored: stays in the draw"},
    ]))
    .chat(&[("Alex", "a red dragon")])
    .settings(|s| s.use_group_scoring = true)
    .chance(&[0.0]);
    insta::assert_yaml_snapshot!(scenario.summary());
    // Scoring is also on when any member asks for it.
    let per_entry = Scenario::new(json!([
        {"uid": 0, "key": ["dragon"], "group": "g", "useGroupScoring": true, "content": "one"},
        {"uid": 1, "key": ["dragon", "red"], "group": "g", "content": "two"},
    ]))
    .chat(&[("Alex", "a red dragon")])
    .chance(&[0.0]);
    assert_eq!(per_entry.fired(), ["Lore.1"]);
}

#[test]
fn sticky_members_are_kept() {
    let scenario = Scenario::new(pair(json!({"sticky": 3}), json!({})))
        .chat(&[("Alex", "hello"), ("Alex", "a dragon")]);
    let hash = scenario.entries[0].hash;
    let scenario = scenario
        .input(|i| {
            i.timed_state = Some(json!({"sticky": {"Lore.0": {"hash": hash, "start": 1,
                "end": 4, "protected": false}}, "cooldown": {}}));
        })
        .chance(&[0.99]);
    insta::assert_yaml_snapshot!(scenario.summary());
}

#[test]
fn a_group_activated_in_an_earlier_pass_blocks_its_members() {
    let scenario = Scenario::new(json!([
        {"uid": 0, "key": ["dragon"], "group": "beasts", "content": "A dragon and a wolf."},
        {"uid": 1, "key": ["wolf"], "group": "beasts", "content": "Same group: blocked."},
        {"uid": 2, "key": ["wolf"], "group": "beasts, pack", "content": "Group text differs."},
        {"uid": 3, "key": ["dragon"], "group": "flyers, beasts", "content": "Another text."},
    ]))
    .chat(&[("Alex", "a dragon")])
    .settings(|s| s.recursive = true)
    .chance(&[0.0]);
    // Pass 1: 0 and 3 share `beasts`; the draw keeps 0 and drops 3. Pass 2 (recursion finds
    // "wolf"): 1, 2 and 3 are all members of `beasts`, whose name is exactly the group text of
    // the activated entry 0, so all three are dropped; 3, a loser of pass 1, is reconsidered
    // (losers are not blacklisted) and dropped again.
    insta::assert_yaml_snapshot!(scenario.summary());
}

#[test]
fn a_group_loser_can_activate_in_a_later_pass() {
    let scenario = Scenario::new(json!([
        {"uid": 0, "key": ["dragon"], "group": "beasts", "content": "X, mentions a wolf."},
        {"uid": 1, "key": ["dragon"], "group": "beasts, pack", "content": "Y wins the draw."},
    ]))
    .chat(&[("Alex", "a dragon")])
    .settings(|s| s.recursive = true)
    // Pass 1: total weight 200, a roll of 150 picks Y.
    .chance(&[0.75]);
    let result = scenario.run();
    // Pass 2 (recursion): X is reconsidered; the activated Y's group text is `beasts, pack`,
    // not `beasts`, so the group is not blocked and X, alone, stays.
    assert_eq!(super::support::fired(&result), ["Lore.1", "Lore.0"]);
    assert_eq!(result.activated[1].pass, 2);
}

#[test]
fn groups_are_visited_in_javascript_object_order() {
    let scenario = Scenario::new(json!([
        {"uid": 0, "key": ["dragon"], "group": "b", "content": "b first"},
        {"uid": 1, "key": ["dragon"], "group": "b", "content": "b second"},
        {"uid": 2, "key": ["dragon"], "group": "10", "content": "10 first"},
        {"uid": 3, "key": ["dragon"], "group": "10", "content": "10 second"},
    ]))
    .chat(&[("Alex", "a dragon")])
    // `10` is an array index, so it is visited before `b` and takes the first roll.
    .chance(&[0.9, 0.1]);
    assert_eq!(scenario.fired(), ["Lore.0", "Lore.3"]);
}
