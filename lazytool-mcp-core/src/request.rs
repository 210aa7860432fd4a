//! What a tool running for an MCP `tools/call` can reach of its request: [`McpRequest`].

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use lazytool_runtime::ToolContext;
use rmcp::RoleServer;
#[allow(deprecated)]
use rmcp::model::{LoggingMessageNotificationParam, ProgressNotificationParam};
use rmcp::service::{Peer, RequestContext, ServiceError};
use serde_json::Value;

use crate::call_note::CallNote;
use crate::log_level::LogLevel;
use crate::principal::Principal;

/// The MCP request a tool is running for: who sent it, its progress token, and the client
/// (for sampling, elicitation and other requests to it, through rmcp's [`Peer`]). The server
/// (lazytool-mcp's `McpServer`) attaches it to the call's [`ToolContext`]: a tool that
/// declares a `ToolContext` parameter reads it with [`McpRequest::of`], and so does whatever
/// the tool hands a clone of its context to (a spawned task, the calls of a code-mode
/// script).
///
/// ```rust,standalone_crate
/// use lazytool_mcp::McpRequest;
/// use lazytool_runtime::{ToolContext, tool};
///
/// /// Counts to `n`, reporting progress to MCP clients that ask for it.
/// #[tool]
/// async fn count(n: u32, ctx: ToolContext) -> u32 {
///     let request = McpRequest::of(&ctx);
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
    /// Shared by the clones (every call puts a clone of its request in its tool context).
    shared: Arc<Shared>,
    principal: Principal,
    /// The least severe log message the client asked for, when the call began: `None` if it
    /// asked for none.
    log_level: Option<LogLevel>,
}

/// What the clones of a request share, in one allocation.
#[derive(Debug)]
struct Shared {
    /// It holds the HTTP request's headers and the request's `_meta`.
    context: RequestContext<RoleServer>,
    /// What the upstream side notes of the call for its answer.
    note: Mutex<CallNote>,
}

impl McpRequest {
    /// The request of a tool call that rmcp's `context` carries, sent by `principal`, whose
    /// client asked for log messages from `log_level` on (made by the server for each call).
    pub fn new(
        context: RequestContext<RoleServer>,
        principal: Principal,
        log_level: Option<LogLevel>,
    ) -> Self {
        McpRequest {
            shared: Arc::new(Shared {
                context,
                note: Mutex::default(),
            }),
            principal,
            log_level,
        }
    }

    /// The request the call of `context` runs for, if it was called over MCP.
    ///
    /// ```
    /// use lazytool_mcp_core::McpRequest;
    /// use lazytool_runtime::ToolContext;
    ///
    /// // Outside an MCP call there is none.
    /// assert!(McpRequest::of(&ToolContext::new()).is_none());
    /// ```
    pub fn of(context: &ToolContext) -> Option<&McpRequest> {
        context.extension::<McpRequest>()
    }

    /// Notes something of the call for its answer: what the upstream side tells the serving
    /// side that a tool result cannot carry (the server the call went to, why it was refused
    /// there). Every clone of the request, in whatever task, notes into the same note.
    #[doc(hidden)]
    pub fn note(&self, write: impl FnOnce(&mut CallNote)) {
        write(&mut self.note_guard());
    }

    /// What was noted of the call ([`note`](McpRequest::note)), taken: the serving side
    /// reads it once the call ended.
    #[doc(hidden)]
    pub fn take_note(&self) -> CallNote {
        std::mem::take(&mut self.note_guard())
    }

    fn note_guard(&self) -> MutexGuard<'_, CallNote> {
        self.shared
            .note
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Who sent the request (see `McpHttp`'s authentication).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use lazytool_mcp::{McpRequest, McpServer};
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::{Value, json};
    /// # use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    /// # /// Calls `tool` once over an in-process MCP connection (stdio's protocol on a pipe), with
    /// # /// a progress token; returns the `tools/call` result and the notifications sent before it.
    /// # async fn call_over_mcp(tool: DynamicTool) -> (Value, Vec<Value>) {
    /// #     let name = tool.name().to_owned();
    /// #     let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// #     let (client, connection) = tokio::io::duplex(64 * 1024);
    /// #     let (reader, writer) = tokio::io::split(connection);
    /// #     let server = McpServer::new(registry);
    /// #     let serving = tokio::spawn(async move { server.serve(reader, writer).await });
    /// #     let (output, mut input) = tokio::io::split(client);
    /// #     let mut lines = BufReader::new(output).lines();
    /// #     let messages = [
    /// #         json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
    /// #             "capabilities": {}, "clientInfo": {"name": "doc-client", "version": "1.0.0"}}}),
    /// #         json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    /// #         json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
    /// #             "params": {"name": name, "arguments": {}, "_meta": {"progressToken": "p1"}}}),
    /// #     ];
    /// #     for message in messages {
    /// #         input.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    /// #     }
    /// #     let mut notifications = Vec::new();
    /// #     let result = loop {
    /// #         let message: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    /// #         match message["id"].as_i64() {
    /// #             Some(2) => break message["result"].clone(),
    /// #             Some(_) => {}
    /// #             None => notifications.push(message),
    /// #         }
    /// #     };
    /// #     input.shutdown().await.unwrap();
    /// #     serving.await.unwrap().unwrap();
    /// #     (result, notifications)
    /// # }
    /// // `call_over_mcp` (hidden) calls the tool through an `McpServer` on an in-process pipe.
    /// let whoami = DynamicTool::new("whoami", "Who is calling.", json!({"type": "object"}), |_, context| async move {
    ///     let request = McpRequest::of(&context).ok_or("not called over MCP")?;
    ///     Ok::<_, &str>(json!(request.principal().name()))
    /// });
    /// let (result, _) = call_over_mcp(whoami).await;
    /// assert_eq!(result["content"][0]["text"], "anonymous"); // stdio has no authentication
    /// # }
    /// ```
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// The client: send it requests (`create_message` for sampling, `elicit` for
    /// elicitation) and notifications.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use lazytool_mcp::{McpRequest, McpServer};
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::{Value, json};
    /// # use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    /// # /// Calls `tool` once over an in-process MCP connection (stdio's protocol on a pipe), with
    /// # /// a progress token; returns the `tools/call` result and the notifications sent before it.
    /// # async fn call_over_mcp(tool: DynamicTool) -> (Value, Vec<Value>) {
    /// #     let name = tool.name().to_owned();
    /// #     let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// #     let (client, connection) = tokio::io::duplex(64 * 1024);
    /// #     let (reader, writer) = tokio::io::split(connection);
    /// #     let server = McpServer::new(registry);
    /// #     let serving = tokio::spawn(async move { server.serve(reader, writer).await });
    /// #     let (output, mut input) = tokio::io::split(client);
    /// #     let mut lines = BufReader::new(output).lines();
    /// #     let messages = [
    /// #         json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
    /// #             "capabilities": {}, "clientInfo": {"name": "doc-client", "version": "1.0.0"}}}),
    /// #         json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    /// #         json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
    /// #             "params": {"name": name, "arguments": {}, "_meta": {"progressToken": "p1"}}}),
    /// #     ];
    /// #     for message in messages {
    /// #         input.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    /// #     }
    /// #     let mut notifications = Vec::new();
    /// #     let result = loop {
    /// #         let message: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    /// #         match message["id"].as_i64() {
    /// #             Some(2) => break message["result"].clone(),
    /// #             Some(_) => {}
    /// #             None => notifications.push(message),
    /// #         }
    /// #     };
    /// #     input.shutdown().await.unwrap();
    /// #     serving.await.unwrap().unwrap();
    /// #     (result, notifications)
    /// # }
    /// // `call_over_mcp` (hidden) calls the tool through an `McpServer` on an in-process pipe.
    /// let client = DynamicTool::new("client", "The client's name.", json!({"type": "object"}), |_, context| async move {
    ///     let request = McpRequest::of(&context).ok_or("not called over MCP")?;
    ///     let info = request.peer().peer_info().ok_or("no handshake")?;
    ///     Ok::<_, &str>(json!(info.client_info.name))
    /// });
    /// let (result, _) = call_over_mcp(client).await;
    /// assert_eq!(result["content"][0]["text"], "doc-client");
    /// # }
    /// ```
    pub fn peer(&self) -> &Peer<RoleServer> {
        &self.shared.context.peer
    }

    /// rmcp's context of the request: its id, `_meta`, cancellation token and extensions
    /// (over HTTP, the request's `http::request::Parts`).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use lazytool_mcp::{McpRequest, McpServer};
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::{Value, json};
    /// # use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    /// # /// Calls `tool` once over an in-process MCP connection (stdio's protocol on a pipe), with
    /// # /// a progress token; returns the `tools/call` result and the notifications sent before it.
    /// # async fn call_over_mcp(tool: DynamicTool) -> (Value, Vec<Value>) {
    /// #     let name = tool.name().to_owned();
    /// #     let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// #     let (client, connection) = tokio::io::duplex(64 * 1024);
    /// #     let (reader, writer) = tokio::io::split(connection);
    /// #     let server = McpServer::new(registry);
    /// #     let serving = tokio::spawn(async move { server.serve(reader, writer).await });
    /// #     let (output, mut input) = tokio::io::split(client);
    /// #     let mut lines = BufReader::new(output).lines();
    /// #     let messages = [
    /// #         json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
    /// #             "capabilities": {}, "clientInfo": {"name": "doc-client", "version": "1.0.0"}}}),
    /// #         json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    /// #         json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
    /// #             "params": {"name": name, "arguments": {}, "_meta": {"progressToken": "p1"}}}),
    /// #     ];
    /// #     for message in messages {
    /// #         input.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    /// #     }
    /// #     let mut notifications = Vec::new();
    /// #     let result = loop {
    /// #         let message: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    /// #         match message["id"].as_i64() {
    /// #             Some(2) => break message["result"].clone(),
    /// #             Some(_) => {}
    /// #             None => notifications.push(message),
    /// #         }
    /// #     };
    /// #     input.shutdown().await.unwrap();
    /// #     serving.await.unwrap().unwrap();
    /// #     (result, notifications)
    /// # }
    /// // `call_over_mcp` (hidden) calls the tool through an `McpServer` on an in-process pipe.
    /// let id = DynamicTool::new("request_id", "The id of this request.", json!({"type": "object"}), |_, context| async move {
    ///     let request = McpRequest::of(&context).ok_or("not called over MCP")?;
    ///     Ok::<_, &str>(json!(request.context().id))
    /// });
    /// let (result, _) = call_over_mcp(id).await;
    /// assert_eq!(result["content"][0]["text"], "2");
    /// # }
    /// ```
    pub fn context(&self) -> &RequestContext<RoleServer> {
        &self.shared.context
    }

    /// The least severe log message the client asked for when the call began, if it asked
    /// for any (`logging/setLevel` on 2025-11-25, the request's `_meta` `logLevel` on
    /// 2026-07-28): what a gateway asks of the server it calls on the client's behalf.
    ///
    /// ```
    /// use lazytool_mcp_core::McpRequest;
    /// use lazytool_runtime::ToolContext;
    ///
    /// // Outside an MCP call there is no request, and no level.
    /// let context = ToolContext::new();
    /// assert!(McpRequest::of(&context).and_then(McpRequest::log_level).is_none());
    /// ```
    pub fn log_level(&self) -> Option<LogLevel> {
        self.log_level
    }

    /// Sends the client a log message (`notifications/message`) of `level` with `data` (any
    /// JSON: a text, or an object with details), if the client asked for messages that severe;
    /// returns whether it was sent. A 2025-11-25 client asks with `logging/setLevel`, for its
    /// whole connection; a 2026-07-28 request with `io.modelcontextprotocol/logLevel` in its
    /// `_meta`, for itself. A client that asked for none gets none. The level is the one asked
    /// for when the call began.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use lazytool_mcp::{LogLevel, McpRequest, McpServer};
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::{Value, json};
    /// # use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    /// # /// Calls `tool` once over an in-process MCP connection (stdio's protocol on a pipe), with
    /// # /// `logging/setLevel` `info` first; returns the `tools/call` result and the notifications sent before it.
    /// # async fn call_over_mcp(tool: DynamicTool) -> (Value, Vec<Value>) {
    /// #     let name = tool.name().to_owned();
    /// #     let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// #     let (client, connection) = tokio::io::duplex(64 * 1024);
    /// #     let (reader, writer) = tokio::io::split(connection);
    /// #     let server = McpServer::new(registry);
    /// #     let serving = tokio::spawn(async move { server.serve(reader, writer).await });
    /// #     let (output, mut input) = tokio::io::split(client);
    /// #     let mut lines = BufReader::new(output).lines();
    /// #     let messages = [
    /// #         json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
    /// #             "capabilities": {}, "clientInfo": {"name": "doc-client", "version": "1.0.0"}}}),
    /// #         json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    /// #         json!({"jsonrpc": "2.0", "id": 9, "method": "logging/setLevel", "params": {"level": "info"}}),
    /// #         json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
    /// #             "params": {"name": name, "arguments": {}}}),
    /// #     ];
    /// #     for message in messages {
    /// #         input.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    /// #     }
    /// #     let mut notifications = Vec::new();
    /// #     let result = loop {
    /// #         let message: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    /// #         match message["id"].as_i64() {
    /// #             Some(2) => break message["result"].clone(),
    /// #             Some(_) => {}
    /// #             None => notifications.push(message),
    /// #         }
    /// #     };
    /// #     input.shutdown().await.unwrap();
    /// #     serving.await.unwrap().unwrap();
    /// #     (result, notifications)
    /// # }
    /// // `call_over_mcp` (hidden) sets the level `info`, then calls the tool.
    /// let work = DynamicTool::new("work", "Works, and says so.", json!({"type": "object"}), |_, context| async move {
    ///     let request = McpRequest::of(&context).ok_or("not called over MCP")?;
    ///     let debug = request.log(LogLevel::Debug, json!("details")).await.map_err(|_| "closed")?;
    ///     let info = request.log(LogLevel::Info, json!("started")).await.map_err(|_| "closed")?;
    ///     Ok::<_, &str>(json!([debug, info]))
    /// });
    /// let (result, notifications) = call_over_mcp(work).await;
    /// assert_eq!(result["content"][0]["text"], "[false,true]");
    /// assert_eq!(notifications[0]["method"], "notifications/message");
    /// assert_eq!(notifications[0]["params"], json!({"level": "info", "data": "started"}));
    /// # }
    /// ```
    // rmcp marks MCP logging deprecated (SEP-2577); the 2025-11-25 and 2026-07-28 revisions
    // both have it.
    #[allow(deprecated)]
    pub async fn log(&self, level: LogLevel, data: Value) -> Result<bool, ServiceError> {
        if self.log_level.is_none_or(|least| level < least) {
            return Ok(false);
        }
        let message = LoggingMessageNotificationParam::new(level.to_rmcp(), data);
        self.context().peer.notify_logging_message(message).await?;
        Ok(true)
    }

    /// Sends `notifications/progress` if the client asked for progress (a `progressToken`
    /// in the request's `_meta`); returns whether it was sent.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use lazytool_mcp::{McpRequest, McpServer};
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::{Value, json};
    /// # use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    /// # /// Calls `tool` once over an in-process MCP connection (stdio's protocol on a pipe), with
    /// # /// a progress token; returns the `tools/call` result and the notifications sent before it.
    /// # async fn call_over_mcp(tool: DynamicTool) -> (Value, Vec<Value>) {
    /// #     let name = tool.name().to_owned();
    /// #     let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// #     let (client, connection) = tokio::io::duplex(64 * 1024);
    /// #     let (reader, writer) = tokio::io::split(connection);
    /// #     let server = McpServer::new(registry);
    /// #     let serving = tokio::spawn(async move { server.serve(reader, writer).await });
    /// #     let (output, mut input) = tokio::io::split(client);
    /// #     let mut lines = BufReader::new(output).lines();
    /// #     let messages = [
    /// #         json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
    /// #             "capabilities": {}, "clientInfo": {"name": "doc-client", "version": "1.0.0"}}}),
    /// #         json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    /// #         json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
    /// #             "params": {"name": name, "arguments": {}, "_meta": {"progressToken": "p1"}}}),
    /// #     ];
    /// #     for message in messages {
    /// #         input.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    /// #     }
    /// #     let mut notifications = Vec::new();
    /// #     let result = loop {
    /// #         let message: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    /// #         match message["id"].as_i64() {
    /// #             Some(2) => break message["result"].clone(),
    /// #             Some(_) => {}
    /// #             None => notifications.push(message),
    /// #         }
    /// #     };
    /// #     input.shutdown().await.unwrap();
    /// #     serving.await.unwrap().unwrap();
    /// #     (result, notifications)
    /// # }
    /// // `call_over_mcp` (hidden) calls the tool with `_meta.progressToken` "p1".
    /// let work = DynamicTool::new("work", "Works in two steps.", json!({"type": "object"}), |_, context| async move {
    ///     let request = McpRequest::of(&context).ok_or("not called over MCP")?;
    ///     let sent = request.progress(1.0, Some(2.0), Some("half way")).await.map_err(|_| "closed")?;
    ///     Ok::<_, &str>(json!(sent))
    /// });
    /// let (result, notifications) = call_over_mcp(work).await;
    /// assert_eq!(result["content"][0]["text"], "true");
    /// assert_eq!(notifications[0]["method"], "notifications/progress");
    /// assert_eq!(notifications[0]["params"], json!({"progressToken": "p1", "progress": 1.0, "total": 2.0, "message": "half way"}));
    /// # }
    /// ```
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<bool, ServiceError> {
        let Some(token) = self.context().meta.get_progress_token() else {
            return Ok(false);
        };
        let mut notification = ProgressNotificationParam::new(token, progress);
        notification.total = total;
        notification.message = message.map(str::to_owned);
        self.context().peer.notify_progress(notification).await?;
        Ok(true)
    }
}
