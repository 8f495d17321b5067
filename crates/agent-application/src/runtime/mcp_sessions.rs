//! The MCP state a run shares between its invocations: the ports that reach MCP servers
//! ([`McpPorts`]) and the run's sessions ([`RunSessions`]), one per server, opened on the
//! first call that needs it and closed when the run ends. The calls themselves are
//! `runtime::mcp`'s.

use std::collections::BTreeMap;
use std::sync::Arc;

use agent_domain::ErrorCode;
use agent_domain::mcp::McpRegistration;

use crate::ports::{McpConnector, McpNotice, McpNoticeSink, McpRegistry, McpSession};

/// Where runs find MCP servers: the registry of registrations and cached catalogs, and the
/// connector that opens sessions.
#[derive(Clone)]
pub(super) struct McpPorts {
    pub registry: Arc<dyn McpRegistry>,
    pub connector: Arc<dyn McpConnector>,
}

/// What the run knows of one server.
enum Slot {
    Live(Arc<dyn McpSession>),
    /// It could not start or it went away; later calls fail with this code and message.
    Broken {
        code: &'static str,
        message: String,
    },
}

/// The MCP sessions of one run, by registration id.
#[derive(Default)]
pub(super) struct RunSessions {
    slots: tokio::sync::Mutex<BTreeMap<String, Slot>>,
}

impl RunSessions {
    /// The session with `registration`'s server, opened on first use. The lock is held
    /// while connecting so two invocations never start the same server twice.
    pub async fn session(
        &self,
        connector: &dyn McpConnector,
        registration: &McpRegistration,
    ) -> Result<Arc<dyn McpSession>, (&'static str, String)> {
        let mut slots = self.slots.lock().await;
        match slots.get(&registration.id) {
            Some(Slot::Live(session)) => return Ok(Arc::clone(session)),
            Some(Slot::Broken { code, message }) => return Err((code, message.clone())),
            None => {}
        }
        match connector
            .connect(&registration.transport, Arc::new(Discard))
            .await
        {
            Ok(session) => {
                let session: Arc<dyn McpSession> = Arc::from(session);
                slots.insert(registration.id.clone(), Slot::Live(Arc::clone(&session)));
                Ok(session)
            }
            Err(error) => {
                let message = format!(
                    "MCP server `{}` could not be reached, so its tools cannot be used in \
                     this run: {error}",
                    registration.display_name
                );
                slots.insert(
                    registration.id.clone(),
                    Slot::Broken {
                        code: error.code(),
                        message: message.clone(),
                    },
                );
                Err((error.code(), message))
            }
        }
    }

    /// Marks a server gone: its session is closed and later calls fail recoverably.
    pub async fn break_off(&self, registration: &McpRegistration, code: &'static str, why: &str) {
        let previous = self.slots.lock().await.insert(
            registration.id.clone(),
            Slot::Broken {
                code,
                message: format!(
                    "MCP server `{}` stopped working earlier in this run: {why}",
                    registration.display_name
                ),
            },
        );
        if let Some(Slot::Live(session)) = previous {
            session.close().await;
        }
    }

    /// Ends every session (and every stdio server's process group): the run is over.
    pub async fn close_all(&self) {
        let slots = std::mem::take(&mut *self.slots.lock().await);
        for slot in slots.into_values() {
            if let Slot::Live(session) = slot {
                session.close().await;
            }
        }
    }
}

/// A run has nobody to show a server's progress or log lines to yet, so they are dropped
/// (never waited on).
struct Discard;

impl McpNoticeSink for Discard {
    fn notice(&self, _notice: McpNotice) {}
}
