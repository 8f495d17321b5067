#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `FsSkillStore`: TauriTavern's skill layout and index, the migration of the flat layout,
//! listing with problems, installing, reading and searching skills of every scope.
//!
//! The fixtures under `tests/fixtures/skills/` are data directories shaped as the programs
//! leave them: `tauritavern-v2` (index version 2, a global and a character skill),
//! `tauritavern-v1` (TauriTavern's flat layout with its version 1 index) and
//! `tavern-agent-flat` (the flat layout and bare-array index earlier versions of
//! tavern-agent wrote, with a broken skill and a misnamed one).

use std::fs;
use std::path::{Path, PathBuf};

use agent_application::ports::{
    SKILL_PATH_IS_FOLDER, SkillIndexEntry, SkillListing, SkillProblem, SkillRef, SkillScope,
    SkillStore, StoreError,
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

/// The folder of the character scope `Seraphina`: `character_` and the first 8 bytes of
/// SHA-256("character\0Seraphina").
const SERAPHINA_DIR: &str = "character_67e8be56c9a02c32";

fn fixture_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/skills")
        .join(name)
}

/// Copies the contents of the folder `from` into the folder `to`.
fn copy_dir(from: &Path, to: &Path) {
    let options = fs_extra::dir::CopyOptions::new()
        .content_only(true)
        .overwrite(true);
    fs_extra::dir::copy(from, to, &options).unwrap();
}

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

    /// A data directory copied from the fixture `name`.
    fn from(name: &str) -> Self {
        let fx = Self::new();
        copy_dir(&fixture_dir(name), fx.data.root());
        fx
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

    fn installed(&self) -> PathBuf {
        self.data.skills_installed()
    }

    fn index_bytes(&self) -> Vec<u8> {
        fs::read(self.data.skills_index_file()).unwrap()
    }

    fn index(&self) -> Value {
        serde_json::from_slice(&self.index_bytes()).unwrap()
    }

    /// Writes a skill folder straight into the scope folder `scope_dir`.
    fn place(&self, scope_dir: &str, name: &str, skill_md: &str) {
        let skill = self.installed().join(scope_dir).join(name);
        fs::create_dir_all(&skill).unwrap();
        fs::write(skill.join("SKILL.md"), skill_md).unwrap();
    }
}

fn p(raw: &str) -> WorkspacePath {
    WorkspacePath::parse(raw).unwrap()
}

fn global(name: &str) -> SkillRef {
    SkillRef::new(SkillScope::Global, name)
}

fn seraphina() -> SkillScope {
    SkillScope::Character {
        character_id: "Seraphina".into(),
    }
}

fn entry(name: &str, description: &str) -> SkillIndexEntry {
    SkillIndexEntry {
        name: name.into(),
        description: description.into(),
    }
}

fn names(listing: &SkillListing) -> Vec<&str> {
    listing.skills.iter().map(|s| s.name.as_str()).collect()
}

/// `(code, scope label, folder)` of each problem.
fn problems(listing: &SkillListing) -> Vec<(String, String, String)> {
    listing.problems.iter().map(problem_key).collect()
}

fn problem_key(problem: &SkillProblem) -> (String, String, String) {
    (
        problem.code.clone(),
        problem
            .scope
            .as_ref()
            .map(SkillScope::label)
            .unwrap_or_default(),
        problem.folder.clone().unwrap_or_default(),
    )
}

fn key(code: &str, scope: &str, folder: &str) -> (String, String, String) {
    (code.into(), scope.into(), folder.into())
}

const PDF_DESCRIPTION: &str = "Comprehensive PDF manipulation toolkit for extracting text and \
tables, creating new PDFs,\nmerging and splitting documents, and handling forms. Use it when a \
PDF form must be filled\nin, or when PDF documents must be read or produced at scale.";

#[tokio::test]
async fn a_tauritavern_install_is_read_as_it_is() {
    let fx = Fixture::from("tauritavern-v2");
    let before = fx.index_bytes();

    let global_skills = fx.store.list().await.unwrap();
    assert_eq!(
        global_skills,
        SkillListing {
            skills: vec![entry("pdf-tools", PDF_DESCRIPTION)],
            problems: vec![],
        }
    );
    let character = fx.store.list_scope(&seraphina()).await.unwrap();
    assert_eq!(
        character.skills,
        [entry(
            "voice",
            "How Seraphina speaks — soft, warm, a little formal."
        )]
    );
    assert!(character.problems.is_empty());
    assert_eq!(
        fx.store.scopes().await.unwrap(),
        [SkillScope::Global, seraphina()]
    );
    let script = fx
        .store
        .read_file(&global("pdf-tools"), &p("scripts/extract_text.py"))
        .await
        .unwrap();
    assert!(script.text.unwrap().starts_with("import sys"));
    let voice = SkillRef::new(seraphina(), "voice");
    let sidecar = fx
        .store
        .read_file(&voice, &p("agents/tauritavern.json"))
        .await
        .unwrap();
    assert!(sidecar.text.unwrap().contains("characterCard"));
    // Reading changes nothing.
    assert_eq!(fx.index_bytes(), before);
}

#[tokio::test]
async fn the_index_is_rewritten_in_tauritaverns_exact_format() {
    let fx = Fixture::from("tauritavern-v2");
    let original = fx.index_bytes();

    fx.store
        .import(
            &SkillScope::Global,
            &fx.skill_source("alchemy", "Brews."),
            false,
        )
        .await
        .unwrap();
    let index = fx.index();
    let order: Vec<(&str, &str)> = index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["scope"]["kind"].as_str().unwrap(),
                e["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        order,
        [
            ("character", "voice"),
            ("global", "alchemy"),
            ("global", "pdf-tools")
        ]
    );
    let alchemy = &index["skills"][1];
    let keys: Vec<&str> = alchemy
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    // serde_json sorts keys of a `Value`; the text keeps TauriTavern's order.
    let text = String::from_utf8(fx.index_bytes()).unwrap();
    let entry_text = &text[text.find("\"name\": \"alchemy\"").unwrap() - 60..];
    let at = |key: &str| entry_text.find(&format!("\"{key}\":")).unwrap();
    let written = [
        "scope",
        "name",
        "description",
        "tags",
        "installedHash",
        "fileCount",
        "totalBytes",
        "hasScripts",
        "hasBinary",
        "installedAt",
    ];
    assert!(
        written.windows(2).all(|w| at(w[0]) < at(w[1])),
        "{entry_text}"
    );
    assert_eq!(keys.len(), written.len(), "no optional field when unset");
    assert_eq!(alchemy["tags"], json!([]));
    assert_eq!(alchemy["fileCount"], 4);
    assert_eq!(alchemy["hasBinary"], true);
    assert!(!text.ends_with('\n'));

    // Removing it again gives back TauriTavern's file byte for byte.
    fx.store
        .remove(&SkillScope::Global, "alchemy")
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8(fx.index_bytes()).unwrap(),
        String::from_utf8(original).unwrap()
    );
    assert!(!fx.installed().join("global/alchemy").exists());
}

#[tokio::test]
async fn imports_compute_the_entry_tauritavern_computes() {
    let fx = Fixture::new();
    let installed = fixture_dir("tauritavern-v2").join("_tauritavern/skills/installed");
    fx.store
        .import(
            &SkillScope::Global,
            &installed.join("global/pdf-tools"),
            false,
        )
        .await
        .unwrap();
    fx.store
        .import(
            &seraphina(),
            &installed.join(SERAPHINA_DIR).join("voice"),
            false,
        )
        .await
        .unwrap();
    assert!(
        fx.installed()
            .join(SERAPHINA_DIR)
            .join("voice/SKILL.md")
            .exists()
    );

    let expected: Value = serde_json::from_slice(
        &fs::read(fixture_dir("tauritavern-v2").join("_tauritavern/skills/index/skills.json"))
            .unwrap(),
    )
    .unwrap();
    let mut written = fx.index();
    // What differs is when and from where: the time of this import, and no source refs.
    for (ours, theirs) in written["skills"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .zip(expected["skills"].as_array().unwrap())
    {
        assert!(ours["installedAt"].as_str().unwrap().ends_with('Z'));
        ours["installedAt"] = theirs["installedAt"].clone();
        ours["sourceRefs"] = theirs["sourceRefs"].clone();
    }
    assert_eq!(written, expected);
}

#[tokio::test]
async fn tauritavern_v1_is_migrated_to_version_2() {
    let fx = Fixture::from("tauritavern-v1");
    let v1 = fx.index();

    let listed = fx.store.list().await.unwrap();
    assert_eq!(
        listed.skills,
        [entry("poetry", "Writes short poems in a given style.")]
    );
    assert!(listed.problems.is_empty(), "{:?}", listed.problems);
    assert!(fx.installed().join("global/poetry/forms/haiku.md").exists());
    assert!(!fx.installed().join("poetry").exists());

    let mut entry = v1["skills"][0].clone();
    let fields = entry.as_object_mut().unwrap();
    fields.insert("scope".into(), json!({"kind": "global"}));
    assert_eq!(fx.index(), json!({"version": 2, "skills": [entry]}));
    let text = String::from_utf8(fx.index_bytes()).unwrap();
    assert!(text.starts_with("{\n  \"version\": 2,\n  \"skills\": [\n    {\n      \"scope\": {"));

    let haiku = fx
        .store
        .read_file(&global("poetry"), &p("forms/haiku.md"))
        .await
        .unwrap();
    assert_eq!(
        haiku.text.as_deref(),
        Some("Three lines: five, seven, five.\n")
    );
}

#[tokio::test]
async fn our_flat_layout_is_migrated_and_broken_skills_are_reported() {
    let fx = Fixture::from("tavern-agent-flat");

    let listed = fx.store.list().await.unwrap();
    assert_eq!(names(&listed), ["alchemy", "poetry"]);
    assert_eq!(
        problems(&listed),
        [
            key("skill.front_matter_unclosed", "global", "broken"),
            key("skill.name_mismatch", "global", "misnamed"),
        ]
    );
    assert_eq!(
        listed.problems[1].message,
        "SKILL.md names the skill `poems`, but its folder is `misnamed`"
    );
    // Every folder moved, the broken ones too: nothing is left behind.
    let mut moved: Vec<String> = fs::read_dir(fx.installed().join("global"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    moved.sort();
    assert_eq!(moved, ["alchemy", "broken", "misnamed", "poetry"]);
    let top: Vec<String> = fs::read_dir(fx.installed())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(top, ["global"]);

    let index = fx.index();
    assert_eq!(index["version"], 2);
    let indexed: Vec<&str> = index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(indexed, ["alchemy", "poetry"]);
    assert_eq!(index["skills"][0]["fileCount"], 2);
    assert_eq!(
        index["skills"][0]["description"],
        "Brews potions: ingredients, steps, warnings."
    );
    let alchemy = fx
        .store
        .read_file(&global("alchemy"), &p("recipes/healing.md"))
        .await
        .unwrap();
    assert!(alchemy.text.unwrap().contains("Moonpetal"));
}

#[tokio::test]
async fn a_failed_migration_puts_everything_back() {
    let fx = Fixture::from("tavern-agent-flat");
    // `poetry` is also in the scoped layout: moving it would overwrite a skill.
    fx.place(
        "global",
        "poetry",
        "---\nname: poetry\ndescription: Another poetry.\n---\n",
    );
    let before = fx.index_bytes();

    let listed = fx.store.list().await.unwrap();
    // The flat layout is still read: no skill disappears.
    assert_eq!(names(&listed), ["alchemy", "poetry"]);
    assert_eq!(
        listed.skills[1].description,
        "Writes short poems in a given style."
    );
    let found = problems(&listed);
    assert_eq!(
        found.last().unwrap(),
        &key("skill.index_migration_failed", "", "index/skills.json")
    );
    assert!(
        listed
            .problems
            .last()
            .unwrap()
            .message
            .contains("`poetry` exists both in `installed/` and in `installed/global/`"),
        "{}",
        listed.problems.last().unwrap().message
    );
    // Folders moved before the conflict went back; the index is untouched.
    for name in ["alchemy", "broken", "misnamed", "poetry"] {
        assert!(
            fx.installed().join(name).join("SKILL.md").exists(),
            "{name}"
        );
    }
    for name in ["alchemy", "broken", "misnamed"] {
        assert!(!fx.installed().join("global").join(name).exists(), "{name}");
    }
    assert_eq!(fx.index_bytes(), before);
    // Reads follow the listing; changes wait until the conflict is resolved.
    let poem = fx
        .store
        .read_file(&global("poetry"), &p("SKILL.md"))
        .await
        .unwrap();
    assert!(poem.text.unwrap().contains("short poems"));
    let refused = fx
        .store
        .import(&SkillScope::Global, &fx.skill_source("new", "New."), false)
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "skill.index_migration_failed");
    assert_eq!(fx.index_bytes(), before);
}

#[tokio::test]
async fn an_index_of_an_unknown_version_is_left_untouched() {
    let fx = Fixture::from("tauritavern-v2");
    let text = String::from_utf8(fx.index_bytes()).unwrap();
    let future = text.replacen("\"version\": 2", "\"version\": 3", 1);
    fs::write(fx.data.skills_index_file(), &future).unwrap();

    let listed = fx.store.list().await.unwrap();
    assert_eq!(names(&listed), ["pdf-tools"]);
    assert_eq!(
        problems(&listed),
        [key(
            "skill.index_version_unsupported",
            "",
            "index/skills.json"
        )]
    );
    // Its scopes are still read, as far as the file reads.
    assert_eq!(
        fx.store.scopes().await.unwrap(),
        [SkillScope::Global, seraphina()]
    );
    assert_eq!(
        names(&fx.store.list_scope(&seraphina()).await.unwrap()),
        ["voice"]
    );
    let import = fx
        .store
        .import(&SkillScope::Global, &fx.skill_source("new", "New."), false)
        .await
        .unwrap_err();
    assert_eq!(import.code(), "skill.index_version_unsupported");
    let remove = fx
        .store
        .remove(&SkillScope::Global, "pdf-tools")
        .await
        .unwrap_err();
    assert_eq!(remove.code(), "skill.index_version_unsupported");
    assert!(fx.installed().join("global/pdf-tools").exists());
    assert_eq!(fx.index_bytes(), future.as_bytes());

    fs::write(
        fx.data.skills_index_file(),
        "{\"version\": 2, \"skills\": [",
    )
    .unwrap();
    let broken = fx.store.list().await.unwrap();
    assert_eq!(
        problems(&broken),
        [key("skill.index_invalid", "", "index/skills.json")]
    );
    assert_eq!(names(&broken), ["pdf-tools"]);
    assert_eq!(
        fs::read_to_string(fx.data.skills_index_file()).unwrap(),
        "{\"version\": 2, \"skills\": ["
    );
}

#[tokio::test]
async fn index_and_folders_disagreeing_is_reported() {
    let fx = Fixture::from("tauritavern-v2");
    fx.place(
        "global",
        "notes",
        "---\nname: notes\ndescription: Copied in by hand.\n---\n",
    );
    fs::remove_dir_all(fx.installed().join(SERAPHINA_DIR).join("voice")).unwrap();
    fx.place(
        "character_0000000000000000",
        "lost",
        "---\nname: lost\ndescription: x\n---\n",
    );
    let old_flat = fx.installed().join("old-flat");
    fs::create_dir_all(&old_flat).unwrap();
    fs::write(
        old_flat.join("SKILL.md"),
        "---\nname: old-flat\ndescription: x\n---\n",
    )
    .unwrap();
    fs::create_dir_all(fx.installed().join("global/Upper Case")).unwrap();
    fs::write(fx.installed().join("global/README.txt"), "not a skill").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc", fx.installed().join("global/etc")).unwrap();

    let listed = fx.store.list().await.unwrap();
    // A valid folder the index does not list is still a skill.
    assert_eq!(names(&listed), ["notes", "pdf-tools"]);
    let mut expected = vec![
        key("skill.folder_name_invalid", "global", "Upper Case"),
        key("skill.not_indexed", "global", "notes"),
        key(
            "skill.scope_unknown",
            "",
            "installed/character_0000000000000000",
        ),
        key("skill.stray_folder", "", "installed/old-flat"),
    ];
    if cfg!(unix) {
        expected.insert(1, key("skill.folder_is_link", "global", "etc"));
    }
    assert_eq!(problems(&listed), expected);

    let character = fx.store.list_scope(&seraphina()).await.unwrap();
    assert!(character.skills.is_empty());
    assert_eq!(
        problems(&character),
        [key("skill.folder_missing", "character:Seraphina", "voice")]
    );
}

#[tokio::test]
async fn a_missing_index_is_rebuilt_from_the_global_folders() {
    let fx = Fixture::from("tauritavern-v2");
    fs::remove_file(fx.data.skills_index_file()).unwrap();

    let listed = fx.store.list().await.unwrap();
    assert_eq!(names(&listed), ["pdf-tools"]);
    // The character folder cannot be named back into its scope until that scope is read.
    assert_eq!(
        problems(&listed),
        [key(
            "skill.scope_unknown",
            "",
            &format!("installed/{SERAPHINA_DIR}")
        )]
    );
    let index = fx.index();
    assert_eq!(index["skills"].as_array().unwrap().len(), 1);
    assert_eq!(index["skills"][0]["name"], "pdf-tools");
    let character = fx.store.list_scope(&seraphina()).await.unwrap();
    assert_eq!(names(&character), ["voice"]);
    assert_eq!(
        problems(&character),
        [key("skill.not_indexed", "character:Seraphina", "voice")]
    );

    // An empty data directory writes nothing.
    let empty = Fixture::new();
    assert_eq!(empty.store.list().await.unwrap(), SkillListing::default());
    assert!(!empty.data.skills_index_file().exists());
}

#[tokio::test]
async fn import_lists_indexes_and_refuses_a_second_copy_unless_replacing() {
    let fx = Fixture::new();
    let imported = fx
        .store
        .import(
            &SkillScope::Global,
            &fx.skill_source("poetry", "Writes poems."),
            false,
        )
        .await
        .unwrap();
    assert_eq!(imported, entry("poetry", "Writes poems."));
    fx.store
        .import(
            &SkillScope::Global,
            &fx.skill_source("alchemy", "Brews."),
            false,
        )
        .await
        .unwrap();
    assert_eq!(
        fx.store.list().await.unwrap().skills,
        [entry("alchemy", "Brews."), entry("poetry", "Writes poems.")]
    );
    assert_eq!(fx.index()["skills"][1]["name"], "poetry");

    let again = fx
        .store
        .import(
            &SkillScope::Global,
            &fx.skill_source("poetry", "Writes poems."),
            false,
        )
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
    fx.store
        .import(&SkillScope::Global, &newer, true)
        .await
        .unwrap();
    assert_eq!(
        fx.store.list().await.unwrap().skills[1],
        entry("poetry", "Better poems.")
    );
    assert_eq!(fx.index()["skills"][1]["fileCount"], 1);
    assert_eq!(fx.index()["skills"].as_array().unwrap().len(), 2);
    // Nothing is left in staging.
    assert_eq!(fs::read_dir(fx.data.skills_staging()).unwrap().count(), 0);
}

#[tokio::test]
async fn imports_need_a_valid_skill() {
    let fx = Fixture::new();
    let cases: [(&str, &[SourceFile], &str); 5] = [
        (
            "no-skill-md",
            &[("README.md", b"hi")],
            "skill.skill_md_missing",
        ),
        (
            "no-front-matter",
            &[("SKILL.md", b"# Just a title\n")],
            "skill.front_matter_missing",
        ),
        (
            "bad-name",
            &[("SKILL.md", b"---\nname: Bad Name\ndescription: x\n---\n")],
            "skill.name_invalid",
        ),
        (
            "no-description",
            &[("SKILL.md", b"---\nname: ok\n---\n")],
            "skill.front_matter_description_missing",
        ),
        (
            "forbidden",
            &[
                ("SKILL.md", b"---\nname: forbidden\ndescription: x\n---\n"),
                (".env", b"KEY=1"),
            ],
            "skill.package_invalid",
        ),
    ];
    for (folder, files, code) in cases {
        let err = fx
            .store
            .import(&SkillScope::Global, &fx.source(folder, files), false)
            .await
            .unwrap_err();
        assert_eq!(err.code(), code, "{folder}: {err}");
    }
    let missing = fx
        .store
        .import(
            &SkillScope::Global,
            Path::new("/definitely/not/here"),
            false,
        )
        .await
        .unwrap_err();
    assert!(matches!(missing, StoreError::NotFound(_)));
    assert!(!fx.installed().join("global/forbidden").exists());
    assert!(!fx.data.skills_index_file().exists());

    #[cfg(unix)]
    {
        let linked = fx.skill_source("linked", "Has a link.");
        std::os::unix::fs::symlink("/etc", linked.join("refs/etc")).unwrap();
        let err = fx
            .store
            .import(&SkillScope::Global, &linked, false)
            .await
            .unwrap_err();
        assert_eq!(err.code(), "skill.unsafe_file", "{err}");
        assert!(!fx.installed().join("global/linked").exists());
    }
}

#[tokio::test]
async fn reading_files_of_a_skill() {
    let fx = Fixture::new();
    fx.store
        .import(
            &SkillScope::Global,
            &fx.skill_source("poetry", "Writes poems."),
            false,
        )
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
        let dir = fx.installed().join("global/poetry");
        std::os::unix::fs::symlink("/etc/hostname", dir.join("host")).unwrap();
        std::os::unix::fs::symlink("/etc", dir.join("etc")).unwrap();
        for path in ["host", "etc/hostname"] {
            let err = fx.store.read_file(&poetry, &p(path)).await.unwrap_err();
            assert!(matches!(err, StoreError::Integrity(_)), "{path}: {err}");
        }
        // A link makes the skill unusable: it is reported, not listed.
        let listed = fx.store.list().await.unwrap();
        assert!(listed.skills.is_empty());
        assert_eq!(
            problems(&listed),
            [key("skill.unsafe_file", "global", "poetry")]
        );
    }
}

#[tokio::test]
async fn search_corpus_covers_a_skill_a_folder_or_a_file() {
    let fx = Fixture::new();
    fx.store
        .import(
            &SkillScope::Global,
            &fx.skill_source("poetry", "Writes poems."),
            false,
        )
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
        .import(
            &SkillScope::Global,
            &fx.skill_source("poetry", "Writes poems."),
            false,
        )
        .await
        .unwrap();

    let target = fx.dir.path().join("exported/poetry");
    fx.store.export(&global("poetry"), &target).await.unwrap();
    assert_eq!(
        fs::read(target.join("logo.bin")).unwrap(),
        [0xff, 0x00, 0xfe]
    );
    let again = fx
        .store
        .export(&global("poetry"), &target)
        .await
        .unwrap_err();
    assert!(matches!(again, StoreError::AlreadyExists(_)));
    let ghost = fx
        .store
        .export(&global("ghost"), &fx.dir.path().join("g"))
        .await
        .unwrap_err();
    assert!(matches!(ghost, StoreError::NotFound(_)));

    fx.store
        .remove(&SkillScope::Global, "poetry")
        .await
        .unwrap();
    assert!(fx.store.list().await.unwrap().skills.is_empty());
    assert_eq!(fx.index(), json!({"version": 2, "skills": []}));
    assert!(!fx.installed().join("global/poetry").exists());
    assert!(matches!(
        fx.store.remove(&SkillScope::Global, "poetry").await,
        Err(StoreError::NotFound(_))
    ));
    assert_eq!(fs::read_dir(fx.data.skills_staging()).unwrap().count(), 0);
}

#[tokio::test]
async fn every_scope_has_its_own_folder() {
    let fx = Fixture::new();
    let profile = SkillScope::Profile {
        profile_id: "writer".into(),
    };
    let preset = SkillScope::Preset {
        api_id: "openai".into(),
        name: "My Preset".into(),
    };
    for (scope, name) in [
        (&profile, "poetry"),
        (&preset, "tone"),
        (&seraphina(), "voice"),
    ] {
        fx.store
            .import(
                scope,
                &fx.skill_source(name, &format!("{name} skill")),
                false,
            )
            .await
            .unwrap();
    }
    // TauriTavern's folder names.
    let mut folders: Vec<String> = fs::read_dir(fx.installed())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    folders.sort();
    assert_eq!(
        folders,
        [
            SERAPHINA_DIR,
            "preset_780cf61c4d42a8d2",
            "profile_5ac77d8ac722e8ea"
        ]
    );
    assert_eq!(
        fx.store.list_scope(&profile).await.unwrap().skills,
        [entry("poetry", "poetry skill")]
    );
    assert_eq!(
        fx.store.scopes().await.unwrap(),
        [
            SkillScope::Global,
            preset.clone(),
            profile.clone(),
            seraphina()
        ]
    );
    // A scope without a folder has no skills; the global scope is untouched by the others.
    let stranger = SkillScope::Character {
        character_id: "Nobody".into(),
    };
    assert_eq!(
        fx.store.list_scope(&stranger).await.unwrap(),
        SkillListing::default()
    );
    assert!(fx.store.list().await.unwrap().skills.is_empty());

    let poetry = SkillRef::new(profile.clone(), "poetry");
    let style = fx
        .store
        .read_file(&poetry, &p("refs/style.md"))
        .await
        .unwrap();
    assert_eq!(style.text.as_deref(), Some("line one\nline two\n"));
    let elsewhere = SkillRef::new(seraphina(), "poetry");
    assert!(matches!(
        fx.store.read_file(&elsewhere, &p("SKILL.md")).await,
        Err(StoreError::NotFound(_))
    ));

    for bad in ["", "Writer", "a/b"] {
        let scope = SkillScope::Profile {
            profile_id: bad.into(),
        };
        let err = fx.store.list_scope(&scope).await.unwrap_err();
        assert_eq!(err.code(), "skill.invalid_scope", "{bad:?}: {err}");
    }
    fx.store.remove(&preset, "tone").await.unwrap();
    assert!(
        fx.store
            .list_scope(&preset)
            .await
            .unwrap()
            .skills
            .is_empty()
    );
}
