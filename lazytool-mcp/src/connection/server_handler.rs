//! The MCP methods of a connection: [`McpConnection`]'s [`ServerHandler`], each method answered
//! for the connection's stateful session or a stateless request's.

use std::sync::Arc;

use lazytool_runtime::{DISCOVERY_TOOL_NAME, ToolContext, ToolErrorKind};
#[allow(deprecated)]
use rmcp::model::SetLevelRequestParams;
use rmcp::model::Tool as McpTool;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    CustomRequest, CustomResult, ErrorCode, ErrorData, GetPromptRequestParams, GetPromptResponse,
    InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerConfig, SetLevelRequestMethod, SubscribeRequestParams,
    SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{RoleServer, ServerHandler};
use serde_json::Value;

use crate::LogLevel;
use crate::McpRequest;
use crate::audit::{AuditLine, CallAudit};
use crate::call_note::Refused;
use crate::call_result::{call_id, tool_answer, unless_cancelled};
use crate::input::asking::{Asked, Asking};
use crate::input::round::RoundEnd;
use crate::listing::mcp_tool;
use crate::offers::serving as offers;
use crate::request_facts::{access_epoch, is_restore, is_stateless, principal};

use super::{McpConnection, Served};

impl ServerHandler for McpConnection {
    fn get_info(&self) -> ServerConfig {
        self.server.config()
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        let principal = principal(&context);
        self.stateful(&principal, access_epoch(&context))?;
        let restored = is_restore(&context);
        if let Some(id) = crate::audit::session_of(&context) {
            (self.state)
                .share_session(id, &principal, restored, context.peer.clone())
                .await?;
        }
        self.announce_catalog_changes(context.peer.clone());
        offers::announce_changes(&self.server, &context.peer, &self.input_closed);
        (self.state.subscriptions).forward_updates(
            &self.server,
            context.peer.clone(),
            self.input_closed(),
        );
        context.peer.set_peer_info(request.clone());
        let _ = self.state.peer.set(context.peer.clone());
        // A session restored from the store logged in on the replica that opened it.
        if let Some(log) = self.server.audit_log().filter(|_| !restored) {
            let client = &request.client_info;
            let protocol = request.protocol_version.to_string();
            let session = crate::audit::session_of(&context);
            let line = AuditLine::login(
                principal.name(),
                session,
                &client.name,
                &client.version,
                &protocol,
            );
            log.record(&line);
        }
        if let Some(relay) = self.server.relayed_to() {
            relay.client_announced(&request.capabilities);
        }
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let served = self.session_for(&context)?;
        let session = served.session();
        let registry = session.registry();
        let tools = session
            .active_tools()
            .into_iter()
            .map(|definition| {
                let tool = registry.get(&definition.name);
                mcp_tool(definition, tool)
            })
            .collect();
        let listed = ListToolsResult::with_all_items(tools);
        Ok(match served {
            // A function of the deployment and the principal only (SEP-2549).
            Served::Stateless(_) => listed
                .with_ttl_ms(self.server.list_ttl_ms())
                .with_cache_scope(CacheScope::Private),
            Served::Stateful(_) => listed,
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let principal = principal(&context);
        let served = if is_stateless(&context) {
            self.session_for(&context)?
        } else {
            let epoch = access_epoch(&context);
            let calling = self.calling(&principal, epoch, &context.peer, &request.name);
            Served::Stateful(calling.await?)
        };
        let session = served.session();
        let (responses, state) = (request.input_responses, request.request_state);
        let name = request.name;
        let arguments = request.arguments.map_or(Value::Null, Value::Object);
        let discovered_before = (name == DISCOVERY_TOOL_NAME
            && matches!(served, Served::Stateful(_)))
        .then(|| session.discovered().tools.len());
        let cancelled = context.ct.clone();
        let tool_context = ToolContext::new()
            .with_call_id(call_id(&context.id))
            .with_cancellation(cancelled.clone());
        // Only a discovery may need to tell the client afterwards; the context itself moves
        // into the request (cloning it would copy its extensions, the HTTP request's headers).
        let peer = discovered_before.map(|_| context.peer.clone());
        // A 2026-07-28 round answers the tool's questions from the request; a session asks
        // its client.
        let asked = Asked {
            method: "tools/call",
            name: &name,
            arguments: &arguments,
            responses,
            state,
        };
        let stateless = matches!(served, Served::Stateless(_));
        if stateless
            && let Some(relay) = self.server.relayed_to()
            && let Some(capabilities) = context.client_capabilities()
        {
            relay.client_announced(&capabilities);
        }
        let asking = Asking::begin(&self.server, &principal, &context, stateless, asked)?;
        let tool_context = tool_context.with_input(Arc::clone(&asking.channel));
        let audit = (self.server.audit_log())
            .map(|log| CallAudit::begin(log, &principal, &context, &name, &arguments));
        let log_level = match served {
            Served::Stateless(_) => context.meta.log_level().map(LogLevel::of_rmcp),
            Served::Stateful(_) => self.state.log_level(),
        };
        // The request travels in the call's context, to the tool and to what it hands its
        // context to; the upstream side notes through it what the answer must say.
        let request = McpRequest::new(context, principal, log_level);
        let tool_context = tool_context.with_extension(request.clone());
        let call = session.call_with_context(&name, arguments, tool_context);
        let result = unless_cancelled(call, &cancelled).await?;
        let note = request.take_note();
        let ended = match asking.end(&self.server, result.is_error()) {
            RoundEnd::Complete => None,
            RoundEnd::InputRequired(required) => {
                Some(Ok(CallToolResponse::InputRequired(required)))
            }
            RoundEnd::Refused(error) => Some(Err(error)),
        };
        if let Some(ended) = ended {
            if let Some(audit) = audit {
                audit.finish(result.error_kind(), &note, 0);
            }
            return ended;
        }
        let refusal = match &note.refused {
            Some(Refused::Limit(exceeded)) => Some(exceeded.error_data()),
            Some(Refused::MissingCapability(error)) => Some(error.clone()),
            _ => None,
        };
        if let Some(refusal) = refusal
            && result.is_error()
        {
            if let Some(audit) = audit {
                audit.finish(result.error_kind(), &note, 0);
            }
            return Err(refusal);
        }
        let kind = result.error_kind();
        let unknown = kind == Some(ToolErrorKind::UnknownTool);
        if !unknown && let (Some(before), Some(peer)) = (discovered_before, peer) {
            // The answer gives the client each tool's schema, and MCP has no model turns to
            // wait for: what it found is callable from now on, relisted or not.
            session.begin_turn();
            let discovered = session.discovered().tools;
            if discovered.len() > before {
                // Boxed: inline, what a discovery awaits would make every call's future 1 KiB
                // larger, a future moved whole on its way into its box.
                Box::pin(async {
                    self.state.discovered_here(&discovered[before..]).await;
                    if let Err(error) = peer.notify_tool_list_changed().await {
                        tracing::debug!(target: "lazytool::mcp", %error, "cannot send tools/list_changed");
                    }
                })
                .await;
            }
        }
        let answer = tool_answer(&self.server, session.registry(), &name, result);
        if let Some(audit) = audit {
            let bytes = match &answer {
                Ok(answer) if !unknown => serde_json::to_vec(answer).map_or(0, |bytes| bytes.len()),
                _ => 0,
            };
            audit.finish(kind, &note, bytes);
        }
        answer.map(Into::into)
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        offers::list_prompts(&self.server, &principal(&context), request).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let stateless = is_stateless(&context);
        offers::get_prompt(
            &self.server,
            &principal(&context),
            request,
            &context,
            stateless,
        )
        .await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        offers::list_resources(&self.server, &principal(&context), request).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        offers::list_resource_templates(&self.server, &principal(&context), request).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        offers::read_resource(&self.server, &principal(&context), request).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        offers::complete(&self.server, &principal(&context), request).await
    }

    // 2025-11-25 only: a 2026-07-28 request asks for logs in its own `_meta`. rmcp marks MCP
    // logging deprecated (SEP-2577).
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if is_stateless(&context) {
            return Err(ErrorData::method_not_found::<SetLevelRequestMethod>());
        }
        self.state.set_log_level(LogLevel::of_rmcp(request.level));
        Ok(())
    }

    // 2025-11-25 only (rmcp refuses them to 2026-07-28 requests, which use
    // `subscriptions/listen`); rmcp marks them deprecated for that reason.
    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let uri = request.uri;
        (self.state.subscriptions)
            .subscribe(&self.server, &principal(&context), uri.clone())
            .await?;
        self.state.subscription_here(&uri, true);
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.state.subscriptions.unsubscribe(&request.uri);
        self.state.subscription_here(&request.uri, false);
        Ok(())
    }

    // rmcp's HTTP server checks a tools/call's `Mcp-Param-*` headers (SEP-2243) against the
    // `x-mcp-header` properties of the tool's declared schema.
    fn get_tool(&self, name: &str) -> Option<McpTool> {
        let catalog = self.server.catalog();
        let registry = catalog.borrow();
        let tool = registry.get(name)?;
        Some(mcp_tool(tool.definition(), Some(tool)))
    }

    // rmcp takes a request whose params do not fit its method for a custom request. (rmcp
    // marks `logging/setLevel`'s params deprecated, as all of MCP logging.)
    #[allow(deprecated)]
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let params = request.params.unwrap_or(Value::Null);
        // 2026-07-28 removed it: whatever its params, the method is not found.
        if request.method == "logging/setLevel" && is_stateless(&context) {
            return Err(ErrorData::method_not_found::<SetLevelRequestMethod>());
        }
        let problem = match request.method.as_str() {
            "tools/call" => serde_json::from_value::<CallToolRequestParams>(params).err(),
            "tools/list" => serde_json::from_value::<PaginatedRequestParams>(params).err(),
            "completion/complete" => serde_json::from_value::<CompleteRequestParams>(params).err(),
            "logging/setLevel" => serde_json::from_value::<SetLevelRequestParams>(params).err(),
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
        let mut accepted = requested.supported_by(&self.server.config().capabilities);
        // A subscription has no principal to gate resources by: a server that gates them
        // offers no resource subscriptions on it.
        if self.server.gates_offers() {
            accepted.resource_subscriptions = None;
        }
        Some(accepted)
    }

    // Subscribers speak 2026-07-28: the tool list changes only with the deployment (a live
    // catalog), the prompt and resource lists with their providers.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        offers::listen(&self.server, context, &self.input_closed).await;
        Ok(())
    }
}
