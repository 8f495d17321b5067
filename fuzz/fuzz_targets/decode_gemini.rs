//! The `gemini` response decoder on any JSON body, through the default writer's tools (see
//! `check_decoder`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tavern_agent_fuzz::check_decoder(data, agent_gateway::gemini::decode);
});
