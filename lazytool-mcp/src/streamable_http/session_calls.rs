//! A session's routine requests handed to the session without rmcp's HTTP layer:
//! [`session_request`] reads and checks them, [`answer`] opens their stream.
//!
//! rmcp reads a session's POST by trying each shape of message in turn (about 50,000
//! instructions for a `tools/call` of `add`, a third of what the whole call costs), checks its
//! headers, and hands the message to the session manager, which is lazytool's
//! ([`DirectSessions`](super::sessions)). A `tools/call` or `tools/list` whose headers rmcp
//! would take as they are is read here as the stateless lanes read theirs ([`lane_parse`]) and
//! answered by the session's handler in this task ([`Direct`](super::sessions::Direct)), or,
//! when the session has none to call, handed to its service as rmcp would hand it; either way
//! on a stream with the same events (the priming event, event ids kept for resumption).
//! Anything else, and a session this replica does not hold, goes to rmcp.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;
use http::request::Parts;
use http::{HeaderMap, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use lazytool_runtime::CancellationToken;
use rmcp::model::{
    CallToolRequestMethod, ClientJsonRpcMessage, ClientRequest, ConstString, GetExtensions,
    GetMeta, JsonRpcRequest, ListToolsRequestMethod, ProtocolVersion,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};
use sse_stream::Sse;
use tokio_util::sync::WaitForCancellationFutureOwned;

use super::event_stream::{event, event_stream};
use super::lane_checks::{PROTOCOL_VERSION, SESSION_ID, accepts_json_and_events, sends_json, sole};
use super::lane_parse::lane_parse;
use super::method_scan;
use super::sessions::LimitedSessions;

/// A session's routine request, read.
pub(super) struct SessionCall {
    session: SessionId,
    request: JsonRpcRequest<ClientRequest>,
}

/// The request in `body`, if it is a `tools/call` or `tools/list` of a session whose headers
/// rmcp takes as they are: exactly one `Mcp-Session-Id`, a protocol revision with sessions
/// (`MCP-Protocol-Version` one rmcp knows from before 2026-07-28, or none, which rmcp reads as
/// 2025-03-26), accepting JSON and event streams, sending JSON, no protocol version in its
/// `_meta` (which rmcp would compare with the header's). In those revisions rmcp checks no
/// other header (`Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` came with 2026-07-28).
pub(super) fn session_request(parts: &Parts, body: &[u8]) -> Option<SessionCall> {
    let headers = &parts.headers;
    let session = sole(headers, &SESSION_ID)?;
    if !of_a_revision_with_sessions(headers)
        || !accepts_json_and_events(headers)
        || !sends_json(headers)
    {
        return None;
    }
    let method = if method_scan::TOOLS_CALL.in_body(body) {
        CallToolRequestMethod::VALUE
    } else if method_scan::TOOLS_LIST.in_body(body) {
        ListToolsRequestMethod::VALUE
    } else {
        return None;
    };
    let request = lane_parse(body, method)?;
    if request.request.get_meta().protocol_version().is_some() {
        return None;
    }
    Some(SessionCall {
        session: SessionId::from(session),
        request,
    })
}

/// Whether `MCP-Protocol-Version` is absent, or names once a revision rmcp knows that has
/// sessions.
fn of_a_revision_with_sessions(headers: &HeaderMap) -> bool {
    if !headers.contains_key(&PROTOCOL_VERSION) {
        return true;
    }
    sole(headers, &PROTOCOL_VERSION).is_some_and(|named| {
        ProtocolVersion::KNOWN_VERSIONS
            .iter()
            .any(|known| known.as_str() == named && known.has_initialize())
    })
}

/// The stream answering `call` (the HTTP request's `parts` in its extensions, as rmcp puts
/// them): its events as rmcp writes them, a keep-alive comment every `keep_alive`, ended when
/// the server stops (`stopped`). The session's handler answers in this task when it can
/// ([`Direct`](super::sessions::Direct)), else the session's service does. `parts`
/// come back when `sessions` does not hold the session.
pub(super) async fn answer(
    sessions: &LimitedSessions,
    call: SessionCall,
    parts: Parts,
    keep_alive: Option<Duration>,
    stopped: &CancellationToken,
) -> Result<Response<BoxBody<Bytes, Infallible>>, Parts> {
    let SessionCall {
        session,
        mut request,
    } = call;
    // One look at the session when its handler answers (nearly always); a second only when
    // it does not.
    let direct = sessions.direct(&session);
    if direct.is_none() && !sessions.has_session(&session).await.unwrap_or(false) {
        return Err(parts);
    }
    request.request.extensions_mut().insert(parts);
    let stopped = Box::pin(stopped.clone().cancelled_owned());
    if let Some(direct) = direct {
        return Ok(session_stream(direct.call(request), stopped, keep_alive));
    }
    match sessions
        .create_stream(&session, ClientJsonRpcMessage::Request(request))
        .await
    {
        Ok(events) => Ok(session_stream(events, stopped, keep_alive)),
        // The session ended between the two looks: rmcp's answer to a request of a session
        // it does not have.
        Err(error) => {
            tracing::debug!(target: "lazytool::mcp", %error, "a session ended as a request reached it");
            let mut response = Response::new(
                Full::new(Bytes::from_static(b"Not Found: Session not found")).boxed(),
            );
            *response.status_mut() = StatusCode::NOT_FOUND;
            Ok(response)
        }
    }
}

fn session_stream<S>(
    events: S,
    stopped: Pin<Box<WaitForCancellationFutureOwned>>,
    keep_alive: Option<Duration>,
) -> Response<BoxBody<Bytes, Infallible>>
where
    S: Stream<Item = ServerSseMessage> + Unpin + Send + Sync + 'static,
{
    let events = SessionEvents { events, stopped };
    event_stream(events, keep_alive, BodyExt::boxed, BodyExt::boxed)
}

/// A session stream's events as rmcp writes them, until the server stops.
struct SessionEvents<S> {
    events: S,
    stopped: Pin<Box<WaitForCancellationFutureOwned>>,
}

impl<S: Stream<Item = ServerSseMessage> + Unpin> Stream for SessionEvents<S> {
    type Item = Result<Sse, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        // The server's stop is looked at only while the stream waits: registering with the
        // server-wide token on every poll would have every answer take its lock.
        let message = match Pin::new(&mut self.events).poll_next(cx) {
            Poll::Ready(Some(message)) => message,
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {
                return match self.stopped.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(None),
                    Poll::Pending => Poll::Pending,
                };
            }
        };
        let mut sse = match &message.message {
            Some(sent) => event(sent, None),
            // The priming event (SEP-1699): no data.
            None => Sse::default().data(""),
        };
        sse.id = message.event_id;
        sse.retry = message
            .retry
            .map(|retry| u64::try_from(retry.as_millis()).unwrap_or(u64::MAX));
        Poll::Ready(Some(Ok(sse)))
    }
}

#[cfg(test)]
mod tests;
