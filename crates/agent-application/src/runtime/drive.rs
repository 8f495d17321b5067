//! The task of one run: prepare the root invocation, run its loop, finalise the run. The
//! record's saves that lag behind per-round statuses run beside it, in the same task.

use std::pin::pin;
use std::sync::Arc;

use futures::future::{Either, select};

use super::cancel::CancelWatch;
use super::driver::Driver;
use super::facts::{RunFacts, RunOutcome};
use super::machine::{CommitLedger, Outcome};
use super::recorder::{LiveRun, Recorder};
use super::shared::Shared;
use super::{finish, invocation_loop, prepare};

/// Drives a run to its end. Always ends with the terminal event journaled (as far as the
/// journal accepts it).
pub(super) async fn drive(shared: Arc<Shared>, live: Arc<LiveRun>, facts: RunFacts) -> RunOutcome {
    let rec = Recorder::new(shared.ports.clone(), Arc::clone(&live));
    let saving = pin!(rec.save_behind());
    let driving = pin!(drive_run(shared, live, facts, rec.clone()));
    match select(driving, saving).await {
        Either::Left((outcome, _)) => outcome,
        Either::Right(((), driving)) => driving.await,
    }
}

async fn drive_run(
    shared: Arc<Shared>,
    live: Arc<LiveRun>,
    facts: RunFacts,
    rec: Recorder,
) -> RunOutcome {
    let watch = CancelWatch::new(
        facts.run_id.clone(),
        live.token.clone(),
        Arc::clone(&shared.ports.cancel_requests),
    );
    let d = Driver::new(shared, rec, facts, watch);
    if d.watch.check().await {
        let _ = d.rec.request_cancel().await;
        return finish::finish(&d, None, Outcome::Cancelled, &CommitLedger::new(), 0).await;
    }
    match prepare::prepare(&d).await {
        Ok(mut inv) => {
            let outcome = invocation_loop::run(&d, &mut inv).await;
            let ledger = inv.machine.ledger().clone();
            let rounds = inv.machine.round();
            finish::finish(&d, Some(&mut inv.record), outcome, &ledger, rounds).await
        }
        Err((record, fault)) => {
            let ledger = CommitLedger::new();
            let outcome = ledger.classify(fault.payload());
            let mut record = record;
            finish::finish(&d, record.as_mut(), outcome, &ledger, 0).await
        }
    }
}
