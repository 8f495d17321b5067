//! Subscribing and following: new events arrive in seq order, from this journal instance
//! or another writer, and every stream ends after the terminal event.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod journal_support;

use agent_application::ports::{EventJournal, EventQuery};
use futures::StreamExt;
use journal_support::{Fixture, completed, seqs, within};

fn range(from: u64, to: u64) -> Vec<u64> {
    (from..=to).collect()
}

#[tokio::test]
async fn subscribe_yields_new_events_in_order_and_ends_after_the_terminal_event() {
    let fx = Fixture::new();
    let journal = fx.journal();
    fx.append_statuses(&journal, 3).await;
    let stream = journal.subscribe(&fx.run).await.unwrap();
    fx.append_statuses(&journal, 5).await;
    journal.append(&fx.run, completed()).await.unwrap();

    let got: Vec<_> = within(stream.map(Result::unwrap).collect()).await;
    assert_eq!(seqs(&got), range(4, 9));
    assert!(got.last().unwrap().event.is_terminal());
    assert_eq!(
        got,
        journal.read(&fx.run, &EventQuery::newest(6)).await.unwrap()
    );
}

#[tokio::test]
async fn a_follower_sees_events_another_writer_appends() {
    let fx = Fixture::new();
    let writer = fx.journal();
    let reader = fx.journal(); // another instance: nothing reaches it but the file
    fx.append_statuses(&writer, 3).await;
    let from_start = reader.follow(&fx.run, 0).await.unwrap();
    let new_only = reader.subscribe(&fx.run).await.unwrap();
    fx.append_statuses(&writer, 3).await;
    writer.append(&fx.run, completed()).await.unwrap();

    let all: Vec<_> = within(from_start.map(Result::unwrap).collect()).await;
    assert_eq!(seqs(&all), range(1, 7));
    let new: Vec<_> = within(new_only.map(Result::unwrap).collect()).await;
    assert_eq!(seqs(&new), range(4, 7));
}

#[tokio::test]
async fn follow_replays_the_rest_then_continues() {
    let fx = Fixture::new();
    let journal = fx.journal();
    fx.append_statuses(&journal, 5).await;
    let stream = journal.follow(&fx.run, 2).await.unwrap();
    fx.append_statuses(&journal, 2).await;
    journal.append(&fx.run, completed()).await.unwrap();
    fx.append_statuses(&journal, 1).await; // after the terminal event: not followed

    let got: Vec<_> = within(stream.map(Result::unwrap).collect()).await;
    assert_eq!(seqs(&got), range(3, 8));
}

#[tokio::test]
async fn following_a_finished_run_yields_the_rest_and_ends() {
    let fx = Fixture::new();
    let journal = fx.journal();
    fx.append_statuses(&journal, 2).await;
    journal.append(&fx.run, completed()).await.unwrap();

    let subscribed: Vec<_> = within(journal.subscribe(&fx.run).await.unwrap().collect()).await;
    assert!(subscribed.is_empty());
    let followed: Vec<_> = within(
        fx.journal()
            .follow(&fx.run, 1)
            .await
            .unwrap()
            .map(Result::unwrap)
            .collect(),
    )
    .await;
    assert_eq!(seqs(&followed), [2, 3]);
}

#[tokio::test]
async fn a_follower_that_falls_behind_catches_up_from_the_file() {
    // More events than the in-process channel buffers, appended before the follower reads
    // any: the receiver lags and the follower reads the file instead.
    let fx = Fixture::new();
    let journal = fx.journal();
    let stream = journal.subscribe(&fx.run).await.unwrap();
    fx.append_statuses(&journal, 3000).await;
    journal.append(&fx.run, completed()).await.unwrap();

    let got: Vec<_> = within(stream.map(Result::unwrap).collect()).await;
    assert_eq!(seqs(&got), range(1, 3001));
}

#[tokio::test]
async fn a_follower_waits_out_a_torn_line_until_a_writer_repairs_it() {
    let fx = Fixture::new();
    let journal = fx.journal();
    fx.append_statuses(&journal, 2).await;
    drop(journal);
    let good = fx.bytes();
    fx.write_bytes(&[good.as_slice(), b"{\"seq\":3,\"id\":\"evt_"].concat());

    let follower = fx.journal().follow(&fx.run, 0).await.unwrap();
    let writer = fx.journal();
    fx.append_statuses(&writer, 1).await;
    writer.append(&fx.run, completed()).await.unwrap();

    let got: Vec<_> = within(follower.map(Result::unwrap).collect()).await;
    assert_eq!(got, fx.strict_lines());
    assert_eq!(seqs(&got), range(1, 4));
}
