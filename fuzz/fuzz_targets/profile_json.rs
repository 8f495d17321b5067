//! Profile documents on any text: parse (with migration), validate, resolve. Nothing
//! panics, and a document that parses serialises and parses back to itself.
#![no_main]

use agent_domain::profile::{AgentProfileDocument, ProfileSource, resolve, validate};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let Ok(document) = AgentProfileDocument::from_json(text) else {
        return;
    };
    let json = document.to_json_pretty().unwrap();
    let back = AgentProfileDocument::from_json(&json).unwrap();
    assert_eq!(back, document, "the document does not round-trip");
    if validate(&document).is_ok() {
        let _ = resolve(&document, ProfileSource::File);
    }
});
