//! The client side of an upstream connection: [`Notices`], and the `subscriptions/listen`
//! stream that carries a 2026-07-28 server's `list_changed`: [`follow_list_changes`].

use std::sync::Arc;

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ErrorData, Implementation,
    ProtocolVersion, ResourceUpdatedNotificationParam, ServerNotification, SubscriptionFilter,
};
#[expect(
    deprecated,
    reason = "sampling (SEP-2577 deprecates it) is what servers up to 2025-11-25 send"
)]
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, LoggingMessageNotificationParam,
};
use rmcp::service::{InboundStreamOrigin, NotificationContext, RequestContext};
use rmcp::{ClientHandler, Peer, RoleClient};
use tokio::sync::{broadcast, watch};

use crate::requests::upstream_requests::UpstreamRequests;

const TARGET: &str = "lazytool::upstream";

/// The client side of an upstream connection: reports `list_changed` (of tools, prompts and
/// resources alike), announces what the program's clients can answer, and passes the
/// server's requests during a call on to the client of that call (`upstream_requests.rs`; its
/// progress passes in `progress_tap.rs`).
#[derive(Clone)]
pub(crate) struct Notices {
    pub(crate) tools_changed: watch::Sender<u64>,
    pub(crate) announced: ClientCapabilities,
    pub(crate) requests: Arc<UpstreamRequests>,
    /// Where the server's `notifications/resources/updated` go.
    pub(crate) resource_updates: broadcast::Sender<String>,
}

impl ClientHandler for Notices {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            self.announced.clone(),
            Implementation::new("lazytool", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed
            .send_modify(|generation| *generation += 1);
    }

    // The catalog lists a changed server's tools, prompts and resources again together.
    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed
            .send_modify(|generation| *generation += 1);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed
            .send_modify(|generation| *generation += 1);
    }

    #[expect(
        deprecated,
        reason = "sampling (SEP-2577 deprecates it) is what servers up to 2025-11-25 send"
    )]
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.requests.sampling(params, context).await
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.resource_updates.send(params.uri);
    }

    #[expect(
        deprecated,
        reason = "MCP logging (SEP-2577 deprecates it) is what servers send"
    )]
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        context: NotificationContext<RoleClient>,
    ) {
        let origin = context.extensions.get::<InboundStreamOrigin>();
        self.requests.log(params, origin).await;
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.requests.elicitation(params, context).await
    }
}

/// A 2026-07-28 server sends `list_changed` only on a `subscriptions/listen` stream: when
/// `peer` is such a server and announces tool, prompt or resource list changes, opens one
/// and reports each change to `tools_changed`, until the connection ends.
pub(crate) fn follow_list_changes(
    server: Arc<str>,
    peer: Peer<RoleClient>,
    tools_changed: watch::Sender<u64>,
) {
    let Some(info) = peer.peer_info() else { return };
    let capabilities = &info.capabilities;
    let tools = capabilities
        .tools
        .as_ref()
        .and_then(|tools| tools.list_changed)
        == Some(true);
    let prompts = capabilities.prompts.as_ref().and_then(|p| p.list_changed) == Some(true);
    let resources = capabilities.resources.as_ref().and_then(|r| r.list_changed) == Some(true);
    if info.protocol_version.has_initialize() || !(tools || prompts || resources) {
        return;
    }
    tokio::spawn(async move {
        let mut filter = SubscriptionFilter::builder();
        if tools {
            filter = filter.tools_list_changed();
        }
        if prompts {
            filter = filter.prompts_list_changed();
        }
        if resources {
            filter = filter.resources_list_changed();
        }
        let filter = filter.build();
        let mut subscription = match peer.listen(filter).await {
            Ok(subscription) => subscription,
            Err(error) => {
                tracing::warn!(target: TARGET, server = %server, %error, "no subscription to the upstream's tool list changes");
                return;
            }
        };
        // A change made between the start's listing and this subscription was sent to no one.
        tools_changed.send_modify(|generation| *generation += 1);
        while let Ok(Some(notification)) = subscription.next().await {
            if matches!(
                notification,
                ServerNotification::ToolListChangedNotification(_)
                    | ServerNotification::PromptListChangedNotification(_)
                    | ServerNotification::ResourceListChangedNotification(_)
            ) {
                tools_changed.send_modify(|generation| *generation += 1);
            }
        }
    });
}
