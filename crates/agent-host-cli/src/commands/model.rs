//! The model of a run: `--script`, else `--connection`, else the profile's own binding
//! (`docs/cli.md`). Everything that can be wrong with the choice (an unknown connection, an unset
//! key variable, a format this build cannot speak) is found here, before a run exists, and
//! exits 2.

use std::env;
use std::sync::Arc;

use agent_application::ports::{ConnectionStore, ModelGateway, StoreError};
use agent_application::runtime::ModelLabel;
use agent_application::runtime::{ModelBindError, ModelBinder, RunModel};
use agent_domain::ErrorCode;
use agent_domain::connection::{ConnectionConfig, ConnectionName};
use agent_domain::event::{ModelBindingMode, ModelBindingResolvedPayload, ROOT_INVOCATION_ID};
use agent_domain::profile::{ModelBinding, ResolvedAgentProfile};
use agent_gateway::http::HttpTimeouts;
use agent_gateway::scripted::ScriptedModel;
use agent_gateway::{HttpConnection, HttpModelGateway};
use agent_infra_fs::connections::FsConnectionStore;
use async_trait::async_trait;

use crate::cli::ModelArgs;
use crate::exit::{CmdResult, Exit, Failed, OrExit, codes};
use crate::input::{InputKind, read_input};
use crate::wiring::Host;

/// The model of a run, and how its other profiles' invocations find theirs.
pub struct ChosenModel {
    pub run: RunModel,
    /// `None`: every invocation calls the run's model (a script plays all of them).
    pub binder: Option<Arc<dyn ModelBinder>>,
}

/// The scripted model of a loaded script: it plays every invocation of the run.
pub fn scripted(model: ScriptedModel) -> ChosenModel {
    ChosenModel {
        run: labelled(
            Arc::new(model),
            ModelBindingMode::Script,
            None,
            "scripted",
            "scripted",
        ),
        binder: None,
    }
}

fn labelled(
    gateway: Arc<dyn ModelGateway>,
    mode: ModelBindingMode,
    connection: Option<String>,
    format: &str,
    model: &str,
) -> RunModel {
    RunModel {
        gateway,
        label: ModelLabel {
            provider_format: Some(format.to_owned()),
            model: Some(model.to_owned()),
            api: None,
        },
        binding: ModelBindingResolvedPayload {
            invocation_id: ROOT_INVOCATION_ID.to_owned(),
            mode,
            connection,
            provider_format: Some(format.to_owned()),
            model_id: Some(model.to_owned()),
        },
    }
}

/// Binds the invocations of profiles that name their own connection (`connectionRef`) to
/// it, so a delegated researcher can run on a cheaper model than the writer; other
/// profiles call the run's model.
struct ConnectionBinder {
    connections: Arc<FsConnectionStore>,
}

#[async_trait]
impl ModelBinder for ConnectionBinder {
    async fn bind(
        &self,
        profile: &ResolvedAgentProfile,
    ) -> Result<Option<RunModel>, ModelBindError> {
        let ModelBinding::ConnectionRef {
            connection_ref,
            model_id,
        } = &profile.model
        else {
            return Ok(None);
        };
        connect(&self.connections, connection_ref, Some(model_id))
            .await
            .map(Some)
            .map_err(|failed| ModelBindError {
                code: failed.code,
                message: failed.message,
            })
    }
}

/// `--script`, else `--connection` (with the connection's own model), else the profile's
/// `connectionRef` (with the profile's `modelId`).
pub async fn choose(
    host: &Host,
    args: &ModelArgs,
    profile: Option<&str>,
) -> CmdResult<ChosenModel> {
    let script = match &args.script {
        Some(path) => Some(read_input(path, InputKind::Script)?),
        None => None,
    };
    choose_from(host, profile, args.connection.as_deref(), script.as_deref()).await
}

/// [`choose`] from the script's text (already read), the connection name and the profile
/// id: what `run`, `prompt prepare` and `serve` share.
pub async fn choose_from(
    host: &Host,
    profile: Option<&str>,
    connection: Option<&str>,
    script: Option<&str>,
) -> CmdResult<ChosenModel> {
    if let Some(text) = script {
        let model = ScriptedModel::from_json(text).or_usage()?;
        return Ok(scripted(model));
    }
    let connections = host.storage.connections.clone();
    let binder: Arc<dyn ModelBinder> = Arc::new(ConnectionBinder {
        connections: connections.clone(),
    });
    if let Some(name) = connection {
        let run = connect(&connections, name, None).await?;
        return Ok(ChosenModel {
            run,
            binder: Some(binder),
        });
    }
    // Only to learn the profile's binding; the runtime resolves it again (and reports its
    // problems) when the run starts.
    let profile = host.profiles().resolve(profile).await.or_usage()?;
    profile.ensure_model_configured().or_usage()?;
    match &profile.model {
        ModelBinding::ConnectionRef {
            connection_ref,
            model_id,
        } => Ok(ChosenModel {
            run: connect(&connections, connection_ref, Some(model_id)).await?,
            binder: Some(binder),
        }),
        _ => Err(Failed::new(
            Exit::Usage,
            codes::MODEL_REQUIRED,
            format!(
                "no model chosen: profile `{}` runs on the model given on the command line; \
                 pass --connection NAME (see `tavern-agent connections list`) or --script FILE \
                 to play the model from a script (see docs/scripted-model.md)",
                profile.id
            ),
        )),
    }
}

/// The gateway of the saved connection `name`, calling `model_id` when given (a profile's
/// binding) or the connection's own model. The key is read from the connection's variable
/// now, at the start of the command; it lives only in the gateway's memory.
async fn connect(
    connections: &FsConnectionStore,
    name: &str,
    model_id: Option<&str>,
) -> CmdResult<RunModel> {
    let name = ConnectionName::parse(name).or_usage()?;
    let config = connections
        .get(name.as_str())
        .await
        .map_err(|e| connection_error(name.as_str(), &e))?
        .ok_or_else(|| {
            Failed::new(
                Exit::Usage,
                "connection.not_found",
                format!(
                    "no connection `{name}`; see `tavern-agent connections list` or add one \
                     with `tavern-agent connections add`"
                ),
            )
        })?;
    let connection = HttpConnection::from_config(&config, model_id, read_key(&config)?);
    let model = connection.model.clone();
    let api = connection.sillytavern_api();
    let timeouts = HttpTimeouts::for_config(&config);
    let gateway = HttpModelGateway::with_timeouts(connection, timeouts).or_usage()?;
    let mut chosen = labelled(
        Arc::new(gateway),
        ModelBindingMode::Connection,
        Some(config.name.clone()),
        config.format.as_str(),
        &model,
    );
    chosen.label.api = Some(api.to_owned());
    Ok(chosen)
}

/// The key from the variable the connection names; an unset or empty variable refuses the
/// run before it exists, naming the variable (never a value).
fn read_key(config: &ConnectionConfig) -> CmdResult<Option<String>> {
    let Some(var) = &config.api_key_env else {
        return Ok(None);
    };
    let problem = match env::var(var) {
        Ok(key) if !key.is_empty() => return Ok(Some(key)),
        Err(env::VarError::NotUnicode(_)) => "which is not valid Unicode",
        _ => "which is not set",
    };
    Err(Failed::new(
        Exit::Usage,
        "connection.api_key_missing",
        format!(
            "connection `{}` reads its key from ${var}, {problem}",
            config.name
        ),
    ))
}

/// A connection that cannot be read is a configuration problem of this run: exit 2.
fn connection_error(name: &str, error: &StoreError) -> Failed {
    Failed::new(
        Exit::Usage,
        error.code(),
        format!("connection `{name}`: {error}"),
    )
}
