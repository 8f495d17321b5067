//! `skills list | show | import | export | read | write | move | remove`: the skill store
//! of the data directory, managed from the command line. Every check (names, paths,
//! archives, front matter) is the store's; this module picks the scope and renders.

use std::io::{self, Read, Write};
use std::path::Path;

use agent_application::ports::{SkillRef, SkillScope, SkillStore as _, StoreError};
use agent_application::skills::{SkillCatalog, skill_catalog};
use agent_domain::workspace::WorkspacePath;
use agent_infra_fs::skills::{FsSkillStore, ImportPreview, SkillDetails};
use serde_json::json;

use crate::cli::{SkillScopeArg, SkillsCommand};
use crate::exit::{CmdResult, Exit, Failed, OrCode, codes};
use crate::input::MAX_INPUT_BYTES;
use crate::render::{json, table};
use crate::wiring::Host;

/// The widest description shown in the table.
const DESCRIPTION_WIDTH: usize = 72;
/// The file a skill is read from when none is named.
const SKILL_FILE: &str = "SKILL.md";

pub async fn execute(host: &Host, command: SkillsCommand) -> CmdResult {
    let store = host.storage.skills.as_ref();
    match command {
        SkillsCommand::List { json } => {
            let catalog = skill_catalog(store).await.map_err(store_error)?;
            if json {
                json::print_pretty(&catalog)?;
            } else {
                print!("{}", render(&catalog));
            }
        }
        SkillsCommand::Show { name, scope, json } => {
            let details = store
                .details(&skill(&scope, name)?)
                .await
                .map_err(store_error)?;
            if json {
                json::print_pretty(&details)?;
            } else {
                print!("{}", render_details(&details));
            }
        }
        SkillsCommand::Import {
            path,
            scope,
            preview,
            replace,
            json,
        } => return import(store, &path, &parse_scope(&scope)?, preview, replace, json).await,
        SkillsCommand::Export {
            name,
            dest,
            scope,
            json,
        } => {
            let skill = skill(&scope, name)?;
            store.export(&skill, &dest).await.map_err(store_error)?;
            let shown = dest.display().to_string();
            done(
                json,
                &json!({"name": skill.name, "exportedTo": shown}),
                || format!("exported skill {} to {shown}", skill.name),
            )?;
        }
        SkillsCommand::Read {
            name,
            file,
            scope,
            json,
        } => {
            let skill = skill(&scope, name)?;
            let path = skill_path(file.as_deref().unwrap_or(SKILL_FILE))?;
            let read = store.read_file(&skill, &path).await.map_err(store_error)?;
            let Some(text) = read.text else {
                return Err(Failed::new(
                    Exit::Failure,
                    "skill.file_not_text",
                    format!("{skill}: {path} is not UTF-8 text; export the skill to get its bytes"),
                ));
            };
            if json {
                json::print_pretty(&json!({"scope": skill.scope, "name": skill.name,
                    "path": path, "sha256": read.sha256, "text": text}))?;
            } else {
                io::stdout()
                    .lock()
                    .write_all(text.as_bytes())
                    .or_code(Exit::Failure, codes::OUTPUT_FAILED)?;
            }
        }
        SkillsCommand::Write {
            name,
            file,
            scope,
            json,
        } => {
            let skill = skill(&scope, name)?;
            let path = skill_path(&file)?;
            let content = read_stdin()?;
            let bytes = content.len();
            store
                .write_file(&skill, &path, content)
                .await
                .map_err(store_error)?;
            done(
                json,
                &json!({"name": skill.name, "path": path, "bytes": bytes}),
                || format!("wrote {bytes} bytes to {path} of skill {}", skill.name),
            )?;
        }
        SkillsCommand::Move {
            name,
            new_name,
            scope,
            json,
        } => {
            let skill = skill(&scope, name)?;
            store.rename(&skill, &new_name).await.map_err(store_error)?;
            done(
                json,
                &json!({"name": skill.name, "newName": new_name}),
                || format!("renamed skill {} to {new_name}", skill.name),
            )?;
        }
        SkillsCommand::Remove { name, scope, json } => {
            let skill = skill(&scope, name)?;
            store
                .remove(&skill.scope, &skill.name)
                .await
                .map_err(store_error)?;
            done(json, &json!({"name": skill.name, "removed": true}), || {
                format!("removed skill {} ({})", skill.name, skill.scope.label())
            })?;
        }
    }
    Ok(Exit::Ok)
}

/// `import`: the preview always, then the install unless `--preview`.
async fn import(
    store: &FsSkillStore,
    path: &Path,
    scope: &SkillScope,
    preview_only: bool,
    replace: bool,
    json: bool,
) -> CmdResult {
    let preview = store
        .preview_import(scope, path)
        .await
        .map_err(store_error)?;
    if !json {
        print!("{}", render_preview(&preview));
    }
    let installed = if preview_only {
        false
    } else {
        store
            .import(scope, path, replace)
            .await
            .map_err(store_error)?;
        true
    };
    if json {
        json::print_pretty(&json!({"preview": preview, "installed": installed}))?;
    } else if installed {
        println!("installed skill {} ({})", preview.name, scope.label());
    }
    Ok(Exit::Ok)
}

/// Prints the JSON `value`, or the line `text` makes.
fn done(json: bool, value: &serde_json::Value, text: impl FnOnce() -> String) -> CmdResult<()> {
    if json {
        json::print_compact(value)
    } else {
        println!("{}", text());
        Ok(())
    }
}

/// The scope of `--scope`; a usage error when it is not a scope label.
fn parse_scope(arg: &SkillScopeArg) -> CmdResult<SkillScope> {
    SkillScope::from_label(&arg.scope).ok_or_else(|| {
        Failed::new(
            Exit::Usage,
            "skill.invalid_scope",
            format!(
                "`{}` is not a scope: use global, preset:<apiId>:<name>, profile:<id> or \
                 character:<id>",
                arg.scope
            ),
        )
    })
}

fn skill(scope: &SkillScopeArg, name: String) -> CmdResult<SkillRef> {
    Ok(SkillRef::new(parse_scope(scope)?, name))
}

/// A file path inside a skill, validated as the skill tools validate theirs.
fn skill_path(raw: &str) -> CmdResult<WorkspacePath> {
    WorkspacePath::parse(raw).map_err(|err| {
        Failed::new(
            Exit::Usage,
            "skill.invalid_request",
            format!("`{raw}` is not a path inside a skill: {err}"),
        )
    })
}

/// Standard input, at most [`MAX_INPUT_BYTES`] (the most one skill file may hold).
fn read_stdin() -> CmdResult<Vec<u8>> {
    let mut content = Vec::new();
    io::stdin()
        .lock()
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut content)
        .or_code(Exit::Failure, "cli.file_unreadable")?;
    if content.len() as u64 > MAX_INPUT_BYTES {
        return Err(Failed::new(
            Exit::Usage,
            "cli.file_too_large",
            format!("standard input holds more than {MAX_INPUT_BYTES} bytes (16 MiB)"),
        ));
    }
    Ok(content)
}

/// The table of skills, then the problems, one per line, each starting with its code.
fn render(catalog: &SkillCatalog) -> String {
    let mut out = String::new();
    if catalog.skills.is_empty() {
        out.push_str("no skills installed\n");
    } else {
        let rows: Vec<Vec<String>> = catalog
            .skills
            .iter()
            .map(|skill| {
                vec![
                    skill.name.clone(),
                    skill.scope.label(),
                    table::truncate(&first_line(&skill.description), DESCRIPTION_WIDTH),
                ]
            })
            .collect();
        out.push_str(&table::render(&["NAME", "SCOPE", "DESCRIPTION"], &rows));
    }
    out.push_str(&render_problems(&catalog.problems));
    out
}

/// The first line of a description, with `…` when more follows.
fn first_line(description: &str) -> String {
    let first = description.lines().next().unwrap_or_default();
    if description.contains('\n') {
        format!("{first}…")
    } else {
        first.to_owned()
    }
}

fn render_problems(problems: &[agent_application::ports::SkillProblem]) -> String {
    if problems.is_empty() {
        return String::new();
    }
    let count = problems.len();
    let noun = if count == 1 { "problem" } else { "problems" };
    let mut out = format!("\n{count} {noun}:\n");
    for problem in problems {
        out.push_str(&format!("{problem}\n"));
    }
    out
}

fn render_files(files: &[agent_infra_fs::skills::SkillFileSize]) -> String {
    let rows: Vec<Vec<String>> = files
        .iter()
        .map(|file| vec![file.path.clone(), file.bytes.to_string()])
        .collect();
    table::render(&["FILE", "BYTES"], &rows)
}

fn render_details(details: &SkillDetails) -> String {
    let mut out = format!("{} ({})\n", details.name, details.scope.label());
    let facts = [
        ("description", details.description.clone()),
        ("license", details.license.clone()),
        ("author", details.author.clone()),
        ("version", details.version.clone()),
        (
            "tags",
            (!details.tags.is_empty()).then(|| details.tags.join(", ")),
        ),
        ("installed at", details.installed_at.clone()),
        ("hash", details.installed_hash.clone()),
    ];
    for (label, value) in facts {
        if let Some(value) = value {
            out.push_str(&format!("{label}: {}\n", first_line(&value)));
        }
    }
    out.push('\n');
    out.push_str(&render_files(&details.files));
    out.push_str(&render_problems(&details.problems));
    out
}

fn render_preview(preview: &ImportPreview) -> String {
    let mut out = format!(
        "skill {} ({}): {}\n{} files, {} bytes{}{}\n\n",
        preview.name,
        preview.scope.label(),
        first_line(&preview.description),
        preview.files.len(),
        preview.total_bytes,
        if preview.has_scripts {
            ", has scripts"
        } else {
            ""
        },
        if preview.has_binary {
            ", has binary files"
        } else {
            ""
        },
    );
    out.push_str(&render_files(&preview.files));
    if let Some(conflict) = &preview.conflict {
        out.push_str(&format!(
            "\nconflict: skill {} is already installed in {}{}; import with --replace to \
             replace it\n",
            preview.name,
            preview.scope.label(),
            if conflict.identical {
                " with the same files"
            } else {
                ""
            },
        ));
    }
    out
}

/// A store refusal, with its code: a missing skill, a taken name or bad input is a usage
/// error (exit 2), anything else a failure (exit 1).
fn store_error(error: StoreError) -> Failed {
    match error {
        StoreError::NotFound(what) => {
            Failed::new(Exit::Usage, "skill.not_found", format!("{what} not found"))
        }
        StoreError::AlreadyExists(what) => Failed::new(
            Exit::Usage,
            "skill.already_exists",
            format!("{what} already exists"),
        ),
        invalid @ StoreError::Invalid { .. } => Failed::of(Exit::Usage, &invalid),
        other => Failed::of(Exit::Failure, &other),
    }
}
