//! One run's live deltas, put in order with its journal for a host that shows both (the
//! CLI's live timeline, the HTTP event stream).
//!
//! The journal and the deltas travel on separate channels, so a reader that woke late may
//! find a call's closing journal line and that call's last deltas ready at once.
//! [`RunDeltas::ended_by`] hands over the deltas of the call a line ends, so the host shows
//! them before the line; the other queued deltas (a later call's, a concurrent child's)
//! stay, in order, for [`RunDeltas::next`].

use std::collections::VecDeque;

use agent_domain::event::{JournalLine, RunEvent};
use agent_domain::run::RunId;
use tokio::sync::broadcast;

use super::activity::ModelActivity;

/// The deltas of one run, read from the runtime's activity channel.
#[derive(Debug)]
pub struct RunDeltas {
    /// `None` when nothing listens or the channel closed.
    receiver: Option<broadcast::Receiver<ModelActivity>>,
    run_id: RunId,
    held: VecDeque<ModelActivity>,
}

impl RunDeltas {
    /// The deltas of `run_id` from `receiver` (from
    /// [`AgentRuntime::watch_activity`](super::AgentRuntime::watch_activity)); with `None`,
    /// there are none.
    pub fn new(receiver: Option<broadcast::Receiver<ModelActivity>>, run_id: RunId) -> Self {
        Self {
            receiver,
            run_id,
            held: VecDeque::new(),
        }
    }

    /// The next delta of the run; pending forever once there is none to come. A reader that
    /// fell behind skips what it missed: deltas are a preview, the journal is the record.
    pub async fn next(&mut self) -> ModelActivity {
        if let Some(activity) = self.held.pop_front() {
            return activity;
        }
        loop {
            let Some(receiver) = &mut self.receiver else {
                return std::future::pending().await;
            };
            match receiver.recv().await {
                Ok(activity) if activity.run_id == self.run_id => return activity,
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => self.receiver = None,
            }
        }
    }

    /// Every delta already sent of the model call `line` ends (`model_completed`,
    /// `model_call_attempt_failed`), in order; empty for any other line.
    pub fn ended_by(&mut self, line: &JournalLine) -> Vec<ModelActivity> {
        match ended_call(line) {
            Some(call) => self.take_call(&call),
            None => Vec::new(),
        }
    }

    fn take_call(&mut self, call: &EndedCall) -> Vec<ModelActivity> {
        if let Some(receiver) = &mut self.receiver {
            loop {
                match receiver.try_recv() {
                    Ok(activity) if activity.run_id == self.run_id => self.held.push_back(activity),
                    Ok(_) | Err(broadcast::error::TryRecvError::Lagged(_)) => {}
                    Err(broadcast::error::TryRecvError::Empty) => break,
                    Err(broadcast::error::TryRecvError::Closed) => {
                        self.receiver = None;
                        break;
                    }
                }
            }
        }
        let (taken, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|activity| call.covers(activity));
        self.held = kept.into();
        taken
    }
}

/// A model call a journal line ends: invocation, round, and the attempt when the line
/// names one.
struct EndedCall {
    invocation_id: String,
    round: u32,
    attempt: Option<u32>,
}

impl EndedCall {
    fn covers(&self, activity: &ModelActivity) -> bool {
        activity.invocation_id.as_str() == self.invocation_id
            && activity.round == self.round
            && self
                .attempt
                .is_none_or(|attempt| attempt == activity.attempt)
    }
}

fn ended_call(line: &JournalLine) -> Option<EndedCall> {
    match &line.event {
        RunEvent::ModelCompleted(p) => Some(EndedCall {
            invocation_id: p.invocation_id.clone(),
            round: p.round,
            attempt: None,
        }),
        RunEvent::ModelCallAttemptFailed(p) => Some(EndedCall {
            invocation_id: p.invocation_id.clone(),
            round: p.round,
            attempt: Some(p.attempt),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use agent_domain::run::InvocationId;

    use super::*;
    use crate::ports::ModelDelta;

    fn activity(run: &str, invocation: &str, round: u32, text: &str) -> ModelActivity {
        ModelActivity {
            run_id: RunId::parse(run).unwrap(),
            invocation_id: InvocationId::parse(invocation).unwrap(),
            round,
            attempt: 1,
            delta: ModelDelta::Text(text.to_owned()),
        }
    }

    fn texts(activities: &[ModelActivity]) -> Vec<&str> {
        activities
            .iter()
            .map(|activity| match &activity.delta {
                ModelDelta::Text(text) => text.as_str(),
                _ => "",
            })
            .collect()
    }

    /// A reader that woke late finds the ending call's deltas mixed with a child's, a later
    /// round's and another run's: it takes the ending call's in order and keeps the rest,
    /// in order, for later.
    #[tokio::test]
    async fn a_calls_queued_deltas_come_before_the_line_that_ends_it() {
        let (sender, receiver) = broadcast::channel(16);
        let mut live = RunDeltas::new(Some(receiver), RunId::parse("run_a").unwrap());
        for activity in [
            activity("run_a", "inv_root", 1, "root 1a"),
            activity("run_a", "inv_child", 1, "child 1"),
            activity("run_b", "inv_root", 1, "other run"),
            activity("run_a", "inv_root", 1, "root 1b"),
            activity("run_a", "inv_root", 2, "root 2"),
        ] {
            sender.send(activity).unwrap();
        }
        let ended = EndedCall {
            invocation_id: "inv_root".into(),
            round: 1,
            attempt: None,
        };
        assert_eq!(texts(&live.take_call(&ended)), ["root 1a", "root 1b"]);
        assert_eq!(texts(&[live.next().await]), ["child 1"]);
        assert_eq!(texts(&[live.next().await]), ["root 2"]);
        sender
            .send(activity("run_a", "inv_root", 3, "root 3"))
            .unwrap();
        assert_eq!(texts(&[live.next().await]), ["root 3"]);
    }
}
