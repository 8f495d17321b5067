//! [`Faults`]: failures a test plans for the operations of one in-memory port, so a driver
//! test can make "the second journal append of a `chat_commit_completed`" or "the audit
//! write of a tool result" fail and watch how the runtime copes.
//!
//! A planned failure fires once, on the `nth` operation it matches, and the operation it
//! fires on does not take effect (nothing is appended, written or committed), as when the
//! real adapter's write fails and is rolled back.

use std::sync::Mutex;

type Matcher<Op> = Box<dyn Fn(&Op) -> bool + Send + Sync>;

struct Planned<Op: ?Sized, E> {
    matches: Matcher<Op>,
    /// Matching operations still to let through, plus one (the one that fails).
    left: usize,
    error: E,
}

/// Planned failures of one kind of operation `Op` (a journal append's event, an audit
/// document's path, a chat commit request), each failing with its error `E`.
pub struct Faults<Op: ?Sized, E> {
    planned: Mutex<Vec<Planned<Op, E>>>,
}

impl<Op: ?Sized, E> Default for Faults<Op, E> {
    fn default() -> Self {
        Self {
            planned: Mutex::new(Vec::new()),
        }
    }
}

impl<Op: ?Sized, E> std::fmt::Debug for Faults<Op, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Faults {{ pending: {} }}", self.pending())
    }
}

impl<Op: ?Sized, E> Faults<Op, E> {
    fn with<T>(&self, f: impl FnOnce(&mut Vec<Planned<Op, E>>) -> T) -> T {
        f(&mut self.planned.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Fails the first operation that `matches`, with `error`.
    pub fn fail_first(&self, matches: impl Fn(&Op) -> bool + Send + Sync + 'static, error: E) {
        self.fail_nth(1, matches, error);
    }

    /// Fails the `nth` (1-based; 0 counts as 1) operation that `matches`, with `error`;
    /// the matching operations before it succeed.
    pub fn fail_nth(
        &self,
        nth: usize,
        matches: impl Fn(&Op) -> bool + Send + Sync + 'static,
        error: E,
    ) {
        self.with(|planned| {
            planned.push(Planned {
                matches: Box::new(matches),
                left: nth.max(1),
                error,
            });
        });
    }

    /// Planned failures that have not fired yet; a test checks it is 0 to know its fault
    /// was reached.
    pub fn pending(&self) -> usize {
        self.with(|planned| planned.len())
    }

    /// Counts `op` against the plans it matches, in the order they were planned, until one
    /// completes: that plan is spent and its error returned. Plans after it do not count
    /// the operation, which failed. `Ok` lets the operation happen.
    pub fn check(&self, op: &Op) -> Result<(), E> {
        self.with(|planned| {
            for at in 0..planned.len() {
                let plan = &mut planned[at];
                if (plan.matches)(op) {
                    plan.left -= 1;
                    if plan.left == 0 {
                        return Err(planned.remove(at).error);
                    }
                }
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_plan_fires_once_on_its_nth_match() {
        let faults: Faults<str, String> = Faults::default();
        faults.fail_nth(
            2,
            |path: &str| path.starts_with("tool-results/"),
            "io".into(),
        );
        faults.fail_first(|path: &str| path == "input/x.json", "full".into());
        assert_eq!(faults.pending(), 2);
        assert_eq!(faults.check("tool-results/a.json"), Ok(()));
        assert_eq!(faults.check("tool-args/a.json"), Ok(()));
        assert_eq!(faults.check("input/x.json"), Err("full".to_owned()));
        assert_eq!(faults.check("input/x.json"), Ok(()));
        assert_eq!(faults.check("tool-results/b.json"), Err("io".to_owned()));
        assert_eq!(faults.check("tool-results/c.json"), Ok(()));
        assert_eq!(faults.pending(), 0);
    }

    #[test]
    fn an_operation_fails_once_and_later_plans_wait_for_the_next() {
        let faults: Faults<u32, &str> = Faults::default();
        faults.fail_first(|n| *n > 1, "first");
        faults.fail_first(|n| *n > 2, "second");
        assert_eq!(faults.check(&3), Err("first"));
        assert_eq!(faults.pending(), 1);
        assert_eq!(faults.check(&2), Ok(()));
        assert_eq!(faults.check(&3), Err("second"));
        assert_eq!(faults.pending(), 0);
    }
}
