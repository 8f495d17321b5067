//! Seq order: a journal whose seqs repeat, skip or step back is corrupt, and every reader
//! (pages either way, followers, the writer) says so with the line number.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod journal_support;

use agent_application::ports::{EventJournal, EventQuery, JournalError};
use agent_domain::ErrorCode;
use futures::StreamExt;
use journal_support::{Fixture, seqs, status};

/// A journal of `count` events written by the real writer, as lines.
async fn written(fx: &Fixture, count: usize) -> Vec<String> {
    let journal = fx.journal();
    fx.append_statuses(&journal, count).await;
    drop(journal);
    String::from_utf8(fx.bytes())
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn rewrite(fx: &Fixture, lines: &[String]) {
    fx.write_bytes(format!("{}\n", lines.join("\n")).as_bytes());
}

/// The line a corruption error names, and its message.
fn corrupt_line(err: JournalError) -> (u64, String) {
    assert_eq!(err.code(), "agent.journal_corrupt", "{err:?}");
    let message = err.to_string();
    match err {
        JournalError::Corrupt { line, .. } => (line, message),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

fn after(seq: u64) -> EventQuery {
    EventQuery {
        after_seq: Some(seq),
        ..EventQuery::default()
    }
}

fn before(seq: u64) -> EventQuery {
    EventQuery {
        before_seq: Some(seq),
        ..EventQuery::default()
    }
}

#[tokio::test]
async fn a_repeated_seq_is_corruption_on_every_read_that_meets_it() {
    let fx = Fixture::new();
    let mut lines = written(&fx, 10).await;
    lines.insert(5, lines[4].clone()); // seq 5 on lines 5 and 6
    rewrite(&fx, &lines);
    let journal = fx.journal();

    let (line, message) = corrupt_line(
        journal
            .read(&fx.run, &EventQuery::default())
            .await
            .unwrap_err(),
    );
    assert_eq!(line, 6);
    assert!(message.contains("line 6"), "{message}");
    assert!(message.contains("seq 5 follows seq 5"), "{message}");
    // A page starting right after the first copy still sees the second one.
    let (line, _) = corrupt_line(journal.read(&fx.run, &after(5)).await.unwrap_err());
    assert_eq!(line, 6);
    // Read backwards, the same line is named.
    let (line, _) = corrupt_line(journal.read(&fx.run, &before(7)).await.unwrap_err());
    assert_eq!(line, 6);
    // Pages that do not reach it still read.
    assert_eq!(
        seqs(&journal.read(&fx.run, &before(5)).await.unwrap()),
        [1, 2, 3, 4]
    );
    assert_eq!(
        seqs(&journal.read(&fx.run, &after(6)).await.unwrap()),
        [7, 8, 9, 10]
    );
    // A follower hands out what comes before, then the error.
    let items: Vec<_> = journal.follow(&fx.run, 0).await.unwrap().collect().await;
    let read: Vec<u64> = items
        .iter()
        .filter_map(|item| item.as_ref().ok().map(|line| line.seq))
        .collect();
    assert_eq!(read, [1, 2, 3, 4, 5]);
    let (line, _) = corrupt_line(items.last().unwrap().clone().unwrap_err());
    assert_eq!(line, 6);
}

#[tokio::test]
async fn a_repeated_last_seq_stops_the_writer() {
    let fx = Fixture::new();
    let mut lines = written(&fx, 3).await;
    lines.push(lines[2].clone());
    rewrite(&fx, &lines);
    let before_append = fx.bytes();
    let journal = fx.journal();
    let (line, _) = corrupt_line(journal.append(&fx.run, status()).await.unwrap_err());
    assert_eq!(line, 4);
    assert_eq!(fx.bytes(), before_append, "nothing was appended");
    let (line, _) = corrupt_line(
        journal
            .read(&fx.run, &EventQuery::newest(1))
            .await
            .unwrap_err(),
    );
    assert_eq!(line, 4);
}

#[tokio::test]
async fn a_gap_a_step_back_or_a_late_start_is_corruption_too() {
    // A gap: seq 5 is missing, so line 5 holds seq 6.
    let fx = Fixture::new();
    let mut lines = written(&fx, 10).await;
    lines.remove(4);
    rewrite(&fx, &lines);
    let journal = fx.journal();
    let (line, message) = corrupt_line(
        journal
            .read(&fx.run, &EventQuery::default())
            .await
            .unwrap_err(),
    );
    assert_eq!(line, 5);
    assert!(message.contains("seq 6 follows seq 4"), "{message}");
    let (line, _) = corrupt_line(journal.read(&fx.run, &before(8)).await.unwrap_err());
    assert_eq!(line, 5);

    // A step back: lines 3 and 4 swapped.
    let fx = Fixture::new();
    let mut lines = written(&fx, 6).await;
    lines.swap(2, 3);
    rewrite(&fx, &lines);
    let (line, message) = corrupt_line(
        fx.journal()
            .read(&fx.run, &EventQuery::default())
            .await
            .unwrap_err(),
    );
    assert_eq!(line, 3);
    assert!(message.contains("seq 4 follows seq 2"), "{message}");

    // A journal that does not start at 1.
    let fx = Fixture::new();
    let mut lines = written(&fx, 4).await;
    lines.remove(0);
    rewrite(&fx, &lines);
    let journal = fx.journal();
    let (line, message) = corrupt_line(
        journal
            .read(&fx.run, &EventQuery::default())
            .await
            .unwrap_err(),
    );
    assert_eq!(line, 1);
    assert!(message.contains("seq 2 where seq 1 belongs"), "{message}");
    let (line, message) = corrupt_line(
        journal
            .read(&fx.run, &EventQuery::newest(10))
            .await
            .unwrap_err(),
    );
    assert_eq!(line, 1);
    assert!(message.contains("starts at seq 2"), "{message}");
}
