//! Crash safety: torn last lines are ignored by readers and repaired by the next append;
//! corruption anywhere else is reported with its line number.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod journal_support;

use agent_application::ports::{EventJournal, EventQuery, JournalError};
use agent_domain::ErrorCode;
use journal_support::{Fixture, child_started, seqs, status};

const N: u64 = 20;

#[tokio::test]
async fn every_cut_inside_the_last_line_is_ignored_then_repaired() {
    let fx = Fixture::new();
    let journal = fx.journal();
    fx.append_statuses(&journal, N as usize - 1).await;
    // A longer last line, so the cuts cover a payload too.
    journal
        .append(&fx.run, child_started("inv_0123456789abcdef"))
        .await
        .unwrap();
    drop(journal);
    let whole = fx.bytes();
    let last_start = whole[..whole.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    let before_last = (1..N).collect::<Vec<_>>();

    // `last_start` is a clean cut; `whole.len() - 1` leaves the line whole but for its
    // `\n`, which still makes it torn: an event exists only once its line is terminated.
    for cut in last_start..whole.len() {
        fx.write_bytes(&whole[..cut]);
        let journal = fx.journal();
        let read = journal
            .read(&fx.run, &EventQuery::newest(500))
            .await
            .unwrap();
        assert_eq!(seqs(&read), before_last, "cut at {cut}");
        assert_eq!(
            fx.bytes(),
            &whole[..cut],
            "a reader changed the file (cut at {cut})"
        );

        let line = journal.append(&fx.run, status()).await.unwrap();
        assert_eq!(line.seq, N, "cut at {cut}");
        let lines = fx.strict_lines();
        assert_eq!(lines.len() as u64, N);
        assert_eq!(&fx.bytes()[..last_start], &whole[..last_start]);
        assert_eq!(lines.last().unwrap(), &line);
    }
}

#[tokio::test]
async fn an_unparsable_final_line_is_torn_too() {
    let fx = Fixture::new();
    let journal = fx.journal();
    fx.append_statuses(&journal, 3).await;
    drop(journal);
    let good = fx.bytes();
    // What a power loss can leave: the length grew, the data never landed.
    fx.write_bytes(&[good.as_slice(), b"\0\0\0\0\0\0\n\n"].concat());

    let journal = fx.journal();
    let read = journal.read(&fx.run, &EventQuery::default()).await.unwrap();
    assert_eq!(seqs(&read), [1, 2, 3]);
    assert_eq!(journal.append(&fx.run, status()).await.unwrap().seq, 4);
    assert_eq!(fx.strict_lines().len(), 4);
    assert_eq!(&fx.bytes()[..good.len()], good.as_slice());
}

#[tokio::test]
async fn a_corrupt_line_in_the_middle_is_named_by_its_line_number() {
    let fx = Fixture::new();
    let journal = fx.journal();
    fx.append_statuses(&journal, 10).await;
    drop(journal);
    let text = String::from_utf8(fx.bytes()).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[5] = r#"{"seq":6,"id":"evt_x","oops"#.to_owned();
    lines.insert(3, String::new()); // a blank line: line numbers now differ from seqs
    fx.write_bytes(format!("{}\n", lines.join("\n")).as_bytes());

    let journal = fx.journal();
    let err = journal
        .read(&fx.run, &EventQuery::default())
        .await
        .unwrap_err();
    match &err {
        JournalError::Corrupt { run, line, .. } => {
            assert_eq!((run.as_str(), *line), (fx.run.as_str(), 7))
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert_eq!(err.code(), "agent.journal_corrupt");
    assert!(err.to_string().contains("line 7"), "{err}");
    // Pages that do not reach the bad line still read.
    let newest = journal.read(&fx.run, &EventQuery::newest(3)).await.unwrap();
    assert_eq!(seqs(&newest), [8, 9, 10]);
    let early = EventQuery {
        before_seq: Some(4),
        ..EventQuery::default()
    };
    assert_eq!(
        seqs(&journal.read(&fx.run, &early).await.unwrap()),
        [1, 2, 3]
    );
}

#[tokio::test]
async fn two_bad_lines_at_the_end_are_corruption_not_a_torn_line() {
    let fx = Fixture::new();
    let journal = fx.journal();
    fx.append_statuses(&journal, 2).await;
    drop(journal);
    let good = fx.bytes();
    let corrupt = [good.as_slice(), b"garbage\n{\"seq\":3"].concat();
    fx.write_bytes(&corrupt);

    let journal = fx.journal();
    let err = journal
        .read(&fx.run, &EventQuery::default())
        .await
        .unwrap_err();
    assert!(
        matches!(err, JournalError::Corrupt { line: 3, .. }),
        "{err:?}"
    );
    // The writer refuses too, and leaves the file as it found it.
    let err = journal.append(&fx.run, status()).await.unwrap_err();
    assert!(
        matches!(err, JournalError::Corrupt { line: 3, .. }),
        "{err:?}"
    );
    assert_eq!(fx.bytes(), corrupt);
}

#[tokio::test]
async fn blank_lines_are_ignored() {
    let fx = Fixture::new();
    let journal = fx.journal();
    fx.append_statuses(&journal, 4).await;
    drop(journal);
    let text = String::from_utf8(fx.bytes())
        .unwrap()
        .replace('\n', "\n\n  \r\n");
    fx.write_bytes(format!("\n{text}").as_bytes());

    let journal = fx.journal();
    let all = journal.read(&fx.run, &EventQuery::default()).await.unwrap();
    assert_eq!(seqs(&all), [1, 2, 3, 4]);
    let middle = EventQuery {
        after_seq: Some(1),
        limit: Some(2),
        ..EventQuery::default()
    };
    assert_eq!(seqs(&journal.read(&fx.run, &middle).await.unwrap()), [2, 3]);
    assert_eq!(journal.append(&fx.run, status()).await.unwrap().seq, 5);
    assert_eq!(
        seqs(&journal.read(&fx.run, &EventQuery::newest(2)).await.unwrap()),
        [4, 5]
    );
}
