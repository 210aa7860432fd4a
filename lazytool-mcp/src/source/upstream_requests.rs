//! What an upstream server asks of its client during a call, passed on to the client of
//! that call: sampling, elicitation and progress ([`UpstreamRequests`]).
#![expect(
    deprecated,
    reason = "sampling (SEP-2577 deprecates it) is what servers up to 2025-11-25 send"
)]

use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{
    ClientCapabilities, ClientResult, CreateMessageRequest, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequest, ElicitRequestParams, ElicitResult, ErrorCode, ErrorData,
    ProgressNotificationParam, ServerRequest,
};
use rmcp::service::{InboundStreamOrigin, OriginatingRequestId, RequestContext, ServiceError};

use super::in_flight::{InFlight, Owner};

const TARGET: &str = "lazytool::upstream";

/// Passes an upstream's requests and progress on to the client of the call they belong to.
pub(crate) struct UpstreamRequests {
    /// How refusals name the program.
    pub(crate) program: Arc<str>,
    /// The upstream server's name.
    pub(crate) server: Arc<str>,
    pub(crate) in_flight: Arc<InFlight>,
}

/// A request that can be passed on.
#[derive(Clone, Copy)]
enum Kind {
    Sampling,
    Elicitation,
}

impl Kind {
    fn method(self) -> &'static str {
        match self {
            Kind::Sampling => "sampling/createMessage",
            Kind::Elicitation => "elicitation/create",
        }
    }

    fn capability(self) -> &'static str {
        match self {
            Kind::Sampling => "sampling",
            Kind::Elicitation => "elicitation",
        }
    }

    fn announced_by(self, capabilities: &ClientCapabilities) -> bool {
        match self {
            Kind::Sampling => capabilities.sampling.is_some(),
            Kind::Elicitation => capabilities.elicitation.is_some(),
        }
    }
}

impl UpstreamRequests {
    pub(crate) async fn sampling(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let request = ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params));
        match self.pass_on(Kind::Sampling, request, &context).await? {
            ClientResult::CreateMessageResult(result) => Ok(*result),
            _ => Err(self.refusal(
                Kind::Sampling,
                ErrorCode::INTERNAL_ERROR,
                "the client answered with something else than a sampling result",
            )),
        }
    }

    pub(crate) async fn elicitation(
        &self,
        params: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
        match self.pass_on(Kind::Elicitation, request, &context).await? {
            ClientResult::ElicitResult(result) => Ok(result),
            _ => Err(self.refusal(
                Kind::Elicitation,
                ErrorCode::INTERNAL_ERROR,
                "the client answered with something else than an elicitation result",
            )),
        }
    }

    /// Sends the client of the call that `params` reports on its progress under the
    /// client's own token, when it asked for progress; drops it otherwise.
    pub(crate) async fn progress(&self, params: &ProgressNotificationParam) {
        let Some(call) = self.in_flight.by_progress_token(&params.progress_token) else {
            tracing::debug!(target: TARGET, server = %self.server, "progress of no call in flight dropped");
            return;
        };
        let Some(downstream) = &call.downstream else {
            return;
        };
        let sent = downstream
            .progress(params.progress, params.total, params.message.as_deref())
            .await;
        if let Err(error) = sent {
            tracing::debug!(target: TARGET, server = %self.server, %error, "progress not passed on");
        }
    }

    /// Sends `request` to the client of the call it belongs to, and returns its answer;
    /// a JSON-RPC error when there is no such call or client, or the client cannot answer
    /// it, and when the call ends (answered, cancelled, timed out) before the client answers.
    async fn pass_on(
        &self,
        kind: Kind,
        mut request: ServerRequest,
        context: &RequestContext<RoleClient>,
    ) -> Result<ClientResult, ErrorData> {
        let origin = context.extensions.get::<InboundStreamOrigin>();
        let call = match self.in_flight.owner(origin) {
            Owner::Call(call) => call,
            Owner::None => {
                return Err(self.refusal(
                    kind,
                    ErrorCode::INVALID_PARAMS,
                    "no call of this server is in flight (requests to the client are passed on only during a tool call)",
                ));
            }
            Owner::Ambiguous(calls) => {
                return Err(self.refusal(
                    kind,
                    ErrorCode::INVALID_PARAMS,
                    &format!(
                        "{calls} calls of different clients are in flight and nothing tells which one this request belongs to"
                    ),
                ));
            }
        };
        let Some(downstream) = &call.downstream else {
            return Err(self.refusal(
                kind,
                ErrorCode::METHOD_NOT_FOUND,
                "the call was not made by an MCP client",
            ));
        };
        let announced = downstream
            .context()
            .client_capabilities()
            .is_some_and(|capabilities| kind.announced_by(&capabilities));
        if !announced {
            return Err(self.refusal(
                kind,
                ErrorCode::METHOD_NOT_FOUND,
                &format!(
                    "the client did not announce the `{}` capability",
                    kind.capability()
                ),
            ));
        }
        // Over streamable HTTP, the request rides the stream of the call it belongs to.
        let originating = OriginatingRequestId(downstream.context().id.clone());
        match &mut request {
            ServerRequest::CreateMessageRequest(request) => {
                request.extensions.insert(originating);
            }
            ServerRequest::ElicitRequest(request) => {
                request.extensions.insert(originating);
            }
            _ => {}
        }
        tracing::debug!(target: TARGET, server = %self.server, method = kind.method(), "passing a request on to the client");
        let peer = downstream.peer().clone();
        tokio::select! {
            answer = peer.send_request(request) => match answer {
                Ok(answer) => Ok(answer),
                // The client's own refusal, as it gave it.
                Err(ServiceError::McpError(error)) => Err(error),
                Err(error) => Err(self.refusal(kind, ErrorCode::INTERNAL_ERROR, &format!("the client did not answer: {error}"))),
            },
            () = tokio::time::sleep_until(call.deadline) => Err(self.refusal(
                kind,
                ErrorCode::INTERNAL_ERROR,
                "the client did not answer within the call's timeout",
            )),
            () = call.ended.cancelled() => Err(self.refusal(
                kind,
                ErrorCode::INTERNAL_ERROR,
                "the call ended before the client answered",
            )),
        }
    }

    /// The error an upstream reads: who refuses, what, and why.
    fn refusal(&self, kind: Kind, code: ErrorCode, why: &str) -> ErrorData {
        let message = format!(
            "{} cannot pass `{}` from the MCP server `{}` on to its client: {why}",
            self.program,
            kind.method(),
            self.server
        );
        tracing::info!(target: TARGET, server = %self.server, %message, "an upstream request refused");
        ErrorData::new(code, message, None)
    }
}
