//! [`AgentMessageRecord`]: what a chat message says about the agent run that committed it
//! (`extra.tauritavern.agent`), in TauriTavern's version-2 shape, so TauriTavern can read,
//! continue and roll back our runs and we can read its.
//!
//! The record is rewritten after every commit of the run (the latest commit's ids, the list
//! of every commit so far, the file published last) and once more when the run promotes its
//! persistent state. Fields serialise in TauriTavern's order; `profileId`,
//! `persistBaseStateId` are written as `null` when absent, `reason` is left out of a commit
//! that gave none. Only the host knows whether the run's first commit created the message
//! or added a swipe to one, so it fills in [`AgentMessageRecord::rollback`].

use serde::{Deserialize, Serialize};

/// The record's format version.
pub const AGENT_RECORD_VERSION: u32 = 2;

/// `target` of a message-body artifact.
pub const MESSAGE_BODY_TARGET: &str = "message_body";

/// `extra.tauritavern.agent` of a committed message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentMessageRecord {
    pub version: u32,
    pub run_id: String,
    pub workspace_id: String,
    pub stable_chat_id: String,
    pub profile_id: Option<String>,
    pub persist_base_state_id: Option<String>,
    pub persist_state_status: PersistStateStatus,
    /// The checkpoint taken for the latest commit.
    pub checkpoint_id: String,
    /// The latest commit.
    pub commit_id: String,
    /// The latest commit's place in the run (1, 2, …).
    pub commit_seq: u32,
    /// Every commit of the run that reached this message, oldest first.
    pub commits: Vec<CommitRecord>,
    /// How to undo the run on this message; set by the host that wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback: Option<RollbackStrategy>,
    /// The file the latest commit published.
    pub artifacts: Vec<ArtifactRecord>,
    /// Set when the run promoted its persistent state (equal to the run id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persist_state_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persist_change_count: Option<u32>,
}

/// Whether the run's persistent state is recorded on the message yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PersistStateStatus {
    /// Committed to the chat, but the run has not promoted a state (yet, or ever: a partial
    /// success keeps this status, and later runs skip the message as a persist base).
    NotCommitted,
    /// The run promoted `persistStateId`.
    Committed,
}

/// One commit in [`AgentMessageRecord::commits`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommitRecord {
    pub seq: u32,
    pub commit_id: String,
    pub checkpoint_id: String,
    /// The workspace file published.
    pub path: String,
    /// `replace` or `append`.
    pub mode: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Characters, words and SHA-256 (lower-case hex) of the file as committed.
    pub chars: u64,
    pub words: u64,
    pub sha256: String,
}

/// How to undo a run on its message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "strategy")]
pub enum RollbackStrategy {
    /// The run's first commit created the message: delete it.
    #[serde(rename = "deleteMessage")]
    DeleteMessage,
    /// The run's first commit added swipe `swipeId` to an existing message: delete that
    /// swipe.
    #[serde(rename = "deleteSwipe")]
    DeleteSwipe {
        #[serde(rename = "swipeId")]
        swipe_id: u64,
    },
}

/// One entry of [`AgentMessageRecord::artifacts`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactRecord {
    pub path: String,
    /// Always [`MESSAGE_BODY_TARGET`].
    pub target: String,
    pub chars: u64,
    pub words: u64,
    pub sha256: String,
}

impl ArtifactRecord {
    /// The message-body artifact of `commit`.
    pub fn message_body(commit: &CommitRecord) -> Self {
        Self {
            path: commit.path.clone(),
            target: MESSAGE_BODY_TARGET.to_owned(),
            chars: commit.chars,
            words: commit.words,
            sha256: commit.sha256.clone(),
        }
    }
}

/// The run's identity as the record repeats it on every commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordIdentity {
    pub run_id: String,
    pub workspace_id: String,
    pub stable_chat_id: String,
    pub profile_id: Option<String>,
    pub persist_base_state_id: Option<String>,
}

impl AgentMessageRecord {
    /// The record after the run's commit `latest`, which followed `earlier` (oldest
    /// first). The host adds the rollback strategy.
    pub fn after(
        identity: &RecordIdentity,
        earlier: &[CommitRecord],
        latest: &CommitRecord,
    ) -> Self {
        Self {
            version: AGENT_RECORD_VERSION,
            run_id: identity.run_id.clone(),
            workspace_id: identity.workspace_id.clone(),
            stable_chat_id: identity.stable_chat_id.clone(),
            profile_id: identity.profile_id.clone(),
            persist_base_state_id: identity.persist_base_state_id.clone(),
            persist_state_status: PersistStateStatus::NotCommitted,
            checkpoint_id: latest.checkpoint_id.clone(),
            commit_id: latest.commit_id.clone(),
            commit_seq: latest.seq,
            commits: earlier.iter().chain([latest]).cloned().collect(),
            rollback: None,
            artifacts: vec![ArtifactRecord::message_body(latest)],
            persist_state_id: None,
            persist_change_count: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn commit(seq: u32, reason: Option<&str>) -> CommitRecord {
        CommitRecord {
            seq,
            commit_id: format!("commit_{seq}"),
            checkpoint_id: format!("cp_00000{seq}"),
            path: "output/main.md".into(),
            mode: "replace".into(),
            reason: reason.map(str::to_owned),
            chars: 10,
            words: 2,
            sha256: "ab".into(),
        }
    }

    #[test]
    fn the_record_is_written_in_tauritaverns_order() {
        let identity = RecordIdentity {
            run_id: "run_1".into(),
            workspace_id: "chat_1".into(),
            stable_chat_id: "stable".into(),
            profile_id: None,
            persist_base_state_id: None,
        };
        let mut record =
            AgentMessageRecord::after(&identity, &[commit(1, None)], &commit(2, Some("fix")));
        record.rollback = Some(RollbackStrategy::DeleteSwipe { swipe_id: 3 });
        assert_eq!(
            serde_json::to_string(&record).unwrap(),
            r#"{"version":2,"runId":"run_1","workspaceId":"chat_1","stableChatId":"stable","profileId":null,"persistBaseStateId":null,"persistStateStatus":"not_committed","checkpointId":"cp_000002","commitId":"commit_2","commitSeq":2,"commits":[{"seq":1,"commitId":"commit_1","checkpointId":"cp_000001","path":"output/main.md","mode":"replace","chars":10,"words":2,"sha256":"ab"},{"seq":2,"commitId":"commit_2","checkpointId":"cp_000002","path":"output/main.md","mode":"replace","reason":"fix","chars":10,"words":2,"sha256":"ab"}],"rollback":{"strategy":"deleteSwipe","swipeId":3},"artifacts":[{"path":"output/main.md","target":"message_body","chars":10,"words":2,"sha256":"ab"}]}"#
        );
        assert_eq!(
            serde_json::to_string(&RollbackStrategy::DeleteMessage).unwrap(),
            r#"{"strategy":"deleteMessage"}"#
        );
    }
}
