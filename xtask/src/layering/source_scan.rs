//! The source half of the layering check: a small, dependency-free scanner that blanks
//! comments and literals, strips `#[cfg(test)]` items, and then looks for forbidden paths.
//!
//! Everything here is a pure function over text, so it is unit-tested without a file system.
//! [`scan_source`] keeps line numbers intact: blanked characters become spaces, newlines stay.

/// One forbidden path found in a source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// 1-based line number in the original file.
    pub line: usize,
    /// The forbidden pattern that matched (an entry of the pattern table).
    pub pattern: &'static str,
}

/// What scanning one file found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileScan {
    /// Forbidden paths outside test-only code, sorted by line.
    pub hits: Vec<Hit>,
    /// Names of out-of-line modules declared test-only (`#[cfg(test)] mod fixtures;`); their
    /// files are test code and are exempt from the scan.
    pub test_modules: Vec<String>,
}

/// Scans `src` for `patterns`, ignoring comments, string and char literals, and every item
/// under a `#[cfg(test)]` attribute (or the whole file under `#![cfg(test)]`).
///
/// A pattern matches as a whole path: `std::fs` matches `std::fs::read` and `::std::fs`, not
/// `mystd::fs` or `std::fsx`. Grouped imports are expanded, so `use std::{fs, io};` is a hit
/// on the line of its `use`.
pub fn scan_source(src: &str, patterns: &[&'static str]) -> FileScan {
    let mut code = blank_comments_and_literals(src);
    let test_modules = strip_cfg_test(&mut code);
    let mut hits = Vec::new();

    let mut line = 1;
    let mut line_start = 0;
    for (i, &c) in code.iter().enumerate() {
        if c == '\n' {
            find_on_line(&code[line_start..i], line, patterns, &mut hits);
            line += 1;
            line_start = i + 1;
        }
    }
    find_on_line(&code[line_start..], line, patterns, &mut hits);

    for (use_line, tree) in use_declarations(&code) {
        for path in expand_use_tree(&tree) {
            for &pattern in patterns {
                if !find_path(&path, pattern).is_empty() {
                    hits.push(Hit {
                        line: use_line,
                        pattern,
                    });
                }
            }
        }
    }

    hits.sort_by(|a, b| (a.line, a.pattern).cmp(&(b.line, b.pattern)));
    hits.dedup();
    FileScan { hits, test_modules }
}

fn find_on_line(line_chars: &[char], line: usize, patterns: &[&'static str], hits: &mut Vec<Hit>) {
    let text: String = line_chars.iter().collect();
    for &pattern in patterns {
        for _ in find_path(&text, pattern) {
            hits.push(Hit { line, pattern });
        }
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Byte offsets of `pattern` in `text` where it stands as a whole path (no identifier
/// character directly before or after it).
fn find_path(text: &str, pattern: &str) -> Vec<usize> {
    text.match_indices(pattern)
        .filter(|&(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + pattern.len()..].chars().next();
            !before.is_some_and(is_ident_char) && !after.is_some_and(is_ident_char)
        })
        .map(|(at, _)| at)
        .collect()
}

/// Replaces comments and the contents of string, raw string, byte string and char literals
/// with spaces, keeping newlines (so line numbers survive) and the literal delimiters.
pub fn blank_comments_and_literals(src: &str) -> Vec<char> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = chars.clone();
    let n = chars.len();
    let mut i = 0;
    while i < n {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            let end = chars[i..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(n, |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if c == '/' && next == Some('*') {
            let mut depth = 1;
            let mut j = i + 2;
            while j < n && depth > 0 {
                match (chars[j], chars.get(j + 1).copied()) {
                    ('/', Some('*')) => {
                        depth += 1;
                        j += 2;
                    }
                    ('*', Some('/')) => {
                        depth -= 1;
                        j += 2;
                    }
                    _ => j += 1,
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if c == '"' {
            let end = end_of_string(&chars, i + 1);
            blank(&mut out, i + 1, end.saturating_sub(1).max(i + 1));
            i = end;
        } else if c == '\'' {
            match char_literal_end(&chars, i) {
                Some(end) => {
                    blank(&mut out, i + 1, end - 1);
                    i = end;
                }
                // A lifetime or a label.
                None => i += 1,
            }
        } else if is_ident_char(c) {
            if let Some((content, end)) = raw_string_at(&chars, i) {
                blank(&mut out, content.0, content.1);
                i = end;
            } else {
                // Skip the whole identifier (or number) so that a prefix check never fires in
                // its middle; a following `"` or `'` (as in `b"…"`, `b'x'`) is handled next.
                while i < n && is_ident_char(chars[i]) {
                    i += 1;
                }
            }
        } else {
            i += 1;
        }
    }
    out
}

fn blank(out: &mut [char], from: usize, to: usize) {
    let to = to.min(out.len());
    if from < to {
        for c in &mut out[from..to] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    }
}

/// Index just past the closing `"` of a string whose contents start at `start`.
fn end_of_string(chars: &[char], start: usize) -> usize {
    let mut j = start;
    while j < chars.len() {
        match chars[j] {
            '\\' => j += 2,
            '"' => return j + 1,
            _ => j += 1,
        }
    }
    chars.len()
}

/// If a char literal starts at `i` (a `'`), the index just past its closing `'`; `None` for a
/// lifetime or label such as `'a` or `'outer:`.
fn char_literal_end(chars: &[char], i: usize) -> Option<usize> {
    match chars.get(i + 1).copied() {
        Some('\\') => {
            // `'\n'`, `'\''`, `'\u{1F600}'`: skip the escaped char, then find the closing quote.
            let mut j = i + 3;
            while j < chars.len() && chars[j] != '\'' && chars[j] != '\n' {
                j += 1;
            }
            (chars.get(j) == Some(&'\'')).then_some(j + 1)
        }
        Some(c) if c != '\n' && chars.get(i + 2) == Some(&'\'') => Some(i + 3),
        _ => None,
    }
}

/// If a raw string (`r"…"`, `r#"…"#`, `br"…"`, `cr#"…"#`) starts at `i`, its content range and
/// the index just past it.
fn raw_string_at(chars: &[char], i: usize) -> Option<((usize, usize), usize)> {
    let mut j = i;
    if matches!(chars.get(j), Some('b' | 'c')) {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    j += hashes;
    if chars.get(j) != Some(&'"') {
        return None;
    }
    let content_start = j + 1;
    let mut k = content_start;
    while k < chars.len() {
        if chars[k] == '"'
            && chars[k + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return Some(((content_start, k), k + 1 + hashes));
        }
        k += 1;
    }
    Some(((content_start, chars.len()), chars.len()))
}

/// Blanks every item carrying a `#[cfg(test)]` attribute (attribute included) in `code`, which
/// must already have its comments and literals blanked. Returns the names of test-only modules
/// declared out of line (`#[cfg(test)] mod name;`).
pub fn strip_cfg_test(code: &mut [char]) -> Vec<String> {
    let n = code.len();
    let mut test_modules = Vec::new();
    let mut i = 0;
    while i < n {
        if code[i] != '#' {
            i += 1;
            continue;
        }
        let Some(attr) = attribute_at(code, i) else {
            i += 1;
            continue;
        };
        if !is_cfg_test(&attr.content) {
            i = attr.end;
            continue;
        }
        if attr.inner {
            // `#![cfg(test)]`: the whole file (or module) is test code.
            blank(code, 0, n);
            return test_modules;
        }
        // Skip the other attributes of the same item.
        let mut j = skip_whitespace(code, attr.end);
        while let Some(more) = attribute_at(code, j).filter(|a| !a.inner) {
            j = skip_whitespace(code, more.end);
        }
        let end = item_end(code, j);
        let item: String = code[j..end].iter().collect();
        if let Some(name) = out_of_line_module(&item) {
            test_modules.push(name);
        }
        blank(code, i, end);
        i = end;
    }
    test_modules
}

#[derive(Debug)]
struct Attribute {
    /// Attribute text between the brackets, whitespace removed.
    content: String,
    inner: bool,
    /// Index just past the closing `]`.
    end: usize,
}

/// Parses `#[…]` or `#![…]` starting at `i`.
fn attribute_at(code: &[char], i: usize) -> Option<Attribute> {
    if code.get(i) != Some(&'#') {
        return None;
    }
    let mut j = skip_whitespace(code, i + 1);
    let inner = code.get(j) == Some(&'!');
    if inner {
        j = skip_whitespace(code, j + 1);
    }
    if code.get(j) != Some(&'[') {
        return None;
    }
    let close = matching(code, j, '[', ']')?;
    let content = code[j + 1..close]
        .iter()
        .filter(|c| !c.is_whitespace())
        .collect();
    Some(Attribute {
        content,
        inner,
        end: close + 1,
    })
}

/// `cfg(test)` or `cfg(all(…, test, …))`: attributes that make an item test-only.
fn is_cfg_test(content: &str) -> bool {
    if content == "cfg(test)" {
        return true;
    }
    content
        .strip_prefix("cfg(all(")
        .and_then(|rest| rest.strip_suffix("))"))
        .is_some_and(|args| split_top_level(args, ',').contains(&"test"))
}

fn skip_whitespace(code: &[char], mut i: usize) -> usize {
    while i < code.len() && code[i].is_whitespace() {
        i += 1;
    }
    i
}

/// Index of the bracket matching the `open` at `i`.
fn matching(code: &[char], i: usize, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &c) in code.iter().enumerate().skip(i) {
        if c == open {
            depth += 1;
        } else if c == close {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// End (exclusive) of the item starting at `start`: its first `;` outside brackets, or the
/// `}` matching its first top-level `{`.
fn item_end(code: &[char], start: usize) -> usize {
    let mut depth = 0usize;
    for k in start..code.len() {
        match code[k] {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            ';' if depth == 0 => return k + 1,
            '{' if depth == 0 => {
                return matching(code, k, '{', '}').map_or(code.len(), |close| close + 1);
            }
            _ => {}
        }
    }
    code.len()
}

/// `Some("name")` for an item that is `[pub[(…)]] mod name;`.
fn out_of_line_module(item: &str) -> Option<String> {
    let body = item.trim().strip_suffix(';')?;
    if body.contains('{') {
        return None;
    }
    let mut words = body.split_whitespace().skip_while(|w| *w != "mod");
    words.next()?;
    let name = words.next()?;
    (words.next().is_none() && name.chars().all(is_ident_char)).then(|| name.to_owned())
}

/// Splits `s` on `sep` outside of `()`, `[]`, `{}` and `<>`, trimming each part.
fn split_top_level(s: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (at, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth = depth.saturating_sub(1),
            c if c == sep && depth == 0 => {
                parts.push(s[start..at].trim());
                start = at + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(s[start..].trim());
    parts.retain(|p| !p.is_empty());
    parts
}

/// `(line of the use keyword, use tree text)` for every `use` declaration in `code`.
fn use_declarations(code: &[char]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < code.len() {
        let c = code[i];
        if c == '\n' {
            line += 1;
        }
        let is_use = code[i..].starts_with(&['u', 's', 'e'])
            && !(i > 0 && (is_ident_char(code[i - 1]) || code[i - 1] == '#'))
            && !code.get(i + 3).copied().is_some_and(is_ident_char);
        if !is_use {
            i += 1;
            continue;
        }
        let start = i + 3;
        let end = code[start..]
            .iter()
            .position(|&c| c == ';')
            .map_or(code.len(), |p| start + p);
        out.push((line, code[start..end].iter().collect()));
        line += code[start..end].iter().filter(|&&c| c == '\n').count();
        i = end;
    }
    out
}

/// Flattens a use tree: `std::{fs, io::{Read, Write}}` → `std::fs`, `std::io::Read`,
/// `std::io::Write`.
fn expand_use_tree(tree: &str) -> Vec<String> {
    let mut out = Vec::new();
    expand_into("", tree, &mut out);
    out
}

fn expand_into(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    match (tree.find('{'), tree.rfind('}')) {
        (Some(open), Some(close)) if open < close => {
            let head: String = tree[..open]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            let prefix = format!("{prefix}{head}");
            for part in split_top_level(&tree[open + 1..close], ',') {
                expand_into(&prefix, part, out);
            }
        }
        _ => out.push(format!("{prefix}{tree}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATTERNS: &[&str] = &[
        "std::fs",
        "tokio::fs",
        "std::process",
        "SystemTime::now",
        "Instant::now",
    ];

    fn lines_of(src: &str) -> Vec<(usize, &'static str)> {
        scan_source(src, PATTERNS)
            .hits
            .into_iter()
            .map(|h| (h.line, h.pattern))
            .collect()
    }

    #[test]
    fn std_fs_inside_cfg_test_module_is_ignored() {
        let src = "pub fn f() {}\n\
                   \n\
                   #[cfg(test)]\n\
                   mod tests {\n\
                       use std::fs;\n\
                       #[test]\n\
                       fn t() { let _ = std::fs::read(\"x\"); }\n\
                   }\n";
        assert_eq!(lines_of(src), vec![]);
    }

    #[test]
    fn std_fs_outside_tests_is_reported_with_its_line() {
        let src = "pub fn f() {}\n\
                   pub fn g() -> Vec<u8> {\n\
                       std::fs::read(\"x\").unwrap_or_default()\n\
                   }\n\
                   #[cfg(test)]\n\
                   mod tests {\n\
                       use std::fs;\n\
                   }\n\
                   pub fn h() { let _ = std::time::SystemTime::now(); }\n";
        assert_eq!(lines_of(src), vec![(3, "std::fs"), (9, "SystemTime::now")]);
    }

    #[test]
    fn braces_in_strings_chars_and_comments_do_not_end_the_test_module_early() {
        let src = "#[cfg(test)]\n\
                   mod tests {\n\
                       const A: &str = \"}}}\";\n\
                       const B: char = '}';\n\
                       const C: &str = r#\"}\" }\"#;\n\
                       // }\n\
                       /* } /* nested } */ } */\n\
                       fn t<'a>(x: &'a str) -> &'a str { x }\n\
                       use std::fs;\n\
                   }\n\
                   use std::process::Command;\n";
        assert_eq!(lines_of(src), vec![(11, "std::process")]);
    }

    #[test]
    fn braces_in_strings_outside_tests_do_not_hide_later_code() {
        let src = "pub const OPEN: &str = \"{\";\n\
                   #[cfg(test)]\n\
                   fn helper() -> &'static str { \"{{\" }\n\
                   pub fn now() { let _ = Instant::now(); }\n";
        assert_eq!(lines_of(src), vec![(4, "Instant::now")]);
    }

    #[test]
    fn patterns_in_comments_and_strings_are_ignored() {
        let src = "//! Never touch std::fs here.\n\
                   /// Not `SystemTime::now` either.\n\
                   pub const MSG: &str = \"std::process is forbidden\";\n\
                   pub const RAW: &str = r\"tokio::fs\";\n";
        assert_eq!(lines_of(src), vec![]);
    }

    #[test]
    fn grouped_imports_are_expanded() {
        let src =
            "use std::{\n    collections::BTreeMap,\n    fs::File,\n};\nuse tokio::{fs, sync};\n";
        assert_eq!(lines_of(src), vec![(1, "std::fs"), (5, "tokio::fs")]);
    }

    #[test]
    fn whole_paths_only() {
        let src =
            "use mystd::fs;\nuse std::fsx;\nfn f() { FakeInstant::now(); }\nuse ::std::fs as f;\n";
        assert_eq!(lines_of(src), vec![(4, "std::fs")]);
    }

    #[test]
    fn cfg_test_out_of_line_modules_are_collected_and_other_items_stripped() {
        let src = "#[cfg(test)]\nmod fixtures;\n\
                   #[cfg(all(test, feature = \"x\"))]\n#[allow(dead_code)]\npub(crate) mod more;\n\
                   #[cfg(test)]\nuse std::fs;\n\
                   #[cfg(test)]\nconst X: [u8; 2] = [1, 2];\n\
                   mod real;\nuse std::process;\n";
        let scan = scan_source(src, PATTERNS);
        assert_eq!(scan.test_modules, vec!["fixtures", "more"]);
        assert_eq!(
            scan.hits,
            vec![Hit {
                line: 11,
                pattern: "std::process"
            }]
        );
    }

    #[test]
    fn inner_cfg_test_exempts_the_whole_file() {
        assert_eq!(lines_of("#![cfg(test)]\nuse std::fs;\n"), vec![]);
    }

    #[test]
    fn other_cfg_attributes_are_not_stripped() {
        let src = "#[cfg(feature = \"x\")]\nmod m { use std::fs; }\n#[cfg(not(test))]\nuse std::process;\n";
        assert_eq!(lines_of(src), vec![(2, "std::fs"), (4, "std::process")]);
    }

    #[test]
    fn lifetimes_and_char_literals() {
        let src =
            "fn f<'a>(s: &'a str) -> char { let _q = '\"'; let _e = '\\''; 'x' }\nuse std::fs;\n";
        assert_eq!(lines_of(src), vec![(2, "std::fs")]);
    }
}
