//! One client connection: a [`Session`] served as an rmcp [`ServerHandler`].

use lazytool_runtime::{
    CancellationToken, DISCOVERY_TOOL_NAME, Session, Tool, ToolContext, ToolErrorKind,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode, ErrorData,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, SubscriptionFilter,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{RoleServer, ServerHandler};
use serde_json::Value;

use crate::call_result::call_result;
use crate::listeners::Listeners;
use crate::listing::mcp_tool;

/// One MCP connection: its own [`Session`], so what one client discovers is listed and
/// callable on its connection only.
///
/// [`McpServer::serve`](crate::McpServer::serve) makes one per connection. To serve over
/// another rmcp transport (streamable HTTP with stateful sessions, say), hand rmcp a new one
/// per session from [`McpServer::connection`](crate::McpServer::connection): it implements
/// [`rmcp::ServerHandler`]. Only `serve` and `serve_stdio` answer malformed input that rmcp
/// itself drops.
///
/// ```rust,no_run
/// use lazytool_mcp::rmcp::ServiceExt;
/// use lazytool_mcp::{McpConnection, McpServer};
///
/// # async fn run(server: McpServer, stream: tokio::io::DuplexStream) -> Result<(), Box<dyn std::error::Error>> {
/// let connection: McpConnection = server.connection();
/// let running = connection.serve(stream).await?;
/// running.waiting().await?;
/// # Ok(()) }
/// ```
pub struct McpConnection {
    session: Session,
    config: ServerConfig,
    listeners: Listeners,
    /// Cancelled when the client's input ends: rmcp waits for open `subscriptions/listen`
    /// requests before it closes, which would otherwise take its 5 s drain timeout.
    input_closed: CancellationToken,
}

impl McpConnection {
    pub(crate) fn new(session: Session, config: ServerConfig) -> Self {
        McpConnection {
            session,
            config,
            listeners: Listeners::default(),
            input_closed: CancellationToken::new(),
        }
    }

    pub(crate) fn input_closed(&self) -> CancellationToken {
        self.input_closed.clone()
    }

    /// The connection's session: what it discovered so far, say.
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let connection = McpServer::new(registry).connection();
    /// let discovered: Vec<String> = connection.session().discovered().tools;
    /// assert!(discovered.is_empty());
    /// ```
    pub fn session(&self) -> &Session {
        &self.session
    }

    async fn announce_tool_list_changed(&self, context: &RequestContext<RoleServer>) {
        let subscriptions_only = context
            .protocol_version()
            .is_some_and(|version| !version.has_initialize());
        if subscriptions_only {
            self.listeners.notify_tool_list_changed().await;
        } else if let Err(error) = context.peer.notify_tool_list_changed().await {
            tracing::debug!(target: "lazytool::mcp", %error, "cannot send tools/list_changed");
        }
    }
}

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnection")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

/// The capabilities every connection announces.
pub(crate) fn capabilities() -> ServerCapabilities {
    ServerCapabilities::builder()
        .enable_tools()
        .enable_tool_list_changed()
        .build()
}

impl ServerHandler for McpConnection {
    fn get_info(&self) -> ServerConfig {
        self.config.clone()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let registry = self.session.registry();
        let tools = self
            .session
            .active_tools()
            .into_iter()
            .map(|definition| {
                let tool = registry.get(&definition.name);
                mcp_tool(definition, tool)
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name;
        let arguments = request.arguments.map_or(Value::Null, Value::Object);
        let discovered_before =
            (name == DISCOVERY_TOOL_NAME).then(|| self.session.discovered().tools.len());
        let tool_context = ToolContext::new()
            .with_call_id(context.id.to_string())
            .with_cancellation(context.ct.clone());
        let call = self
            .session
            .call_with_context(&name, arguments, tool_context);
        let result = tokio::select! {
            result = call => result,
            // rmcp drops the response to a cancelled request; this only stops the call.
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error("the request was cancelled", None));
            }
        };
        if result.error_kind() == Some(ToolErrorKind::UnknownTool) {
            return Err(ErrorData::invalid_params(result.text(), None));
        }
        if discovered_before.is_some_and(|before| self.session.discovered().tools.len() > before) {
            self.announce_tool_list_changed(&context).await;
        }
        let output_schema = self
            .session
            .registry()
            .get(&name)
            .and_then(Tool::output_schema);
        Ok(call_result(result, output_schema).into())
    }

    // rmcp takes a request whose params do not fit its method for a custom request.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let params = request.params.unwrap_or(Value::Null);
        let problem = match request.method.as_str() {
            "tools/call" => serde_json::from_value::<CallToolRequestParams>(params).err(),
            "tools/list" => serde_json::from_value::<PaginatedRequestParams>(params).err(),
            _ => {
                return Err(ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    request.method,
                    None,
                ));
            }
        };
        let problem = problem.map_or_else(String::new, |problem| format!(": {problem}"));
        Err(ErrorData::invalid_params(
            format!("Invalid params for {}{problem}", request.method),
            None,
        ))
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.supported_by(&self.config.capabilities))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let _registration = (context.accepted().tools_list_changed == Some(true))
            .then(|| self.listeners.register(context.sink().clone()));
        tokio::select! {
            () = context.cancelled() => {}
            () = self.input_closed.cancelled() => {}
        }
        Ok(())
    }
}
