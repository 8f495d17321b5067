//! The search core on its own, as a bench calls it.

use agent_domain::text::search::Query;

use super::*;
use crate::ports::SearchFile;
use crate::tools::workspace::search_corpus_hits;

fn file(path: &str, text: Option<&str>) -> SearchFile {
    SearchFile {
        path: super::path(path),
        text: text.map(str::to_owned),
        sha256: format!("sha-{path}"),
    }
}

#[test]
fn hits_merge_across_files_by_score_then_path_then_line() {
    let corpus = SearchCorpus {
        files: vec![
            file("b.md", Some("red fox\nquiet\nred\n")),
            file("a.md", Some("a red fox\nnothing\n")),
            file("bin", None),
        ],
        truncated: true,
    };
    let query = Query::parse("red fox").unwrap();
    let report = search_corpus_hits(&corpus, &query, 0, 10);
    let order: Vec<(&str, u64, f64)> = report
        .hits
        .iter()
        .map(|hit| (hit.path.as_str(), hit.start_line, hit.score))
        .collect();
    assert_eq!(
        order,
        [("a.md", 1, 1.0), ("b.md", 1, 1.0), ("b.md", 3, 3.0 / 6.0)]
    );
    assert_eq!(report.searched_files, 2);
    assert_eq!(report.skipped_files, 1);
    assert!(report.files_truncated);
    assert!(!report.more_hits);
    assert_eq!(report.hits[0].sha256, "sha-a.md");
    assert_eq!(report.hits[2].snippet.render_numbered(), "3 | red");
    assert_eq!(report.hits[2].resource_ref(), "workspace:b.md#L3-L3");

    let limited = search_corpus_hits(&corpus, &query, 1, 1);
    assert_eq!(limited.hits.len(), 1);
    assert!(limited.more_hits);
    assert_eq!(
        limited.hits[0].snippet.render_numbered(),
        "1 | a red fox\n2 | nothing"
    );

    let one_file = SearchCorpus {
        files: vec![file("c.md", Some("red\nred\nred\n"))],
        truncated: false,
    };
    let capped = search_corpus_hits(&one_file, &query, 0, 2);
    assert_eq!(capped.hits.len(), 2);
    assert!(capped.more_hits);
    assert!(!search_corpus_hits(&one_file, &query, 0, 3).more_hits);
}

#[test]
fn an_empty_corpus_has_no_hits() {
    let corpus = SearchCorpus {
        files: Vec::new(),
        truncated: false,
    };
    let report = search_corpus_hits(&corpus, &Query::parse("x").unwrap(), 2, 20);
    assert!(report.hits.is_empty());
    assert_eq!((report.searched_files, report.skipped_files), (0, 0));
}
