//! One writer per run: concurrent appends in a process get every seq exactly once, and a
//! second writer (another process, or another journal instance) is refused with `Locked`.
//!
//! The OS lock is `flock`-style: it belongs to an open file description, so two separate
//! `open`s of the file conflict even inside one process. That lets a second
//! `FsEventJournal` (or a bare `File`) stand in for another process; one test also uses a
//! real child process.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod journal_support;

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::sync::Arc;

use agent_application::ports::{EventJournal, JournalError};
use agent_domain::ErrorCode;
use agent_domain::run::RunId;
use agent_infra_fs::layout::DataDir;
use journal_support::{Fixture, RUN, completed, journal_in, status};

const TASKS: u64 = 8;
const PER_TASK: u64 = 2_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_appends_get_every_seq_once() {
    let fx = Fixture::new();
    let journal = Arc::new(fx.journal());
    let mut tasks = Vec::new();
    for _ in 0..TASKS {
        let (journal, run) = (Arc::clone(&journal), fx.run.clone());
        tasks.push(tokio::spawn(async move {
            let mut seqs = Vec::new();
            for _ in 0..PER_TASK {
                seqs.push(journal.append(&run, status()).await.unwrap().seq);
            }
            seqs
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        let seqs = task.await.unwrap();
        assert!(
            seqs.windows(2).all(|w| w[0] < w[1]),
            "a task saw its seqs out of order"
        );
        all.extend(seqs);
    }
    all.sort_unstable();
    assert_eq!(all, (1..=TASKS * PER_TASK).collect::<Vec<_>>());
    assert_eq!(fx.strict_lines().len() as u64, TASKS * PER_TASK);
}

#[tokio::test]
async fn a_second_journal_instance_is_locked_out_until_the_run_ends() {
    let fx = Fixture::new();
    let first = fx.journal();
    let second = fx.journal();
    assert_eq!(first.append(&fx.run, status()).await.unwrap().seq, 1);

    let err = second.append(&fx.run, status()).await.unwrap_err();
    assert_eq!(err, JournalError::Locked(fx.run.to_string()));
    assert_eq!(err.code(), "agent.run_locked");
    assert_eq!(first.append(&fx.run, status()).await.unwrap().seq, 2);
    assert_eq!(fx.strict_lines().len(), 2);

    // The terminal event releases the run.
    assert_eq!(first.append(&fx.run, completed()).await.unwrap().seq, 3);
    assert_eq!(second.append(&fx.run, status()).await.unwrap().seq, 4);
    assert_eq!(fx.strict_lines().len(), 4);
}

#[tokio::test]
async fn an_os_lock_held_on_another_open_file_refuses_the_writer() {
    let fx = Fixture::new();
    let journal = fx.journal();
    fx.write_bytes(b"");
    let other = std::fs::File::open(fx.events_path()).unwrap();
    other.try_lock().unwrap();

    let err = journal.append(&fx.run, status()).await.unwrap_err();
    assert_eq!(err, JournalError::Locked(fx.run.to_string()));
    assert!(fx.bytes().is_empty());

    drop(other);
    assert_eq!(journal.append(&fx.run, status()).await.unwrap().seq, 1);
}

/// The child side of the test below; a no-op unless started by it.
#[tokio::test]
async fn child_writer() {
    let Some(data) = std::env::var_os("JOURNAL_CHILD_DATA") else {
        return;
    };
    let journal = journal_in(&DataDir::new(data));
    let run = RunId::parse(RUN).unwrap();
    let line = journal.append(&run, status()).await.unwrap();
    println!("child appended {}", line.seq);
    // Hold the run until the parent closes our stdin.
    std::io::stdin().read_to_end(&mut Vec::new()).unwrap();
}

#[tokio::test]
async fn a_writer_in_another_process_locks_the_run() {
    let fx = Fixture::new();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["child_writer", "--exact", "--nocapture", "--test-threads=1"])
        .env("JOURNAL_CHILD_DATA", fx.data.root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // libtest prints the test name before the test's own output, on the same line.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("child appended") {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "the child ended early"
        );
    }
    assert!(line.trim_end().ends_with("child appended 1"), "{line}");

    let journal = fx.journal();
    let err = journal.append(&fx.run, status()).await.unwrap_err();
    assert_eq!(err, JournalError::Locked(fx.run.to_string()));

    drop(child.stdin.take());
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert!(child.wait().unwrap().success(), "{rest}");
    assert_eq!(journal.append(&fx.run, status()).await.unwrap().seq, 2);
    assert_eq!(fx.strict_lines().len(), 2);
}
