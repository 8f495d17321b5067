//! `workspace.apply_patch` on any file, old and new string: write the file, read it, patch
//! it. The dispatcher never faults, and a patch that succeeds leaves exactly the text a
//! plain replacement gives. Input: `content NUL old NUL new NUL flag` (`flag` starting with
//! `a` means `replace_all`).
#![no_main]

use agent_domain::tool::BuiltinTool;
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use tavern_agent_fuzz::ToolRig;

const PATH: &str = "output/main.md";

fuzz_target!(|input: &str| {
    let mut parts = input.splitn(4, '\0');
    let (content, old, new) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    let replace_all = parts.next().is_some_and(|flag| flag.starts_with('a'));
    let mut rig = ToolRig::default();
    let write = rig.call(
        BuiltinTool::WorkspaceWriteFile,
        json!({"path": PATH, "content": content}),
    );
    if write.result.is_error {
        return;
    }
    rig.call(BuiltinTool::WorkspaceReadFile, json!({"path": PATH}));
    let patch = rig.call(
        BuiltinTool::WorkspaceApplyPatch,
        json!({"path": PATH, "old_string": old, "new_string": new, "replace_all": replace_all}),
    );
    let stored = rig.workspace.get(rig.run_id(), PATH).unwrap_or_default();
    let stored = String::from_utf8(stored).unwrap();
    if patch.result.is_error {
        assert_eq!(stored, content, "a refused patch changed the file");
    } else if replace_all {
        assert_eq!(stored, content.replace(old, new));
    } else {
        assert_eq!(stored, content.replacen(old, new, 1));
    }
});
