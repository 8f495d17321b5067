//! Model call retries: only retryable errors, `maxRetries` extra attempts, the longer of
//! the interval and the provider's `retry-after`.

use agent_domain::event::RunEvent;
use serde_json::json;

use super::super::*;
use super::support::*;
use crate::ports::ModelErrorKind;

#[test]
fn retryable_errors_twice_then_success() {
    let mut machine = Fixture::default().machine();
    let mut world = World::new(vec![
        Err(model_error(ModelErrorKind::RateLimited, None)),
        Err(model_error(ModelErrorKind::Transient, Some(5000))),
        Ok(tools(vec![commit("c1"), finish("c2")])),
    ]);
    assert_eq!(world.run(&mut machine), Outcome::Completed);
    assert_eq!(
        world.actions[..5],
        [
            "call_model r1 a1",
            "wait r1 a2 1000ms",
            "call_model r1 a2",
            "wait r1 a3 5000ms",
            "call_model r1 a3",
        ]
    );
    assert_eq!(
        world.event_types()[..8],
        [
            "model_request_created",
            "model_call_attempt_started",
            "model_call_attempt_failed",
            "model_call_retry_scheduled",
            "model_call_attempt_started",
            "model_call_attempt_failed",
            "model_call_retry_scheduled",
            "model_call_attempt_started",
        ]
    );
    let failed = world
        .events()
        .find_map(|e| match e {
            RunEvent::ModelCallAttemptFailed(p) => Some(p.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        serde_json::to_value(failed).unwrap(),
        json!({
            "round": 1, "invocationId": "inv_root", "attempt": 1, "maxRetries": 2,
            "retryable": true, "willRetry": true, "code": "model.rate_limited",
            "message": "the provider said no"
        })
    );
    // The request of a retry is the request of the first attempt.
    let requests: Vec<_> = world
        .steps
        .iter()
        .filter_map(|s| match &s.action {
            Action::CallModel {
                request, round: 1, ..
            } => Some(request.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(requests.len(), 3);
    assert!(requests.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn retries_run_out() {
    let mut machine = Fixture::default().machine();
    let mut world = World::new(vec![
        Err(model_error(ModelErrorKind::Overloaded, None)),
        Err(model_error(ModelErrorKind::Overloaded, None)),
        Err(model_error(ModelErrorKind::Timeout, None)),
    ]);
    let Outcome::Failed(failure) = world.run(&mut machine) else {
        panic!("failed expected");
    };
    assert_eq!(failure.code, "model.timeout");
    assert!(failure.retryable && failure.user_retryable);
    assert_eq!(failure.details["attempts"], json!(3));
    assert_eq!(
        failure.technical_message,
        "model.timeout: the provider said no"
    );
    let last = world
        .events()
        .filter_map(|e| match e {
            RunEvent::ModelCallAttemptFailed(p) => Some(p.clone()),
            _ => None,
        })
        .last()
        .unwrap();
    assert!(last.retryable && !last.will_retry);
    assert_eq!(
        RunEvent::ModelCallAttemptFailed(last).level(),
        agent_domain::event::EventLevel::Error
    );
}

#[test]
fn non_retryable_errors_end_at_once() {
    let mut machine = Fixture::default().machine();
    let mut error = model_error(ModelErrorKind::Auth, None);
    error.status = Some(401);
    let mut world = World::new(vec![Err(error)]);
    let Outcome::Failed(failure) = world.run(&mut machine) else {
        panic!("failed expected");
    };
    assert_eq!(failure.code, "model.unauthorized");
    assert!(!failure.retryable && !failure.user_retryable);
    assert_eq!(failure.details["status"], json!(401));
    assert_eq!(
        world.actions,
        ["call_model r1 a1", "finish failed model.unauthorized"]
    );
}

#[test]
fn a_model_error_after_a_commit_is_a_partial_success() {
    let mut machine = Fixture::default().machine();
    let mut world = World::new(vec![
        Ok(tools(vec![write("c1", "output/main.md"), commit("c2")])),
        Err(model_error(ModelErrorKind::ContextLength, None)),
    ]);
    let Outcome::PartialSuccess(partial) = world.run(&mut machine) else {
        panic!("partial success expected");
    };
    assert_eq!(partial.failure.code, "model.context_length_exceeded");
    assert!(!partial.failure.retryable && !partial.failure.user_retryable);
    assert_eq!(partial.preserved_commit_count, 1);
}

#[test]
fn zero_retries_means_one_attempt() {
    let mut machine = Fixture {
        retry: agent_domain::profile::ModelRetryPolicy {
            max_retries: 0,
            interval_ms: 0,
        },
        ..Fixture::default()
    }
    .machine();
    let mut world = World::new(vec![Err(model_error(ModelErrorKind::RateLimited, None))]);
    assert_eq!(
        world.run(&mut machine).failure().unwrap().code,
        "model.rate_limited"
    );
    assert_eq!(world.actions.len(), 2);
}

#[test]
fn a_provider_wait_longer_than_a_minute_is_capped() {
    let mut machine = Fixture::default().machine();
    let mut world = World::new(vec![
        Err(model_error(
            ModelErrorKind::RateLimited,
            Some(3 * 3_600_000),
        )),
        Ok(tools(vec![commit("c1"), finish("c2")])),
    ]);
    assert_eq!(world.run(&mut machine), Outcome::Completed);
    assert_eq!(
        world.actions[..3],
        ["call_model r1 a1", "wait r1 a2 60000ms", "call_model r1 a2"]
    );
}
