//! An answer as an event stream ([`event_stream`]) of server messages ([`event`]), with a
//! keep-alive comment every so often while nothing else is sent.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;
use http::{HeaderValue, Response, header};
use rmcp::model::{ErrorCode, RequestId, ServerJsonRpcMessage};
use rmcp::transport::common::http_header::EVENT_STREAM_MIME_TYPE;
use sse_stream::{KeepAlive, Sse, SseBody};

use crate::jsonrpc::decode;

/// `events` as the body of a `200` event stream with the headers rmcp gives one, boxed by
/// `plain` or, with a keep-alive comment every `keep_alive` while no event is sent, by
/// `kept_alive` (an answer's body is boxed `Sync` or not, as what it streams is).
pub(super) fn event_stream<S, B>(
    events: S,
    keep_alive: Option<Duration>,
    plain: impl FnOnce(SseBody<S>) -> B,
    kept_alive: impl FnOnce(SseBody<S, Tick>) -> B,
) -> Response<B>
where
    S: Stream<Item = Result<Sse, Infallible>>,
{
    let body = match keep_alive {
        Some(interval) => kept_alive(SseBody::new_keep_alive(
            events,
            KeepAlive::new().interval(interval),
        )),
        None => plain(SseBody::new(events)),
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

/// `message` as an event of a stream, of the one answering request `id` if there is one.
pub(super) fn event(message: &ServerJsonRpcMessage, id: Option<&RequestId>) -> Sse {
    let data = serde_json::to_string(message).unwrap_or_else(|error| {
        tracing::warn!(target: "lazytool::mcp", %error, "cannot serialise a server message");
        let reply = decode::reply(
            id.and_then(|id| serde_json::to_value(id).ok()),
            ErrorCode::INTERNAL_ERROR,
            "Internal error: the server could not serialise a message",
        );
        String::from_utf8_lossy(&reply).into_owned()
    });
    Sse::default().data(data)
}

/// The keep-alive clock of an event stream.
pub(super) struct Tick(Pin<Box<tokio::time::Sleep>>);

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
