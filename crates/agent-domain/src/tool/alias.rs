//! Model aliases: the function names a provider sees, unique within one snapshot.
//!
//! Builtins use their native name with `.` → `_`. MCP tools use
//! `mcp__<server>__<tool>`, each part normalised to `[A-Za-z0-9-]` runs joined by single `_`,
//! kept within [`MAX_ALIAS_BYTES`] by shortening the server part first, and made unique by
//! a `__2`, `__3`, … suffix in allocation order.

use rustc_hash::FxHashSet;

/// Providers accept function names of at most 64 bytes.
pub const MAX_ALIAS_BYTES: usize = 64;
const MCP_PREFIX: &str = "mcp__";
const PART_SEPARATOR: &str = "__";
/// The server part keeps at least this many bytes (when it has them) before the tool part
/// is shortened.
const SERVER_SHARE_BYTES: usize = 20;

/// Whether `alias` matches `^[A-Za-z0-9_-]{1,64}$`.
pub fn is_valid_alias(alias: &str) -> bool {
    !alias.is_empty()
        && alias.len() <= MAX_ALIAS_BYTES
        && alias
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Hands out unique aliases for one snapshot, deterministically in call order.
#[derive(Debug, Clone, Default)]
pub struct AliasAllocator {
    /// Only membership matters (allocation order comes from the calls), so a hash set.
    used: FxHashSet<String>,
    /// The normalised parts of the alias being allocated; kept to reuse their buffers.
    server: String,
    tool: String,
}

impl AliasAllocator {
    /// An allocator with `reserved` aliases already taken (builtins and `task_return`).
    pub fn with_reserved<I, S>(reserved: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            used: reserved.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// Takes `alias` as is; returns false when it is already taken.
    pub fn reserve(&mut self, alias: &str) -> bool {
        self.used.insert(alias.to_owned())
    }

    /// Allocates `mcp__<server>__<tool>` for an MCP tool.
    pub fn allocate_mcp(&mut self, server_display_name: &str, native_name: &str) -> String {
        normalise_part(server_display_name, "server", &mut self.server);
        normalise_part(native_name, "tool", &mut self.tool);
        for n in 1usize.. {
            let suffix = if n == 1 {
                String::new()
            } else {
                format!("{PART_SEPARATOR}{n}")
            };
            let candidate = compose(&self.server, &self.tool, &suffix);
            if self.used.insert(candidate.clone()) {
                return candidate;
            }
        }
        // `1..` only ends after usize::MAX candidates; a snapshot never has that many tools.
        String::new()
    }
}

/// Writes `raw` normalised into `out`: every character outside `[A-Za-z0-9-]` becomes `_`,
/// runs of `_` collapse, leading and trailing `_` go; an empty result becomes `fallback`.
/// Put differently: the runs of kept characters, joined by single `_`.
fn normalise_part(raw: &str, fallback: &str, out: &mut String) {
    out.clear();
    let mut run_start = None;
    // A trailing separator ends the last run. Kept characters are ASCII, so run edges are
    // character boundaries and every run slices cleanly.
    for (at, byte) in raw.bytes().chain([b'_']).enumerate() {
        let kept = byte.is_ascii_alphanumeric() || byte == b'-';
        match (kept, run_start) {
            (true, None) => run_start = Some(at),
            (false, Some(start)) => {
                if !out.is_empty() {
                    out.push('_');
                }
                out.push_str(&raw[start..at]);
                run_start = None;
            }
            _ => {}
        }
    }
    if out.is_empty() {
        out.push_str(fallback);
    }
}

/// Joins the parts within the byte budget left after the prefix, separator and suffix.
/// When both parts do not fit, the server keeps up to [`SERVER_SHARE_BYTES`], the tool takes
/// what remains, and the server then grows back into any room the tool left unused.
fn compose(server: &str, tool: &str, suffix: &str) -> String {
    let budget = MAX_ALIAS_BYTES - MCP_PREFIX.len() - PART_SEPARATOR.len() - suffix.len();
    let (server_len, tool_len) = if server.len() + tool.len() <= budget {
        (server.len(), tool.len())
    } else {
        let server_first = server.len().min(SERVER_SHARE_BYTES);
        let tool_len = tool.len().min(budget - server_first);
        (server.len().min(budget - tool_len), tool_len)
    };
    // Parts are ASCII after normalisation, so byte cuts are character cuts.
    [
        MCP_PREFIX,
        cut(server, server_len),
        PART_SEPARATOR,
        cut(tool, tool_len),
        suffix,
    ]
    .concat()
}

/// The first `len` bytes, without a trailing `_` (which would otherwise run into the
/// separator and make `___`).
fn cut(part: &str, len: usize) -> &str {
    let cut = &part[..len];
    let trimmed = cut.trim_end_matches('_');
    if trimmed.is_empty() { cut } else { trimmed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        let mut a = AliasAllocator::default();
        assert_eq!(
            a.allocate_mcp("my server", "issue.create"),
            "mcp__my_server__issue_create"
        );
        assert_eq!(a.allocate_mcp("界面", "x"), "mcp__server__x");
        assert_eq!(a.allocate_mcp("  ", "..."), "mcp__server__tool");
        assert_eq!(a.allocate_mcp("a--b", "c__d"), "mcp__a--b__c_d");
    }

    #[test]
    fn non_ascii_characters_collapse_like_any_other_separator() {
        let normalised = |raw: &str| {
            let mut out = "left over".to_owned();
            normalise_part(raw, "fallback", &mut out);
            out
        };
        assert_eq!(normalised("a😀😀b"), "a_b");
        assert_eq!(normalised("é-x é"), "-x");
        assert_eq!(normalised("日本語"), "fallback");
        assert_eq!(normalised("__a  .b__"), "a_b");
        assert_eq!(normalised("ab"), "ab");
        assert_eq!(normalised(""), "fallback");
    }

    #[test]
    fn collisions_get_numbered_suffixes_in_order() {
        let mut a = AliasAllocator::with_reserved(["mcp__git__status"]);
        assert_eq!(a.allocate_mcp("git", "status"), "mcp__git__status__2");
        assert_eq!(a.allocate_mcp("Git!", "status"), "mcp__Git__status");
        assert_eq!(a.allocate_mcp("git", "status"), "mcp__git__status__3");
        assert!(!a.reserve("mcp__git__status__3"));
    }

    #[test]
    fn long_names_keep_the_tool_action() {
        let mut a = AliasAllocator::default();
        let server = "an extremely long server display name that goes on and on";
        let alias = a.allocate_mcp(server, "create_issue_comment");
        assert!(alias.len() <= MAX_ALIAS_BYTES);
        assert!(alias.ends_with("__create_issue_comment"), "{alias}");
        assert_eq!(
            alias,
            "mcp__an_extremely_long_server_display_name__create_issue_comment"
        );
        let again = a.allocate_mcp(server, "create_issue_comment");
        assert!(again.ends_with("__create_issue_comment__2"), "{again}");
        assert!(again.len() <= MAX_ALIAS_BYTES);

        let long_tool = "t".repeat(100);
        let both_long = a.allocate_mcp(server, &long_tool);
        assert_eq!(both_long.len(), MAX_ALIAS_BYTES);
        assert!(
            both_long.starts_with("mcp__an_extremely_long_se__ttt"),
            "{both_long}"
        );
    }

    #[test]
    fn validity() {
        assert!(is_valid_alias("workspace_read_file"));
        assert!(is_valid_alias(&"a".repeat(64)));
        assert!(!is_valid_alias(&"a".repeat(65)));
        assert!(!is_valid_alias(""));
        assert!(!is_valid_alias("workspace.read_file"));
    }

    /// A tiny deterministic generator so the property test needs no extra crate.
    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
            items[(self.next() % items.len() as u64) as usize]
        }
    }

    #[test]
    fn ten_thousand_generated_names_yield_valid_unique_aliases() {
        let pieces = [
            "git",
            "GitHub",
            "issue",
            ".",
            "_",
            "-",
            " ",
            "创建",
            "ツール",
            "😀",
            "a",
            "Z9",
            "long_segment_name_",
            "::",
            "/",
            "é",
            "\t",
            "server",
            "tool",
            "__",
            "x-y",
        ];
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let reserved: Vec<String> = crate::tool::BuiltinTool::ALL
            .iter()
            .map(|t| t.model_alias())
            .collect();
        let mut allocator = AliasAllocator::with_reserved(reserved.iter().cloned());
        let mut seen: FxHashSet<String> = reserved.into_iter().collect();
        for _ in 0..10_000 {
            let mut make = |max: u64| {
                let n = rng.next() % max;
                (0..n).map(|_| rng.pick(&pieces)).collect::<String>()
            };
            let server = make(8);
            let tool = make(40);
            let alias = allocator.allocate_mcp(&server, &tool);
            assert!(is_valid_alias(&alias), "{server:?} {tool:?} -> {alias:?}");
            assert!(seen.insert(alias.clone()), "duplicate {alias}");
        }
    }
}
