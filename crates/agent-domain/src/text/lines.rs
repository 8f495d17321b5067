//! The one rule for splitting a text into lines, shared by reading windows and search.

/// The lines of `text`, without their terminators.
///
/// Lines end at `\n`. A final `\n` ends the last line rather than starting an empty one, so
/// `"a\nb\n"` has two lines and `"a\nb\n\n"` three; an empty text has none. A `\r` right
/// before the line end (CRLF files) is dropped so it never shows up in what a model reads.
pub(crate) fn split_lines(text: &str) -> Vec<&str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Vec::new();
    }
    body.split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::split_lines;

    #[test]
    fn splits_on_newline_without_a_trailing_empty_line() {
        let cases: [(&str, &[&str]); 9] = [
            ("", &[]),
            ("\n", &[""]),
            ("a", &["a"]),
            ("a\n", &["a"]),
            ("a\nb", &["a", "b"]),
            ("a\nb\n", &["a", "b"]),
            ("a\nb\n\n", &["a", "b", ""]),
            ("a\r\nb\r\n", &["a", "b"]),
            ("a\rb\r", &["a\rb"]),
        ];
        for (text, expected) in cases {
            assert_eq!(split_lines(text), expected, "{text:?}");
        }
    }
}
