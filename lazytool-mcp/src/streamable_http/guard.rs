//! The tower service in front of rmcp's streamable HTTP server: [`McpHttpService`]. It
//! refuses foreign origins and hosts (403) and unauthenticated requests (401) by its
//! [`Gate`] (`gate.rs`), reads bodies up
//! to a limit (413) and within a time (408), answers what is not a JSON-RPC message with a
//! JSON-RPC error carrying the request id when it can be read (400), keeps sessions and
//! long-lived streams within their bounds (503 or 429 with `Retry-After`), and hands the rest
//! to rmcp with the principal in the request's extensions.
//!
//! Only a message that opens a session or a stream is parsed here before rmcp parses it
//! again: of any other (a `tools/call`, say) the guard reads just the method, and answers it
//! as above only if rmcp refuses it.

use std::borrow::Cow;
use std::convert::Infallible;
use std::fmt::Display;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::request::Parts;
use http::{Method, Request, StatusCode};
use http_body_util::Full;
use http_body_util::combinators::BoxBody;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ConstString, ErrorCode, InitializeResultMethod,
    SubscriptionsListenRequestMethod,
};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::Semaphore;

use super::answer::Answer;
use super::body::{self, error_response, json_response, refusal};
use super::call_limits;
use super::coalesce;
use super::drain::Drain;
use super::gate::Gate;
use super::in_place::boxed_in_place;
use super::lane_checks::SESSION_ID;
use super::limits::HttpLimits;
use super::method_scan;
use super::metrics::Refusal;
use super::session_calls::{self, SessionCall};
use super::sessions::{self, Full as SessionsFull, LimitedSessions, SessionTable};
use super::stateless::{self, Lanes};
use crate::Principal;
use crate::connection::McpConnection;
use crate::jsonrpc::decode::{self, Decoded};
use crate::request_facts::Admitted;
use crate::session_share::{Loaded, SessionShare};

/// Serves MCP streamable HTTP on any path it is mounted at, as a tower service (see
/// [`McpHttp::service`](crate::McpHttp::service)). Cheap to clone.
///
/// ```rust,no_run
/// use lazytool_mcp::McpServer;
///
/// # async fn run(server: McpServer) -> Result<(), Box<dyn std::error::Error>> {
/// let app = axum::Router::new().route_service("/tools/mcp", server.http().service());
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// axum::serve(listener, app).await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpHttpService(Arc<Guard>);

pub(super) struct Guard {
    pub(super) rmcp: StreamableHttpService<McpConnection, LimitedSessions>,
    pub(super) sessions: Arc<LimitedSessions>,
    pub(super) table: Arc<SessionTable>,
    pub(super) gate: Arc<Gate>,
    pub(super) max_body_bytes: usize,
    pub(super) limits: HttpLimits,
    pub(super) streams: Arc<Semaphore>,
    pub(super) drain: Drain,
    /// Events an SSE answer starts with before its headers leave: the priming event, if
    /// streams have one, and the first message ([`coalesce`]).
    pub(super) first_events: usize,
    pub(super) hold: Arc<coalesce::HoldClock>,
    pub(super) lanes: Arc<Lanes>,
    /// How often an event stream the guard answers with carries a keep-alive comment.
    pub(super) keep_alive: Option<std::time::Duration>,
    /// The store the replicas share sessions in, from which rmcp restores the sessions this
    /// replica does not hold.
    pub(super) shared_sessions: Option<Arc<dyn SessionShare>>,
}

impl McpHttpService {
    pub(super) fn new(guard: Guard) -> Self {
        McpHttpService(Arc::new(guard))
    }
}

impl std::fmt::Debug for McpHttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpService")
            .field("origins", &self.0.gate.origins)
            .field("hosts", &self.0.gate.hosts)
            .field(
                "authenticated",
                &self.0.gate.access.now().auth.is_required(),
            )
            .field("max_body_bytes", &self.0.max_body_bytes)
            .field("limits", &self.0.limits)
            .finish_non_exhaustive()
    }
}

impl<B> tower_service::Service<Request<B>> for McpHttpService
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Display,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let guard = Arc::clone(&self.0);
        boxed_in_place(move || async move { Ok(guard.handle(request).await) })
    }
}

/// What the guard learned of a POST's message.
struct Message {
    id: Option<Value>,
    opens_session: bool,
    long_lived: bool,
}

impl Guard {
    async fn handle<B>(&self, request: Request<B>) -> Response
    where
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Display,
    {
        self.drain.watch();
        let (mut parts, body) = request.into_parts();
        let mut answer = Answer::new(
            self.gate.metrics.clone(),
            method_label(&parts.method),
            self.drain.enter(),
        );
        let drained = self.drain.shutdown.clone().cancelled_owned();
        let response = match self.gate.check(&parts).await {
            Ok((principal, epoch)) => {
                parts.extensions.insert(Admitted {
                    principal: principal.clone(),
                    epoch,
                });
                self.admit(parts, body, principal, &mut answer).await
            }
            Err(refused) => refused.response(),
        };
        answer.attach(response, drained)
    }

    async fn admit<B>(
        &self,
        parts: Parts,
        body: B,
        principal: Principal,
        answer: &mut Answer,
    ) -> Response
    where
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Display,
    {
        let session = parts
            .headers
            .get(&SESSION_ID)
            .and_then(|id| id.to_str().ok());
        // A session this replica does not hold: rmcp may restore it from the shared store.
        let mut restoring = None;
        if let Some(session) = session {
            answer.busy = self.table.busy(session);
            if answer.busy.is_none()
                && let Some(share) = &self.shared_sessions
            {
                if let Loaded::Found(state) = share.load(session).await
                    && !state.belongs_to(&principal)
                {
                    tracing::warn!(target: "lazytool::mcp", principal = principal.name(), "refusing a request for another principal's session");
                    return error_response(
                        StatusCode::FORBIDDEN,
                        ErrorCode::INVALID_REQUEST,
                        "this MCP session belongs to another principal",
                    );
                }
                restoring = Some(principal.clone());
            }
            if parts.method == Method::GET {
                let max = self.limits.max_streams_per_session;
                match self.table.open_stream(session, max) {
                    Ok(stream) => answer.session_stream = stream,
                    Err(()) => return self.session_streams_full(),
                }
            }
        }
        let has_session = session.is_some();
        let deleting = parts.method == Method::DELETE;
        let (body, message) = if parts.method == Method::POST {
            match self.read(body).await {
                Ok(Read::Routine(body)) => {
                    if let Some(limits) = &self.gate.access.now().call_limits {
                        let audit = self.gate.audit.as_ref();
                        match call_limits::admit(limits, &principal, &parts, &body, audit).await {
                            Ok(place) => answer.call_place = place,
                            Err(refused) => {
                                self.gate.metrics.refuse(Refusal::CallLimit);
                                return refused.response();
                            }
                        }
                    }
                    if let Some(request) = stateless::lane_request(&parts, &body, &self.lanes) {
                        return match self.lanes.answer(request, parts).await {
                            Ok(response) => response,
                            Err(parts) => self.pass_routine(parts, body, restoring).await,
                        };
                    }
                    if restoring.is_none()
                        && let Some(call) = session_calls::session_request(&parts, &body)
                    {
                        return match self.session_call(call, parts).await {
                            Ok(response) => response,
                            Err(parts) => self.pass_routine(parts, body, restoring).await,
                        };
                    }
                    return self.pass_routine(parts, body, restoring).await;
                }
                Ok(Read::Message(body, message)) => (body, message),
                Err(refused) => return refused,
            }
        } else {
            let long_lived = parts.method == Method::GET;
            let message = Message {
                id: None,
                opens_session: false,
                long_lived,
            };
            (Bytes::new(), message)
        };
        if message.long_lived {
            let Ok(permit) = Arc::clone(&self.streams).try_acquire_owned() else {
                tracing::warn!(target: "lazytool::mcp", max = self.limits.streams_cap(), "refusing a stream: too many open");
                self.gate.metrics.refuse(Refusal::StreamsFull);
                return refusal(
                    StatusCode::SERVICE_UNAVAILABLE,
                    message.id,
                    &format!(
                        "Service unavailable: {} streams are open, the most this server keeps; retry later",
                        self.limits.streams_cap()
                    ),
                );
            };
            answer.stream(permit);
        }
        let request = Request::from_parts(parts, Full::new(body));
        let mut response = if message.opens_session && !has_session {
            if self.drain.is_draining() {
                self.gate.metrics.refuse(Refusal::ShuttingDown);
                return refusal(
                    StatusCode::SERVICE_UNAVAILABLE,
                    message.id,
                    "Service unavailable: the server is shutting down; connect to another one",
                );
            }
            if let (Some(share), Some(max)) = (&self.shared_sessions, self.limits.per_principal()) {
                // The bound holds across replicas: the least recently active of the
                // principal's sessions, wherever they are held, make room first.
                share.make_room(&principal, max).await;
            }
            let reservation = match self.table.reserve(&principal) {
                Ok(reservation) => reservation,
                Err(full) => return self.sessions_full(full, message.id),
            };
            self.sessions.close_evicted(&reservation.evicted).await;
            sessions::with_reservation(reservation, self.rmcp_handle(request)).await
        } else if let Some(principal) = restoring {
            sessions::with_restore(principal, self.rmcp_handle(request)).await
        } else {
            self.rmcp_handle(request).await
        };
        // rmcp ends a session with 202; the official clients expect 200 or 204.
        if deleting && response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        response.map(Body::new)
    }

    fn session_streams_full(&self) -> Response {
        let max = self.limits.max_streams_per_session;
        tracing::warn!(target: "lazytool::mcp", max, "refusing a stream: too many open for the session");
        self.gate.metrics.refuse(Refusal::StreamsFull);
        refusal(
            StatusCode::TOO_MANY_REQUESTS,
            None,
            &format!(
                "Too many requests: the session has {max} streams open, the most a session may keep; close one or retry later"
            ),
        )
    }

    /// Hands a routine message to rmcp unparsed; if rmcp refuses it, answers what the guard
    /// answers a message it cannot take. rmcp parses the body into the same types before it
    /// acts on it, and [`decode`](decode::decode) is the more lenient parse (it also takes a
    /// byte order mark), so what the guard refuses never gets further in rmcp than its parse.
    async fn pass_routine(
        &self,
        parts: Parts,
        body: Bytes,
        restoring: Option<Principal>,
    ) -> Response {
        let request = Request::from_parts(parts, Full::new(body.clone()));
        let response = match restoring {
            Some(principal) => sessions::with_restore(principal, self.rmcp_handle(request)).await,
            None => self.rmcp_handle(request).await,
        };
        if response.status().is_client_error()
            && let Err(reply) = self.decoded(&body)
        {
            return json_response(StatusCode::BAD_REQUEST, reply);
        }
        response.map(Body::new)
    }

    /// A session's routine request answered as rmcp answers it, without its HTTP layer;
    /// `parts` back if this replica does not hold the session.
    async fn session_call(&self, call: SessionCall, parts: Parts) -> Result<Response, Parts> {
        let stopped = &self.drain.stopped;
        let response =
            session_calls::answer(&self.sessions, call, parts, self.keep_alive, stopped).await?;
        let response = coalesce::first_events(response, self.first_events, &self.hold).await;
        Ok(response.map(Body::new))
    }

    /// rmcp's answer to `request`. Its future is large (tens of kilobytes): boxed where it is
    /// built, it is not copied into the box, nor each time the guard's own futures around it
    /// are moved.
    fn rmcp_handle(
        &self,
        request: Request<Full<Bytes>>,
    ) -> Pin<Box<impl Future<Output = http::Response<BoxBody<Bytes, Infallible>>> + Send + '_>>
    {
        boxed_in_place(move || async move {
            let posted = request.method() == Method::POST;
            let response = self.rmcp.handle(request).await;
            if posted {
                coalesce::first_events(response, self.first_events, &self.hold).await
            } else {
                response
            }
        })
    }

    fn sessions_full(&self, full: SessionsFull, id: Option<Value>) -> Response {
        self.gate.metrics.refuse(Refusal::SessionsFull);
        let (status, message) = match full {
            SessionsFull::Overall => (
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "Service unavailable: {} sessions are live and busy, the most this server keeps; retry later or end an idle session with DELETE",
                    self.limits.max_sessions
                ),
            ),
            SessionsFull::Principal => (
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "Too many requests: this principal has {} sessions, all busy, the most it may have; end one with DELETE or retry later",
                    self.limits
                        .per_principal()
                        .unwrap_or(self.limits.max_sessions)
                ),
            ),
        };
        tracing::warn!(target: "lazytool::mcp", "{message}");
        refusal(status, id, &message)
    }

    /// The body of a POST and what it is, if it is a JSON-RPC message within the limits,
    /// else the answer.
    async fn read<B>(&self, body: B) -> Result<Read, Response>
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: Display,
    {
        let timeout = self.limits.body_read_timeout;
        let read = body::read_within(body, self.max_body_bytes, timeout);
        let bytes = match read.await {
            Some(body::Read::Whole(bytes)) => bytes,
            Some(body::Read::Oversized(prefix)) => {
                tracing::warn!(target: "lazytool::mcp", max = self.max_body_bytes, "rejecting an oversized request body");
                self.gate.metrics.refuse(Refusal::BodyTooLarge);
                let reply = decode::oversized(&prefix, self.max_body_bytes);
                return Err(json_response(StatusCode::PAYLOAD_TOO_LARGE, reply));
            }
            Some(body::Read::Failed(error)) => {
                tracing::debug!(target: "lazytool::mcp", %error, "cannot read a request body");
                self.gate.metrics.refuse(Refusal::Malformed);
                return Err(error_response(
                    StatusCode::BAD_REQUEST,
                    ErrorCode::PARSE_ERROR,
                    &format!("Parse error: cannot read the request body ({error})"),
                ));
            }
            None => {
                tracing::warn!(target: "lazytool::mcp", timeout = ?self.limits.body_read_timeout, "a request body did not arrive in time");
                self.gate.metrics.refuse(Refusal::BodyTimeout);
                return Err(error_response(
                    StatusCode::REQUEST_TIMEOUT,
                    ErrorCode::PARSE_ERROR,
                    &format!(
                        "Request timeout: the body did not arrive within {} s",
                        self.limits.body_read_timeout.as_secs_f64()
                    ),
                ));
            }
        };
        if is_routine(&bytes) {
            return Ok(Read::Routine(bytes));
        }
        let message = self
            .decoded(&bytes)
            .map_err(|reply| json_response(StatusCode::BAD_REQUEST, reply))?;
        Ok(Read::Message(bytes, message))
    }

    /// What the message in `bytes` is, or the JSON-RPC reply (the body of a 400) to a body
    /// that is none.
    fn decoded(&self, bytes: &[u8]) -> Result<Message, Vec<u8>> {
        let reply = match decode::decode(bytes) {
            Decoded::Message(message) => return Ok(describe(&message)),
            Decoded::Reply(reply) => reply,
            // JSON-RPC answers no notification, but HTTP must answer the POST.
            Decoded::Skip if bytes.trim_ascii().is_empty() => decode::reply(
                None,
                ErrorCode::PARSE_ERROR,
                "Parse error: the request body is empty",
            ),
            Decoded::Skip => decode::reply(
                None,
                ErrorCode::INVALID_REQUEST,
                "Invalid request: not a valid JSON-RPC notification",
            ),
        };
        self.gate.metrics.refuse(Refusal::Malformed);
        Err(reply)
    }
}

/// A POST body read, and how far the guard looked into it.
enum Read {
    /// A message that neither opens a session nor a stream: rmcp parses it (once).
    Routine(Bytes),
    /// A message the guard parsed, to reserve what it needs.
    Message(Bytes, Message),
}

/// The top-level `method` of a JSON object, read without building the message.
#[derive(Deserialize)]
struct Peek<'a> {
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
}

/// Whether `bytes` is a JSON object whose `method` (if any) neither opens a session nor a
/// long-lived stream: what the guard needs to know of most messages (`tools/call`,
/// notifications, answers), without rmcp's typed parse, which rmcp makes anyway. Most bodies
/// are told by a scan for the two methods' names; of the rest, anything that is not an object
/// with one string `method` is parsed by the guard first.
fn is_routine(bytes: &[u8]) -> bool {
    if cannot_open_anything(bytes) {
        return true;
    }
    serde_json::from_slice::<Peek<'_>>(bytes).is_ok_and(|peeked| {
        peeked
            .method
            .is_none_or(|method| !OPENING.contains(&&*method))
    })
}

/// The methods of messages that open a session or a long-lived stream.
const OPENING: [&str; 2] = [
    InitializeResultMethod::VALUE,
    SubscriptionsListenRequestMethod::VALUE,
];

/// Whether `bytes`, a JSON object by its first byte, cannot be a message that opens a session
/// or a stream: neither method's name appears in it, nor an escape that could spell one. What
/// is not JSON after all, rmcp refuses, and the guard answers then.
fn cannot_open_anything(bytes: &[u8]) -> bool {
    bytes.first() == Some(&b'{')
        && memchr::memchr(b'\\', bytes).is_none()
        && !method_scan::INITIALIZE.in_body(bytes)
        && !method_scan::SUBSCRIPTIONS_LISTEN.in_body(bytes)
}

fn describe(message: &ClientJsonRpcMessage) -> Message {
    let ClientJsonRpcMessage::Request(request) = message else {
        return Message {
            id: None,
            opens_session: false,
            long_lived: false,
        };
    };
    Message {
        id: serde_json::to_value(&request.id).ok(),
        opens_session: matches!(request.request, ClientRequest::InitializeRequest(_)),
        long_lived: matches!(
            request.request,
            ClientRequest::SubscriptionsListenRequest(_)
        ),
    }
}

/// The method as a metrics label (a fixed set, whatever clients send).
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::DELETE => "DELETE",
        _ => "OTHER",
    }
}

#[cfg(test)]
mod tests {
    use super::is_routine;

    #[test]
    fn only_messages_that_open_nothing_skip_the_guards_parse() {
        let routine = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#,
            // rmcp's typed parse refuses these; the guard answers them after rmcp.
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":5}"#,
            r#" {"method":"ping"} "#,
            // Not JSON, but naming nothing that opens: rmcp refuses it, then the guard answers.
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","#,
            r#"{"jsonrpc":"2.0","id":3,"method":7}"#,
        ];
        for body in routine {
            assert!(is_routine(body.as_bytes()), "{body}");
        }
        let parsed_first = [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"initiali\u007ae","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{}}"#,
            r#"{"method":"ping","method":"initialize"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":7,"x":"initialize"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"x":"initialize""#,
            "",
        ];
        for body in parsed_first {
            assert!(!is_routine(body.as_bytes()), "{body}");
        }
    }
}
