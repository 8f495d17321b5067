//! `dice.roll` on any formula, through the builtin dispatcher: it never faults, a blank
//! formula is a missing argument, any other rejected formula is `dice.invalid_formula`, and a
//! roll's total lies between its min and max.
#![no_main]

use agent_domain::tool::BuiltinTool;
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use tavern_agent_fuzz::ToolRig;

fuzz_target!(|formula: &str| {
    let result = ToolRig::default()
        .call(BuiltinTool::DiceRoll, json!({"formula": formula}))
        .result;
    if result.is_error {
        let expected = if formula.trim().is_empty() {
            "tool.invalid_arguments"
        } else {
            "dice.invalid_formula"
        };
        assert_eq!(result.error_code.as_deref(), Some(expected), "{result:?}");
        return;
    }
    let s = &result.structured;
    let (total, min, max) = (s["total"].as_i64(), s["min"].as_i64(), s["max"].as_i64());
    let (Some(total), Some(min), Some(max)) = (total, min, max) else {
        panic!("a roll without total, min and max: {s}");
    };
    assert!(min <= total && total <= max, "{formula:?}: {s}");
});
