#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `FsPersistentStateStore`: projecting a base state into a run, promoting a finished run
//! into a new immutable state, and the chat's browsable copy.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use agent_application::ports::{PersistError, PersistentStateStore};
use agent_domain::ErrorCode;
use agent_domain::event::PersistentChangeKind;
use agent_domain::run::{AgentRun, StateId, WorkspaceId};
use agent_infra_fs::layout::DataDir;
use agent_infra_fs::persist::FsPersistentStateStore;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const WS: &str = "chat_d474bb6f0a9e39a7";

fn run(id: &str, base: Option<&str>) -> AgentRun {
    serde_json::from_value(json!({
        "id": id, "workspaceId": WS, "stableChatId": "stable-chat",
        "chatRef": {"kind": "character", "characterId": "Alice", "fileName": "chat"},
        "generationType": "normal", "profileId": null, "persistBaseStateId": base,
        "status": "finishing", "createdAt": "2026-01-01T00:00:00.000Z",
        "updatedAt": "2026-01-01T00:00:00.000Z"
    }))
    .unwrap()
}

struct Fixture {
    _dir: tempfile::TempDir,
    data: DataDir,
    store: FsPersistentStateStore,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path());
        let store = FsPersistentStateStore::new(data.clone());
        Self {
            _dir: dir,
            data,
            store,
        }
    }

    fn ws(&self) -> WorkspaceId {
        WorkspaceId::parse(WS).unwrap()
    }

    fn run_persist(&self, run: &AgentRun) -> PathBuf {
        self.data
            .run_dir(&run.workspace_id, &run.id)
            .path()
            .join("persist")
    }

    fn state_dir(&self, state: &str) -> PathBuf {
        self.data
            .persistent_state(&self.ws(), &StateId::parse(state).unwrap())
    }

    fn write(&self, run: &AgentRun, rel: &str, text: &str) {
        let path = self.run_persist(run).join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// A finished run from `base` that wrote `files`, promoted.
    async fn promoted(&self, id: &str, base: Option<&str>, files: &[(&str, &str)]) -> AgentRun {
        let record = run(id, base);
        self.store.project_base(&record).await.unwrap();
        for (rel, text) in files {
            self.write(&record, rel, text);
        }
        self.store
            .promote(&record, "2026-01-02T00:00:00.000Z")
            .await
            .unwrap();
        record
    }

    /// A hand-made state directory with the given manifest and files.
    fn doctored_state(&self, state: &str, manifest: &Value, files: &[(&str, &str)]) -> PathBuf {
        let dir = self.state_dir(state);
        fs::create_dir_all(dir.join("persist")).unwrap();
        fs::write(dir.join("manifest.json"), manifest.to_string()).unwrap();
        for (rel, text) in files {
            let path = dir.join("persist").join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        dir
    }
}

fn manifest(state: &str) -> Value {
    json!({
        "version": 1, "stateId": state, "runId": state, "workspaceId": WS,
        "stableChatId": "stable-chat", "createdAt": "2026-01-01T00:00:00.000Z",
        "files": [], "changes": []
    })
}

/// Every file under `root` with its text, by relative path.
fn tree(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn files(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[tokio::test]
async fn a_first_run_without_base_promotes_its_persist_folder() {
    let fx = Fixture::new();
    let first = run("run_1", None);
    let snapshot = fx.store.project_base(&first).await.unwrap();
    assert_eq!(snapshot.base_state_id, None);
    assert!(snapshot.files.is_empty());
    assert!(fx.run_persist(&first).is_dir());
    let snapshot_file = fx
        .data
        .run_dir(&first.workspace_id, &first.id)
        .input()
        .join("persist_snapshot.json");
    assert_eq!(
        fs::read_to_string(&snapshot_file).unwrap(),
        "{\n  \"files\": []\n}\n"
    );

    fx.write(&first, "notes.md", "hello");
    fx.write(&first, "people/alice.md", "likes tea");
    let promoted = fx
        .store
        .promote(&first, "2026-01-02T00:00:00.000Z")
        .await
        .unwrap();
    assert_eq!(promoted.state_id.as_str(), "run_1");
    assert_eq!(promoted.base_state_id, None);
    let changes: Vec<_> = promoted
        .changes
        .iter()
        .map(|c| (c.path.as_str(), c.kind))
        .collect();
    assert_eq!(
        changes,
        [
            ("persist/notes.md", PersistentChangeKind::Added),
            ("persist/people/alice.md", PersistentChangeKind::Added),
        ]
    );

    let state = fx.state_dir("run_1");
    let expected = files(&[("notes.md", "hello"), ("people/alice.md", "likes tea")]);
    assert_eq!(tree(&state.join("persist")), expected);
    assert_eq!(tree(&fx.data.chat_persist(&fx.ws())), expected);
    insta::assert_snapshot!(fs::read_to_string(state.join("manifest.json")).unwrap(), @r#"
    {
      "version": 1,
      "stateId": "run_1",
      "runId": "run_1",
      "workspaceId": "chat_d474bb6f0a9e39a7",
      "stableChatId": "stable-chat",
      "createdAt": "2026-01-02T00:00:00.000Z",
      "files": [
        {
          "path": "persist/notes.md",
          "sha256": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
          "bytes": 5
        },
        {
          "path": "persist/people/alice.md",
          "sha256": "50f5f279425da6b804f2885cc042bf9ee88aabfd6c1f13b27cd37e38f9084bb8",
          "bytes": 9
        }
      ],
      "changes": [
        {
          "path": "persist/notes.md",
          "kind": "added",
          "sha256": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        },
        {
          "path": "persist/people/alice.md",
          "kind": "added",
          "sha256": "50f5f279425da6b804f2885cc042bf9ee88aabfd6c1f13b27cd37e38f9084bb8"
        }
      ]
    }
    "#);
}

#[tokio::test]
async fn a_run_from_a_base_sees_its_files_and_records_every_kind_of_change() {
    let fx = Fixture::new();
    fx.promoted(
        "run_1",
        None,
        &[("notes.md", "v1"), ("old.md", "bye"), ("keep.md", "same")],
    )
    .await;

    let second = run("run_2", Some("run_1"));
    let snapshot = fx.store.project_base(&second).await.unwrap();
    assert_eq!(
        snapshot.base_state_id.as_ref().map(StateId::as_str),
        Some("run_1")
    );
    let seen: Vec<_> = snapshot.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        seen,
        ["persist/keep.md", "persist/notes.md", "persist/old.md"]
    );
    assert_eq!(
        fs::read_to_string(fx.run_persist(&second).join("notes.md")).unwrap(),
        "v1"
    );

    fx.write(&second, "notes.md", "v2");
    fx.write(&second, "new.md", "fresh");
    fs::remove_file(fx.run_persist(&second).join("old.md")).unwrap();
    let promoted = fx
        .store
        .promote(&second, "2026-01-03T00:00:00.000Z")
        .await
        .unwrap();
    assert_eq!(
        promoted.base_state_id.as_ref().map(StateId::as_str),
        Some("run_1")
    );
    let changes: Vec<_> = promoted
        .changes
        .iter()
        .map(|c| (c.path.as_str(), c.kind))
        .collect();
    assert_eq!(
        changes,
        [
            ("persist/new.md", PersistentChangeKind::Added),
            ("persist/notes.md", PersistentChangeKind::Modified),
            ("persist/old.md", PersistentChangeKind::Deleted),
        ]
    );
    let manifest: Value =
        serde_json::from_slice(&fs::read(fx.state_dir("run_2").join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["baseStateId"], "run_1");
    assert_eq!(
        manifest["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["path"].clone(), c["kind"].clone()))
            .collect::<Vec<_>>(),
        [
            (json!("persist/new.md"), json!("added")),
            (json!("persist/notes.md"), json!("modified")),
            (json!("persist/old.md"), json!("deleted")),
        ]
    );
    assert_eq!(manifest["changes"][2].get("sha256"), None);

    let newest = files(&[("keep.md", "same"), ("new.md", "fresh"), ("notes.md", "v2")]);
    assert_eq!(tree(&fx.state_dir("run_2").join("persist")), newest);
    assert_eq!(tree(&fx.data.chat_persist(&fx.ws())), newest);
    // The base state is immutable.
    assert_eq!(
        tree(&fx.state_dir("run_1").join("persist")),
        files(&[("keep.md", "same"), ("notes.md", "v1"), ("old.md", "bye")])
    );
    // Nothing but the states themselves is left in the states folder or the chat folder.
    let names = |dir: PathBuf| {
        let mut n: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        n.sort();
        n
    };
    assert_eq!(
        names(fx.data.persistent_states(&fx.ws())),
        ["run_1", "run_2"]
    );
    assert_eq!(
        names(fx.data.chat_workspace(&fx.ws())),
        [
            ".persist.lock",
            ".persist.state.json",
            "persist",
            "persistent-states",
            "runs"
        ]
    );
}

#[tokio::test]
async fn two_runs_from_one_base_both_promote() {
    let fx = Fixture::new();
    fx.promoted("run_base", None, &[("story.md", "start")])
        .await;
    let left = run("run_left", Some("run_base"));
    let right = run("run_right", Some("run_base"));
    fx.store.project_base(&left).await.unwrap();
    fx.store.project_base(&right).await.unwrap();
    fx.write(&left, "story.md", "went left");
    fx.write(&right, "story.md", "went right");
    fx.store
        .promote(&left, "2026-01-02T00:00:00.000Z")
        .await
        .unwrap();
    let promoted = fx
        .store
        .promote(&right, "2026-01-02T00:00:01.000Z")
        .await
        .unwrap();
    assert_eq!(promoted.changes.len(), 1);

    assert_eq!(
        tree(&fx.state_dir("run_left").join("persist")),
        files(&[("story.md", "went left")])
    );
    assert_eq!(
        tree(&fx.state_dir("run_right").join("persist")),
        files(&[("story.md", "went right")])
    );
    assert_eq!(
        tree(&fx.data.chat_persist(&fx.ws())),
        files(&[("story.md", "went right")])
    );
}

#[tokio::test]
async fn a_state_is_written_even_without_changes_and_only_once() {
    let fx = Fixture::new();
    fx.promoted("run_1", None, &[("a.md", "a")]).await;
    let idle = run("run_2", Some("run_1"));
    fx.store.project_base(&idle).await.unwrap();
    let promoted = fx
        .store
        .promote(&idle, "2026-01-02T00:00:00.000Z")
        .await
        .unwrap();
    assert!(promoted.changes.is_empty());
    assert_eq!(
        tree(&fx.state_dir("run_2").join("persist")),
        files(&[("a.md", "a")])
    );

    let again = fx
        .store
        .promote(&idle, "2026-01-02T00:00:00.000Z")
        .await
        .unwrap_err();
    assert_eq!(again.code(), "agent.persistent_state_exists");
}

#[tokio::test]
async fn an_empty_persist_folder_promotes_an_empty_state() {
    let fx = Fixture::new();
    fx.promoted("run_1", None, &[]).await;
    assert!(tree(&fx.state_dir("run_1").join("persist")).is_empty());
    assert!(fx.data.chat_persist(&fx.ws()).is_dir());
    // A state without its files folder is fine when its manifest lists no files.
    fs::remove_dir(fx.state_dir("run_1").join("persist")).unwrap();
    let next = run("run_2", Some("run_1"));
    assert!(fx.store.project_base(&next).await.unwrap().files.is_empty());
}

#[tokio::test]
async fn projection_happens_once_and_finder_litter_is_skipped() {
    let fx = Fixture::new();
    fx.doctored_state(
        "run_1",
        &manifest("run_1"),
        &[("a.md", "a"), (".DS_Store", "junk")],
    );
    let next = run("run_2", Some("run_1"));
    let snapshot = fx.store.project_base(&next).await.unwrap();
    let seen: Vec<_> = snapshot.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(seen, ["persist/a.md"]);
    assert!(!fx.run_persist(&next).join(".DS_Store").exists());

    fx.write(&next, "a.md", "edited");
    let err = fx.store.project_base(&next).await.unwrap_err();
    assert!(matches!(err, PersistError::Integrity(_)), "{err}");
    assert_eq!(
        fs::read_to_string(fx.run_persist(&next).join("a.md")).unwrap(),
        "edited"
    );
}

#[tokio::test]
async fn promoting_an_unprojected_run_is_an_integrity_fault() {
    let fx = Fixture::new();
    let err = fx
        .store
        .promote(&run("run_1", None), "t")
        .await
        .unwrap_err();
    assert!(matches!(err, PersistError::Integrity(_)), "{err}");
    assert!(!fx.state_dir("run_1").exists());
}

#[tokio::test]
async fn every_base_state_fault_has_its_code() {
    let fx = Fixture::new();
    let code_for = |state: &'static str| {
        let store = fx.store.clone();
        async move {
            let record = run(&format!("run_from_{state}"), Some(state));
            store.project_base(&record).await.unwrap_err().code()
        }
    };

    assert_eq!(
        code_for("run_missing").await,
        "agent.persistent_state_not_found"
    );

    fs::create_dir_all(fx.data.persistent_states(&fx.ws())).unwrap();
    fs::write(fx.state_dir("run_file"), "not a folder").unwrap();
    assert_eq!(code_for("run_file").await, "agent.persistent_state_invalid");

    fx.doctored_state("run_no_manifest", &json!({}), &[]);
    fs::remove_file(fx.state_dir("run_no_manifest").join("manifest.json")).unwrap();
    assert_eq!(
        code_for("run_no_manifest").await,
        "agent.persistent_state_invalid"
    );

    let mut v2 = manifest("run_v2");
    v2["version"] = json!(2);
    fx.doctored_state("run_v2", &v2, &[]);
    assert_eq!(
        code_for("run_v2").await,
        "agent.persistent_state_version_unsupported"
    );

    fx.doctored_state("run_renamed", &manifest("run_original"), &[]);
    assert_eq!(
        code_for("run_renamed").await,
        "agent.persistent_state_manifest_mismatch"
    );

    let mut elsewhere = manifest("run_elsewhere");
    elsewhere["workspaceId"] = json!("chat_e3a3589a09f81729");
    fx.doctored_state("run_elsewhere", &elsewhere, &[]);
    assert_eq!(
        code_for("run_elsewhere").await,
        "agent.persistent_state_workspace_mismatch"
    );

    let mut listed = manifest("run_hollow");
    listed["files"] = json!([{"path": "persist/a.md", "sha256": "00", "bytes": 1}]);
    fx.doctored_state("run_hollow", &listed, &[]);
    fs::remove_dir(fx.state_dir("run_hollow").join("persist")).unwrap();
    assert_eq!(
        code_for("run_hollow").await,
        "agent.persistent_state_invalid"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn symlinks_in_a_state_are_integrity_faults() {
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.md"), "secret").unwrap();

    let dir = fx.doctored_state("run_linked", &manifest("run_linked"), &[("a.md", "a")]);
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        dir.join("persist/leak.md"),
    )
    .unwrap();
    let record = run("run_2", Some("run_linked"));
    let err = fx.store.project_base(&record).await.unwrap_err();
    assert!(
        matches!(err, PersistError::Integrity(ref m) if m.contains("leak.md")),
        "{err}"
    );
    assert!(!fx.run_persist(&record).join("leak.md").exists());

    // A state folder that is itself a link is not a real state.
    std::os::unix::fs::symlink(&dir, fx.state_dir("run_alias")).unwrap();
    let err = fx
        .store
        .project_base(&run("run_3", Some("run_alias")))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "agent.persistent_state_invalid");

    // A link planted in a run's persist folder stops its promotion.
    let fresh = run("run_4", None);
    fx.store.project_base(&fresh).await.unwrap();
    std::os::unix::fs::symlink(outside.path(), fx.run_persist(&fresh).join("out")).unwrap();
    let err = fx.store.promote(&fresh, "t").await.unwrap_err();
    assert!(matches!(err, PersistError::Integrity(_)), "{err}");
    assert!(!fx.state_dir("run_4").exists());
    let mut left: Vec<_> = fs::read_dir(fx.data.persistent_states(&fx.ws()))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["run_alias", "run_linked"],
        "no temp folder is left behind"
    );
}

/// The names in the chat workspace that only an interrupted refresh leaves.
fn refresh_leftovers(fx: &Fixture) -> Vec<String> {
    fs::read_dir(fx.data.chat_workspace(&fx.ws()))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with(".persist.tmp-") || name.starts_with(".persist.old-"))
        .collect()
}

fn shown_state(fx: &Fixture) -> Value {
    let note = fx.data.chat_workspace(&fx.ws()).join(".persist.state.json");
    serde_json::from_slice(&fs::read(note).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn runs_finishing_at_once_all_promote_and_the_copy_shows_the_newest() {
    let fx = Fixture::new();
    fx.promoted("run_base", None, &[("story.md", "start")])
        .await;
    let runs: Vec<AgentRun> = (0..24)
        .map(|i| run(&format!("run_{i:02}"), Some("run_base")))
        .collect();
    for (i, record) in runs.iter().enumerate() {
        fx.store.project_base(record).await.unwrap();
        fx.write(record, "story.md", &format!("branch {i}"));
        fx.write(record, &format!("notes/{i}.md"), "mine");
    }
    // Each promotion through its own store, as separate processes would: they share
    // nothing but the files. Two pairs share a timestamp; the larger state id is newer.
    let promotions = runs.iter().enumerate().map(|(i, record)| {
        let store = FsPersistentStateStore::new(fx.data.clone());
        let record = record.clone();
        let at = format!("2026-01-03T00:00:{:02}.000Z", i.min(21));
        tokio::spawn(async move { store.promote(&record, &at).await })
    });
    for promoted in futures::future::join_all(promotions).await {
        let promoted = promoted.unwrap().unwrap();
        assert_eq!(promoted.browsable_copy_error, None);
    }
    let mut expected = files(&[("story.md", "branch 23")]);
    expected.insert("notes/23.md".into(), "mine".into());
    assert_eq!(tree(&fx.data.chat_persist(&fx.ws())), expected);
    assert_eq!(shown_state(&fx)["stateId"], "run_23");
    assert_eq!(refresh_leftovers(&fx), Vec::<String>::new());
    for record in &runs {
        assert!(
            fx.state_dir(record.id.as_str())
                .join("manifest.json")
                .is_file()
        );
    }
}

#[tokio::test]
async fn a_refresh_cleans_up_after_interrupted_ones_and_never_goes_back_in_time() {
    let fx = Fixture::new();
    let chat_dir = fx.data.chat_workspace(&fx.ws());
    // What a refresh killed mid-swap leaves: a half-built copy and a parked old one.
    for leftover in [".persist.tmp-0123", ".persist.old-4567"] {
        fs::create_dir_all(chat_dir.join(leftover).join("sub")).unwrap();
        fs::write(chat_dir.join(leftover).join("sub/f.md"), "stale").unwrap();
    }
    let late = run("run_late", None);
    fx.store.project_base(&late).await.unwrap();
    fx.write(&late, "a.md", "late");
    let promoted = fx
        .store
        .promote(&late, "2026-01-05T00:00:00.000Z")
        .await
        .unwrap();
    assert_eq!(promoted.browsable_copy_error, None);
    assert_eq!(refresh_leftovers(&fx), Vec::<String>::new());
    // A state created earlier but promoted later (a slow run) leaves the copy alone.
    let early = run("run_early", None);
    fx.store.project_base(&early).await.unwrap();
    fx.write(&early, "a.md", "early");
    fx.store
        .promote(&early, "2026-01-04T00:00:00.000Z")
        .await
        .unwrap();
    assert_eq!(
        tree(&fx.data.chat_persist(&fx.ws())),
        files(&[("a.md", "late")])
    );
    assert_eq!(shown_state(&fx)["stateId"], "run_late");
    // A copy that went missing (a crash between the two renames of a swap) comes back
    // from the newest state, whichever run refreshes next.
    fs::remove_dir_all(fx.data.chat_persist(&fx.ws())).unwrap();
    let next = run("run_next", None);
    fx.store.project_base(&next).await.unwrap();
    fx.store
        .promote(&next, "2026-01-01T00:00:00.000Z")
        .await
        .unwrap();
    assert_eq!(
        tree(&fx.data.chat_persist(&fx.ws())),
        files(&[("a.md", "late")])
    );
}

#[tokio::test]
async fn a_copy_that_cannot_be_refreshed_is_a_warning_not_a_failure() {
    let fx = Fixture::new();
    // The lock file cannot be opened: the refresh fails before touching anything.
    fs::create_dir_all(fx.data.chat_workspace(&fx.ws()).join(".persist.lock")).unwrap();
    let record = run("run_1", None);
    fx.store.project_base(&record).await.unwrap();
    fx.write(&record, "a.md", "kept");
    let promoted = fx
        .store
        .promote(&record, "2026-01-02T00:00:00.000Z")
        .await
        .unwrap();
    let error = promoted.browsable_copy_error.unwrap();
    assert!(error.contains(".persist.lock"), "{error}");
    assert_eq!(promoted.state_id.as_str(), "run_1");
    assert_eq!(
        tree(&fx.state_dir("run_1").join("persist")),
        files(&[("a.md", "kept")])
    );
    assert!(!fx.data.chat_persist(&fx.ws()).exists());
}

#[tokio::test]
async fn a_file_name_of_255_bytes_is_promoted_and_shown() {
    let fx = Fixture::new();
    let name = format!("{}.md", "n".repeat(252));
    fx.promoted("run_1", None, &[(name.as_str(), "long")]).await;
    let expected = files(&[(name.as_str(), "long")]);
    assert_eq!(tree(&fx.state_dir("run_1").join("persist")), expected);
    assert_eq!(tree(&fx.data.chat_persist(&fx.ws())), expected);
    let next = run("run_2", Some("run_1"));
    fx.store.project_base(&next).await.unwrap();
    assert_eq!(tree(&fx.run_persist(&next)), expected);
}
