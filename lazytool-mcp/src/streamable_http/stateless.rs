//! Stateless (2026-07-28) calls answered by rmcp services kept between requests: [`Lanes`].
//!
//! rmcp answers each stateless request with a service of its own: a peer and its channels, a
//! task for the service's loop and another waiting for it, about 70,000 instructions a call
//! more than a request of a session. A lane is such a service kept for the next request: it
//! serves one request at a time and goes back to the pool once the request is answered. The
//! request's handler runs in the request's own task, as rmcp's service loop would run it in a
//! task of its own (the same context: the lane's peer, the request's `_meta` and extensions,
//! a cancellation cancelled once answered); what the handler sends the client on the way
//! (progress) leaves through the lane's service, whose loop stays idle otherwise. So a call
//! spawns no task and wakes none. Only `tools/call` and `tools/list` requests whose headers and body
//! rmcp would take as they are, with no `Mcp-Param-*` header to check ([`lane_request`]), use
//! a lane; any other request, and any
//! request while every lane is busy, goes to rmcp as before. A notification a tool sends after
//! its answer, from a task it left running, is dropped when the lane is next taken, or reaches
//! the next request on the lane if it comes later (clients drop progress of tokens they do not
//! know).
//!
//! A `tools/call` of a tool that takes only its arguments needs none of this: it is answered
//! without a lane ([`PlainCall`]).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::poll_fn;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use futures_core::Stream;
use http::StatusCode;
use http::request::Parts;
use lazytool_runtime::CancellationToken;
use rmcp::model::{
    CallToolRequestMethod, ClientCapabilities, ClientJsonRpcMessage, ClientRequest, ConstString,
    ErrorCode, GetExtensions, GetMeta, Implementation, InitializeRequestParams, JsonRpcRequest,
    ProtocolVersion, RequestId, ServerJsonRpcMessage,
};
use rmcp::service::{RunningService, serve_directly_with_ct};
use rmcp::transport::Transport;
use rmcp::transport::common::http_header::BASE64_HEADER_PREFIX;
use rmcp::{Peer, RoleServer};
use sse_stream::Sse;
use tokio::sync::mpsc;

use super::body::{error_response, json_response};
use super::event_stream::{event, event_stream};
use super::handler_call::{Call, handler_call};
use super::header_param_tools::HeaderParamTools;
use super::lane_checks::{
    METHOD, NAME, PROTOCOL_VERSION, SESSION_ID, accepts_json_and_events, sends_json, sole,
};
use super::lane_parse::{lane_parse, plain_parse};
use crate::connection::{McpConnection, PlainCall};
use crate::request_facts::{META_KEY_PROTOCOL_VERSION, admitted_in};
use crate::server::McpServer;

/// Lanes a server keeps at most; a request arriving while all are busy is served by rmcp.
pub(super) const MAX_LANES: usize = 64;

/// The pool of one server's lanes.
pub(super) struct Lanes {
    server: Arc<McpServer>,
    header_params: HeaderParamTools,
    idle: Mutex<Vec<Lane>>,
    /// Lanes in existence, idle or busy.
    open: AtomicUsize,
    /// Cancelled when the server has stopped: every lane's service stops.
    stopped: CancellationToken,
    keep_alive: Option<Duration>,
}

/// One kept service: the handler its requests are answered by, and what the handler sends
/// the client on the way. The messages are boxed: a channel keeps room for 32 of what it
/// carries, which for the messages themselves is 15 KiB a channel.
struct Lane {
    /// The handler, the one rmcp's service holds.
    connection: Arc<McpConnection>,
    /// What the handler's notifications leave through: rmcp's service loop, to `output`.
    peer: Peer<RoleServer>,
    /// Cancelled when the lane closes (or the server stops): a request's cancellation is a
    /// child of it, as it is of the service loop's in rmcp.
    closed: CancellationToken,
    output: mpsc::UnboundedReceiver<Box<ServerJsonRpcMessage>>,
    /// Held so that the service's input stays open (its loop ends when its input does).
    _input: mpsc::UnboundedSender<Box<ClientJsonRpcMessage>>,
    /// Dropping it cancels the service, and with it a request it is still answering.
    service: RunningService<RoleServer, McpConnection>,
}

/// What a lane's request gave first.
#[expect(
    clippy::large_enum_variant,
    reason = "it lives on the stack of one poll; a boxed answer cost every call an allocation"
)]
enum First {
    /// The answer, with nothing before it.
    Answer(ServerJsonRpcMessage),
    /// A message before the answer (a notification), or `None`: the lane's service stopped.
    Sent(Option<Box<ServerJsonRpcMessage>>),
}

/// A lane taken for one request: back to the pool once the request is answered, else (the
/// client went away) dropped, which cancels what it was running.
struct Lease {
    lanes: Arc<Lanes>,
    lane: Option<Lane>,
}

impl Lanes {
    /// Lanes serving `server`, stopped with `stopped`; event streams of calls that send
    /// notifications before their answer carry a keep-alive comment every `keep_alive`.
    pub(super) fn new(
        server: Arc<McpServer>,
        stopped: CancellationToken,
        keep_alive: Option<Duration>,
    ) -> Self {
        Lanes {
            header_params: HeaderParamTools::new(&server),
            server,
            idle: Mutex::default(),
            open: AtomicUsize::new(0),
            stopped,
            keep_alive,
        }
    }

    /// Answers `request` (from the request `parts`): a [`PlainCall`] without a lane, any
    /// other on a lane; gives the parts back when every lane is busy or the server has stopped.
    pub(super) async fn answer(
        self: &Arc<Self>,
        request: LaneRequest,
        parts: Parts,
    ) -> Result<Response, Parts> {
        if self.stopped.is_cancelled() {
            return Err(parts);
        }
        let request = match request {
            LaneRequest::Plain(call) => return Ok(self.answer_plain(call, &parts).await),
            LaneRequest::Routine(request) => request,
        };
        let Some(mut lease) = self.lease() else {
            return Err(parts);
        };
        let Some(lane) = lease.lane.as_mut() else {
            return Err(parts);
        };
        if lane.closed.is_cancelled() || lane.service.is_closed() {
            // The lane's service has stopped (the server is stopping): rmcp answers.
            lease.discard();
            return Err(parts);
        }
        // What a tool left behind after its answer (a notification from a task it spawned)
        // is not this request's.
        while lane.output.try_recv().is_ok() {}
        let id = request.id.clone();
        let mut call = lane.call(request, parts);
        let first = poll_fn(|cx| {
            if let Poll::Ready(answer) = call.as_mut().poll(cx) {
                return Poll::Ready(First::Answer(answer));
            }
            lane.output.poll_recv(cx).map(First::Sent)
        })
        .await;
        match first {
            First::Answer(answer) => {
                return match lane.output.try_recv() {
                    // Sent before the answer: the answer follows it in an event stream.
                    Ok(sent) => Ok(self.event_stream(Events {
                        sent: VecDeque::from([*sent]),
                        call: None,
                        answer: Some(answer),
                        lease: Some(lease),
                        id,
                    })),
                    Err(_) => {
                        lease.release();
                        Ok(json_answer(&answer))
                    }
                };
            }
            First::Sent(Some(sent)) => {
                return Ok(self.event_stream(Events {
                    sent: VecDeque::from([*sent]),
                    call: Some(call),
                    answer: None,
                    lease: Some(lease),
                    id,
                }));
            }
            First::Sent(None) => {}
        }
        // Not kept across the wait below, which would make the future an answer larger.
        drop(first);
        // The lane's service stopped: nothing more is sent on the way; the answer still
        // comes, then the lane is closed.
        let answer = call.await;
        lease.discard();
        Ok(json_answer(&answer))
    }

    /// The answer to a plain call, as the handler gives it on a lane.
    async fn answer_plain(&self, call: PlainCall, parts: &Parts) -> Response {
        let admitted = admitted_in(parts);
        json_answer(
            &call
                .answer_stateless(admitted, &self.server, &self.stopped)
                .await,
        )
    }

    fn lease(self: &Arc<Self>) -> Option<Lease> {
        if self.stopped.is_cancelled() {
            return None;
        }
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let lane = match idle {
            Some(lane) => lane,
            None => {
                self.open
                    .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                        (open < MAX_LANES).then_some(open + 1)
                    })
                    .ok()?;
                self.open_lane()
            }
        };
        Some(Lease {
            lanes: Arc::clone(self),
            lane: Some(lane),
        })
    }

    fn open_lane(&self) -> Lane {
        let (input, incoming) = mpsc::unbounded_channel();
        let (outgoing, output) = mpsc::unbounded_channel();
        // What rmcp gives the service of a stateless request: the version, nothing of the
        // client (each request names it in its `_meta`).
        let peer_info =
            InitializeRequestParams::new(ClientCapabilities::default(), Implementation::default())
                .with_protocol_version(ProtocolVersion::V_2026_07_28);
        let connection = McpConnection::new(Arc::clone(&self.server));
        let handle = Arc::new(connection.handle());
        let closed = self.stopped.child_token();
        let service = serve_directly_with_ct(
            connection,
            LaneTransport { incoming, outgoing },
            Some(peer_info),
            closed.clone(),
        );
        Lane {
            connection: handle,
            peer: service.peer().clone(),
            closed,
            output,
            _input: input,
            service,
        }
    }

    /// The answer as an event stream: what the call sent on the way, what follows, then the
    /// answer, which ends it.
    fn event_stream(&self, events: Events) -> Response {
        event_stream(events, self.keep_alive, Body::new, Body::new)
    }
}

impl Lane {
    /// `request`'s handler at work on the lane, the HTTP request's `parts` in its extensions;
    /// cancelled once answered, or when the lane closes.
    fn call(&self, mut request: JsonRpcRequest<ClientRequest>, parts: Parts) -> Call {
        request.request.extensions_mut().insert(parts);
        let connection = Arc::clone(&self.connection);
        handler_call(
            connection,
            self.peer.clone(),
            request,
            self.closed.child_token(),
        )
    }
}

impl Lease {
    /// The request is answered: the lane serves the next one.
    fn release(&mut self) {
        if let Some(lane) = self.lane.take() {
            if self.lanes.stopped.is_cancelled() {
                self.close(lane);
            } else {
                self.lanes
                    .idle
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(lane);
            }
        }
    }

    fn discard(&mut self) {
        if let Some(lane) = self.lane.take() {
            self.close(lane);
        }
    }

    fn close(&self, lane: Lane) {
        drop(lane);
        self.lanes.open.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.discard();
    }
}

/// The events of a call answered as a stream: what it sent on the way, in order, then its
/// answer, which ends the stream; the lane goes back once the answer is out.
struct Events {
    /// Sent and not yet in the stream.
    sent: VecDeque<ServerJsonRpcMessage>,
    /// The handler, until it answers.
    call: Option<Call>,
    /// The answer, once the handler has given it.
    answer: Option<ServerJsonRpcMessage>,
    /// `None` once the answer is out.
    lease: Option<Lease>,
    id: RequestId,
}

impl Events {
    /// The next message the call sent, if one is there.
    fn poll_sent(&mut self, cx: &mut Context<'_>) -> Poll<Option<ServerJsonRpcMessage>> {
        if let Some(message) = self.sent.pop_front() {
            return Poll::Ready(Some(message));
        }
        let Some(lane) = self.lease.as_mut().and_then(|lease| lease.lane.as_mut()) else {
            return Poll::Ready(None);
        };
        match lane.output.poll_recv(cx) {
            Poll::Ready(Some(message)) => Poll::Ready(Some(*message)),
            // The lane's service stopped: nothing more comes on the way. The lane is closed
            // once the call has answered (closing it now would cancel the call).
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Stream for Events {
    type Item = Result<Sse, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.lease.is_none() && this.answer.is_none() && this.call.is_none() {
            return Poll::Ready(None);
        }
        let sent = this.poll_sent(cx);
        if let Poll::Ready(Some(message)) = sent {
            return Poll::Ready(Some(Ok(event(&message, Some(&this.id)))));
        }
        if let Some(call) = &mut this.call {
            this.answer = Some(std::task::ready!(call.as_mut().poll(cx)));
            this.call = None;
            // What the handler sent before it answered is in the lane already.
            if let Poll::Ready(Some(message)) = this.poll_sent(cx) {
                return Poll::Ready(Some(Ok(event(&message, Some(&this.id)))));
            }
        }
        let Some(answer) = this.answer.take() else {
            return Poll::Ready(None);
        };
        if let Some(mut lease) = this.lease.take() {
            match sent {
                // The lane's service stopped: the lane is closed.
                Poll::Ready(None) => lease.discard(),
                _ => lease.release(),
            }
        }
        Poll::Ready(Some(Ok(event(&answer, Some(&this.id)))))
    }
}

/// The answer as rmcp sends the answer to a stateless request: JSON, with the HTTP status
/// rmcp maps its error codes to.
fn json_answer(message: &ServerJsonRpcMessage) -> Response {
    let status = match message {
        ServerJsonRpcMessage::Error(error) => match error.error.code {
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::HEADER_MISMATCH => StatusCode::BAD_REQUEST,
            ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
            _ => StatusCode::OK,
        },
        _ => StatusCode::OK,
    };
    match serde_json::to_vec(message) {
        Ok(body) => json_response(status, body),
        Err(error) => {
            tracing::warn!(target: "lazytool::mcp", %error, "cannot serialise an answer");
            no_answer()
        }
    }
}

fn no_answer() -> Response {
    error_response(
        StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::INTERNAL_ERROR,
        "Internal error: the server stopped before it answered",
    )
}

/// The request in `body`, if a lane may answer it: a stateless (2026-07-28) `tools/call` or
/// `tools/list` without a session, whose headers are what rmcp checks them to be (accepting
/// JSON and event streams, sending JSON, `MCP-Protocol-Version` the version its `_meta`
/// names, `Mcp-Method` and `Mcp-Name` as in the body) and whose `_meta` holds every key that
/// version requires. Anything else is left to rmcp, which answers it as the protocol says.
pub(super) fn lane_request(parts: &Parts, body: &[u8], lanes: &Lanes) -> Option<LaneRequest> {
    let headers = &parts.headers;
    if headers.contains_key(&SESSION_ID)
        || sole(headers, &PROTOCOL_VERSION)? != ProtocolVersion::V_2026_07_28.as_str()
        || !accepts_json_and_events(headers)
        || !sends_json(headers)
    {
        return None;
    }
    let method = sole(headers, &METHOD)?;
    if method == CallToolRequestMethod::VALUE {
        // A plain call is read straight into its call, its `_meta` checked and skipped.
        let named = sole(headers, &NAME)?;
        if !named.starts_with(BASE64_HEADER_PREFIX)
            && !lanes.header_params.has(named)
            && PlainCall::is_plain(&lanes.server, named)
            && let Some(call) = plain_parse(body, named)
        {
            return Some(LaneRequest::Plain(call));
        }
    }
    let request = lane_parse(body, method)?;
    let name = match &request.request {
        ClientRequest::CallToolRequest(call) => Some(call.params.name.as_ref()),
        ClientRequest::ListToolsRequest(_) => None,
        _ => return None,
    };
    // The version read as text (rmcp's `missing_required_keys` would deserialise it again);
    // without the client's capabilities, rmcp answers 400 where its handler would answer 200.
    let meta = request.request.get_meta();
    let version = meta.get(META_KEY_PROTOCOL_VERSION);
    if version.and_then(serde_json::Value::as_str) != Some(ProtocolVersion::V_2026_07_28.as_str())
        || meta.client_capabilities().is_none()
        || method != request.request.method()
    {
        return None;
    }
    if let Some(name) = name {
        // rmcp decodes a value carried in Base64 (SEP-2243); the lanes leave it to rmcp.
        let named = sole(headers, &NAME)?;
        if named.starts_with(BASE64_HEADER_PREFIX) || named != name {
            return None;
        }
        // rmcp checks the `Mcp-Param-*` headers of a tool that has any (SEP-2243).
        if lanes.header_params.has(name) {
            return None;
        }
    }
    Some(LaneRequest::Routine(request))
}

/// What [`lane_request`] read.
#[expect(
    clippy::large_enum_variant,
    reason = "it lives on the stack until matched; boxed, every routine request would cost an allocation"
)]
pub(super) enum LaneRequest {
    /// A call of a tool that takes only its arguments.
    Plain(PlainCall),
    /// Any other request a lane may answer, as rmcp reads it.
    Routine(JsonRpcRequest<ClientRequest>),
}

/// A lane's side of rmcp's service loop: what the lane's requests bring in, what the service
/// sends out, in the order it sends it.
struct LaneTransport {
    incoming: mpsc::UnboundedReceiver<Box<ClientJsonRpcMessage>>,
    outgoing: mpsc::UnboundedSender<Box<ServerJsonRpcMessage>>,
}

impl Transport<RoleServer> for LaneTransport {
    type Error = Infallible;

    fn send(
        &mut self,
        message: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Infallible>> + Send + 'static {
        // Sent now, not when rmcp's task polls the future: messages leave in the order the
        // service sends them. Nobody listening (the client went away) loses nothing it wants.
        let _ = self.outgoing.send(Box::new(message));
        std::future::ready(Ok(()))
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        self.incoming.recv().await.map(|message| *message)
    }

    async fn close(&mut self) -> Result<(), Infallible> {
        self.incoming.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests;
