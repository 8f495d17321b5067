//! `profiles list | health | repair | show | save | delete | diagnose | system-prompt`,
//! through the profile service.

use agent_application::profiles::{ProfileListing, ProfileServiceError, StorageHealth};
use serde_json::json;

use crate::cli::ProfilesCommand;
use crate::exit::{CmdResult, Exit, Failed, OrCode, codes};
use crate::input::{InputKind, read_input};
use crate::render::{json, table};
use crate::wiring::Host;

pub async fn execute(host: &Host, command: ProfilesCommand) -> CmdResult {
    let profiles = host.profiles();
    match command {
        ProfilesCommand::List { json } => {
            let listings = profiles.list().await.map_err(profile_error)?;
            if json {
                json::print_pretty(&listings)?;
            } else {
                print!("{}", listing_table(&listings));
            }
        }
        ProfilesCommand::Health { json } => {
            let health = profiles.storage_health().await.map_err(profile_error)?;
            if json {
                json::print_pretty(&health)?;
            } else {
                print!("{}", health_text(&health));
            }
            if !health.issues.is_empty() {
                return Ok(Exit::Failure);
            }
        }
        ProfilesCommand::Repair { id, json } => {
            let outcome = profiles.repair(&id).await.map_err(profile_error)?;
            if json {
                json::print_pretty(&outcome)?;
            } else {
                println!("{}: {}", outcome.id, json::name_of(&outcome.repair));
                if let Some(problem) = &outcome.remaining {
                    println!("  still not usable: {}: {}", problem.code, problem.message);
                }
            }
        }
        ProfilesCommand::Show { id, json } => {
            let loaded = profiles.load(&id).await.map_err(profile_error)?;
            if json {
                json::print_compact(&loaded.document)?;
            } else {
                let text = loaded
                    .document
                    .to_json_pretty()
                    .or_code(Exit::Failure, codes::OUTPUT_FAILED)?;
                println!("{text}");
            }
        }
        ProfilesCommand::Save { file, json } => {
            let text = read_input(&file, InputKind::Other)?;
            let summary = profiles.save(&text).await.map_err(profile_error)?;
            if json {
                json::print_pretty(&summary)?;
            } else {
                println!("saved profile {}", summary.id);
            }
        }
        ProfilesCommand::Delete { id, json } => {
            let removed = profiles.delete(&id).await.map_err(profile_error)?;
            if !removed {
                return Err(Failed::new(
                    Exit::Usage,
                    "agent.profile_not_found",
                    format!("no saved profile `{id}`"),
                ));
            }
            if json {
                json::print_compact(&json!({"id": id, "deleted": true}))?;
            } else {
                println!("deleted profile {id}");
            }
        }
        ProfilesCommand::Diagnose { id, json } => {
            let health = profiles.diagnose(&id).await.map_err(profile_error)?;
            if json {
                json::print_pretty(&health)?;
            } else {
                println!("{}: {}", health.profile_id, json::name_of(&health.status));
                for issue in &health.issues {
                    let severity = json::name_of(&issue.severity);
                    println!("  {severity:<7}  {}: {}", issue.code, issue.message);
                }
            }
        }
        ProfilesCommand::SystemPrompt { id, json } => {
            let prompt = profiles
                .system_prompt(id.as_deref())
                .await
                .map_err(profile_error)?;
            if json {
                json::print_compact(&json!({"profileId": id, "systemPrompt": prompt}))?;
            } else {
                println!("{}", prompt.trim_end());
            }
        }
    }
    Ok(Exit::Ok)
}

/// Bad ids, unknown profiles, invalid documents and the read-only built-in are the caller's
/// mistake (exit 2); broken stored files and storage failures are not (exit 1).
pub fn profile_error(error: ProfileServiceError) -> Failed {
    let exit = match &error {
        ProfileServiceError::Profile(_)
        | ProfileServiceError::BuiltinReadonly { .. }
        | ProfileServiceError::RepairNotNeeded { .. }
        | ProfileServiceError::RepairUnavailable { .. } => Exit::Usage,
        other if other.is_not_found() => Exit::Usage,
        _ => Exit::Failure,
    };
    Failed::of(exit, &error)
}

/// One line per stored file that cannot be used, with its suggested repair, and a verdict.
fn health_text(health: &StorageHealth) -> String {
    let mut out = String::new();
    for issue in &health.issues {
        let problem = &issue.problem;
        let fix = match issue.repair {
            Some(repair) => format!(
                "repair: {} (profiles repair {})",
                json::name_of(&repair),
                problem.id
            ),
            None => "repair: by hand (profiles show, then profiles save)".to_owned(),
        };
        out.push_str(&format!(
            "{} {}: {}: {}\n  {fix}\n",
            problem.id,
            json::name_of(&problem.kind),
            problem.code,
            problem.message
        ));
    }
    out.push_str(&format!(
        "{} usable, {} with problems\n",
        health.usable,
        health.issues.len()
    ));
    out
}

fn listing_table(listings: &[ProfileListing]) -> String {
    let rows: Vec<Vec<String>> = listings
        .iter()
        .map(|listing| match listing {
            ProfileListing::Valid(summary) => vec![
                summary.id.to_string(),
                "valid".to_owned(),
                json::name_of(&summary.source),
                json::name_of(&summary.presentation),
                summary.display_name.clone(),
            ],
            ProfileListing::Invalid(problem) => vec![
                problem.id.clone(),
                "invalid".to_owned(),
                "file".to_owned(),
                "-".to_owned(),
                format!("{}: {}", problem.code, problem.message),
            ],
            other => vec![
                other.id().to_owned(),
                "-".into(),
                "-".into(),
                "-".into(),
                "-".into(),
            ],
        })
        .collect();
    table::render(&["ID", "STATUS", "SOURCE", "PRESENTATION", "NAME"], &rows)
}
