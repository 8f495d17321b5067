//! The layering check (`docs/ARCHITECTURE.md`): crate dependency rules over `cargo metadata`, plus a
//! scan of the pure crates' sources for I/O, processes and clock reads.
//!
//! [`run`] does the I/O (runs `cargo metadata`, reads source files); the rules themselves are
//! pure functions in [`rules`] and [`source_scan`] over the model in [`metadata`].

pub mod metadata;
pub mod rules;
pub mod source_scan;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{Context, Result, bail};

use metadata::{Package, Workspace};
use rules::{CrateRule, FORBIDDEN_SOURCE_PATTERNS, RULES, Violation};

/// Runs the layering check on the workspace of `manifest_path`; prints every violation and
/// fails if there is any.
pub fn run(manifest_path: &Path, offline: bool) -> Result<()> {
    let ws = load_workspace(manifest_path, offline)?;
    let violations = check(&ws, RULES)?;
    if violations.is_empty() {
        println!(
            "layering: ok ({} rules over {} workspace crates)",
            RULES.len(),
            ws.packages.len()
        );
        return Ok(());
    }
    for violation in &violations {
        eprintln!("layering violation: {violation}");
    }
    bail!(
        "layering check failed with {} violation(s); see docs/ARCHITECTURE.md",
        violations.len()
    )
}

/// Runs `cargo metadata --format-version 1 --no-deps` and parses it.
pub fn load_workspace(manifest_path: &Path, offline: bool) -> Result<Workspace> {
    let mut command = crate::cargo();
    command
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--manifest-path",
        ])
        .arg(manifest_path)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    if offline {
        command.arg("--offline");
    }
    let output = command.output().context("could not run `cargo metadata`")?;
    if !output.status.success() {
        bail!(
            "`cargo metadata` for {} exited with {}",
            manifest_path.display(),
            output.status
        );
    }
    let json = String::from_utf8(output.stdout).context("cargo metadata output is not UTF-8")?;
    metadata::parse_metadata(&json)
}

/// All violations of `rules` in `ws`: unknown crates, dependencies, then sources.
pub fn check(ws: &Workspace, rules: &[CrateRule]) -> Result<Vec<Violation>> {
    let mut violations = rules::unknown_crates(ws, rules);
    violations.extend(rules::check_dependencies(ws, rules));
    for rule in rules.iter().filter(|r| r.scan_sources) {
        if let Some(package) = ws.package(rule.krate) {
            violations.extend(scan_package(ws, package)?);
        }
    }
    Ok(violations)
}

/// Scans every `.rs` file under the package's `src/` (except under `tests/` or `benches/`
/// directories and the files of `#[cfg(test)] mod name;` modules).
fn scan_package(ws: &Workspace, package: &Package) -> Result<Vec<Violation>> {
    let mut files = Vec::new();
    collect_rust_files(&package.dir().join("src"), &mut files)?;
    files.sort();

    let mut scanned = Vec::new();
    let mut test_module_paths = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file)
            .with_context(|| format!("could not read {}", file.display()))?;
        let scan = source_scan::scan_source(&text, FORBIDDEN_SOURCE_PATTERNS);
        let base = child_module_dir(&file);
        test_module_paths.extend(scan.test_modules.iter().map(|m| base.join(m)));
        scanned.push((file, text, scan));
    }

    let mut violations = Vec::new();
    for (file, text, scan) in scanned {
        if is_test_module_file(&file, &test_module_paths) {
            continue;
        }
        let lines: Vec<&str> = text.lines().collect();
        let shown = file.strip_prefix(&ws.root).unwrap_or(&file).to_path_buf();
        for hit in scan.hits {
            violations.push(Violation::Source {
                file: shown.clone(),
                line: hit.line,
                pattern: hit.pattern,
                krate: package.name.clone(),
                text: lines.get(hit.line - 1).map_or("", |l| l.trim()).to_owned(),
            });
        }
    }
    Ok(violations)
}

fn collect_rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    let entries = fs::read_dir(dir).with_context(|| format!("could not list {}", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            let exempt = matches!(
                path.file_name().and_then(|n| n.to_str()),
                Some("tests" | "benches")
            );
            if !exempt {
                collect_rust_files(&path, out)?;
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// The directory holding the files of `file`'s child modules: `src/a/` for `src/a.rs`, and
/// the file's own directory for `mod.rs`, `lib.rs` and `main.rs`.
fn child_module_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new("."));
    match (file.file_name().and_then(|n| n.to_str()), file.file_stem()) {
        (Some("mod.rs" | "lib.rs" | "main.rs"), _) | (_, None) => parent.to_path_buf(),
        (_, Some(stem)) => parent.join(stem),
    }
}

/// Whether `file` is `<m>.rs` or lies under `<m>/` for a test-only module path `m`.
fn is_test_module_file(file: &Path, test_module_paths: &[PathBuf]) -> bool {
    test_module_paths
        .iter()
        .any(|m| file == m.with_extension("rs") || file.starts_with(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_module_dirs() {
        assert_eq!(
            child_module_dir(Path::new("/c/src/lib.rs")),
            Path::new("/c/src")
        );
        assert_eq!(
            child_module_dir(Path::new("/c/src/a/mod.rs")),
            Path::new("/c/src/a")
        );
        assert_eq!(
            child_module_dir(Path::new("/c/src/a.rs")),
            Path::new("/c/src/a")
        );
    }

    #[test]
    fn files_of_test_modules_are_exempt() {
        let modules = [PathBuf::from("/c/src/tool/fixtures")];
        assert!(is_test_module_file(
            Path::new("/c/src/tool/fixtures.rs"),
            &modules
        ));
        assert!(is_test_module_file(
            Path::new("/c/src/tool/fixtures/mod.rs"),
            &modules
        ));
        assert!(is_test_module_file(
            Path::new("/c/src/tool/fixtures/x.rs"),
            &modules
        ));
        assert!(!is_test_module_file(
            Path::new("/c/src/tool/gate.rs"),
            &modules
        ));
    }

    #[test]
    fn scans_a_crate_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let src = root.join("crates/agent-domain/src");
        fs::create_dir_all(src.join("tool/tests")).unwrap();
        fs::create_dir_all(src.join("tool/fixtures")).unwrap();
        fs::write(src.join("lib.rs"), "pub mod tool;\n").unwrap();
        fs::write(
            src.join("tool.rs"),
            "#[cfg(test)]\nmod fixtures;\n\npub fn f() {\n    let _ = std::fs::read(\"x\");\n}\n",
        )
        .unwrap();
        fs::write(src.join("tool/fixtures.rs"), "use std::fs;\n").unwrap();
        fs::write(src.join("tool/fixtures/more.rs"), "use std::fs;\n").unwrap();
        fs::write(src.join("tool/tests/t.rs"), "use std::fs;\n").unwrap();

        let ws = Workspace {
            root: root.to_path_buf(),
            packages: vec![Package {
                name: "agent-domain".to_owned(),
                manifest_path: root.join("crates/agent-domain/Cargo.toml"),
                dependencies: vec![],
                targets: vec![],
            }],
        };
        let messages: Vec<String> = check(&ws, &RULES[..1])
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].starts_with("crates/agent-domain/src/tool.rs:5: `std::fs`"),
            "{}",
            messages[0]
        );
        assert!(
            messages[0].ends_with("let _ = std::fs::read(\"x\");"),
            "{}",
            messages[0]
        );
    }
}
