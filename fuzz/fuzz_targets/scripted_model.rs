//! The scripted-model file on any text: parsing never panics.
#![no_main]

use agent_gateway::scripted::ScriptedModel;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = ScriptedModel::from_json(text);
});
