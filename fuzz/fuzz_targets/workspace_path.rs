//! `WorkspacePath::parse` on any text: a parsed path is relative, in normal form (no empty,
//! `.` or `..` segment, no backslash, no NUL, no drive prefix) and parses back to itself.
#![no_main]

use agent_domain::workspace::WorkspacePath;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|raw: &str| {
    let Ok(path) = WorkspacePath::parse(raw) else {
        return;
    };
    let text = path.as_str();
    assert!(!text.is_empty() && !text.starts_with('/'), "{text:?}");
    assert!(!text.contains('\\') && !text.contains('\0'), "{text:?}");
    let drive = text.as_bytes();
    assert!(
        !(drive.len() >= 2 && drive[0].is_ascii_alphabetic() && drive[1] == b':'),
        "{text:?}"
    );
    for segment in path.segments() {
        assert!(
            !matches!(segment, "" | "." | ".."),
            "{text:?} has segment {segment:?}"
        );
    }
    assert_eq!(WorkspacePath::parse(text).as_ref(), Ok(&path));
    if let Some(parent) = path.parent() {
        assert!(path.starts_with(&parent));
    }
});
