//! Timed effects: sticky, cooldown and delay, with their state in
//! `chat_metadata.timedWorldInfo`.
//!
//! The state is `{"sticky": {...}, "cooldown": {...}}`, each keyed `"<world>.<uid>"` with
//! records `{hash, start, end, protected}`. A record belongs to the entry whose hash it
//! carries (the key only names it). `N` is the number of chat messages the scan is given.
//!
//! Before a scan, unless it is a dry run, each sticky record and then each cooldown record is
//! checked:
//! 1. `N <= start` and not protected: the chat has not advanced since the record was made
//!    (a regenerate or swipe); the record is deleted.
//! 2. No entry has its hash: the record is deleted once `N >= end`, else kept (it may belong
//!    to another character's book).
//! 3. The entry no longer has that effect (0): deleted.
//! 4. `N >= end`: the effect is over and the record deleted. When a sticky effect ends and the
//!    entry has a cooldown, a *protected* cooldown starts now (`start = N`,
//!    `end = N + cooldown`), active immediately; protection keeps it through a regenerate.
//! 5. Otherwise the effect is active.
//!
//! Delay needs no record: an entry with `delay` is held back while `N < delay`.
//!
//! After a scan (again not in a dry run) every activated entry with `sticky` or `cooldown`
//! gets a record `{hash, start: N, end: N + value, protected: false}` for each effect it has
//! no record of yet. Malformed state is repaired the way SillyTavern repairs it: a missing or
//! non-object `sticky`/`cooldown` becomes `{}` and non-object records are dropped.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::scan_entry::ScanEntry;
use crate::json::OrderedJson;
use crate::json::js::{JsScalar, number_to_string};

/// The two kinds of timed effect that keep records.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sticky,
    Cooldown,
}

impl Kind {
    fn key(self) -> &'static str {
        match self {
            Self::Sticky => "sticky",
            Self::Cooldown => "cooldown",
        }
    }

    fn length(self, entry: &ScanEntry) -> i64 {
        match self {
            Self::Sticky => entry.entry.sticky,
            Self::Cooldown => entry.entry.cooldown,
        }
    }
}

/// The effects active for one scan and the state to save after it.
pub(super) struct TimedEffects {
    /// `timedWorldInfo` without its `sticky` and `cooldown` members (kept as they were).
    rest: Map<String, Value>,
    sticky_records: Map<String, Value>,
    cooldown_records: Map<String, Value>,
    sticky: HashSet<u64>,
    cooldown: HashSet<u64>,
    delay: HashSet<u64>,
    chat_length: usize,
    dry_run: bool,
}

impl TimedEffects {
    /// Checks `state` against `entries` for a chat of `chat_length` messages.
    pub(super) fn check(
        state: Option<&Value>,
        entries: &[ScanEntry],
        chat_length: usize,
        dry_run: bool,
    ) -> Self {
        let mut rest = match state {
            Some(Value::Object(object)) => object.clone(),
            _ => Map::new(),
        };
        let mut take = |kind: Kind| match rest.remove(kind.key()) {
            Some(Value::Object(records)) => {
                records.into_iter().filter(|(_, v)| v.is_object()).collect()
            }
            _ => Map::new(),
        };
        let sticky_records = take(Kind::Sticky);
        let cooldown_records = take(Kind::Cooldown);
        let mut effects = Self {
            rest,
            sticky_records,
            cooldown_records,
            sticky: HashSet::new(),
            cooldown: HashSet::new(),
            delay: HashSet::new(),
            chat_length,
            dry_run,
        };
        if !dry_run {
            effects.check_records(Kind::Sticky, entries);
            effects.check_records(Kind::Cooldown, entries);
        }
        effects.delay = entries
            .iter()
            .filter(|e| e.entry.delay != 0 && (chat_length as f64) < e.entry.delay as f64)
            .map(|e| e.hash)
            .collect();
        effects
    }

    pub(super) fn is_sticky(&self, entry: &ScanEntry) -> bool {
        self.sticky.contains(&entry.hash)
    }

    pub(super) fn is_cooldown(&self, entry: &ScanEntry) -> bool {
        self.cooldown.contains(&entry.hash)
    }

    pub(super) fn is_delayed(&self, entry: &ScanEntry) -> bool {
        self.delay.contains(&entry.hash)
    }

    /// Starts the sticky and cooldown effects of the entries activated by the scan.
    pub(super) fn record_activations<'a>(
        &mut self,
        activated: impl IntoIterator<Item = &'a ScanEntry>,
    ) {
        if self.dry_run {
            return;
        }
        for entry in activated {
            for kind in [Kind::Sticky, Kind::Cooldown] {
                let length = kind.length(entry);
                let chat_length = self.chat_length;
                let records = self.records(kind);
                if length != 0 && !records.contains_key(&entry.key()) {
                    records.insert(entry.key(), record(entry, chat_length, length, false));
                }
            }
        }
    }

    /// The state to save as `chat_metadata.timedWorldInfo`.
    pub(super) fn into_state(self) -> Value {
        let mut state = self.rest;
        state.insert(
            Kind::Sticky.key().into(),
            Value::Object(self.sticky_records),
        );
        state.insert(
            Kind::Cooldown.key().into(),
            Value::Object(self.cooldown_records),
        );
        Value::Object(state)
    }

    fn records(&mut self, kind: Kind) -> &mut Map<String, Value> {
        match kind {
            Kind::Sticky => &mut self.sticky_records,
            Kind::Cooldown => &mut self.cooldown_records,
        }
    }

    fn check_records(&mut self, kind: Kind, entries: &[ScanEntry]) {
        let n = self.chat_length as f64;
        let records: Vec<(String, Value)> = self
            .records(kind)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (key, value) in records {
            let start = field_number(&value, "start");
            let end = field_number(&value, "end");
            let protected = value
                .get("protected")
                .is_some_and(|v| JsScalar::of_value(v).truthy());
            let hash = value.get("hash").map(js_string);
            let entry = entries.iter().find(|e| Some(e.hash.to_string()) == hash);
            if n <= start && !protected {
                self.records(kind).remove(&key);
                continue;
            }
            let Some(entry) = entry else {
                if n >= end {
                    self.records(kind).remove(&key);
                }
                continue;
            };
            if kind.length(entry) == 0 {
                self.records(kind).remove(&key);
                continue;
            }
            if n >= end {
                self.records(kind).remove(&key);
                if kind == Kind::Sticky && entry.entry.cooldown != 0 {
                    let cooldown = record(entry, self.chat_length, entry.entry.cooldown, true);
                    self.cooldown_records.insert(entry.key(), cooldown);
                    self.cooldown.insert(entry.hash);
                }
                continue;
            }
            match kind {
                Kind::Sticky => self.sticky.insert(entry.hash),
                Kind::Cooldown => self.cooldown.insert(entry.hash),
            };
        }
    }
}

/// `state` (a scan's [`timed_state`](super::WorldInfoActivation::timed_state)) in the key
/// order SillyTavern writes it into `chat_metadata.timedWorldInfo`: `sticky`, `cooldown`, then
/// anything else; each record `hash`, `start`, `end`, `protected`, then anything else.
pub fn timed_state_for_chat(state: &Value) -> OrderedJson {
    const TOP: [&str; 2] = ["sticky", "cooldown"];
    const RECORD: [&str; 4] = ["hash", "start", "end", "protected"];
    ordered(state, &TOP, |records| {
        let mut out = OrderedJson::object();
        if let Some(records) = records.as_object() {
            for (key, record) in records {
                out.insert(key, ordered(record, &RECORD, |v| OrderedJson::from(v)));
            }
        }
        out
    })
}

/// `value` (an object) with `first` keys first, in that order, each mapped by `inner`;
/// other keys follow unchanged. A value that is not an object is copied.
fn ordered(value: &Value, first: &[&str], inner: impl Fn(&Value) -> OrderedJson) -> OrderedJson {
    let Some(map) = value.as_object() else {
        return OrderedJson::from(value);
    };
    let mut out = OrderedJson::object();
    for key in first {
        if let Some(v) = map.get(*key) {
            out.insert(key, inner(v));
        }
    }
    for (key, v) in map {
        if !first.contains(&key.as_str()) {
            out.insert(key, OrderedJson::from(v));
        }
    }
    out
}

/// A new record for `entry`, starting now and lasting `length` messages.
fn record(entry: &ScanEntry, chat_length: usize, length: i64, protected: bool) -> Value {
    json!({
        "hash": entry.hash,
        "start": chat_length,
        "end": chat_length as i64 + length,
        "protected": protected,
    })
}

/// `Number(record[key])`: NaN when missing, so every comparison with it is false.
fn field_number(record: &Value, key: &str) -> f64 {
    record
        .get(key)
        .map_or(f64::NAN, |v| JsScalar::of_value(v).to_number())
}

/// `String(value)` for the values a hash can be stored as.
fn js_string(value: &Value) -> String {
    match value {
        Value::Number(n) => match n.as_u64() {
            Some(n) => n.to_string(),
            None => number_to_string(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod order_tests {
    use super::*;

    #[test]
    fn timed_state_is_written_in_sillytaverns_key_order() {
        let state = json!({"cooldown": {"W.1": {"protected": true, "end": 9, "start": 5, "hash": 7}},
                           "sticky": {}, "extra": 1});
        assert_eq!(
            timed_state_for_chat(&state).to_js_string(),
            r#"{"sticky":{},"cooldown":{"W.1":{"hash":7,"start":5,"end":9,"protected":true}},"extra":1}"#
        );
    }
}
