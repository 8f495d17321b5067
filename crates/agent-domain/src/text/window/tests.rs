use pretty_assertions::assert_eq;

use super::*;

fn budget(max_lines: usize, max_chars: usize) -> ReadBudget {
    ReadBudget {
        max_lines,
        max_chars,
        max_line_chars: max_chars,
    }
}

const ROOMY: ReadBudget = ReadBudget::WORKSPACE_FULL;

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn whole_text_by_default() {
    let w = LineWindow::select("alpha\nbeta\ngamma\n", None, None, &ROOMY).unwrap();
    assert_eq!((w.start_line, w.end_line, w.total_lines), (1, 3, 3));
    assert_eq!(w.next_start_line, None);
    assert!(w.complete && !w.preview);
    assert_eq!(w.chars, 14);
    assert_eq!(w.render_numbered(), "1 | alpha\n2 | beta\n3 | gamma");
    assert_eq!(w.plain_text(), "alpha\nbeta\ngamma");
    assert_eq!(w.continuation_hint("workspace_read_file"), None);
}

#[test]
fn empty_text_is_a_complete_window_of_no_lines() {
    let w = LineWindow::select("", None, None, &ROOMY).unwrap();
    assert_eq!((w.start_line, w.end_line, w.total_lines), (0, 0, 0));
    assert!(w.complete && !w.preview && w.lines.is_empty());
    assert_eq!(w.render_numbered(), "");
    assert_eq!(w.plain_text(), "");
    assert_eq!(LineWindow::select("", Some(1), Some(3), &ROOMY).unwrap(), w);
    assert_eq!(
        LineWindow::select("", Some(2), None, &ROOMY).unwrap_err(),
        LineRangeError::StartBeyondEnd {
            start_line: 2,
            total_lines: 0
        }
    );
}

#[test]
fn a_lone_newline_is_one_empty_line() {
    let w = LineWindow::select("\n", None, None, &ROOMY).unwrap();
    assert_eq!((w.start_line, w.end_line, w.total_lines), (1, 1, 1));
    assert_eq!(w.render_numbered(), "1 | ");
    assert!(w.complete);
}

#[test]
fn invalid_ranges_are_errors() {
    let text = "a\nb\nc";
    assert_eq!(
        LineWindow::select(text, Some(0), None, &ROOMY).unwrap_err(),
        LineRangeError::StartLineZero
    );
    assert_eq!(
        LineWindow::select(text, Some(1), Some(0), &ROOMY).unwrap_err(),
        LineRangeError::LineCountZero
    );
    assert_eq!(
        LineWindow::select(text, Some(4), None, &ROOMY).unwrap_err(),
        LineRangeError::StartBeyondEnd {
            start_line: 4,
            total_lines: 3
        }
    );
    assert_eq!(
        LineWindow::select(text, Some(u64::MAX), None, &ROOMY).unwrap_err(),
        LineRangeError::StartBeyondEnd {
            start_line: u64::MAX,
            total_lines: 3
        }
    );
    // The last line itself is a valid start.
    let last = LineWindow::select(text, Some(3), None, &ROOMY).unwrap();
    assert_eq!((last.start_line, last.end_line), (3, 3));
}

#[test]
fn trailing_newline_adds_no_line_but_a_blank_last_line_counts() {
    assert_eq!(
        LineWindow::select("a\nb\n", None, None, &ROOMY)
            .unwrap()
            .total_lines,
        2
    );
    let w = LineWindow::select("a\nb\n\n", None, None, &ROOMY).unwrap();
    assert_eq!(w.total_lines, 3);
    assert_eq!(w.render_numbered(), "1 | a\n2 | b\n3 | ");
}

#[test]
fn crlf_line_ends_are_not_shown() {
    let w = LineWindow::select("one\r\ntwo\r\nthree", None, None, &ROOMY).unwrap();
    assert_eq!(w.total_lines, 3);
    assert_eq!(w.plain_text(), "one\ntwo\nthree");
    assert_eq!(w.chars, 11);
    assert!(w.complete);
}

#[test]
fn an_explicit_range_is_not_a_preview() {
    let text = numbered(5);
    let w = LineWindow::select(&text, Some(2), Some(2), &ROOMY).unwrap();
    assert_eq!((w.start_line, w.end_line, w.total_lines), (2, 3, 5));
    assert_eq!(w.next_start_line, Some(4));
    assert!(!w.preview && !w.complete);
    assert_eq!(w.continuation_hint("workspace_read_file"), None);

    // A count past the end is clamped, not an error.
    let tail = LineWindow::select(&text, Some(4), Some(u64::MAX), &ROOMY).unwrap();
    assert_eq!(
        (tail.start_line, tail.end_line, tail.next_start_line),
        (4, 5, None)
    );
    assert!(!tail.preview && !tail.complete);

    // Lines 1..=total by explicit range are a full read.
    let all = LineWindow::select(&text, Some(1), Some(5), &ROOMY).unwrap();
    assert!(all.complete);
}

#[test]
fn line_budget_makes_a_preview_with_a_continuation() {
    let text = numbered(5);
    let w = LineWindow::select(&text, None, None, &budget(2, 1_000)).unwrap();
    assert_eq!((w.start_line, w.end_line, w.total_lines), (1, 2, 5));
    assert_eq!(w.next_start_line, Some(3));
    assert!(w.preview && !w.complete);
    assert_eq!(
        w.continuation_hint("workspace_read_file").as_deref(),
        Some(
            "Showing lines 1-2 of 5; the rest did not fit the read budget. \
             Continue with workspace_read_file start_line=3."
        )
    );
    let next = LineWindow::select(&text, w.next_start_line, None, &budget(2, 1_000)).unwrap();
    assert_eq!((next.start_line, next.end_line), (3, 4));
}

#[test]
fn exact_budgets_fit() {
    let text = "abc\ndef\nghi";
    let exact_lines = LineWindow::select(text, None, None, &budget(3, 1_000)).unwrap();
    assert!(exact_lines.complete && !exact_lines.preview);

    let exact_chars = LineWindow::select(text, None, None, &budget(10, 9)).unwrap();
    assert!(exact_chars.complete && !exact_chars.preview);
    assert_eq!(exact_chars.chars, 9);

    let one_short = LineWindow::select(text, None, None, &budget(10, 8)).unwrap();
    assert_eq!(
        (one_short.end_line, one_short.next_start_line),
        (2, Some(3))
    );
    assert_eq!(one_short.chars, 6);
    assert!(one_short.preview);
    assert!(one_short.lines.iter().all(|line| !line.cut));

    // A range that the budget exactly covers is not a preview either.
    let range = LineWindow::select(text, Some(2), Some(2), &budget(2, 6)).unwrap();
    assert!(!range.preview);
}

#[test]
fn one_giant_line_is_cut_and_marked() {
    let text = "x".repeat(10);
    let w = LineWindow::select(&text, None, None, &budget(10, 4)).unwrap();
    assert_eq!((w.start_line, w.end_line, w.total_lines), (1, 1, 1));
    assert_eq!(w.next_start_line, None);
    assert!(w.preview && !w.complete);
    assert_eq!(w.lines[0].text, "xxxx");
    assert!(w.lines[0].cut);
    assert_eq!(w.lines[0].omitted_chars, 6);
    assert_eq!(w.chars, 4);
    assert_eq!(
        w.render_numbered(),
        "1 | xxxx … [line cut: 6 more characters]"
    );
    assert_eq!(w.plain_text(), "xxxx");
    assert_eq!(
        w.continuation_hint("skill_read").as_deref(),
        Some(
            "Showing lines 1-1 of 1; the rest did not fit the read budget. \
             Line 1 is too long to show in full and was cut; \
             its remainder cannot be read with line ranges."
        )
    );
    assert_eq!(w.facts().cut_lines, vec![1]);
}

#[test]
fn a_long_later_line_starts_the_next_window() {
    let text = format!("ab\n{}\nc", "y".repeat(10));
    let b = budget(10, 5);
    let w = LineWindow::select(&text, None, None, &b).unwrap();
    assert_eq!((w.end_line, w.next_start_line), (1, Some(2)));
    assert!(w.preview && !w.lines[0].cut);

    let next = LineWindow::select(&text, Some(2), None, &b).unwrap();
    assert_eq!((next.start_line, next.end_line), (2, 2));
    assert_eq!(next.lines[0].text, "yyyyy");
    assert!(next.lines[0].cut);
    assert_eq!(next.next_start_line, Some(3));
    assert_eq!(
        next.continuation_hint("workspace_read_file").as_deref(),
        Some(
            "Showing lines 2-2 of 3; the rest did not fit the read budget. \
             Line 2 is too long to show in full and was cut; \
             its remainder cannot be read with line ranges. \
             Continue with workspace_read_file start_line=3."
        )
    );
}

#[test]
fn a_per_line_cap_cuts_lines_inside_the_window() {
    let text = format!("{}\nok\n{}", "a".repeat(5), "b".repeat(5));
    let b = ReadBudget {
        max_lines: 10,
        max_chars: 100,
        max_line_chars: 3,
    };
    let w = LineWindow::select(&text, None, None, &b).unwrap();
    assert_eq!(w.end_line, 3);
    assert_eq!(w.plain_text(), "aaa\nok\nbbb");
    assert_eq!(w.chars, 8);
    assert!(w.preview && !w.complete);
    assert_eq!(w.facts().cut_lines, vec![1, 3]);
    assert_eq!(
        w.render_numbered(),
        "1 | aaa … [line cut: 2 more characters]\n\
         2 | ok\n\
         3 | bbb … [line cut: 2 more characters]"
    );
    assert!(
        w.continuation_hint("workspace_read_file")
            .unwrap()
            .contains("Lines 1, 3 are too long")
    );
}

#[test]
fn cuts_never_split_a_character() {
    let w = LineWindow::select("你好世界🙂", None, None, &budget(10, 3)).unwrap();
    assert_eq!(w.lines[0].text, "你好世");
    assert_eq!(w.lines[0].omitted_chars, 2);
    assert_eq!(
        w.render_numbered(),
        "1 | 你好世 … [line cut: 2 more characters]"
    );

    let emoji = LineWindow::select("a🙂b", None, None, &budget(10, 2)).unwrap();
    assert_eq!(emoji.lines[0].text, "a🙂");
    assert_eq!(
        emoji.render_numbered(),
        "1 | a🙂 … [line cut: 1 more character]"
    );

    // Characters, not bytes, are counted: 4 CJK characters fit a budget of 4.
    let fits = LineWindow::select("東京大阪", None, None, &budget(10, 4)).unwrap();
    assert!(fits.complete);
}

#[test]
fn zero_budgets_still_show_one_line() {
    let w = LineWindow::select("abc\ndef", None, None, &budget(0, 0)).unwrap();
    assert_eq!(w.end_line, 1);
    assert_eq!(w.lines[0].text, "");
    assert!(w.lines[0].cut && w.preview);
}

#[test]
fn numbers_align_to_the_widest_shown() {
    let text = numbered(12);
    let w = LineWindow::select(&text, Some(8), Some(5), &ROOMY).unwrap();
    assert_eq!(
        w.render_numbered(),
        " 8 | line 8\n 9 | line 9\n10 | line 10\n11 | line 11\n12 | line 12"
    );
}

#[test]
fn facts_serialise_camel_case() {
    let text = numbered(5);
    let w = LineWindow::select(&text, None, None, &budget(2, 1_000)).unwrap();
    assert_eq!(
        serde_json::to_value(w.facts()).unwrap(),
        serde_json::json!({
            "startLine": 1, "endLine": 2, "totalLines": 5, "nextStartLine": 3,
            "preview": true, "complete": false
        })
    );
    let full = LineWindow::select(&text, None, None, &ROOMY).unwrap();
    assert_eq!(
        serde_json::to_value(full.facts()).unwrap(),
        serde_json::json!({
            "startLine": 1, "endLine": 5, "totalLines": 5, "preview": false, "complete": true
        })
    );
}

#[test]
fn the_workspace_line_budget_is_1200_lines() {
    let text = numbered(1_500);
    let w = LineWindow::select(&text, None, None, &ReadBudget::WORKSPACE_FULL).unwrap();
    assert_eq!((w.end_line, w.next_start_line), (1_200, Some(1_201)));
    assert_eq!(
        w.continuation_hint("workspace_read_file").as_deref(),
        Some(
            "Showing lines 1-1200 of 1500; the rest did not fit the read budget. \
             Continue with workspace_read_file start_line=1201."
        )
    );
}
