//! Publishing a workspace file as the run's chat message (TauriTavern's commit protocol): explicit
//! `workspace.commit` calls and automatic publishes share one path.
//!
//! ```text
//! read the file (missing, folder, not text, empty → the model is told; nothing journaled)
//! chat_commit_started → status creating_checkpoint → checkpoint (chat_commit) →
//! status awaiting_host_commit → chat_commit_requested (sha256, checkpointId) →
//! re-read and compare the hash → ChatCommitPort::commit →
//! status dispatching_tool → chat_commit_completed        | chat_commit_failed → fault
//! ```
//!
//! Every commit of a run targets one message: the first creates it (a new reply, or a new
//! swipe of the message a regenerate or swipe set aside), later ones name it by the id the
//! ledger recorded.
//!
//! The runtime composes the message's text; the host only sets it. Auto-publish is a
//! provisional draft: it shows the round's file as it is, but the first explicit commit
//! replaces whatever it showed, in either mode, and an `append` builds only on explicit
//! commits (`earlier explicit text` + blank line + the file). Text is cleaned as
//! SillyTavern cleans a reply (trimmed). After each commit the message carries the run's
//! record (`extra.tauritavern.agent`, every commit so far).

use agent_domain::ErrorCode;
use agent_domain::event::{
    ChatCommitCompletedPayload, ChatCommitFailedPayload, ChatCommitRecordedPayload,
    ChatCommitRequestedPayload, ChatCommitStartedPayload, CheckpointReason, PreservedCommit,
    RunEvent, RunStatus, WriteMode,
};
use agent_domain::json::js_trim;
use agent_domain::run::{AgentMessageRecord, AgentRun, CommitRecord, RecordIdentity};
use agent_domain::text::TextMetrics;
use agent_domain::tool::{AgentToolResult, BuiltinTool, ToolInvocation};
use agent_domain::workspace::{RUNTIME_RESULTS_ROOT, WorkspacePath};
use serde_json::json;

use super::driver::{Driver, count};
use super::fault::Fault;
use super::invocation::Invocation;
use super::machine::{AutoPublishReport, ToolCallReport, ToolControl};
use super::rollback::RollbackBase;
use crate::ports::{
    ChatCommitReceipt, ChatCommitRequest, CommitMode, CommitTarget, InputDocument, WorkspaceError,
};
use crate::tools::{Args, InvocationScope, ToolFailure};

/// A host commit failed, or the file changed before the host read it.
pub(super) const CHAT_COMMIT_FAILED: &str = "agent.chat_commit_failed";
/// The file to publish is empty (or only whitespace).
const REQUIRED_ARTIFACT_EMPTY: &str = "workspace.required_artifact_empty";
/// `tool-results/` is readable but never published.
const PATH_NOT_COMMITTABLE: &str = "workspace.path_not_committable";
/// `mode` is neither `replace` nor `append`.
const COMMIT_MODE_INVALID: &str = "workspace.commit_mode_invalid";
/// The `reason` recorded on an auto-publish's commit entry.
const AUTO_PUBLISH_REASON: &str = "auto-publish";
/// The file is outside the invocation's visible roots.
const PATH_NOT_VISIBLE: &str = "workspace.path_not_visible";

/// One publish.
struct Plan<'a> {
    call_id: &'a str,
    path: &'a WorkspacePath,
    mode: CommitMode,
    reason: Option<String>,
    explicit: bool,
    /// The hash an auto-publish expects (the round's last write).
    expected_sha256: Option<&'a str>,
}

/// What became of a publish that did not fault.
enum Published {
    /// Refused before anything was journaled (the model reads why).
    Refused { code: String, message: String },
    Committed {
        receipt: ChatCommitReceipt,
        chars: u64,
        words: u64,
        sha256: String,
    },
}

/// `workspace.commit`: parses the call, publishes, and answers the model.
pub(super) async fn explicit(
    d: &Driver,
    invocation: &mut Invocation,
    call: &ToolInvocation,
) -> Result<ToolCallReport, Fault> {
    let default_path = invocation.profile.message_body_path().clone();
    let (path, mode, reason) = match parse(call, &invocation.world.scope, &default_path) {
        Ok(parsed) => parsed,
        Err(failure) => return Ok(ToolCallReport::new(failure.into_error_result(call))),
    };
    let plan = Plan {
        call_id: &call.call_id,
        path: &path,
        mode,
        reason,
        explicit: true,
        expected_sha256: None,
    };
    let (receipt, chars, words, sha256) = match publish(d, invocation, plan).await? {
        Published::Refused { code, message } => {
            return Ok(ToolCallReport::new(AgentToolResult::error(
                call, &code, message,
            )));
        }
        Published::Committed {
            receipt,
            chars,
            words,
            sha256,
        } => (receipt, chars, words, sha256),
    };
    let finish = invocation.world.scope.alias(BuiltinTool::WorkspaceFinish);
    let content = format!(
        "Committed `{path}` to the chat ({}, message {}). You may revise it and commit \
         again; when everything is done, call `{finish}`.",
        mode_name(mode),
        receipt.message_id
    );
    let structured = json!({
        "path": path,
        "mode": mode_name(mode),
        "messageId": receipt.message_id,
        "messageIndex": receipt.message_index,
        "chars": chars,
        "words": words,
        "sha256": sha256,
    });
    let result = AgentToolResult::success(call, content, structured)
        .with_resource_refs(vec![format!("workspace:{path}")]);
    Ok(
        ToolCallReport::new(result).with_control(ToolControl::Committed {
            path,
            mode: write_mode(mode),
            message_id: receipt.message_id,
        }),
    )
}

/// `Action::AutoPublish`: the round's last text write, published in `replace` mode as an
/// automatic commit; skipped when the file no longer is what was written.
pub(super) async fn auto_publish(
    d: &Driver,
    invocation: &mut Invocation,
    path: WorkspacePath,
    sha256: String,
) -> Result<(), Fault> {
    let call_id = invocation
        .last_write_call
        .as_ref()
        .filter(|(written, _)| *written == path)
        .map_or_else(|| "auto_publish".to_owned(), |(_, id)| id.clone());
    let plan = Plan {
        call_id: &call_id,
        path: &path,
        mode: CommitMode::Replace,
        reason: None,
        explicit: false,
        expected_sha256: Some(&sha256),
    };
    let report = match publish(d, invocation, plan).await? {
        Published::Refused { message, .. } => AutoPublishReport::Skipped { reason: message },
        Published::Committed { receipt, .. } => AutoPublishReport::Published {
            message_id: receipt.message_id,
        },
    };
    let published = match &report {
        AutoPublishReport::Published { message_id } => Some(message_id.clone()),
        _ => None,
    };
    invocation
        .machine
        .on_auto_publish(report)
        .map_err(|e| Fault::of(&e))?;
    if let Some(message_id) = published {
        d.rec
            .emit(RunEvent::ChatCommitRecorded(ChatCommitRecordedPayload {
                invocation_id: invocation.machine.invocation_id().to_string(),
                commit_count: invocation.machine.ledger().confirmed_count(),
                path,
                mode: WriteMode::Replace,
                message_id,
            }))
            .await?;
    }
    Ok(())
}

/// `path` (default: the messageBody file), `mode` (default `replace`), `reason`.
fn parse(
    call: &ToolInvocation,
    scope: &InvocationScope,
    default_path: &WorkspacePath,
) -> Result<(WorkspacePath, CommitMode, Option<String>), ToolFailure> {
    let args = Args::parse(&call.arguments, &["path", "mode", "reason"])?;
    let path = match args.optional_str("path")? {
        Some(raw) if !raw.trim().is_empty() => WorkspacePath::parse(raw.trim()).map_err(|e| {
            ToolFailure::recoverable(
                e.code(),
                format!(
                    "`{raw}` is not a valid workspace path: {e}. Use a path such as output/main.md."
                ),
            )
        })?,
        _ => default_path.clone(),
    };
    if path.first_segment() == RUNTIME_RESULTS_ROOT {
        return Err(ToolFailure::recoverable(
            PATH_NOT_COMMITTABLE,
            format!(
                "`{path}` holds a tool result; tool results are never published. Write your \
                 reply to a file such as {default_path} and commit that."
            ),
        ));
    }
    if !scope.roots.is_visible(&path) {
        return Err(ToolFailure::recoverable(
            PATH_NOT_VISIBLE,
            format!("`{path}` is outside the folders you can see; commit a file you wrote."),
        ));
    }
    let mode = match args.optional_str("mode")?.as_deref().map(str::trim) {
        None | Some("replace") => CommitMode::Replace,
        Some("append") => CommitMode::Append,
        Some(other) => {
            return Err(ToolFailure::recoverable(
                COMMIT_MODE_INVALID,
                format!("`mode` must be \"replace\" or \"append\", not `{other}`"),
            ));
        }
    };
    let reason = args
        .optional_str("reason")?
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty());
    Ok((path, mode, reason))
}

/// The shared publish path (see the module docs).
async fn publish(
    d: &Driver,
    invocation: &mut Invocation,
    plan: Plan<'_>,
) -> Result<Published, Fault> {
    let ports = d.ports().clone();
    let run_id = d.run_id().clone();
    let scope = &invocation.world.scope;
    let file = match ports.workspace.read(&run_id, plan.path).await {
        Ok(file) => file,
        Err(error) if error.is_fatal() => {
            return Err(Fault::of(&error).context("reading the file to commit"));
        }
        Err(error) => return Ok(refusal(&error, scope)),
    };
    if file.text.trim().is_empty() {
        return Ok(Published::Refused {
            code: REQUIRED_ARTIFACT_EMPTY.to_owned(),
            message: format!(
                "`{}` is empty, so there is nothing to publish. Write your reply into it \
                 first.",
                plan.path
            ),
        });
    }
    if let Some(expected) = plan.expected_sha256
        && expected != file.sha256
    {
        return Ok(Published::Refused {
            code: "workspace.write_stale_file".to_owned(),
            message: format!("`{}` changed after it was written", plan.path),
        });
    }

    let invocation_id = invocation.machine.invocation_id().to_string();
    let commit_id = ports.new_id("commit");
    let write_mode = write_mode(plan.mode);
    let started = d
        .rec
        .emit(RunEvent::ChatCommitStarted(ChatCommitStartedPayload {
            commit_id: commit_id.clone(),
            invocation_id: invocation_id.clone(),
            call_id: plan.call_id.to_owned(),
            path: plan.path.clone(),
            mode: write_mode,
            reason: plan.reason.clone(),
            is_explicit: plan.explicit,
        }))
        .await?;
    d.rec.set_status(RunStatus::CreatingCheckpoint).await?;
    let checkpoint_id = d
        .checkpoint(CheckpointReason::ChatCommit, started.seq, plan.path)
        .await?;
    d.rec.set_status(RunStatus::AwaitingHostCommit).await?;
    let metrics = TextMetrics::of(&file.text);
    let (chars, words) = (count(metrics.chars), count(metrics.words));
    let record = d.rec.record().await;
    d.rec
        .emit(RunEvent::ChatCommitRequested(ChatCommitRequestedPayload {
            commit_id: commit_id.clone(),
            invocation_id: invocation_id.clone(),
            call_id: plan.call_id.to_owned(),
            run_id: run_id.to_string(),
            workspace_id: record.workspace_id.to_string(),
            stable_chat_id: record.stable_chat_id.clone(),
            chat_ref: record.chat_ref.clone(),
            generation_type: record.generation_type.as_str().to_owned(),
            profile_id: record.profile_id.clone(),
            persist_base_state_id: record.persist_base_state_id.as_ref().map(|s| s.to_string()),
            path: plan.path.clone(),
            mode: write_mode,
            reason: plan.reason.clone(),
            chars,
            words,
            sha256: file.sha256.clone(),
            checkpoint_id: checkpoint_id.clone(),
            is_explicit: plan.explicit,
        }))
        .await?;

    // The host side: re-read the file, check it is what was requested, write the chat.
    let (text, seq) = {
        let message = d.message();
        let text = compose(&plan, message.explicit_text.as_deref(), &file.text);
        (text, message.commits.len() + 1)
    };
    let entry = CommitRecord {
        seq: u32::try_from(seq).unwrap_or(u32::MAX),
        commit_id: commit_id.clone(),
        checkpoint_id: checkpoint_id.clone(),
        path: plan.path.to_string(),
        mode: plan.mode.as_str().to_owned(),
        reason: match plan.explicit {
            true => plan.reason.clone(),
            false => Some(AUTO_PUBLISH_REASON.to_owned()),
        },
        chars,
        words,
        sha256: file.sha256.clone(),
    };
    let committed = match ports.workspace.read(&run_id, plan.path).await {
        Ok(current) if current.sha256 == file.sha256 => {
            let request = commit_request(d, invocation, &record, &entry, text.clone());
            ports
                .chat_commits
                .commit(request)
                .await
                .map_err(|error| error.to_string())
        }
        Ok(_) => Err(format!(
            "`{}` changed between the commit request and the host's read",
            plan.path
        )),
        Err(error) => Err(format!(
            "the host could not re-read `{}`: {error}",
            plan.path
        )),
    };
    let receipt = match committed {
        Ok(receipt) => receipt,
        Err(message) => {
            d.rec
                .emit(RunEvent::ChatCommitFailed(ChatCommitFailedPayload {
                    commit_id,
                    invocation_id,
                    call_id: plan.call_id.to_owned(),
                    path: plan.path.clone(),
                    mode: write_mode,
                    message: message.clone(),
                }))
                .await?;
            return Err(Fault::new(
                CHAT_COMMIT_FAILED,
                format!("the chat commit failed: {message}"),
            ));
        }
    };
    // The message is in the chat: the ledger and the run's message state know it before
    // anything else can fail, so a later fault is a partial success that keeps it.
    invocation.machine.confirm_commit(
        PreservedCommit {
            path: plan.path.clone(),
            mode: write_mode,
            message_id: receipt.message_id.clone(),
            round: invocation.machine.round(),
        },
        plan.explicit,
    );
    {
        let mut message = d.message();
        message.commits.push(entry);
        if plan.explicit {
            message.explicit_text = Some(text.clone());
        }
        message.committed_text = Some(text);
    }
    if receipt.previous_message.is_some() || !receipt.metadata_changes.is_empty() {
        keep_rollback_base(d, &receipt).await?;
    }
    d.rec.set_status(RunStatus::DispatchingTool).await?;
    d.rec
        .emit(RunEvent::ChatCommitCompleted(ChatCommitCompletedPayload {
            commit_id,
            invocation_id,
            call_id: plan.call_id.to_owned(),
            path: plan.path.clone(),
            mode: write_mode,
            message_id: receipt.message_id.clone(),
            message_index: receipt
                .message_index
                .and_then(|index| u64::try_from(index).ok()),
            is_explicit: plan.explicit,
        }))
        .await?;
    Ok(Published::Committed {
        receipt,
        chars,
        words,
        sha256: file.sha256,
    })
}

/// The message's whole text after this publish: the file, trimmed as SillyTavern trims a
/// reply; an explicit `append` adds it after the run's earlier explicit text, separated by
/// a blank line. An auto-published draft is never built on.
fn compose(plan: &Plan<'_>, explicit_text: Option<&str>, file: &str) -> String {
    let new = js_trim(file);
    match (plan.explicit, plan.mode, explicit_text) {
        (true, CommitMode::Append, Some(earlier)) => format!("{earlier}\n\n{new}"),
        _ => new.to_owned(),
    }
}

/// What the host is asked to write: where (the run's first commit creates the message or
/// a swipe; later ones revise it), the text, the reply's metadata and the run's record.
fn commit_request(
    d: &Driver,
    invocation: &Invocation,
    record: &AgentRun,
    latest: &CommitRecord,
    text: String,
) -> ChatCommitRequest {
    let first = invocation.machine.ledger().last_message_id().is_none();
    let target = match invocation.machine.ledger().last_message_id() {
        Some(id) => CommitTarget::Revise {
            message_id: id.to_owned(),
        },
        None if record.generation_type.adds_swipe() => CommitTarget::NewSwipe {
            index: d.facts.input_message_count,
        },
        None => CommitTarget::NewReply,
    };
    let identity = RecordIdentity {
        run_id: record.id.to_string(),
        workspace_id: record.workspace_id.to_string(),
        stable_chat_id: record.stable_chat_id.clone(),
        profile_id: record.profile_id.clone(),
        persist_base_state_id: record.persist_base_state_id.as_ref().map(|s| s.to_string()),
    };
    ChatCommitRequest {
        chat: record.chat_ref.clone(),
        run_id: record.id.clone(),
        target,
        text,
        author: d.facts.author.clone(),
        model: d.facts.reply_model.clone(),
        reasoning: invocation.last_reasoning.clone(),
        generation_started: record.created_at.clone(),
        committed_at: d.rec.now(),
        record: AgentMessageRecord::after(&identity, &d.message().commits, latest),
        metadata: if first {
            d.facts.commit_metadata.clone()
        } else {
            Vec::new()
        },
    }
}

/// Keeps what a run's first commit changed (the message, the chat metadata), as it was, for
/// an exact rollback.
async fn keep_rollback_base(d: &Driver, receipt: &ChatCommitReceipt) -> Result<(), Fault> {
    let document = RollbackBase {
        message_id: receipt.message_id.clone(),
        message: receipt.previous_message.clone(),
        metadata: receipt.metadata_changes.clone(),
    }
    .to_json();
    d.ports()
        .audit
        .write_input(d.run_id(), None, InputDocument::RollbackBase, &document)
        .await
        .map(|_| ())
        .map_err(|e| Fault::of(&e).context("keeping the message the commit changed"))
}

/// What the model reads when the file cannot be published.
fn refusal(error: &WorkspaceError, scope: &InvocationScope) -> Published {
    let write = scope.alias(BuiltinTool::WorkspaceWriteFile);
    let list = scope.alias(BuiltinTool::WorkspaceListFiles);
    let message = match error {
        WorkspaceError::NotFound(path) => {
            format!("No file exists at `{path}`. Write your reply there with {write} first.")
        }
        WorkspaceError::IsDirectory(path) => {
            format!("`{path}` is a folder. Commit a file; see what exists with {list}.")
        }
        WorkspaceError::NotText(path) => {
            format!("`{path}` is not UTF-8 text, so it cannot be published.")
        }
        other => other.to_string(),
    };
    Published::Refused {
        code: error.code().to_owned(),
        message,
    }
}

fn write_mode(mode: CommitMode) -> WriteMode {
    match mode {
        CommitMode::Replace => WriteMode::Replace,
        CommitMode::Append => WriteMode::Append,
    }
}

fn mode_name(mode: CommitMode) -> &'static str {
    match mode {
        CommitMode::Replace => "replace",
        CommitMode::Append => "append",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_text_is_trimmed_as_javascript_trims() {
        let path = WorkspacePath::parse("output/main.md").unwrap();
        let plan = |mode, explicit| Plan {
            call_id: "call_1",
            path: &path,
            mode,
            reason: None,
            explicit,
            expected_sha256: None,
        };
        let replace = plan(CommitMode::Replace, true);
        // U+FEFF is JavaScript whitespace; U+0085 is not (Rust's `trim` says the opposite).
        assert_eq!(
            compose(&replace, None, "\u{feff} Hello \u{3000}\n"),
            "Hello"
        );
        assert_eq!(compose(&replace, None, "\u{85}Hi\u{85}"), "\u{85}Hi\u{85}");
        let append = plan(CommitMode::Append, true);
        assert_eq!(compose(&append, Some("One."), "  Two. "), "One.\n\nTwo.");
        assert_eq!(compose(&append, None, " Two. "), "Two.");
        let auto = plan(CommitMode::Append, false);
        assert_eq!(compose(&auto, Some("One."), "Draft"), "Draft");
    }
}
