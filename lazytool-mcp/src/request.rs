//! What a tool running for an MCP `tools/call` can reach of its request: [`McpRequest`].

use lazytool_runtime::ToolResult;
use rmcp::RoleServer;
use rmcp::model::ProgressNotificationParam;
use rmcp::service::{Peer, RequestContext, ServiceError};

use crate::principal::Principal;

tokio::task_local! {
    static CURRENT: McpRequest;
}

/// The MCP request a tool is running for, while it runs: who sent it, its progress token,
/// and the client (for sampling, elicitation and other requests to it, through rmcp's
/// [`Peer`]). Available from [`McpRequest::current`] inside a tool called through an
/// [`McpServer`](crate::McpServer), on the tool's own task (not in tasks it spawns).
///
/// ```rust,standalone_crate
/// use lazytool_mcp::McpRequest;
/// use lazytool_runtime::tool;
///
/// /// Counts to `n`, reporting progress to MCP clients that ask for it.
/// #[tool]
/// async fn count(n: u32) -> u32 {
///     let request = McpRequest::current();
///     for i in 1..=n {
///         if let Some(request) = &request {
///             request.progress(f64::from(i), Some(f64::from(n)), None).await.ok();
///         }
///     }
///     n
/// }
/// # fn main() {}
/// ```
#[derive(Clone, Debug)]
pub struct McpRequest {
    context: RequestContext<RoleServer>,
    principal: Principal,
}

impl McpRequest {
    pub(crate) fn new(context: RequestContext<RoleServer>, principal: Principal) -> Self {
        McpRequest { context, principal }
    }

    /// Runs `call` as the tool call of this request.
    pub(crate) async fn scope(self, call: impl Future<Output = ToolResult>) -> ToolResult {
        CURRENT.scope(self, call).await
    }

    /// The request the current tool runs for, if it was called over MCP.
    ///
    /// ```
    /// // Outside an MCP call there is none.
    /// assert!(lazytool_mcp::McpRequest::current().is_none());
    /// ```
    pub fn current() -> Option<McpRequest> {
        CURRENT.try_with(Clone::clone).ok()
    }

    /// Who sent the request (see [`McpHttp`](crate::McpHttp)'s authentication).
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// The client: send it requests (`create_message` for sampling, `elicit` for
    /// elicitation) and notifications.
    pub fn peer(&self) -> &Peer<RoleServer> {
        &self.context.peer
    }

    /// rmcp's context of the request: its id, `_meta`, cancellation token and extensions
    /// (over HTTP, the request's `http::request::Parts`).
    pub fn context(&self) -> &RequestContext<RoleServer> {
        &self.context
    }

    /// Sends `notifications/progress` if the client asked for progress (a `progressToken`
    /// in the request's `_meta`); returns whether it was sent.
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<bool, ServiceError> {
        let Some(token) = self.context.meta.get_progress_token() else {
            return Ok(false);
        };
        let mut notification = ProgressNotificationParam::new(token, progress);
        notification.total = total;
        notification.message = message.map(str::to_owned);
        self.context.peer.notify_progress(notification).await?;
        Ok(true)
    }
}
