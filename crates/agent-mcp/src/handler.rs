//! The client side of a session: what this client answers when the server asks it
//! something, and where the server's side notices go.
//!
//! Sampling, elicitation and roots are not offered (the client declares no such
//! capability), so those requests get a JSON-RPC "method not found" error instead of a
//! made-up answer. Progress and log notifications are handed to the port's notice sink,
//! which must not block.
//!
//! rmcp marks sampling, roots and logging deprecated (SEP-2577), but servers on older
//! protocol versions still send them, so they are handled here.
#![allow(deprecated)]

use std::sync::Arc;

use agent_application::ports::{McpNotice, McpNoticeSink};
use rmcp::model::{
    CreateMessageRequestMethod, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationCreateRequestMethod, ListRootsRequestMethod,
    ListRootsResult, LoggingMessageNotificationParam, ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};

/// The handler every session runs with.
pub(crate) struct Handler {
    pub notices: Arc<dyn McpNoticeSink>,
}

impl ClientHandler for Handler {
    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        Err(ErrorData::method_not_found::<CreateMessageRequestMethod>())
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Err(ErrorData::method_not_found::<ElicitationCreateRequestMethod>())
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Err(ErrorData::method_not_found::<ListRootsRequestMethod>())
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.notices.notice(McpNotice::Progress {
            progress: params.progress,
            total: params.total,
            message: params.message,
        });
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|value| value.as_str().map(str::to_owned))
            .unwrap_or_else(|| "info".to_owned());
        self.notices.notice(McpNotice::Log {
            level,
            data: params.data,
        });
    }
}
