//! Run events: the typed journal vocabulary, its payloads, the journal line shape and run/invocation statuses.
