#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `FsSkillStore`: installing, listing, reading and searching skills of every scope.

use std::fs;
use std::path::{Path, PathBuf};

use agent_application::ports::{
    SKILL_PATH_IS_FOLDER, SkillIndexEntry, SkillRef, SkillScope, SkillStore, StoreError,
};
use agent_domain::ErrorCode;
use agent_domain::workspace::WorkspacePath;
use agent_infra_fs::digest::sha256_hex;
use agent_infra_fs::layout::DataDir;
use agent_infra_fs::skills::FsSkillStore;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// A file of a skill source: relative path and bytes.
type SourceFile<'a> = (&'a str, &'a [u8]);

struct Fixture {
    dir: tempfile::TempDir,
    data: DataDir,
    store: FsSkillStore,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path().join("data"));
        let store = FsSkillStore::new(data.clone());
        Self { dir, data, store }
    }

    /// A skill folder outside the data directory, ready to import.
    fn source(&self, folder: &str, files: &[SourceFile]) -> PathBuf {
        let root = self.dir.path().join("sources").join(folder);
        for (rel, bytes) in files {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, bytes).unwrap();
        }
        root
    }

    fn skill_source(&self, name: &str, description: &str) -> PathBuf {
        let skill_md =
            format!("---\nname: {name}\ndescription: \"{description}\"\n---\n# {name}\n");
        self.source(
            name,
            &[
                ("SKILL.md", skill_md.as_bytes()),
                ("refs/style.md", b"line one\nline two\n"),
                ("refs/deep/table.csv", b"a,b\n"),
                ("logo.bin", &[0xff, 0x00, 0xfe]),
            ],
        )
    }

    fn index(&self) -> Value {
        serde_json::from_slice(&fs::read(self.data.skills_index_file()).unwrap()).unwrap()
    }
}

fn p(raw: &str) -> WorkspacePath {
    WorkspacePath::parse(raw).unwrap()
}

/// The installed (global) skill `name`.
fn global(name: &str) -> SkillRef {
    SkillRef::new(SkillScope::Global, name)
}

fn entry(name: &str, description: &str) -> SkillIndexEntry {
    SkillIndexEntry {
        name: name.into(),
        description: description.into(),
    }
}

#[tokio::test]
async fn import_lists_indexes_and_refuses_a_second_copy_unless_replacing() {
    let fx = Fixture::new();
    assert!(fx.store.list().await.unwrap().skills.is_empty());

    let imported = fx
        .store
        .import_dir(&fx.skill_source("poetry", "Writes poems."), false)
        .await
        .unwrap();
    assert_eq!(imported, entry("poetry", "Writes poems."));
    fx.store
        .import_dir(&fx.skill_source("alchemy", "Brews."), false)
        .await
        .unwrap();
    assert_eq!(
        fx.store.list().await.unwrap().skills,
        [entry("alchemy", "Brews."), entry("poetry", "Writes poems.")]
    );
    assert_eq!(
        fx.index()[1],
        json!({
            "name": "poetry", "description": "Writes poems.",
            "files": ["SKILL.md", "logo.bin", "refs/deep/table.csv", "refs/style.md"]
        })
    );

    let again = fx
        .store
        .import_dir(&fx.skill_source("poetry", "Writes poems."), false)
        .await
        .unwrap_err();
    assert!(matches!(again, StoreError::AlreadyExists(_)), "{again}");

    let newer = fx.source(
        "poetry-v2",
        &[(
            "SKILL.md",
            b"---\nname: poetry\ndescription: Better poems.\n---\n",
        )],
    );
    fx.store.import_dir(&newer, true).await.unwrap();
    assert_eq!(
        fx.store.list().await.unwrap().skills[1],
        entry("poetry", "Better poems.")
    );
    assert_eq!(fx.index()[1]["files"], json!(["SKILL.md"]));
    // Nothing is left in staging.
    assert_eq!(fs::read_dir(fx.data.skills_staging()).unwrap().count(), 0);
}

#[tokio::test]
async fn imports_need_valid_front_matter_and_plain_files() {
    let fx = Fixture::new();
    let cases: [(&str, &[SourceFile]); 4] = [
        ("no-skill-md", &[("README.md", b"hi")]),
        ("no-front-matter", &[("SKILL.md", b"# Just a title\n")]),
        (
            "bad-name",
            &[("SKILL.md", b"---\nname: Bad Name\ndescription: x\n---\n")],
        ),
        ("no-description", &[("SKILL.md", b"---\nname: ok\n---\n")]),
    ];
    for (folder, files) in cases {
        let err = fx
            .store
            .import_dir(&fx.source(folder, files), false)
            .await
            .unwrap_err();
        assert_eq!(err.code(), "skill.invalid_request", "{folder}: {err}");
    }
    let missing = fx
        .store
        .import_dir(Path::new("/definitely/not/here"), false)
        .await
        .unwrap_err();
    assert!(matches!(missing, StoreError::NotFound(_)));
    assert!(!fx.data.skills_installed().join("ok").exists());

    #[cfg(unix)]
    {
        let linked = fx.skill_source("linked", "Has a link.");
        std::os::unix::fs::symlink("/etc", linked.join("refs/etc")).unwrap();
        let err = fx.store.import_dir(&linked, false).await.unwrap_err();
        assert_eq!(err.code(), "skill.invalid_request", "{err}");
        assert!(!fx.data.skills_installed().join("linked").exists());
    }
}

#[tokio::test]
async fn listing_skips_broken_skills_and_rebuilds_a_missing_index() {
    let fx = Fixture::new();
    fx.store
        .import_dir(&fx.skill_source("good", "Fine."), false)
        .await
        .unwrap();
    let installed = fx.data.skills_installed();
    for (folder, text) in [
        ("broken", "no front matter"),
        ("misnamed", "---\nname: other\ndescription: x\n---\n"),
        ("Upper", "---\nname: Upper\ndescription: x\n---\n"),
    ] {
        fs::create_dir_all(installed.join(folder)).unwrap();
        fs::write(installed.join(folder).join("SKILL.md"), text).unwrap();
    }
    fs::create_dir_all(installed.join("empty")).unwrap();
    fs::write(installed.join("stray.txt"), "x").unwrap();

    fs::remove_file(fx.data.skills_index_file()).unwrap();
    assert_eq!(
        fx.store.list().await.unwrap().skills,
        [entry("good", "Fine.")]
    );
    assert_eq!(fx.index().as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn reading_files_of_a_skill() {
    let fx = Fixture::new();
    fx.store
        .import_dir(&fx.skill_source("poetry", "Writes poems."), false)
        .await
        .unwrap();

    let style = fx
        .store
        .read_file(&global("poetry"), &p("refs/style.md"))
        .await
        .unwrap();
    assert_eq!(style.text.as_deref(), Some("line one\nline two\n"));
    assert_eq!(style.sha256, sha256_hex(b"line one\nline two\n"));
    let binary = fx
        .store
        .read_file(&global("poetry"), &p("logo.bin"))
        .await
        .unwrap();
    assert_eq!(binary.text, None);

    let code = |r: Result<_, StoreError>| r.unwrap_err().code();
    let poetry = global("poetry");
    assert_eq!(
        code(fx.store.read_file(&poetry, &p("refs")).await),
        SKILL_PATH_IS_FOLDER
    );
    assert_eq!(
        code(fx.store.read_file(&poetry, &p("nope.md")).await),
        "agent.not_found"
    );
    assert_eq!(
        code(fx.store.read_file(&poetry, &p("logo.bin/x")).await),
        "agent.not_found"
    );
    assert_eq!(
        code(fx.store.read_file(&global("ghost"), &p("SKILL.md")).await),
        "agent.not_found"
    );
    assert_eq!(
        code(
            fx.store
                .read_file(&global("../poetry"), &p("SKILL.md"))
                .await
        ),
        "skill.invalid_request"
    );

    #[cfg(unix)]
    {
        let dir = fx.data.skills_installed().join("poetry");
        std::os::unix::fs::symlink("/etc/hostname", dir.join("host")).unwrap();
        std::os::unix::fs::symlink("/etc", dir.join("etc")).unwrap();
        for path in ["host", "etc/hostname"] {
            let err = fx.store.read_file(&poetry, &p(path)).await.unwrap_err();
            assert!(matches!(err, StoreError::Integrity(_)), "{path}: {err}");
        }
    }
}

#[tokio::test]
async fn search_corpus_covers_a_skill_a_folder_or_a_file() {
    let fx = Fixture::new();
    fx.store
        .import_dir(&fx.skill_source("poetry", "Writes poems."), false)
        .await
        .unwrap();
    let paths = |corpus: &agent_application::ports::SearchCorpus| {
        corpus
            .files
            .iter()
            .map(|f| f.path.to_string())
            .collect::<Vec<_>>()
    };

    let poetry = global("poetry");
    let whole = fx.store.search_corpus(&poetry, None, 10).await.unwrap();
    assert_eq!(
        paths(&whole),
        [
            "SKILL.md",
            "logo.bin",
            "refs/deep/table.csv",
            "refs/style.md"
        ]
    );
    assert!(!whole.truncated);
    assert_eq!(whole.files[1].text, None);

    let folder = fx
        .store
        .search_corpus(&poetry, Some(&p("refs")), 1)
        .await
        .unwrap();
    assert_eq!(paths(&folder), ["refs/deep/table.csv"]);
    assert!(folder.truncated);

    let file = fx
        .store
        .search_corpus(&poetry, Some(&p("refs/style.md")), 10)
        .await
        .unwrap();
    assert_eq!(paths(&file), ["refs/style.md"]);

    let err = fx
        .store
        .search_corpus(&poetry, Some(&p("missing")), 10)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound(_)));
}

#[tokio::test]
async fn export_copies_to_a_new_folder_and_remove_uninstalls() {
    let fx = Fixture::new();
    fx.store
        .import_dir(&fx.skill_source("poetry", "Writes poems."), false)
        .await
        .unwrap();

    let target = fx.dir.path().join("exported/poetry");
    fx.store.export_dir("poetry", &target).await.unwrap();
    assert_eq!(
        fs::read(target.join("logo.bin")).unwrap(),
        [0xff, 0x00, 0xfe]
    );
    assert_eq!(
        fs::read_to_string(target.join("refs/style.md")).unwrap(),
        "line one\nline two\n"
    );
    let again = fx.store.export_dir("poetry", &target).await.unwrap_err();
    assert!(matches!(again, StoreError::AlreadyExists(_)));
    let ghost = fx
        .store
        .export_dir("ghost", &fx.dir.path().join("g"))
        .await
        .unwrap_err();
    assert!(matches!(ghost, StoreError::NotFound(_)));

    fx.store.remove("poetry").await.unwrap();
    assert!(fx.store.list().await.unwrap().skills.is_empty());
    assert_eq!(fx.index(), json!([]));
    assert!(!fx.data.skills_installed().join("poetry").exists());
    assert!(matches!(
        fx.store.remove("poetry").await,
        Err(StoreError::NotFound(_))
    ));
    assert_eq!(fs::read_dir(fx.data.skills_staging()).unwrap().count(), 0);
}

/// Writes a skill folder straight into `dir` (scopes other than global have no import).
fn place_skill(dir: &Path, name: &str, description: &str, extra: &[SourceFile]) {
    let skill = dir.join(name);
    fs::create_dir_all(&skill).unwrap();
    let skill_md = format!("---\nname: {name}\ndescription: {description}\n---\n");
    fs::write(skill.join("SKILL.md"), skill_md).unwrap();
    for (rel, bytes) in extra {
        let path = skill.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
}

#[tokio::test]
async fn every_scope_has_its_own_folder() {
    let fx = Fixture::new();
    let skills = fx.data.tauritavern().join("skills");
    let profile = SkillScope::Profile {
        profile_id: "writer".into(),
    };
    let preset = SkillScope::Preset {
        api_id: "openai".into(),
        name: "My Preset".into(),
    };
    let character = SkillScope::Character {
        character_id: "Seraphina".into(),
    };
    place_skill(
        &skills.join("scopes/profile/writer"),
        "poetry",
        "Profile poems.",
        &[("refs/style.md", b"profile style\n")],
    );
    place_skill(
        &skills.join("scopes/profile/writer"),
        "misnamed-folder",
        "x",
        &[],
    );
    fs::write(
        skills.join("scopes/profile/writer/misnamed-folder/SKILL.md"),
        "---\nname: other\ndescription: x\n---\n",
    )
    .unwrap();
    place_skill(
        &skills.join("scopes/preset/openai/My Preset"),
        "tone",
        "Preset tone.",
        &[],
    );
    place_skill(
        &skills.join("scopes/character/Seraphina"),
        "voice",
        "Speaks softly.",
        &[],
    );

    assert_eq!(
        fx.store.list_scope(&profile).await.unwrap().skills,
        [entry("poetry", "Profile poems.")]
    );
    assert_eq!(
        fx.store.list_scope(&preset).await.unwrap().skills,
        [entry("tone", "Preset tone.")]
    );
    assert_eq!(
        fx.store.list_scope(&character).await.unwrap().skills,
        [entry("voice", "Speaks softly.")]
    );
    // A scope without a folder has no skills; the global scope is untouched by the others.
    let stranger = SkillScope::Character {
        character_id: "Nobody".into(),
    };
    assert!(
        fx.store
            .list_scope(&stranger)
            .await
            .unwrap()
            .skills
            .is_empty()
    );
    assert!(fx.store.list().await.unwrap().skills.is_empty());

    let poetry = SkillRef::new(profile.clone(), "poetry");
    let style = fx
        .store
        .read_file(&poetry, &p("refs/style.md"))
        .await
        .unwrap();
    assert_eq!(style.text.as_deref(), Some("profile style\n"));
    let corpus = fx.store.search_corpus(&poetry, None, 10).await.unwrap();
    assert_eq!(corpus.files.len(), 2);
    let elsewhere = SkillRef::new(character.clone(), "poetry");
    assert!(matches!(
        fx.store.read_file(&elsewhere, &p("SKILL.md")).await,
        Err(StoreError::NotFound(_))
    ));

    for bad in ["", "..", "a/b", ".staging"] {
        let scope = SkillScope::Profile {
            profile_id: bad.into(),
        };
        let err = fx.store.list_scope(&scope).await.unwrap_err();
        assert_eq!(err.code(), "skill.invalid_scope", "{bad:?}: {err}");
    }

    #[cfg(unix)]
    {
        let dir = skills.join("scopes/profile/writer/poetry");
        std::os::unix::fs::symlink("/etc", dir.join("etc")).unwrap();
        let err = fx.store.search_corpus(&poetry, None, 10).await.unwrap_err();
        assert!(matches!(err, StoreError::Integrity(_)), "{err}");
    }
}
