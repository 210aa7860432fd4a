//! What an upstream server asks of its client during a call, passed on to the client of
//! that call: sampling, elicitation and progress ([`UpstreamRequests`]); an elicitation no
//! client can be asked goes to the source's [`Elicitor`], if it has one.
#![expect(
    deprecated,
    reason = "sampling (SEP-2577 deprecates it) is what servers up to 2025-11-25 send"
)]

use std::sync::Arc;

use lazytool_runtime::{InputError, ToolContext};
use rmcp::RoleClient;
use rmcp::model::{
    ClientCapabilities, ClientResult, CreateMessageRequest, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequest, ElicitRequestParams, ElicitResult, ErrorCode, ErrorData,
    InputRequest, InputRequests, InputResponses, ListRootsResult, LoggingMessageNotificationParam,
    ProgressNotificationParam, ServerRequest,
};
use rmcp::service::{InboundStreamOrigin, OriginatingRequestId, RequestContext, ServiceError};
use serde_json::{Value, json};

use tokio::time::Instant;

use crate::requests::elicitor::Elicitor;
use crate::requests::in_flight::{InFlight, Owner};
use lazytool_mcp_core::LogLevel;
use lazytool_mcp_core::McpRequest;
use lazytool_mcp_core::capabilities::has;

const TARGET: &str = "lazytool::upstream";

/// Passes an upstream's requests and progress on to the client of the call they belong to.
pub(crate) struct UpstreamRequests {
    /// How refusals name the program.
    pub(crate) program: Arc<str>,
    /// The upstream server's name.
    pub(crate) server: Arc<str>,
    pub(crate) in_flight: Arc<InFlight>,
    /// Answers the elicitations no client can be asked.
    pub(crate) elicitor: Option<Arc<dyn Elicitor>>,
}

/// Why an upstream's input requests were not all answered.
pub(crate) enum Unanswered {
    /// The client of the call is asked through the gateway's own input-required result: the
    /// call comes again with the answers.
    Asked,
    /// Refused: the error the upstream's call fails with.
    Refused(ErrorData),
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
        has(capabilities, self.capability())
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
        let Some(call) = self
            .in_flight
            .by_progress_token(&params.progress_token)
            .await
        else {
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

    /// Passes a log message of the server on to the client of the call it belongs to, which
    /// gets it if it asked for messages that severe; drops it otherwise.
    pub(crate) async fn log(
        &self,
        params: LoggingMessageNotificationParam,
        origin: Option<&InboundStreamOrigin>,
    ) {
        let Owner::Call(call) = self.in_flight.owner(origin).await else {
            tracing::debug!(target: TARGET, server = %self.server, "a log message of no single call in flight dropped");
            return;
        };
        let Some(downstream) = &call.downstream else {
            return;
        };
        let level = LogLevel::of_rmcp(params.level);
        if let Err(error) = downstream.log(level, params.data).await {
            tracing::debug!(target: TARGET, server = %self.server, %error, "a log message not passed on");
        }
    }

    /// Sends `request` to the client of the call it belongs to, and returns its answer;
    /// a JSON-RPC error when there is no such call or client, or the client cannot answer
    /// it, and when the call ends (answered, cancelled, timed out) before the client answers.
    async fn pass_on(
        &self,
        kind: Kind,
        request: ServerRequest,
        context: &RequestContext<RoleClient>,
    ) -> Result<ClientResult, ErrorData> {
        let origin = context.extensions.get::<InboundStreamOrigin>();
        let call = match self.in_flight.owner(origin).await {
            Owner::Call(call) => call,
            Owner::None => {
                return self
                    .unreachable(
                        kind,
                        request,
                        ErrorCode::INVALID_PARAMS,
                        "no call of this server is in flight (requests to the client are passed on only during a tool call)",
                    )
                    .await;
            }
            Owner::Ambiguous(calls) => {
                let why = format!(
                    "{calls} calls of different clients are in flight and nothing tells which one this request belongs to"
                );
                return (self.unreachable(kind, request, ErrorCode::INVALID_PARAMS, &why)).await;
            }
        };
        let ended = call.ended.clone();
        let asking = self.ask(kind, request, call.downstream.as_ref(), call.deadline);
        tokio::select! {
            answer = asking => answer,
            () = ended.cancelled() => Err(self.refusal(
                kind,
                ErrorCode::INTERNAL_ERROR,
                "the call ended before the client answered",
            )),
        }
    }

    /// Answers the input requests of a 2026-07-28 `input_required` result through `context`,
    /// the context of the call they belong to, all at once: a 2025-11-25 client is asked
    /// directly; for a 2026-07-28 client the questions go into the gateway's own
    /// input-required result ([`Unanswered::Asked`]), and come back answered with the call. A
    /// client that cannot be asked leaves an elicitation to the source's elicitor, and roots
    /// answered with none; anything else is refused.
    pub(crate) async fn answer_input(
        &self,
        requests: InputRequests,
        context: &ToolContext,
    ) -> Result<InputResponses, Unanswered> {
        let answers = requests.into_iter().map(|(key, request)| async move {
            let answer = self.answer_one(&key, request, context).await;
            answer.map(|answer| (key, answer))
        });
        let mut responses = InputResponses::new();
        let mut asked = false;
        for answer in futures_util::future::join_all(answers).await {
            match answer {
                Ok((key, answer)) => {
                    responses.insert(key, answer);
                }
                Err(Unanswered::Asked) => asked = true,
                Err(refused) => return Err(refused),
            }
        }
        if asked {
            return Err(Unanswered::Asked);
        }
        Ok(responses)
    }

    async fn answer_one(
        &self,
        key: &str,
        request: InputRequest,
        context: &ToolContext,
    ) -> Result<Value, Unanswered> {
        let wire = serde_json::to_value(&request).map_err(|error| {
            Unanswered::Refused(ErrorData::internal_error(error.to_string(), None))
        })?;
        let method = wire["method"].as_str().unwrap_or_default();
        let params = wire.get("params").cloned().unwrap_or_else(|| json!({}));
        let kind = match method {
            "sampling/createMessage" => Some(Kind::Sampling),
            "elicitation/create" => Some(Kind::Elicitation),
            _ => None,
        };
        let asked = lazytool_runtime::InputRequest::new(method, params)
            .map_err(|_| Unanswered::Refused(self.unknown_input(key)))?;
        let why = match context.ask(key, asked).await {
            Ok(answer) => return Ok(answer),
            Err(InputError::Required { .. }) => return Err(Unanswered::Asked),
            Err(InputError::Unsupported { capability }) => {
                format!("the client did not announce the `{capability}` capability")
            }
            Err(InputError::Unavailable) => "the call was not made by an MCP client".to_owned(),
            Err(other) => other.to_string(),
        };
        let refused =
            |kind| Unanswered::Refused(self.refusal(kind, ErrorCode::METHOD_NOT_FOUND, &why));
        match (request, kind) {
            (InputRequest::Elicitation(request), _) => {
                let request = ServerRequest::ElicitRequest(request);
                match self
                    .unreachable(
                        Kind::Elicitation,
                        request,
                        ErrorCode::METHOD_NOT_FOUND,
                        &why,
                    )
                    .await
                {
                    Ok(ClientResult::ElicitResult(answer)) => {
                        serde_json::to_value(answer).map_err(|error| {
                            Unanswered::Refused(ErrorData::internal_error(error.to_string(), None))
                        })
                    }
                    Ok(_) => Err(Unanswered::Refused(self.unknown_input(key))),
                    Err(error) => Err(Unanswered::Refused(error)),
                }
            }
            (InputRequest::ListRoots(_), _) => Ok(json!(ListRootsResult::default())),
            (_, Some(kind)) => Err(refused(kind)),
            _ => Err(Unanswered::Refused(self.unknown_input(key))),
        }
    }

    /// Sends `request` to `downstream`, the client of a call due by `deadline`, when it
    /// announced the capability; its answer, or why not.
    async fn ask(
        &self,
        kind: Kind,
        mut request: ServerRequest,
        downstream: Option<&McpRequest>,
        deadline: Instant,
    ) -> Result<ClientResult, ErrorData> {
        let Some(downstream) = downstream else {
            let why = "the call was not made by an MCP client";
            return (self.unreachable(kind, request, ErrorCode::METHOD_NOT_FOUND, why)).await;
        };
        let announced = downstream
            .context()
            .client_capabilities()
            .is_some_and(|capabilities| kind.announced_by(&capabilities));
        if !announced {
            let why = format!(
                "the client did not announce the `{}` capability",
                kind.capability()
            );
            return (self.unreachable(kind, request, ErrorCode::METHOD_NOT_FOUND, &why)).await;
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
            () = tokio::time::sleep_until(deadline) => Err(self.refusal(
                kind,
                ErrorCode::INTERNAL_ERROR,
                "the client did not answer within the call's timeout",
            )),
        }
    }

    /// The answer to `request` when no client can be asked (`why`): the elicitor's, for an
    /// elicitation when the source has one; else a refusal with `code`.
    async fn unreachable(
        &self,
        kind: Kind,
        request: ServerRequest,
        code: ErrorCode,
        why: &str,
    ) -> Result<ClientResult, ErrorData> {
        match (request, &self.elicitor) {
            (ServerRequest::ElicitRequest(request), Some(elicitor)) => {
                tracing::debug!(target: TARGET, server = %self.server, why, "an elicitation answered by the source's elicitor");
                let answer = elicitor.elicit(&self.server, request.params).await?;
                Ok(ClientResult::ElicitResult(answer))
            }
            _ => Err(self.refusal(kind, code, why)),
        }
    }

    fn unknown_input(&self, key: &str) -> ErrorData {
        ErrorData::invalid_params(
            format!(
                "{} cannot answer the input request `{key}` of the MCP server `{}`: a kind it does not know",
                self.program, self.server
            ),
            None,
        )
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
