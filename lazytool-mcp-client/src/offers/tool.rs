//! An upstream tool as a [`DynamicTool`] that forwards its calls.

use std::sync::Arc;
use std::time::Duration;

use lazytool_runtime::{DynamicTool, ToolAnnotations, ToolContext, ToolOutput, ToolResult};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ContentBlock,
    ServerResult, Tool,
};
use rmcp::service::{PeerRequestOptions, ServiceError};
use rmcp::{Peer, RoleClient};
use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::connection::link::Link;
use crate::lock::Pins;
use crate::offers::naming::exposed_name;
use crate::requests::upstream_requests::Unanswered;
use lazytool_mcp_core::McpRequest;
use lazytool_mcp_core::call_note::{CallNote, Refused};
use lazytool_mcp_core::capabilities::MISSING_CAPABILITY;
use lazytool_mcp_core::content::McpContent;
use lazytool_mcp_core::limit::LimitScope;
use lazytool_mcp_core::limit::call_refusal::CallRefusal;
use lazytool_mcp_core::limit::limiter::{LimitPermit, Limiter};
#[cfg(feature = "redis")]
use lazytool_mcp_core::shared::{SharedStore, shared_admission};

/// How many times a call is sent again with answers to a server's `input_required`.
pub(crate) const MAX_INPUT_ROUNDS: usize = 8;

#[derive(Clone)]
pub(crate) struct Forward {
    pub(crate) link: Arc<Link>,
    pub(crate) pins: Arc<Pins>,
    pub(crate) call_timeout: Duration,
    /// The server's limits, shared by every listing's tools.
    pub(crate) limiter: Option<Arc<Limiter>>,
    /// Where every replica's calls to the server are counted together, when set.
    #[cfg(feature = "redis")]
    pub(crate) store: Option<SharedStore>,
}

pub(crate) fn dynamic_tool(prefix: &str, tool: Tool, forward: Forward) -> DynamicTool {
    let upstream_name: Arc<str> = Arc::from(tool.name.as_ref());
    let input_schema = Value::Object(Map::clone(&tool.input_schema));
    let description = tool.description.as_deref().unwrap_or_default().to_owned();
    let handler = move |arguments: Value, context: ToolContext| {
        let (forward, name) = (forward.clone(), Arc::clone(&upstream_name));
        async move { forward.call(&name, arguments, context).await }
    };
    let mut dynamic = DynamicTool::new(
        exposed_name(prefix, &tool.name),
        description,
        input_schema,
        handler,
    );
    if let Some(output) = &tool.output_schema {
        dynamic = dynamic.output_schema(Value::Object(Map::clone(output)));
    }
    if let Some(hints) = &tool.annotations {
        dynamic = dynamic.annotations(ToolAnnotations {
            title: hints.title.clone().or(tool.title.clone()).map(Into::into),
            read_only: hints.read_only_hint,
            destructive: hints.destructive_hint,
            idempotent: hints.idempotent_hint,
            open_world: hints.open_world_hint,
        });
    } else if let Some(title) = &tool.title {
        dynamic = dynamic.annotations(ToolAnnotations {
            title: Some(title.clone().into()),
            ..ToolAnnotations::default()
        });
    }
    dynamic
}

impl Forward {
    /// Runs the call upstream. Every failure is the error text the model reads.
    async fn call(
        &self,
        name: &str,
        arguments: Value,
        context: ToolContext,
    ) -> Result<ToolResult, String> {
        let server = self.link.server();
        note(&context, |note| {
            note.server.get_or_insert_with(|| Arc::from(server));
        });
        let _place = match &self.limiter {
            None => None,
            Some(limiter) => match self.admit(limiter, server).await {
                Ok(place) => Some(place),
                Err(CallRefusal::Limit(exceeded)) => {
                    let message = exceeded.to_string();
                    note(&context, |note| {
                        note.refused.get_or_insert(Refused::Limit(exceeded));
                    });
                    return Err(message);
                }
                Err(CallRefusal::StoreDown(down)) => {
                    return Err(format!(
                        "{down}: calls to the MCP server `{server}` are refused until it is back"
                    ));
                }
            },
        };
        self.forward(name, arguments, context)
            .await
            .map_err(|error| self.link.redact(&error))
    }

    /// A place for the call under the server's limits: the shared store decides, when
    /// there is one, else this replica's limiter.
    async fn admit(&self, limiter: &Limiter, server: &str) -> Result<LimitPermit, CallRefusal> {
        #[cfg(feature = "redis")]
        if let Some(store) = &self.store {
            let (scope, longest_call) = (LimitScope::Server, self.call_timeout);
            return shared_admission::admit(store, limiter, scope, server, longest_call).await;
        }
        limiter
            .admit(LimitScope::Server, server)
            .map_err(CallRefusal::Limit)
    }

    async fn forward(
        &self,
        name: &str,
        arguments: Value,
        context: ToolContext,
    ) -> Result<ToolResult, String> {
        let _busy = self.link.busy();
        let peer = self.link.peer().await?;
        // Checked against the definitions of this run: a changed tool never runs under the
        // schema a client discovered before the change.
        if let Some(refusal) = self.pins.refusal(&self.link, &peer, name).await? {
            note(&context, |note| {
                note.refused.get_or_insert(Refused::Pin);
            });
            return Err(refusal);
        }
        let mut params = CallToolRequestParams::new(name.to_owned());
        if let Value::Object(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let deadline = Instant::now() + self.call_timeout;
        let rounds = self.rounds(&peer, params, &context, deadline);
        tokio::select! {
            result = tokio::time::timeout_at(deadline, rounds) => result.unwrap_or_else(|_| Err(format!(
                "the MCP server `{}` did not answer within {:?}",
                self.link.server(),
                self.call_timeout
            ))),
            () = context.cancellation().cancelled() => Err("the call was cancelled".to_owned()),
        }
    }

    /// The call, sent again with the answers as long as a 2026-07-28 server answers
    /// `input_required` (at most [`MAX_INPUT_ROUNDS`] times).
    async fn rounds(
        &self,
        peer: &Peer<RoleClient>,
        mut params: CallToolRequestParams,
        context: &ToolContext,
        deadline: Instant,
    ) -> Result<ToolResult, String> {
        let server = self.link.server();
        // The request the call runs for, if it came over MCP: what the upstream asks during
        // the call goes to its client.
        let downstream = McpRequest::of(context).cloned();
        let mut state_only = 0;
        for _ in 0..MAX_INPUT_ROUNDS {
            let answer = match self
                .round(peer, params.clone(), downstream.clone(), deadline)
                .await
            {
                Ok(answer) => answer,
                // The capability the server needs is one the gateway's client did not
                // declare (the gateway declares upstream what its clients do): the client is
                // told as the server told the gateway.
                Err(ServiceError::McpError(error)) if error.code == MISSING_CAPABILITY => {
                    let message = format!("the MCP server `{server}` refused: {}", error.message);
                    note(context, |note| {
                        note.refused
                            .get_or_insert(Refused::MissingCapability(error));
                    });
                    return Err(message);
                }
                Err(error) => return Err(format!("the MCP server `{server}` failed: {error}")),
            };
            let asked = match answer {
                ServerResult::CallToolResult(result) => return answer_of(result),
                ServerResult::EmptyResult(_) => return answer_of(CallToolResult::default()),
                ServerResult::InputRequiredResult(asked) => asked,
                _ => {
                    return Err(format!(
                        "the MCP server `{server}` answered tools/call with something else than a tool result"
                    ));
                }
            };
            let requests = asked.input_requests.unwrap_or_default();
            if requests.is_empty() {
                if asked.request_state.is_none() {
                    return Err(format!(
                        "the MCP server `{server}` answered `input_required` without asking anything"
                    ));
                }
                // Only state to send back: the server is not ready yet.
                tokio::time::sleep(Duration::from_millis(50 << state_only.min(2))).await;
                state_only += 1;
            }
            let responses = match self.link.requests().answer_input(requests, context).await {
                Ok(responses) => responses,
                Err(Unanswered::Asked) => {
                    return Err(format!(
                        "the MCP server `{server}` asks the client for input"
                    ));
                }
                Err(Unanswered::Refused(error)) => {
                    return Err(format!(
                        "the MCP server `{server}` asked for input during the call: {}",
                        error.message
                    ));
                }
            };
            params.input_responses = (!responses.is_empty()).then_some(responses);
            params.request_state = asked.request_state;
        }
        Err(format!(
            "the MCP server `{server}` still asked for input after {MAX_INPUT_ROUNDS} rounds"
        ))
    }

    /// One `tools/call` upstream: its answer.
    async fn round(
        &self,
        peer: &Peer<RoleClient>,
        params: CallToolRequestParams,
        downstream: Option<McpRequest>,
        deadline: Instant,
    ) -> Result<ServerResult, ServiceError> {
        // A client that asked for log messages gets the server's: a 2026-07-28 server is asked
        // in the request (a 2025-11-25 one sends what its connection's level lets through).
        let mut params = params;
        if let Some(level) = downstream.as_ref().and_then(McpRequest::log_level) {
            params
                .meta
                .get_or_insert_with(Default::default)
                .set_log_level(level.to_rmcp());
        }
        // Until the answer: the upstream's requests and progress belong to this call,
        // and dropping it (cancelled, timed out) sends `notifications/cancelled`.
        let mut registration = (self.link.in_flight()).register(downstream, deadline, peer.clone());
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await?;
        registration.sent(handle.id.clone(), handle.progress_token.clone());
        let answer = handle.await_response().await;
        if !matches!(answer, Err(ServiceError::TransportClosed)) {
            registration.answered();
        }
        answer
    }
}

/// The upstream's result as it came: its blocks (and structured content), or its `isError`.
fn answer_of(result: CallToolResult) -> Result<ToolResult, String> {
    if result.is_error == Some(true) {
        return Err(text_of(&result.content));
    }
    let content = McpContent {
        content: result.content,
        structured: result.structured_content,
    };
    Ok(content.into_tool_result())
}

/// The text of an error result: its text blocks, and a mention of any other block.
fn text_of(content: &[ContentBlock]) -> String {
    let parts: Vec<String> = content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.clone(),
            other => format!("[{} content]", kind(other)),
        })
        .collect();
    if parts.is_empty() {
        "the MCP server reported an error without a message".to_owned()
    } else {
        parts.join("\n")
    }
}

fn kind(content: &ContentBlock) -> &'static str {
    match content {
        ContentBlock::Text(_) => "text",
        ContentBlock::Image(_) => "image",
        ContentBlock::Audio(_) => "audio",
        ContentBlock::Resource(_) => "resource",
        ContentBlock::ResourceLink(_) => "resource link",
        _ => "other",
    }
}

/// Notes something of the call of `context` for its answer, when it runs for an MCP request
/// (its first server is its own: code mode's calls, which carry the code tool's request,
/// note theirs only if none did).
fn note(context: &ToolContext, write: impl FnOnce(&mut CallNote)) {
    if let Some(request) = McpRequest::of(context) {
        request.note(write);
    }
}
