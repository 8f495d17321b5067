#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `tavern-agent skills list`, `tavern-agent doctor`, and skill problems in a run's journal,
//! over the skill fixtures of `agent-infra-fs` (data directories shaped as TauriTavern and
//! earlier versions of tavern-agent leave them).

mod cli_support;

use std::fs;
use std::path::{Path, PathBuf};

use cli_support::*;
use serde_json::{Value, json};

/// A fixture data directory of `crates/agent-infra-fs/tests/fixtures/skills/`.
fn skills_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../agent-infra-fs/tests/fixtures/skills")
        .join(name)
}

/// Copies the contents of the folder `from` into the folder `to`.
fn copy_dir(from: &Path, to: &Path) {
    let options = fs_extra::dir::CopyOptions::new()
        .content_only(true)
        .overwrite(true);
    fs_extra::dir::copy(from, to, &options).unwrap();
}

/// The chat fixture plus the skills of fixture `name`.
fn with_skills(name: &str) -> Fixture {
    let fx = Fixture::new();
    copy_dir(&skills_fixture(name), fx.path());
    fx
}

fn run(fx: &Fixture, args: &[&str]) -> (i32, String, String) {
    let output = fx.cmd().args(args).output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn skills_list_shows_every_scope() {
    let fx = with_skills("tauritavern-v2");
    let (code, stdout, stderr) = run(&fx, &["skills", "list"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    insta::assert_snapshot!("skills_list_tauritavern", stdout);

    let (code, stdout, _) = run(&fx, &["skills", "list", "--json"]);
    assert_eq!(code, 0);
    let listed: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(listed["problems"], json!([]));
    assert_eq!(
        listed["skills"][1],
        json!({"scope": {"kind": "character", "characterId": "Seraphina"},
               "name": "voice",
               "description": "How Seraphina speaks — soft, warm, a little formal."})
    );
}

#[test]
fn skills_list_prints_problems_and_still_exits_0() {
    let fx = with_skills("tavern-agent-flat");
    let (code, stdout, stderr) = run(&fx, &["skills", "list"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    insta::assert_snapshot!("skills_list_with_problems", stdout);

    let (_, stdout, _) = run(&fx, &["skills", "list", "--json"]);
    insta::assert_snapshot!("skills_list_with_problems_json", stdout);

    let (code, stdout, _) = run(&Fixture::new(), &["skills", "list"]);
    assert_eq!((code, stdout.as_str()), (0, "no skills installed\n"));
}

#[test]
fn doctor_passes_a_healthy_data_directory() {
    let fx = with_skills("tauritavern-v2");
    let (code, stdout, stderr) = run(&fx, &["doctor"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    insta::assert_snapshot!("doctor_healthy", stdout);
}

#[test]
fn the_demo_data_is_healthy() {
    let fx = Fixture::new();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/data"),
        fx.path(),
    );
    let index = fx.path().join("_tauritavern/skills/index/skills.json");
    let shipped = fs::read(&index).unwrap();
    let (code, stdout, _) = run(&fx, &["doctor"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("skills       ok       1 usable"),
        "{stdout}"
    );
    // The shipped index is TauriTavern's: nothing needed rewriting.
    assert_eq!(fs::read(&index).unwrap(), shipped);
}

#[test]
fn doctor_fails_on_anything_wrong() {
    let fx = with_skills("tauritavern-v2");
    let profiles = fx.path().join("_tauritavern/agent-profiles/profiles");
    fs::create_dir_all(&profiles).unwrap();
    fs::write(profiles.join("broken.json"), "{\"schemaVersion\": 3,").unwrap();
    let connections = fx.path().join("_tauritavern/llm-connections");
    fs::create_dir_all(&connections).unwrap();
    fs::write(connections.join("half.json"), "{\"kind\": ").unwrap();
    let misnamed = fx.path().join("_tauritavern/skills/installed/global/poems");
    fs::create_dir_all(&misnamed).unwrap();
    fs::write(
        misnamed.join("SKILL.md"),
        "---\nname: poetry\ndescription: Its folder is not its name.\n---\n",
    )
    .unwrap();
    // An index of a version this build does not know is reported and left alone.
    let index = fx.path().join("_tauritavern/skills/index/skills.json");
    let future =
        fs::read_to_string(&index)
            .unwrap()
            .replacen("\"version\": 2", "\"version\": 3", 1);
    fs::write(&index, &future).unwrap();

    let (code, stdout, stderr) = run(&fx, &["doctor"]);
    assert_eq!((code, stderr.as_str()), (1, ""));
    insta::assert_snapshot!("doctor_unhealthy", stdout);
    assert_eq!(fs::read_to_string(&index).unwrap(), future);

    let (code, stdout, _) = run(&fx, &["doctor", "--json"]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["healthy"], false);
    let codes: Vec<(&str, &str)> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|check| {
            check["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| (check["area"].as_str().unwrap(), f["code"].as_str().unwrap()))
        })
        .collect();
    assert_eq!(
        codes,
        [
            ("profiles", "agent.profile_contract_invalid"),
            ("connections", "connection.contract_invalid"),
            ("skills", "skill.name_mismatch"),
            ("skills", "skill.index_version_unsupported"),
        ]
    );
}

#[test]
fn a_run_journals_the_skills_it_cannot_read() {
    let fx = with_skills("tauritavern-v2");
    let broken = fx
        .path()
        .join("_tauritavern/skills/installed/global/half-written");
    fs::create_dir_all(&broken).unwrap();
    fs::write(
        broken.join("SKILL.md"),
        "---\nname: half-written\ndescription: [unclosed\n---\n",
    )
    .unwrap();

    let assert = fx.run_script(&completing_script(), &[]).code(0);
    let stderr = stderr_of(&assert);
    assert!(
        stderr.contains("skill problem: skill.front_matter_invalid: global/half-written: "),
        "{stderr}"
    );
    let run_id = run_id_of(&assert.get_output().stderr);
    let resolved: Value = fx
        .events_jsonl(&run_id)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|event| event["type"] == "skill_scopes_resolved")
        .unwrap();
    assert_eq!(resolved["level"], "warn");
    let payload = &resolved["payload"];
    assert_eq!(payload["scopes"], json!(["global", "profile", "character"]));
    assert_eq!(payload["effectiveSkills"], json!(["pdf-tools"]));
    let diagnostics = payload["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(
        diagnostics[0]["scope"],
        json!({"kind": "global"}),
        "{diagnostics:?}"
    );
    assert_eq!(diagnostics[0]["folder"], "half-written");
    assert_eq!(diagnostics[0]["code"], "skill.front_matter_invalid");
    // The skill reads as YAML, so the message is the YAML library's.
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("the front matter of SKILL.md is not valid YAML: "),
        "{diagnostics:?}"
    );
}

/// Runs `args` with `stdin` on standard input.
fn run_with_stdin(fx: &Fixture, args: &[&str], stdin: &str) -> (i32, String, String) {
    let output = fx.cmd().args(args).write_stdin(stdin).output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// A skill folder `name` under `root` with a reference file.
fn skill_source(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    fs::create_dir_all(dir.join("refs")).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: |-\n  Writes poems.\n  Any form.\n---\n# Poems\n"),
    )
    .unwrap();
    fs::write(dir.join("refs/forms.md"), "sonnet\nhaiku\n").unwrap();
    dir
}

/// A zip archive of `entries` (name, bytes), deflated.
fn zip_of(path: &Path, entries: &[(&str, &[u8])]) {
    let mut out = zip::ZipWriter::new(fs::File::create(path).unwrap());
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        out.start_file(*name, options).unwrap();
        std::io::Write::write_all(&mut out, bytes).unwrap();
    }
    out.finish().unwrap();
}

/// The `code` of a failed command's JSON error line.
fn error_code(stderr: &str) -> String {
    let line: Value = serde_json::from_str(stderr.trim()).unwrap_or_else(|_| panic!("{stderr}"));
    line["code"].as_str().unwrap().to_owned()
}

fn skill_names(fx: &Fixture) -> Vec<String> {
    let (_, stdout, _) = run(fx, &["skills", "list", "--json"]);
    let listed: Value = serde_json::from_str(&stdout).unwrap();
    listed["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| {
            format!(
                "{}:{}",
                skill["scope"]["kind"].as_str().unwrap(),
                skill["name"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn a_skill_is_previewed_installed_edited_renamed_exported_and_removed() {
    let fx = Fixture::new();
    let src = tempfile::tempdir().unwrap();
    let source = skill_source(src.path(), "poetry");
    let source_arg = source.to_str().unwrap();

    let (code, stdout, _) = run(
        &fx,
        &["skills", "import", source_arg, "--preview", "--json"],
    );
    assert_eq!(code, 0, "{stdout}");
    let preview: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(preview["installed"], false);
    assert_eq!(preview["preview"]["name"], "poetry");
    assert_eq!(
        preview["preview"]["description"],
        "Writes poems.\nAny form."
    );
    assert_eq!(
        preview["preview"]["files"],
        json!([{"path": "SKILL.md", "bytes": 73}, {"path": "refs/forms.md", "bytes": 13}])
    );
    assert!(preview["preview"].get("conflict").is_none());
    assert!(skill_names(&fx).is_empty(), "a preview installs nothing");

    let (code, stdout, stderr) = run(&fx, &["skills", "import", source_arg]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert!(
        stdout.contains("skill poetry (global): Writes poems.…"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("installed skill poetry (global)\n"),
        "{stdout}"
    );
    assert_eq!(skill_names(&fx), ["global:poetry"]);

    // A second import conflicts; the preview says the files are the same.
    let (code, stdout, _) = run(&fx, &["skills", "import", source_arg, "--preview"]);
    assert_eq!(code, 0);
    assert!(
        stdout
            .contains("conflict: skill poetry is already installed in global with the same files"),
        "{stdout}"
    );
    let (code, _, stderr) = run(&fx, &["skills", "import", source_arg, "--json"]);
    assert_eq!(
        (code, error_code(&stderr).as_str()),
        (2, "skill.already_exists")
    );
    let (code, _, _) = run(&fx, &["skills", "import", source_arg, "--replace"]);
    assert_eq!(code, 0);

    let (code, stdout, _) = run(&fx, &["skills", "show", "poetry", "--json"]);
    assert_eq!(code, 0);
    let shown: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        shown["files"][1],
        json!({"path": "refs/forms.md", "bytes": 13})
    );
    assert_eq!(shown["problems"], json!([]));
    assert!(shown["installedHash"].as_str().unwrap().len() == 64);

    let (code, stdout, _) = run(&fx, &["skills", "read", "poetry", "refs/forms.md"]);
    assert_eq!((code, stdout.as_str()), (0, "sonnet\nhaiku\n"));
    let (code, _, _) = run_with_stdin(
        &fx,
        &["skills", "write", "poetry", "refs/new/limerick.md"],
        "There once was\n",
    );
    assert_eq!(code, 0);
    let (_, stdout, _) = run(
        &fx,
        &["skills", "read", "poetry", "refs/new/limerick.md", "--json"],
    );
    let read: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(read["text"], "There once was\n");
    // An edit that breaks SKILL.md is refused and changes nothing.
    let (code, _, stderr) = run_with_stdin(
        &fx,
        &["skills", "write", "poetry", "SKILL.md", "--json"],
        "---\nname: [x\n---\n",
    );
    assert_eq!(
        (code, error_code(&stderr).as_str()),
        (2, "skill.front_matter_invalid")
    );
    let (code, _, stderr) = run_with_stdin(
        &fx,
        &["skills", "write", "poetry", "SKILL.md", "--json"],
        "---\nname: other\ndescription: d\n---\n",
    );
    assert_eq!(
        (code, error_code(&stderr).as_str()),
        (2, "skill.name_mismatch")
    );
    let (_, stdout, _) = run(&fx, &["skills", "read", "poetry"]);
    assert!(stdout.starts_with("---\nname: poetry\n"), "{stdout}");

    let (code, _, stderr) = run(&fx, &["skills", "move", "poetry", "verse"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(skill_names(&fx), ["global:verse"]);
    let (_, stdout, _) = run(&fx, &["skills", "read", "verse"]);
    assert!(
        stdout.starts_with("---\nname: verse\ndescription: |-\n"),
        "{stdout}"
    );
    let (_, stdout, _) = run(&fx, &["skills", "read", "verse", "refs/new/limerick.md"]);
    assert_eq!(stdout, "There once was\n");

    // Exported as an archive, it imports into another scope.
    let archive = src.path().join("verse.skill");
    let (code, _, stderr) = run(
        &fx,
        &["skills", "export", "verse", archive.to_str().unwrap()],
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    let (code, _, stderr) = run(
        &fx,
        &[
            "skills",
            "export",
            "verse",
            archive.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(
        (code, error_code(&stderr).as_str()),
        (2, "skill.already_exists")
    );
    let (code, _, stderr) = run(
        &fx,
        &[
            "skills",
            "import",
            archive.to_str().unwrap(),
            "--scope",
            "character:Seraphina",
        ],
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(skill_names(&fx), ["global:verse", "character:verse"]);
    let folder = src.path().join("exported");
    let (code, _, _) = run(
        &fx,
        &[
            "skills",
            "export",
            "verse",
            folder.to_str().unwrap(),
            "--scope",
            "character:Seraphina",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(
        fs::read_to_string(folder.join("refs/new/limerick.md")).unwrap(),
        "There once was\n"
    );

    let (code, stdout, _) = run(&fx, &["skills", "remove", "verse", "--json"]);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "{\"name\":\"verse\",\"removed\":true}\n")
    );
    assert_eq!(skill_names(&fx), ["character:verse"]);
    let (code, _, stderr) = run(&fx, &["skills", "show", "verse", "--json"]);
    assert_eq!((code, error_code(&stderr).as_str()), (2, "skill.not_found"));
    let (code, _, stderr) = run(&fx, &["skills", "remove", "verse", "--json"]);
    assert_eq!((code, error_code(&stderr).as_str()), (2, "skill.not_found"));
}

#[test]
fn names_paths_and_scopes_are_validated() {
    let fx = Fixture::new();
    let src = tempfile::tempdir().unwrap();
    let source = skill_source(src.path(), "poetry");
    assert_eq!(
        run(&fx, &["skills", "import", source.to_str().unwrap()]).0,
        0
    );
    let outside = src.path().join("outside.md");
    fs::write(&outside, "secret\n").unwrap();

    let cases: &[(&[&str], &str)] = &[
        (&["skills", "show", "../poetry"], "skill.invalid_request"),
        (
            &["skills", "read", "..", "SKILL.md"],
            "skill.invalid_request",
        ),
        (
            &["skills", "read", "poetry", "../../outside.md"],
            "skill.invalid_request",
        ),
        (
            &["skills", "read", "poetry", "/etc/passwd"],
            "skill.invalid_request",
        ),
        (
            &["skills", "read", "poetry", "refs"],
            "skill.path_is_folder",
        ),
        (
            &["skills", "read", "poetry", "missing.md"],
            "skill.not_found",
        ),
        (
            &["skills", "move", "poetry", "../escape"],
            "skill.name_invalid",
        ),
        (
            &["skills", "move", "poetry", "Poetry"],
            "skill.name_invalid",
        ),
        (
            &["skills", "remove", "../../skills"],
            "skill.invalid_request",
        ),
        (
            &["skills", "export", "../poetry", "/tmp/never"],
            "skill.invalid_request",
        ),
        (
            &["skills", "show", "poetry", "--scope", "planet:mars"],
            "skill.invalid_scope",
        ),
        (
            &["skills", "show", "poetry", "--scope", "profile:Bad Id"],
            "skill.invalid_scope",
        ),
    ];
    for (args, code) in cases {
        let mut args = args.to_vec();
        args.push("--json");
        let (status, _, stderr) = run(&fx, &args);
        assert_eq!(
            (status, error_code(&stderr)),
            (2, (*code).to_owned()),
            "{args:?}"
        );
    }
    for path in [
        "../escape.md",
        "/abs.md",
        "refs/../../escape.md",
        ".git/config",
    ] {
        let (status, _, stderr) =
            run_with_stdin(&fx, &["skills", "write", "poetry", path, "--json"], "x");
        assert_eq!(status, 2, "{path}: {stderr}");
        let code = error_code(&stderr);
        assert!(
            code == "skill.invalid_request" || code == "skill.package_invalid",
            "{path}: {code}"
        );
    }
    assert!(!src.path().join("escape.md").exists());
    assert_eq!(fs::read_to_string(&outside).unwrap(), "secret\n");

    // A second skill takes the name: a move onto it is refused.
    let other = skill_source(src.path(), "verse");
    assert_eq!(
        run(&fx, &["skills", "import", other.to_str().unwrap()]).0,
        0
    );
    let (status, _, stderr) = run(&fx, &["skills", "move", "poetry", "verse", "--json"]);
    assert_eq!(
        (status, error_code(&stderr).as_str()),
        (2, "skill.already_exists")
    );
    assert_eq!(skill_names(&fx), ["global:poetry", "global:verse"]);
}

#[test]
fn hostile_archives_are_refused_with_their_code() {
    let fx = Fixture::new();
    let dir = tempfile::tempdir().unwrap();
    let skill_md: &[u8] = b"---\nname: bomb\ndescription: d\n---\n";
    let mut cases: Vec<(PathBuf, &str)> = Vec::new();

    let traversal = dir.path().join("traversal.zip");
    zip_of(
        &traversal,
        &[("SKILL.md", skill_md), ("../../evil.md", b"x")],
    );
    cases.push((traversal, "skill.archive_unsafe_entry"));
    let absolute = dir.path().join("absolute.zip");
    zip_of(&absolute, &[("SKILL.md", skill_md), ("/tmp/evil.md", b"x")]);
    cases.push((absolute, "skill.archive_unsafe_entry"));

    let link = dir.path().join("link.skill");
    let mut out = zip::ZipWriter::new(fs::File::create(&link).unwrap());
    out.start_file("SKILL.md", zip::write::SimpleFileOptions::default())
        .unwrap();
    std::io::Write::write_all(&mut out, skill_md).unwrap();
    out.add_symlink(
        "passwd",
        "/etc/passwd",
        zip::write::SimpleFileOptions::default(),
    )
    .unwrap();
    out.finish().unwrap();
    cases.push((link, "skill.archive_link"));

    // One entry inflating past the 16 MiB a skill file may hold.
    let big_entry = dir.path().join("entry-bomb.zip");
    let zeros = vec![0u8; 16 * 1024 * 1024 + 1];
    zip_of(&big_entry, &[("SKILL.md", skill_md), ("zeros.bin", &zeros)]);
    assert!(fs::metadata(&big_entry).unwrap().len() < 1024 * 1024);
    cases.push((big_entry.clone(), "skill.archive_entry_too_large"));

    // Seventeen entries of 16 MiB each: every one allowed, more than 256 MiB in all.
    let total = dir.path().join("total-bomb.zip");
    let full = vec![0u8; 16 * 1024 * 1024];
    let one = dir.path().join("one.zip");
    zip_of(&one, &[("SKILL.md", skill_md), ("zeros-0.bin", &full)]);
    let mut source = zip::ZipArchive::new(fs::File::open(&one).unwrap()).unwrap();
    let mut out = zip::ZipWriter::new(fs::File::create(&total).unwrap());
    out.raw_copy_file(source.by_index_raw(0).unwrap()).unwrap();
    for n in 0..17 {
        out.raw_copy_file_rename(source.by_index_raw(1).unwrap(), format!("zeros-{n}.bin"))
            .unwrap();
    }
    out.finish().unwrap();
    cases.push((total, "skill.archive_too_large"));

    let many = dir.path().join("many.zip");
    let names: Vec<String> = (0..2001).map(|n| format!("f{n}.md")).collect();
    let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b""[..])).collect();
    zip_of(&many, &entries);
    cases.push((many, "skill.archive_too_many_entries"));

    let garbage = dir.path().join("garbage.zip");
    fs::write(&garbage, "this is not a zip archive").unwrap();
    cases.push((garbage, "skill.archive_invalid"));

    let no_skill = dir.path().join("no-skill.zip");
    zip_of(&no_skill, &[("README.md", b"hello")]);
    cases.push((no_skill, "skill.skill_md_missing"));

    for (archive, code) in &cases {
        for preview in [true, false] {
            let mut args = vec!["skills", "import", archive.to_str().unwrap(), "--json"];
            if preview {
                args.push("--preview");
            }
            let (status, _, stderr) = run(&fx, &args);
            assert_eq!(
                (status, error_code(&stderr)),
                (2, (*code).to_owned()),
                "{archive:?}"
            );
        }
    }
    assert!(skill_names(&fx).is_empty());
    assert!(!dir.path().join("evil.md").exists() && !Path::new("/tmp/evil.md").exists());
    // Nothing unpacked is left behind.
    let staging = fx.path().join("_tauritavern/skills/.staging");
    let left: Vec<_> = fs::read_dir(&staging)
        .map(|entries| entries.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_broken_skill_is_shown_with_its_reason() {
    let fx = with_skills("tauritavern-v2");
    let broken = fx
        .path()
        .join("_tauritavern/skills/installed/global/half-written");
    fs::create_dir_all(&broken).unwrap();
    fs::write(
        broken.join("SKILL.md"),
        "---\nname: half-written\ndescription: [unclosed\n---\n",
    )
    .unwrap();
    let (code, stdout, stderr) = run(&fx, &["skills", "show", "half-written"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert!(
        stdout.starts_with("half-written (global)\n\nFILE"),
        "{stdout}"
    );
    assert!(stdout.contains("skill.front_matter_invalid: global/half-written: the front matter of SKILL.md is not valid YAML"), "{stdout}");
    let (code, stdout, _) = run(&fx, &["skills", "list"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("skill.front_matter_invalid: global/half-written"),
        "{stdout}"
    );
    // It can be repaired in place, and is then indexed and listed.
    let (code, _, stderr) = run_with_stdin(
        &fx,
        &["skills", "write", "half-written", "SKILL.md"],
        "---\nname: half-written\ndescription: Fixed.\n---\n",
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    let (_, stdout, _) = run(&fx, &["skills", "show", "half-written", "--json"]);
    let shown: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (shown["description"].as_str(), &shown["problems"]),
        (Some("Fixed."), &json!([]))
    );
}
