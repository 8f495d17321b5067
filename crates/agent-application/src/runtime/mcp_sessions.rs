//! The MCP state a run shares between its invocations: the ports that reach MCP servers
//! ([`McpPorts`]) and the run's sessions ([`RunSessions`]), one per server, opened on the
//! first call that needs it and closed when the run ends, each with the buffer its server's
//! notices wait in ([`Notices`]). The calls themselves are `runtime::mcp`'s.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

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

/// Notices a server's buffer holds at most between two looks; more are only counted.
const NOTICE_BUFFER: usize = 64;

/// The notices of one server's session, waiting for the call in flight to journal them.
/// The session delivers into it without waiting (a short lock, never held across an
/// await), so a chatty server never slows a call.
#[derive(Default)]
pub(super) struct Notices {
    pending: Mutex<Pending>,
    ready: tokio::sync::Notify,
}

#[derive(Default)]
struct Pending {
    notices: VecDeque<McpNotice>,
    /// Notices that found the buffer full.
    overflow: u64,
}

impl Notices {
    /// Resolves when a notice arrived since the last look.
    pub async fn arrived(&self) {
        self.ready.notified().await;
    }

    /// Everything buffered, and how many notices the full buffer turned away.
    pub fn take(&self) -> (Vec<McpNotice>, u64) {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        let overflow = std::mem::take(&mut pending.overflow);
        (pending.notices.drain(..).collect(), overflow)
    }
}

impl McpNoticeSink for Notices {
    fn notice(&self, notice: McpNotice) {
        {
            let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
            if pending.notices.len() < NOTICE_BUFFER {
                pending.notices.push_back(notice);
            } else {
                pending.overflow += 1;
            }
        }
        self.ready.notify_one();
    }
}

/// A live session and its notices.
pub(super) type Live = (Arc<dyn McpSession>, Arc<Notices>);

/// What the run knows of one server.
enum Slot {
    Live(Live),
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
    ) -> Result<Live, (&'static str, String)> {
        let mut slots = self.slots.lock().await;
        match slots.get(&registration.id) {
            Some(Slot::Live((session, notices))) => {
                return Ok((Arc::clone(session), Arc::clone(notices)));
            }
            Some(Slot::Broken { code, message }) => return Err((code, message.clone())),
            None => {}
        }
        let notices = Arc::new(Notices::default());
        let sink: Arc<dyn McpNoticeSink> = notices.clone();
        match connector.connect(&registration.transport, sink).await {
            Ok(session) => {
                let session: Arc<dyn McpSession> = Arc::from(session);
                let live = (session, notices);
                slots.insert(
                    registration.id.clone(),
                    Slot::Live((Arc::clone(&live.0), Arc::clone(&live.1))),
                );
                Ok(live)
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
        if let Some(Slot::Live((session, _))) = previous {
            session.close().await;
        }
    }

    /// Ends every session (and every stdio server's process group): the run is over.
    pub async fn close_all(&self) {
        let slots = std::mem::take(&mut *self.slots.lock().await);
        for slot in slots.into_values() {
            if let Slot::Live((session, _)) = slot {
                session.close().await;
            }
        }
    }
}
