//! `mcp add | import | list | show | remove | pause | resume | refresh | tools | permission`,
//! over the MCP management service.
//!
//! A refused request (bad arguments, an unknown server or tool, a taken name) exits 2; a
//! server that cannot be reached or listed, or a storage fault, exits 1. `add` and `import`
//! keep a registration whose first refresh failed (it can be refreshed later).

use agent_application::mcp::{McpServers, McpServiceError, parse_import};
use agent_application::ports::StoreError;
use agent_domain::mcp::{
    McpCatalog, McpRegistration, McpServerStatus, McpToolPermission, McpTransport, McpValue,
    NamedValue,
};
use serde_json::{Value, json};

use crate::cli::{McpAddArgs, McpCommand};
use crate::exit::{CmdResult, Exit, Failed, codes};
use crate::render::{json, table};
use crate::wiring::Host;

pub async fn execute(host: &Host, command: McpCommand) -> CmdResult {
    let servers = host.mcp();
    match command {
        McpCommand::Add(args) => {
            let json = args.json;
            let transport = transport_of(&args)?;
            let registration = servers.add(&args.name, transport).await.map_err(failed)?;
            add_report(&servers, registration, json).await
        }
        McpCommand::Import { file, json } => import(&servers, &file, json).await,
        McpCommand::List { json } => list(&servers, json).await,
        McpCommand::Show { name, json } => show(&servers, &name, json).await,
        McpCommand::Remove { name, json } => {
            let removed = servers.remove(&name).await.map_err(failed)?;
            done(json, &removed, "removed", json!({"removed": true}))
        }
        McpCommand::Pause { name, json } => {
            let paused = servers
                .set_status(&name, McpServerStatus::Paused)
                .await
                .map_err(failed)?;
            done(json, &paused, "paused", json!({"status": "paused"}))
        }
        McpCommand::Resume { name, json } => {
            let resumed = servers
                .set_status(&name, McpServerStatus::Active)
                .await
                .map_err(failed)?;
            done(json, &resumed, "resumed", json!({"status": "active"}))
        }
        McpCommand::Refresh { name, json } => {
            let catalog = servers.refresh(&name).await.map_err(failed)?;
            if json {
                json::print_pretty(&catalog)?;
            } else {
                println!("{name}: {} tools cached", catalog.tools.len());
            }
            Ok(Exit::Ok)
        }
        McpCommand::Tools { name, json } => tools(&servers, &name, json).await,
        McpCommand::Permission {
            name,
            tool,
            permission,
            json,
        } => {
            let parsed = McpToolPermission::parse(&permission).ok_or_else(|| {
                Failed::new(
                    Exit::Usage,
                    codes::USAGE,
                    format!("permission `{permission}` is not off, ask or allow"),
                )
            })?;
            let changed = servers
                .set_permission(&name, &tool, parsed)
                .await
                .map_err(failed)?;
            if json {
                json::print_compact(&json!({"tools": changed, "permission": parsed}))?;
            } else {
                println!(
                    "{name}: {} tool(s) set to {}",
                    changed.len(),
                    parsed.as_str()
                );
            }
            Ok(Exit::Ok)
        }
    }
}

/// The transport the `add` flags describe.
fn transport_of(args: &McpAddArgs) -> CmdResult<McpTransport> {
    if let Some(program) = &args.command {
        let env = args
            .env
            .iter()
            .map(|entry| match entry.split_once('=') {
                Some((name, value)) => named(name, McpValue::Literal(value.to_owned())),
                None => named(entry, McpValue::FromEnv(entry.clone())),
            })
            .collect();
        return Ok(McpTransport::Stdio {
            program: program.clone(),
            args: args.args.clone(),
            env,
            cwd: args.cwd.clone(),
        });
    }
    let url = args.url.clone().unwrap_or_default();
    agent_mcp::check_url(&url).map_err(|error| Failed::of(Exit::Usage, &error))?;
    let mut headers = Vec::new();
    for (raw, from_env) in args
        .headers
        .iter()
        .map(|h| (h, false))
        .chain(args.header_envs.iter().map(|h| (h, true)))
    {
        let Some((name, value)) = raw.split_once('=') else {
            return Err(Failed::new(
                Exit::Usage,
                codes::USAGE,
                format!("header `{raw}` is not NAME=VALUE"),
            ));
        };
        let value = if from_env {
            McpValue::FromEnv(value.to_owned())
        } else {
            McpValue::Literal(value.to_owned())
        };
        headers.push(named(name, value));
    }
    Ok(McpTransport::StreamableHttp { url, headers })
}

fn named(name: &str, value: McpValue) -> NamedValue {
    NamedValue {
        name: name.to_owned(),
        value,
    }
}

/// Prints the new id, then refreshes; a failed refresh keeps the registration and exits 1.
async fn add_report(servers: &McpServers, registration: McpRegistration, json: bool) -> CmdResult {
    let refreshed = servers.refresh(&registration.id).await;
    if json {
        let (tools, error) = match &refreshed {
            Ok(catalog) => (Some(catalog.tools.len()), None),
            Err(error) => (None, Some(error_json(error))),
        };
        json::print_pretty(&json!({
            "id": registration.id,
            "name": registration.display_name,
            "tools": tools,
            "refreshError": error,
        }))?;
    } else {
        println!("{}", registration.id);
        if let Ok(catalog) = &refreshed {
            eprintln!(
                "MCP server {} added with {} tools, all off; allow them with `tavern-agent mcp \
                 permission {} TOOL allow`",
                registration.display_name,
                catalog.tools.len(),
                registration.id
            );
        }
    }
    match refreshed {
        Ok(_) => Ok(Exit::Ok),
        Err(error) => {
            let mut failure = failed(error);
            failure.message = format!(
                "{} (the registration was saved; retry with `tavern-agent mcp refresh {}`)",
                failure.message, registration.display_name
            );
            Err(failure)
        }
    }
}

fn error_json(error: &McpServiceError) -> Value {
    use agent_domain::ErrorCode;
    json!({"code": error.code(), "message": error.to_string()})
}

/// `import`: every server of the file is checked (URLs by the MCP client's rule) before
/// any is registered; then each is added and refreshed, one failing not stopping the rest.
async fn import(servers: &McpServers, file: &std::path::Path, json: bool) -> CmdResult {
    let text = std::fs::read_to_string(file).map_err(|error| {
        Failed::new(
            Exit::Usage,
            "mcp.import_invalid",
            format!("cannot read {}: {error}", file.display()),
        )
    })?;
    let planned = parse_import(&text).map_err(|error| {
        Failed::new(
            Exit::Usage,
            "mcp.import_invalid",
            format!("{}: {error}", file.display()),
        )
    })?;
    for (_, transport) in &planned {
        if let McpTransport::StreamableHttp { url, .. } = transport {
            agent_mcp::check_url(url).map_err(|error| Failed::of(Exit::Usage, &error))?;
        }
    }
    let report = servers.import(planned).await;
    if json {
        json::print_pretty(&report)?;
    } else {
        for entry in &report {
            let name = &entry.name;
            match (&entry.id, entry.tools, &entry.refresh_error, &entry.error) {
                (Some(id), Some(tools), _, _) => {
                    println!("{name}: added as {id} with {tools} tools (all off)");
                }
                (Some(id), _, Some(error), _) => {
                    println!("{name}: added as {id}; refresh failed: {}", error.message);
                }
                (_, _, _, error) => println!(
                    "{name}: not added: {}",
                    error
                        .as_ref()
                        .map(|e| e.message.as_str())
                        .unwrap_or_default()
                ),
            }
        }
    }
    let complete = report.iter().all(|entry| entry.complete());
    Ok(if complete { Exit::Ok } else { Exit::Failure })
}

fn transport_label(transport: &McpTransport) -> String {
    match transport {
        McpTransport::Stdio { program, args, .. } => {
            let mut line = format!("stdio: {program}");
            for arg in args {
                line.push(' ');
                line.push_str(arg);
            }
            line
        }
        McpTransport::StreamableHttp { url, .. } => format!("http: {url}"),
    }
}

fn status_label(status: McpServerStatus) -> &'static str {
    match status {
        McpServerStatus::Active => "active",
        McpServerStatus::Paused => "paused",
    }
}

async fn list(servers: &McpServers, json: bool) -> CmdResult {
    let listing = servers.list().await.map_err(failed)?;
    for problem in &listing.problems {
        eprintln!(
            "warning: MCP registration `{}.json` is not usable: {}: {}",
            problem.id, problem.code, problem.message
        );
    }
    if json {
        json::print_pretty(&json!({
            "servers": listing.registrations,
            "problems": listing.problems,
        }))?;
        return Ok(Exit::Ok);
    }
    if listing.registrations.is_empty() {
        println!("no MCP servers registered; add one with `tavern-agent mcp add`");
        return Ok(Exit::Ok);
    }
    let rows: Vec<Vec<String>> = listing
        .registrations
        .iter()
        .map(|r| {
            vec![
                r.display_name.clone(),
                r.id.clone(),
                status_label(r.status).to_owned(),
                transport_label(&r.transport),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(&["NAME", "ID", "STATUS", "TRANSPORT"], &rows)
    );
    Ok(Exit::Ok)
}

async fn show(servers: &McpServers, name: &str, json: bool) -> CmdResult {
    let (registration, catalog) = servers.show(name).await.map_err(failed)?;
    if json {
        json::print_pretty(&json!({"server": registration, "catalog": catalog}))?;
        return Ok(Exit::Ok);
    }
    println!("name:       {}", registration.display_name);
    println!("id:         {}", registration.id);
    println!("status:     {}", status_label(registration.status));
    println!("transport:  {}", transport_label(&registration.transport));
    let entries = match &registration.transport {
        McpTransport::Stdio { env, .. } => env,
        McpTransport::StreamableHttp { headers, .. } => headers,
    };
    for entry in entries {
        match &entry.value {
            McpValue::Literal(_) => println!("  {} (set)", entry.name),
            McpValue::FromEnv(var) => println!("  {} (from ${var})", entry.name),
        }
    }
    print_catalog(&registration, catalog.as_ref());
    Ok(Exit::Ok)
}

fn print_catalog(registration: &McpRegistration, catalog: Option<&McpCatalog>) {
    match catalog {
        None => println!("catalog:    not cached (run `tavern-agent mcp refresh`)"),
        Some(catalog) => {
            println!(
                "catalog:    {} tools, refreshed {}",
                catalog.tools.len(),
                catalog.refreshed_at
            );
            for tool in &catalog.tools {
                println!(
                    "  {:<6} {}",
                    registration.permission(&tool.name).as_str(),
                    tool.name
                );
            }
        }
    }
}

async fn tools(servers: &McpServers, name: &str, json: bool) -> CmdResult {
    let tools = servers.tools(name).await.map_err(failed)?;
    if json {
        json::print_pretty(&tools)?;
        return Ok(Exit::Ok);
    }
    let rows: Vec<Vec<String>> = tools
        .iter()
        .map(|t| {
            vec![
                t.tool_id.clone(),
                t.alias.clone(),
                t.permission.as_str().to_owned(),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(&["TOOL ID", "ALIAS", "PERMISSION"], &rows)
    );
    Ok(Exit::Ok)
}

/// The confirmation of a one-server change.
fn done(json: bool, registration: &McpRegistration, verb: &str, extra: Value) -> CmdResult {
    if json {
        let mut value = json!({"id": registration.id, "name": registration.display_name});
        if let (Value::Object(out), Value::Object(extra)) = (&mut value, extra) {
            out.extend(extra);
        }
        json::print_compact(&value)?;
    } else {
        println!("MCP server {} {verb}", registration.display_name);
    }
    Ok(Exit::Ok)
}

/// A refused request exits 2; an unreachable server or a storage fault exits 1.
fn failed(error: McpServiceError) -> Failed {
    let exit = match &error {
        McpServiceError::Server(_)
        | McpServiceError::Store(
            StoreError::Io(_) | StoreError::Integrity(_) | StoreError::Damaged { .. },
        ) => Exit::Failure,
        _ => Exit::Usage,
    };
    Failed::of(exit, &error)
}
