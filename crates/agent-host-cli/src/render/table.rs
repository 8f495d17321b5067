//! Plain text tables: columns padded to their widest cell, two spaces apart.

use std::fmt::Write as _;

/// Formats `rows` under `header`; the last column is never padded.
pub fn render(header: &[&str], rows: &[Vec<String>]) -> String {
    let columns = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut text = String::new();
        for (index, cell) in cells.enumerate() {
            if index + 1 == columns {
                text.push_str(cell);
            } else {
                let pad = widths[index].saturating_sub(cell.chars().count());
                let _ = write!(text, "{cell}{}  ", " ".repeat(pad));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&mut header.iter().copied());
    for row in rows {
        line(&mut row.iter().map(String::as_str));
    }
    out
}

/// `text` cut to at most `max` characters, with `…` when cut.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_all_but_the_last_column() {
        let table = render(
            &["ID", "STATUS", "CHAT"],
            &[
                vec!["run_1".into(), "completed".into(), "Alice/chat".into()],
                vec!["run_22".into(), "failed".into(), "Bob/x".into()],
            ],
        );
        assert_eq!(
            table,
            "ID      STATUS     CHAT\nrun_1   completed  Alice/chat\nrun_22  failed     Bob/x\n"
        );
    }

    #[test]
    fn truncates_by_characters() {
        assert_eq!(truncate("héllo", 10), "héllo");
        assert_eq!(truncate("héllo wörld", 5), "héll…");
    }
}
