//! `connections add | list | show | remove`, over the connection store.
//!
//! Keys are never read here beyond asking whether a connection's variable is set: output
//! says `set` or `unset`, never the value, and credential-looking header values are masked.

use agent_application::ports::{ConnectionStore, EnvironmentVariables, StoreError};
use agent_domain::connection::{
    ConnectionConfig, ConnectionError, ConnectionName, ConnectionTransport, ProviderFormat,
    headers_from_args, params_from_args,
};
use serde::Serialize;
use serde_json::json;

use agent_infra_fs::environment::ProcessEnvironment;

use crate::cli::{ConnectionAddArgs, ConnectionsCommand};
use crate::exit::{CmdResult, Exit, Failed};
use crate::render::{json, table};
use crate::wiring::Host;

pub async fn execute(host: &Host, command: ConnectionsCommand) -> CmdResult {
    let store: &dyn ConnectionStore = host.storage.connections.as_ref();
    match command {
        ConnectionsCommand::Add(args) => add(store, args).await?,
        ConnectionsCommand::List { json } => list(store, json).await?,
        ConnectionsCommand::Show { name, json } => show(store, &name, json).await?,
        ConnectionsCommand::Remove { name, json } => {
            store.remove(&name).await.map_err(store_error)?;
            if json {
                json::print_compact(&json!({"name": name, "removed": true}))?;
            } else {
                println!("connection {name} removed");
            }
        }
    }
    Ok(Exit::Ok)
}

/// A connection as printed: the record, masked, plus whether its key variable is set.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ConnectionView {
    #[serde(flatten)]
    record: ConnectionConfig,
    api_key_set: bool,
}

impl ConnectionView {
    fn of(config: &ConnectionConfig) -> Self {
        Self {
            record: config.redacted(),
            api_key_set: key_is_set(config),
        }
    }
}

/// Whether the key variable is set to something (an empty one counts as unset).
fn key_is_set(config: &ConnectionConfig) -> bool {
    config
        .api_key_env
        .as_deref()
        .is_some_and(|var| ProcessEnvironment.is_set(var))
}

/// `set` / `unset` for a connection with a key variable, `-` for one without.
fn key_state(config: &ConnectionConfig) -> &'static str {
    match (&config.api_key_env, key_is_set(config)) {
        (None, _) => "-",
        (Some(_), true) => "set",
        (Some(_), false) => "unset",
    }
}

async fn add(store: &dyn ConnectionStore, args: ConnectionAddArgs) -> CmdResult<()> {
    let config = config_of(&args).map_err(rule_error)?;
    let saved = if args.force {
        store.replace(&config).await
    } else {
        store.create(&config).await
    };
    saved.map_err(store_error)?;
    for header in config.headers.iter().filter(|h| h.is_sensitive()) {
        eprintln!(
            "note: header `{}` is stored in clear text in the connection file; keys belong \
             in --api-key-env",
            header.name
        );
    }
    if let Some(var) = &config.api_key_env
        && !key_is_set(&config)
    {
        eprintln!(
            "note: ${var} is not set in this environment; set it before running with this \
             connection"
        );
    }
    if args.json {
        json::print_pretty(&config.redacted())?;
    } else {
        println!("connection {} saved", config.name);
    }
    Ok(())
}

/// The connection the arguments describe, checked by the connection rules. The name is
/// checked first: it is what every later message refers to.
fn config_of(args: &ConnectionAddArgs) -> Result<ConnectionConfig, ConnectionError> {
    ConnectionName::parse(&args.name)?;
    let format = ProviderFormat::parse(&args.format)?;
    let mut config = ConnectionConfig::new(args.name.clone(), format, args.model.clone());
    config.base_url = args.base_url.clone().filter(|url| !url.is_empty());
    config.api_key_env = args.api_key_env.clone();
    config.dialect = args.dialect.clone();
    config.request_timeout_secs = args.timeout_secs;
    config.stream = args.stream;
    config.transport = args.transport;
    config.headers = headers_from_args(&args.headers)?;
    config.params = params_from_args(&args.params)?;
    config.validate()?;
    Ok(config)
}

async fn list(store: &dyn ConnectionStore, json: bool) -> CmdResult<()> {
    let listing = store.list().await.map_err(store_error)?;
    for problem in &listing.problems {
        eprintln!(
            "warning: connection file `{}.json` is not usable: {}: {}",
            problem.name, problem.code, problem.message
        );
    }
    if json {
        let views: Vec<ConnectionView> =
            listing.connections.iter().map(ConnectionView::of).collect();
        return json::print_pretty(&views);
    }
    if listing.connections.is_empty() {
        println!("no LLM connections saved; add one with `tavern-agent connections add`");
        return Ok(());
    }
    let rows: Vec<Vec<String>> = listing
        .connections
        .iter()
        .map(|config| {
            vec![
                config.name.clone(),
                config.format.to_string(),
                config.model.clone(),
                config.explicit_base_url().unwrap_or("(default)").to_owned(),
                config.api_key_env.clone().unwrap_or_else(|| "-".to_owned()),
                key_state(config).to_owned(),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(
            &["NAME", "FORMAT", "MODEL", "BASE URL", "KEY VARIABLE", "KEY"],
            &rows
        )
    );
    Ok(())
}

async fn show(store: &dyn ConnectionStore, name: &str, json: bool) -> CmdResult<()> {
    let config = store.get(name).await.map_err(store_error)?.ok_or_else(|| {
        rule_error(ConnectionError::NotFound {
            name: name.to_owned(),
        })
    })?;
    if json {
        return json::print_pretty(&ConnectionView::of(&config));
    }
    let shown = config.redacted();
    let base_url = match shown.explicit_base_url() {
        Some(url) => url.to_owned(),
        None => format!("(default: {})", shown.effective_base_url()),
    };
    let key = match &shown.api_key_env {
        Some(var) => format!("{var} ({})", key_state(&shown)),
        None => "(none; no key is sent)".to_owned(),
    };
    println!("name:          {}", shown.name);
    println!("format:        {}", shown.format);
    println!("model:         {}", shown.model);
    println!("base URL:      {base_url}");
    println!("key variable:  {key}");
    if let Some(dialect) = &shown.dialect {
        println!("dialect:       {dialect}");
    }
    if let Some(secs) = shown.request_timeout_secs {
        println!("timeout:       {secs} s per model call");
    }
    let streaming = if shown.streams() {
        "yes"
    } else {
        "no (answers whole)"
    };
    println!("streaming:     {streaming}");
    if shown.transport() == ConnectionTransport::Websocket {
        println!("transport:     websocket (one socket per invocation)");
    }
    if shown.headers.is_empty() {
        println!("headers:       (none)");
    } else {
        println!("headers:");
        for header in &shown.headers {
            println!("  {}: {}", header.name, header.value);
        }
    }
    if shown.params.is_empty() {
        println!("params:        (none)");
    } else {
        println!("params:");
        for (key, value) in &shown.params {
            println!("  {key} = {value}");
        }
    }
    Ok(())
}

/// A connection rule refused the request: the caller's mistake (exit 2), with its code.
fn rule_error(error: ConnectionError) -> Failed {
    Failed::of(Exit::Usage, &error)
}

/// What the store reported, with its code. A refused request (a bad name, an existing or
/// missing connection, a broken rule) exits 2; a broken file or an I/O fault exits 1.
fn store_error(error: StoreError) -> Failed {
    let exit = match &error {
        StoreError::Invalid { .. } | StoreError::NotFound(_) | StoreError::AlreadyExists(_) => {
            Exit::Usage
        }
        _ => Exit::Failure,
    };
    Failed::of(exit, &error)
}
