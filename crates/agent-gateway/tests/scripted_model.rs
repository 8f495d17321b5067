//! The scripted model through its public API, with requests built from real tool
//! snapshots of the default writer, the way the runtime builds them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use agent_application::ports::{ModelCall, ModelError, ModelErrorKind, ModelGateway};
use agent_domain::ErrorCode;
use agent_domain::event::InvocationKind;
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelRequest, AgentModelResponse, FinishReason,
    GenerationParameters, ProviderState,
};
use agent_domain::run::{InvocationId, RunId};
use agent_domain::tool::{BuiltinTool, ExitPolicy, ToolChoice};
use agent_gateway::scripted::ScriptedModel;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

#[path = "support/tools.rs"]
mod tools;
use tools::tools_under;

const RUN: &str = "run_a";

/// One model call of `profile` in `run`, as an invocation of `kind`.
fn call_in(run: &str, profile: &str, kind: InvocationKind) -> ModelCall {
    let (invocation, exit) = match kind {
        InvocationKind::Root => (InvocationId::root(), ExitPolicy::RunFinishAllowed),
        InvocationKind::Subagent => (
            InvocationId::parse("inv_child").unwrap(),
            ExitPolicy::TaskReturnRequired,
        ),
        _ => (
            InvocationId::parse("inv_handoff").unwrap(),
            ExitPolicy::RunFinishAllowed,
        ),
    };
    ModelCall {
        run_id: RunId::parse(run).unwrap(),
        request: AgentModelRequest {
            messages: vec![
                AgentModelMessage::system("You are a writer."),
                AgentModelMessage::user("Continue the story."),
            ]
            .into(),
            tools: tools_under(exit).into(),
            tool_choice: ToolChoice::Auto,
            provider_state: ProviderState::initial(run, invocation.as_str()),
            parameters: GenerationParameters::default(),
        },
        invocation_id: invocation,
        invocation_kind: kind,
        profile_id: profile.to_owned(),
        round: 1,
        attempt: 1,
    }
}

fn root() -> ModelCall {
    call_in(RUN, "default-writer", InvocationKind::Root)
}

fn subagent(profile: &str) -> ModelCall {
    call_in(RUN, profile, InvocationKind::Subagent)
}

fn handoff(profile: &str) -> ModelCall {
    call_in(RUN, profile, InvocationKind::Handoff)
}

fn model(script: Value) -> ScriptedModel {
    ScriptedModel::from_json(&script.to_string()).unwrap()
}

async fn ok(model: &ScriptedModel, call: ModelCall) -> AgentModelResponse {
    model.generate(call).await.unwrap()
}

async fn err(model: &ScriptedModel, call: ModelCall) -> ModelError {
    model.generate(call).await.unwrap_err()
}

fn ids(response: &AgentModelResponse) -> Vec<&str> {
    response
        .tool_calls()
        .iter()
        .map(|call| call.call_id.as_str())
        .collect()
}

/// Which list and which turn of it answered.
fn origin(response: &AgentModelResponse) -> (String, u64) {
    let meta = &response.provider_metadata;
    (
        meta["list"].as_str().unwrap_or_default().to_owned(),
        meta["turn"].as_u64().unwrap_or(u64::MAX),
    )
}

/// The example of `docs/scripted-model.md`, verbatim.
fn doc_example() -> ScriptedModel {
    model(json!({
      "turns": [
        {"tool_calls": [{"name": "workspace_write_file",
                         "arguments": {"path": "output/main.md", "content": "Hello"}}]},
        {"text": "narration", "tool_calls": [{"id": "c9", "name": "workspace_commit", "arguments": {}}]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": "{\"reason\":\"done\"}"}]}
      ],
      "agents": {"reviewer": [ {"tool_calls": [{"name": "task_return", "arguments": {"summary": "ok"}}]} ]}
    }))
}

#[tokio::test]
async fn a_turn_becomes_a_canonical_response() {
    let model = model(json!({"turns": [{
        "reasoning": "The user wants a story.",
        "text": "Drafting.",
        "tool_calls": [
            {"name": "workspace_write_file", "arguments": {"path": "output/main.md", "content": "Once"}},
            {"id": "mine", "name": "workspace_read_file", "arguments": "{\"path\": \"output/main.md\""},
            {"name": "workspace_finish"}
        ]
    }, {"text": "Done."}]}));
    let response = ok(&model, root()).await;
    insta::assert_json_snapshot!("canonical_response", response);

    let calls = response.tool_calls();
    assert_eq!(calls[0].tool_id, BuiltinTool::WorkspaceWriteFile.id());
    assert_eq!(calls[2].tool_id, BuiltinTool::WorkspaceFinish.id());
    assert_eq!(calls[2].arguments, json!({}));
    assert_eq!(response.finish_reason, FinishReason::ToolCalls);

    let text_only = ok(&model, root()).await;
    assert_eq!(text_only.finish_reason, FinishReason::Stop);
    assert_eq!(
        text_only.message.parts,
        [AgentModelContentPart::text("Done.")]
    );
    assert_eq!(text_only.response_id.as_deref(), Some("scripted-run_a-2"));
}

#[tokio::test]
async fn the_doc_example_plays_through() {
    let model = doc_example();
    let first = ok(&model, root()).await;
    assert_eq!(ids(&first), ["call_1"]);
    let second = ok(&model, root()).await;
    assert_eq!(second.text(), "narration");
    assert_eq!(ids(&second), ["c9"]);
    let review = ok(&model, subagent("reviewer")).await;
    assert_eq!(review.tool_calls()[0].tool_id, BuiltinTool::TaskReturn.id());
    assert_eq!(ids(&review), ["call_3"]);
    let last = ok(&model, root()).await;
    assert_eq!(ids(&last), ["call_4"]);
    assert_eq!(
        last.tool_calls()[0].arguments,
        Value::String("{\"reason\":\"done\"}".into())
    );
}

#[tokio::test]
async fn raw_string_arguments_pass_through_unparsed() {
    let raw = [
        r#"{"path": "output/main.md""#,
        "not json at all",
        "",
        r#"{"a":1}"#,
    ];
    let calls: Vec<Value> = raw
        .iter()
        .map(|args| json!({"name": "workspace_read_file", "arguments": args}))
        .collect();
    let model = model(json!({"turns": [{"tool_calls": calls}]}));
    let response = ok(&model, root()).await;
    let got: Vec<&Value> = response.tool_calls().iter().map(|c| &c.arguments).collect();
    let want: Vec<Value> = raw
        .iter()
        .map(|args| Value::String((*args).into()))
        .collect();
    assert_eq!(got, want.iter().collect::<Vec<_>>());
}

#[tokio::test]
async fn each_profile_reads_its_own_list_else_turns() {
    let model = model(json!({
        "turns": [{"text": "root 0"}, {"text": "root 1"}, {"text": "root 2"}],
        "agents": {
            "reviewer": [{"text": "review 0"}, {"text": "review 1"}],
            "editor": [{"text": "edit 0"}]
        }
    }));
    let origins = [
        (root(), "turns", 0),
        (subagent("reviewer"), "agents.reviewer", 0),
        // A handoff target with its own list reads it.
        (handoff("editor"), "agents.editor", 0),
        // A subagent without a list of its own falls back to `turns`, continuing its cursor.
        (subagent("researcher"), "turns", 1),
        // The reviewer's list continues across its invocations.
        (subagent("reviewer"), "agents.reviewer", 1),
        // So does a handoff target without a list.
        (handoff("closer"), "turns", 2),
    ];
    for (call, list, turn) in origins {
        let profile = call.profile_id.clone();
        let response = ok(&model, call).await;
        assert_eq!(origin(&response), (list.to_owned(), turn), "{profile}");
    }
}

#[tokio::test]
async fn a_list_runs_out_on_its_own() {
    let model = model(json!({
        "turns": [{"text": "a"}, {"text": "b"}],
        "agents": {"reviewer": [{"text": "r"}], "silent": []}
    }));
    ok(&model, subagent("reviewer")).await;
    let exhausted = err(&model, subagent("reviewer")).await;
    assert_eq!(exhausted.kind, ModelErrorKind::ScriptExhausted);
    assert_eq!(exhausted.code, "model.script_exhausted");
    assert!(!exhausted.is_retryable());
    assert_eq!(
        exhausted.message,
        "the script's `agents.reviewer` list has no turn left for profile `reviewer` (all 1 used)"
    );
    // An empty list of its own exhausts at once instead of borrowing from `turns`.
    assert_eq!(
        err(&model, subagent("silent")).await.code,
        "model.script_exhausted"
    );
    assert_eq!(ok(&model, root()).await.text(), "a");
    assert_eq!(ok(&model, root()).await.text(), "b");
    assert_eq!(err(&model, root()).await.code, "model.script_exhausted");
    // Exhausted stays exhausted.
    assert_eq!(err(&model, root()).await.code, "model.script_exhausted");
}

#[tokio::test]
async fn default_ids_count_every_call_of_the_run() {
    let call = |id: Option<&str>| match id {
        Some(id) => json!({"id": id, "name": "workspace_list_files"}),
        None => json!({"name": "workspace_list_files"}),
    };
    let model = model(json!({
        "turns": [
            {"tool_calls": [call(None), call(None)]},
            {"tool_calls": [call(Some("explicit")), call(None)]}
        ],
        "agents": {"reviewer": [{"tool_calls": [call(None)]}]}
    }));
    assert_eq!(ids(&ok(&model, root()).await), ["call_1", "call_2"]);
    assert_eq!(ids(&ok(&model, subagent("reviewer")).await), ["call_3"]);
    // Explicit ids take a number too.
    assert_eq!(ids(&ok(&model, root()).await), ["explicit", "call_5"]);
    // Another run numbers from 1 again.
    let other = call_in("run_b", "default-writer", InvocationKind::Root);
    assert_eq!(ids(&ok(&model, other).await), ["call_1", "call_2"]);
}

#[tokio::test]
async fn a_repeated_call_id_is_a_contract_violation() {
    let named = |id: &str| json!({"id": id, "name": "workspace_list_files"});
    let default = json!({"name": "workspace_list_files"});
    let model = model(json!({"turns": [
        {"tool_calls": [named("c9")]},
        // Repeats an id of an earlier response.
        {"tool_calls": [named("c9")]},
        // Repeats an id within the response.
        {"tool_calls": [named("x"), named("x")]},
        // Numbers resume at 2 (failed responses issue nothing); the explicit id spells out
        // the number the next default call gets...
        {"tool_calls": [default.clone(), named("call_4")]},
        // ...so it collides here.
        {"tool_calls": [default]}
    ]}));
    assert_eq!(ids(&ok(&model, root()).await), ["c9"]);

    let repeated = err(&model, root()).await;
    assert_eq!(repeated.kind, ModelErrorKind::ContractViolation);
    assert_eq!(repeated.code, "model.duplicate_tool_call_id");
    assert!(!repeated.is_retryable());
    assert_eq!(
        repeated.message,
        "turns[1].tool_calls[0]: tool call id `c9` was already used in this run"
    );
    let twice = err(&model, root()).await;
    assert_eq!(twice.code, "model.duplicate_tool_call_id");
    assert_eq!(
        twice.message,
        "turns[2].tool_calls[1]: tool call id `x` was already used in this run"
    );
    assert_eq!(ids(&ok(&model, root()).await), ["call_2", "call_4"]);
    let collided = err(&model, root()).await;
    assert_eq!(collided.code, "model.duplicate_tool_call_id");
    assert_eq!(
        collided.message,
        "turns[4].tool_calls[0]: tool call id `call_4` was already used in this run"
    );
}

#[tokio::test]
async fn aliases_decode_only_through_the_calls_request() {
    let call = |name: &str| json!({"tool_calls": [{"name": name}]});
    let model = model(json!({"turns": [
        call("workspace_delete_everything"),
        call("workspace.finish"),
        call("builtin:workspace.finish"),
        // An alias of the child's snapshot, not of the root's.
        call("task_return"),
        call("")
    ]}));
    let messages = [
        "turns[0].tool_calls[0]: model called `workspace_delete_everything`, which is not a tool of this request",
        "turns[1].tool_calls[0]: model called `workspace.finish` by its canonical name instead of the alias this request advertised",
        "turns[2].tool_calls[0]: model called `builtin:workspace.finish` by its canonical name instead of the alias this request advertised",
        "turns[3].tool_calls[0]: model called `task_return`, which is not a tool of this request",
        "turns[4].tool_calls[0]: model called ``, which is not a tool of this request",
    ];
    for message in messages {
        let error = err(&model, root()).await;
        assert_eq!(error.kind, ModelErrorKind::ContractViolation);
        assert_eq!(error.code, "model.unknown_tool_call");
        assert_eq!(error.message, message);
    }
}

#[tokio::test]
async fn a_blank_explicit_id_is_a_missing_id() {
    let model =
        model(json!({"turns": [{"tool_calls": [{"id": " ", "name": "workspace_finish"}]}]}));
    let error = err(&model, root()).await;
    assert_eq!(error.kind, ModelErrorKind::ContractViolation);
    assert_eq!(error.code, "model.invalid_tool_call");
}

#[tokio::test]
async fn scripted_errors_take_a_turn_each() {
    let model = model(json!({"turns": [
        {"error": {"kind": "rate_limit", "message": "slow down", "retry_after_ms": 1500}},
        {"error": {"kind": "transient"}},
        {"text": "third time lucky"},
        {"error": {"kind": "fatal", "message": "key revoked"}}
    ]}));
    let limited = err(&model, root()).await;
    assert_eq!(
        (limited.kind, limited.code, limited.message.as_str()),
        (
            ModelErrorKind::RateLimited,
            "model.rate_limited",
            "slow down"
        )
    );
    assert_eq!(limited.retry_after_ms, Some(1500));
    assert!(limited.is_retryable());

    let mut retry = root();
    retry.attempt = 2;
    let transient = err(&model, retry.clone()).await;
    assert_eq!(
        (transient.kind, transient.code, transient.message.as_str()),
        (
            ModelErrorKind::Transient,
            "model.transient",
            "scripted transient failure"
        )
    );
    assert!(transient.is_retryable());

    retry.attempt = 3;
    let answered = ok(&model, retry).await;
    assert_eq!(answered.text(), "third time lucky");
    assert_eq!(origin(&answered), ("turns".to_owned(), 2));
    assert_eq!(answered.response_id.as_deref(), Some("scripted-run_a-3"));

    let fatal = err(&model, root()).await;
    assert_eq!(
        (fatal.kind, fatal.code, fatal.message.as_str()),
        (ModelErrorKind::Other, "model.provider_error", "key revoked")
    );
    assert!(!fatal.is_retryable());
}

#[tokio::test(start_paused = true)]
async fn delays_wait_on_the_tokio_clock() {
    let model = model(json!({"turns": [
        {"text": "slow", "delay_ms": 2000},
        {"error": {"kind": "transient"}, "delay_ms": 500}
    ]}));
    let start = tokio::time::Instant::now();
    assert_eq!(ok(&model, root()).await.text(), "slow");
    assert_eq!(start.elapsed(), Duration::from_millis(2000));
    assert_eq!(err(&model, root()).await.kind, ModelErrorKind::Transient);
    assert_eq!(start.elapsed(), Duration::from_millis(2500));
}

#[tokio::test(start_paused = true)]
async fn dropping_a_delayed_call_cancels_it_but_uses_its_turn() {
    let model = model(json!({"turns": [
        {"text": "too late", "delay_ms": 600_000},
        {"text": "next"}
    ]}));
    let start = tokio::time::Instant::now();
    let cut = tokio::time::timeout(Duration::from_secs(1), model.generate(root())).await;
    assert!(cut.is_err(), "the call should still be waiting");
    assert_eq!(start.elapsed(), Duration::from_secs(1));
    assert_eq!(ok(&model, root()).await.text(), "next");
}

#[tokio::test]
async fn runs_keep_their_own_cursors() {
    let model = model(json!({
        "turns": [{"text": "first"}, {"text": "second"}],
        "agents": {"reviewer": [{"text": "review"}]}
    }));
    let run_b = |profile: &str, kind| call_in("run_b", profile, kind);
    assert_eq!(ok(&model, root()).await.text(), "first");
    assert_eq!(ok(&model, subagent("reviewer")).await.text(), "review");
    assert_eq!(
        ok(&model, run_b("default-writer", InvocationKind::Root))
            .await
            .text(),
        "first"
    );
    assert_eq!(ok(&model, root()).await.text(), "second");
    assert_eq!(
        ok(&model, run_b("reviewer", InvocationKind::Subagent))
            .await
            .text(),
        "review"
    );
    let response = ok(&model, run_b("default-writer", InvocationKind::Root)).await;
    assert_eq!(response.text(), "second");
    assert_eq!(response.response_id.as_deref(), Some("scripted-run_b-3"));
}

#[test]
fn bad_scripts_are_refused_with_the_reason() {
    let cases = [
        (
            json!({"turns": [{"text": "a"}, {"text": "b"}, {"tool_calls": [{"nme": "x"}]}]}),
            "invalid script at turns[2].tool_calls[0]: unknown field `nme`, expected one of `id`, `name`, `arguments`",
        ),
        (
            json!({"turns": [{"error": {"kind": "overloaded"}}]}),
            "invalid script at turns[0].error: unknown variant `overloaded`, expected one of `rate_limit`, `transient`, `fatal`",
        ),
        (
            json!({"turns": [{"text": "a"}], "agents": {"reviewer": [{"delay_ms": 10}]}}),
            "invalid script at agents.reviewer[0]: a turn needs at least one of `text`, `reasoning`, `tool_calls` or `error`",
        ),
        (
            json!({"turns": []}),
            "invalid script at script: the script has no turns: give `turns`, `agents.<profileId>` or both",
        ),
    ];
    for (script, message) in cases {
        let error = ScriptedModel::from_json(&script.to_string()).unwrap_err();
        assert_eq!(error.code(), "script.invalid");
        assert_eq!(error.to_string(), message);
    }
}
