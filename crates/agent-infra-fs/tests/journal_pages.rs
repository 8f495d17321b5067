//! Reading pages of a journal: `before_seq`, `after_seq`, `limit`, the invocation filter,
//! the line format, and finding a run's journal.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod journal_support;

use agent_application::ports::{EventJournal, EventQuery, JournalError};
use agent_domain::ErrorCode;
use agent_domain::run::{InvocationId, RunId};
use agent_infra_fs::journal::{FsEventJournal, LIMIT_INVALID};
use agent_infra_fs::run_locator::RunLocator;
use journal_support::{Fixture, checkpoint, child_started, completed, seqs, status};

fn query(before: Option<u64>, after: Option<u64>, limit: Option<u32>) -> EventQuery {
    EventQuery {
        before_seq: before,
        after_seq: after,
        limit,
        invocation_id: None,
    }
}

#[tokio::test]
async fn pages_before_after_and_limit() {
    let fx = Fixture::new();
    let journal = fx.journal();
    fx.append_statuses(&journal, 250).await;
    let page = async |q: EventQuery| seqs(&journal.read(&fx.run, &q).await.unwrap());
    let range = |from: u64, to: u64| (from..=to).collect::<Vec<_>>();

    assert_eq!(page(query(None, None, None)).await, range(1, 100));
    assert_eq!(page(query(None, Some(5), Some(10))).await, range(6, 15));
    assert_eq!(page(query(None, Some(240), None)).await, range(241, 250));
    assert_eq!(page(query(None, Some(250), None)).await, range(1, 0));
    assert_eq!(page(query(None, Some(u64::MAX), None)).await, range(1, 0));
    assert_eq!(page(query(Some(50), None, Some(10))).await, range(40, 49));
    assert_eq!(page(query(Some(5), None, None)).await, range(1, 4));
    assert_eq!(page(query(Some(1), None, None)).await, range(1, 0));
    assert_eq!(page(query(Some(0), None, None)).await, range(1, 0));
    assert_eq!(
        page(query(Some(1000), None, Some(3))).await,
        range(248, 250)
    );
    assert_eq!(page(EventQuery::newest(100)).await, range(151, 250));
    assert_eq!(page(EventQuery::newest(500)).await, range(1, 250));
    // before_seq wins over after_seq.
    assert_eq!(
        page(query(Some(60), Some(10), Some(5))).await,
        range(55, 59)
    );
}

#[tokio::test]
async fn the_invocation_filter_follows_event_scopes() {
    let fx = Fixture::new();
    let journal = fx.journal();
    // seq: 1 root, 2 child A started (A, related root), 3 checkpoint (no scope),
    // 4 child B started, 5 root, 6 child A started again, 7 terminal (root).
    for draft in [
        status(),
        child_started("inv_a"),
        checkpoint(),
        child_started("inv_b"),
        status(),
        child_started("inv_a"),
        completed(),
    ] {
        journal.append(&fx.run, draft).await.unwrap();
    }
    let page = async |invocation: &str, before: Option<u64>, limit: Option<u32>| {
        let q = EventQuery {
            before_seq: before,
            limit,
            invocation_id: Some(InvocationId::parse(invocation).unwrap()),
            ..EventQuery::default()
        };
        seqs(&journal.read(&fx.run, &q).await.unwrap())
    };
    assert_eq!(page("inv_a", None, None).await, [2, 6]);
    assert_eq!(page("inv_b", None, None).await, [4]);
    assert_eq!(page("inv_root", None, None).await, [1, 2, 4, 5, 6, 7]);
    assert_eq!(page("inv_root", Some(7), Some(2)).await, [5, 6]);
    assert_eq!(page("inv_a", Some(6), Some(1)).await, [2]);
    assert_eq!(page("inv_missing", None, None).await, Vec::<u64>::new());
}

#[tokio::test]
async fn limits_outside_1_to_500_are_rejected() {
    let fx = Fixture::new();
    let journal = fx.journal();
    fx.append_statuses(&journal, 3).await;
    for limit in [0, 501, u32::MAX] {
        let err = journal
            .read(&fx.run, &query(None, None, Some(limit)))
            .await
            .unwrap_err();
        assert!(matches!(err, JournalError::InvalidQuery { .. }), "{err:?}");
        assert_eq!(err.code(), LIMIT_INVALID);
        assert_eq!(err.code(), "agent.read_events_limit_invalid");
    }
    for limit in [1, 500] {
        let got = journal.read(&fx.run, &query(None, None, Some(limit))).await;
        assert_eq!(got.unwrap().len(), limit.min(3) as usize);
    }
}

#[tokio::test]
async fn newest_and_seeking_pages_do_not_read_the_start_of_the_file() {
    // A corrupt first line is only found by reads that reach it: a page near the end is
    // served from the blocks around it.
    let fx = Fixture::new();
    let journal = fx.journal();
    fx.append_statuses(&journal, 5000).await;
    let mut bytes = fx.bytes();
    let first_end = bytes.iter().position(|&b| b == b'\n').unwrap();
    bytes[..first_end].fill(b'x');
    fx.write_bytes(&bytes);

    let newest = journal
        .read(&fx.run, &EventQuery::newest(100))
        .await
        .unwrap();
    assert_eq!(seqs(&newest), (4901..=5000).collect::<Vec<_>>());
    let after = journal
        .read(&fx.run, &query(None, Some(4000), Some(3)))
        .await
        .unwrap();
    assert_eq!(seqs(&after), [4001, 4002, 4003]);
    let before = journal
        .read(&fx.run, &query(Some(3000), None, Some(2)))
        .await
        .unwrap();
    assert_eq!(seqs(&before), [2998, 2999]);
    let err = journal
        .read(&fx.run, &query(None, None, None))
        .await
        .unwrap_err();
    assert!(
        matches!(err, JournalError::Corrupt { line: 1, .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn runs_are_found_through_the_run_index() {
    let fx = Fixture::new();
    let index = fx.data.run_index_file(&fx.run);
    std::fs::create_dir_all(index.parent().unwrap()).unwrap();
    let record =
        serde_json::json!({"id": fx.run, "workspaceId": fx.workspace, "status": "created"});
    std::fs::write(&index, record.to_string()).unwrap();

    let journal = FsEventJournal::new(RunLocator::new(fx.data.clone()));
    assert!(
        journal
            .read(&fx.run, &EventQuery::default())
            .await
            .unwrap()
            .is_empty()
    );
    journal.append(&fx.run, status()).await.unwrap();
    assert_eq!(fx.strict_lines().len(), 1);

    let unknown = RunId::parse("run_unknown").unwrap();
    for err in [
        journal
            .read(&unknown, &EventQuery::default())
            .await
            .unwrap_err(),
        journal.append(&unknown, status()).await.unwrap_err(),
        journal.subscribe(&unknown).await.err().unwrap(),
    ] {
        assert_eq!(err, JournalError::NotFound("run_unknown".to_owned()));
        assert_eq!(err.code(), "agent.not_found");
    }
}

#[tokio::test]
async fn lines_are_compact_json_in_a_fixed_shape() {
    let fx = Fixture::new();
    let journal = fx.journal();
    let appended = [
        journal.append(&fx.run, status()).await.unwrap(),
        journal
            .append(&fx.run, child_started("inv_a"))
            .await
            .unwrap(),
        journal.append(&fx.run, completed()).await.unwrap(),
    ];
    let mut text = String::from_utf8(fx.bytes()).unwrap();
    for line in &appended {
        let hex = line.id.strip_prefix("evt_").unwrap();
        assert!(
            hex.len() == 32
                && hex
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        text = text.replace(&line.id, "evt_[id]");
    }
    assert_eq!(fx.strict_lines(), appended);
    insta::assert_snapshot!(text, @r#"
    {"seq":1,"id":"evt_[id]","runId":"run_0123456789abcdef0123456789abcdef","timestamp":"2026-06-24T10:00:00.000Z","level":"info","type":"status_changed","payload":{"status":"calling_model"}}
    {"seq":2,"id":"evt_[id]","runId":"run_0123456789abcdef0123456789abcdef","timestamp":"2026-06-24T10:00:00.000Z","level":"info","type":"agent_invocation_started","payload":{"invocationId":"inv_a","parentInvocationId":"inv_root","profileId":"reviewer","kind":"subagent","status":"running"}}
    {"seq":3,"id":"evt_[id]","runId":"run_0123456789abcdef0123456789abcdef","timestamp":"2026-06-24T10:00:00.000Z","level":"info","type":"run_completed","payload":null}
    "#);
}
