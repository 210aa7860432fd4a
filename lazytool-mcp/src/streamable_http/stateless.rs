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
use http::request::Parts;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use lazytool_runtime::CancellationToken;
use rmcp::model::{
    ClientCapabilities, ClientJsonRpcMessage, ClientRequest, ErrorCode, Extensions, GetExtensions,
    GetMeta, Implementation, InitializeRequestParams, JsonRpcRequest, ProtocolVersion, RequestId,
    RequestMetaObject, ServerJsonRpcMessage,
};
use rmcp::service::{RequestContext, RunningService, Service, serve_directly_with_ct};
use rmcp::transport::Transport;
use rmcp::transport::common::http_header::{
    BASE64_HEADER_PREFIX, EVENT_STREAM_MIME_TYPE, HEADER_MCP_METHOD, HEADER_MCP_NAME,
    HEADER_MCP_PROTOCOL_VERSION, HEADER_SESSION_ID, JSON_MIME_TYPE,
};
use rmcp::{Peer, RoleServer};
use sse_stream::{KeepAlive, Sse, SseBody};
use tokio::sync::mpsc;

use self::lane_parse::lane_parse;
use super::body::{error_response, json_response};
use crate::connection::McpConnection;
use crate::jsonrpc::decode;
use crate::server::McpServer;

/// Lanes a server keeps at most; a request arriving while all are busy is served by rmcp.
pub(super) const MAX_LANES: usize = 64;

/// The pool of one server's lanes.
pub(super) struct Lanes {
    server: Arc<McpServer>,
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

/// A request's handler at work: its answer, once it has one.
type Call = Pin<Box<dyn Future<Output = ServerJsonRpcMessage> + Send>>;

/// What a lane's request gave first. (Boxed: a message is about 500 bytes.)
enum First {
    /// The answer, with nothing before it.
    Answer(Box<ServerJsonRpcMessage>),
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
    /// The server the lanes serve.
    pub(super) fn server(&self) -> &McpServer {
        &self.server
    }

    /// Lanes serving `server`, stopped with `stopped`; event streams of calls that send
    /// notifications before their answer carry a keep-alive comment every `keep_alive`.
    pub(super) fn new(
        server: Arc<McpServer>,
        stopped: CancellationToken,
        keep_alive: Option<Duration>,
    ) -> Self {
        Lanes {
            server,
            idle: Mutex::default(),
            open: AtomicUsize::new(0),
            stopped,
            keep_alive,
        }
    }

    /// Answers `request` (from the request `parts`) on a lane; gives both back when every
    /// lane is busy.
    pub(super) async fn answer(
        self: &Arc<Self>,
        request: JsonRpcRequest<ClientRequest>,
        parts: Parts,
    ) -> Result<Response, (JsonRpcRequest<ClientRequest>, Parts)> {
        let Some(mut lease) = self.lease() else {
            return Err((request, parts));
        };
        let Some(lane) = lease.lane.as_mut() else {
            return Err((request, parts));
        };
        if lane.closed.is_cancelled() || lane.service.is_closed() {
            // The lane's service has stopped (the server is stopping): rmcp answers.
            lease.discard();
            return Err((request, parts));
        }
        // What a tool left behind after its answer (a notification from a task it spawned)
        // is not this request's.
        while lane.output.try_recv().is_ok() {}
        let id = request.id.clone();
        let mut call = lane.call(request, parts);
        let first = poll_fn(|cx| {
            if let Poll::Ready(answer) = call.as_mut().poll(cx) {
                return Poll::Ready(First::Answer(Box::new(answer)));
            }
            lane.output.poll_recv(cx).map(First::Sent)
        })
        .await;
        match first {
            First::Answer(answer) => match lane.output.try_recv() {
                // Sent before the answer: the answer follows it in an event stream.
                Ok(sent) => Ok(self.event_stream(Events {
                    sent: VecDeque::from([*sent]),
                    call: None,
                    answer: Some(*answer),
                    lease: Some(lease),
                    id,
                })),
                Err(_) => {
                    lease.release();
                    Ok(json_answer(&answer))
                }
            },
            First::Sent(Some(sent)) => Ok(self.event_stream(Events {
                sent: VecDeque::from([*sent]),
                call: Some(call),
                answer: None,
                lease: Some(lease),
                id,
            })),
            First::Sent(None) => {
                // The lane's service stopped: nothing more is sent on the way; the answer
                // still comes, then the lane is closed.
                let answer = call.await;
                lease.discard();
                Ok(json_answer(&answer))
            }
        }
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
        let body = SseBody::new(events);
        let body = match self.keep_alive {
            Some(interval) => {
                Body::new(body.with_keep_alive::<Tick>(KeepAlive::new().interval(interval)))
            }
            None => Body::new(body),
        };
        let mut response = Response::new(body);
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(EVENT_STREAM_MIME_TYPE),
        );
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
        response
    }
}

impl Lane {
    /// `request`'s handler at work, with the context rmcp's service loop gives a request: the
    /// request's `_meta` and extensions (the HTTP request's `parts` among them), the lane's
    /// peer, and a cancellation that is cancelled once the request is answered (or dropped
    /// unanswered: the client went away).
    fn call(&self, request: JsonRpcRequest<ClientRequest>, parts: Parts) -> Call {
        let JsonRpcRequest {
            id, mut request, ..
        } = request;
        request.extensions_mut().insert(parts);
        let mut meta = RequestMetaObject::new();
        let mut extensions = Extensions::new();
        std::mem::swap(&mut meta, request.get_meta_mut());
        std::mem::swap(&mut extensions, request.extensions_mut());
        let cancellation = self.closed.child_token();
        let mut context = RequestContext::new(id.clone(), self.peer.clone());
        context.ct = cancellation.clone();
        context.meta = meta;
        context.extensions = extensions;
        let connection = Arc::clone(&self.connection);
        Box::pin(async move {
            let _answered = cancellation.drop_guard();
            match connection.handle_request(request, context).await {
                Ok(result) => ServerJsonRpcMessage::response(result, id),
                Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
            }
        })
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
            return Poll::Ready(Some(Ok(event(&message, &this.id))));
        }
        if let Some(call) = &mut this.call {
            this.answer = Some(std::task::ready!(call.as_mut().poll(cx)));
            this.call = None;
            // What the handler sent before it answered is in the lane already.
            if let Poll::Ready(Some(message)) = this.poll_sent(cx) {
                return Poll::Ready(Some(Ok(event(&message, &this.id))));
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
        Poll::Ready(Some(Ok(event(&answer, &this.id))))
    }
}

/// `message` as an event of the stream answering request `id`.
fn event(message: &ServerJsonRpcMessage, id: &RequestId) -> Sse {
    let data = serde_json::to_string(message).unwrap_or_else(|error| {
        tracing::warn!(target: "lazytool::mcp", %error, "cannot serialise a server message");
        let reply = decode::reply(
            serde_json::to_value(id).ok(),
            ErrorCode::INTERNAL_ERROR,
            "Internal error: the server could not serialise a message",
        );
        String::from_utf8_lossy(&reply).into_owned()
    });
    Sse::default().data(data)
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
pub(super) fn lane_request(
    parts: &Parts,
    body: &[u8],
    server: &McpServer,
) -> Option<JsonRpcRequest<ClientRequest>> {
    let headers = &parts.headers;
    if headers.contains_key(HEADER_SESSION_ID)
        || sole(headers, HEADER_MCP_PROTOCOL_VERSION)? != ProtocolVersion::V_2026_07_28.as_str()
        || !accepts_json_and_events(headers)
        || !sends_json(headers)
    {
        return None;
    }
    let request = lane_parse(body, sole(headers, HEADER_MCP_METHOD)?)?;
    let name = match &request.request {
        ClientRequest::CallToolRequest(call) => Some(call.params.name.as_ref()),
        ClientRequest::ListToolsRequest(_) => None,
        _ => return None,
    };
    let meta = request.request.get_meta();
    if meta.protocol_version() != Some(ProtocolVersion::V_2026_07_28)
        || !meta
            .missing_required_keys(&ProtocolVersion::V_2026_07_28)
            .is_empty()
        || sole(headers, HEADER_MCP_METHOD)? != request.request.method()
    {
        return None;
    }
    if let Some(name) = name {
        // rmcp decodes a value carried in Base64 (SEP-2243); the lanes leave it to rmcp.
        let named = sole(headers, HEADER_MCP_NAME)?;
        if named.starts_with(BASE64_HEADER_PREFIX) || named != name {
            return None;
        }
        // rmcp checks the `Mcp-Param-*` headers of a tool that has any (SEP-2243).
        let catalog = server.catalog();
        let registry = catalog.borrow();
        let tool = registry.get(name);
        if tool.is_some_and(|tool| has_header_params(tool.declared_input_schema())) {
            return None;
        }
    }
    Some(request)
}

/// Whether `schema` annotates any property with `x-mcp-header`.
fn has_header_params(schema: &serde_json::Value) -> bool {
    match schema {
        serde_json::Value::Object(object) => {
            object.contains_key("x-mcp-header") || object.values().any(has_header_params)
        }
        serde_json::Value::Array(items) => items.iter().any(has_header_params),
        _ => false,
    }
}

/// The one value of header `name`, if it has exactly one and it is text.
fn sole<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    value.to_str().ok()
}

/// Whether `Accept` names both JSON and event streams, without weights (which rmcp reads).
fn accepts_json_and_events(headers: &HeaderMap) -> bool {
    let (mut json, mut events) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        for range in value.split(',') {
            let range = range.trim();
            if range.contains(';') {
                return false;
            }
            json |= range.eq_ignore_ascii_case(JSON_MIME_TYPE);
            events |= range.eq_ignore_ascii_case(EVENT_STREAM_MIME_TYPE);
        }
    }
    json && events
}

fn sends_json(headers: &HeaderMap) -> bool {
    sole(headers, header::CONTENT_TYPE.as_str()).is_some_and(|value| {
        let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
        essence.trim().eq_ignore_ascii_case(JSON_MIME_TYPE)
    })
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

/// The keep-alive clock of an event stream.
struct Tick(Pin<Box<tokio::time::Sleep>>);

impl Future for Tick {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.0.as_mut().poll(cx)
    }
}

impl sse_stream::Timer for Tick {
    fn from_duration(duration: Duration) -> Self {
        Tick(Box::pin(tokio::time::sleep(duration)))
    }

    fn reset(mut self: Pin<&mut Self>, when: std::time::Instant) {
        self.0.as_mut().reset(tokio::time::Instant::from_std(when));
    }
}

mod lane_parse;

#[cfg(test)]
mod tests;
