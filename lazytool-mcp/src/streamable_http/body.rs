//! A request body read up to a limit, and the JSON-RPC error responses the guard sends.

use std::fmt::Display;
use std::future::poll_fn;
use std::task::Poll;
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use bytes::{Bytes, BytesMut};
use http::{HeaderValue, StatusCode, header};
use http_body_util::BodyExt;
use rmcp::model::ErrorCode;

use serde_json::Value;

use super::limits::RETRY_AFTER_SECONDS;
use crate::jsonrpc::decode;
use crate::jsonrpc::lines::KEPT_PREFIX;

/// What reading a body gave.
pub(crate) enum Read {
    Whole(Bytes),
    /// Longer than the limit: its first bytes, to read a request id from. The rest is not
    /// read.
    Oversized(Vec<u8>),
    /// The client's stream failed (it went away, say).
    Failed(String),
}

/// Reads `body` whole if it has at most `max` bytes.
pub(crate) async fn read<B>(body: B, max: usize) -> Read
where
    B: http_body::Body<Data = Bytes>,
    B::Error: Display,
{
    let mut body = std::pin::pin!(body);
    // The usual body comes in one frame: kept as it came, copied only if a second follows.
    let mut first = Bytes::new();
    let mut collected = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let data = match frame {
            Ok(frame) => match frame.into_data() {
                Ok(data) => data,
                Err(_) => continue,
            },
            Err(error) => return Read::Failed(error.to_string()),
        };
        let read = first.len() + collected.len();
        if read + data.len() > max {
            let mut prefix = Vec::with_capacity(KEPT_PREFIX);
            for part in [&first[..], &collected[..], &data[..]] {
                let room = KEPT_PREFIX - prefix.len();
                prefix.extend_from_slice(&part[..part.len().min(room)]);
            }
            return Read::Oversized(prefix);
        }
        if read == 0 {
            first = data;
        } else {
            if collected.is_empty() {
                collected.extend_from_slice(&std::mem::take(&mut first));
            }
            collected.extend_from_slice(&data);
        }
    }
    if collected.is_empty() {
        Read::Whole(first)
    } else {
        Read::Whole(collected.freeze())
    }
}

/// [`read`] within `timeout`, `None` past it. A body that came whole with its headers (the
/// usual request) is read without arming a timer, whose setting and cancelling cost about
/// 1,200 instructions a request (callgrind).
pub(crate) async fn read_within<B>(body: B, max: usize, timeout: Duration) -> Option<Read>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: Display,
{
    let mut reading = std::pin::pin!(read(body, max));
    if let Poll::Ready(read) = poll_fn(|cx| Poll::Ready(reading.as_mut().poll(cx))).await {
        return Some(read);
    }
    tokio::time::timeout(timeout, reading).await.ok()
}

/// A response whose body is a JSON-RPC message (an error reply built by [`decode`]).
pub(crate) fn json_response(status: StatusCode, reply: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(reply));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A refusal for a bound reached (sessions, streams, connections, shutdown): a JSON-RPC
/// server error carrying the request's id when known, and `Retry-After`.
pub(crate) fn refusal(status: StatusCode, id: Option<Value>, message: &str) -> Response {
    let mut response = json_response(status, decode::reply(id, OVERLOADED, message));
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    response
}

/// JSON-RPC's range for server errors starts at -32000.
const OVERLOADED: ErrorCode = ErrorCode(-32000);

/// An error that belongs to no request: JSON-RPC's `id: null`.
pub(crate) fn error_response(status: StatusCode, code: ErrorCode, message: &str) -> Response {
    json_response(status, decode::reply(None, code, message))
}

#[cfg(test)]
mod tests {
    use http_body_util::Full;
    use tokio::sync::mpsc;

    use super::*;
    use crate::streamable_http::sent_body::Sent;

    /// A body of `frames`, and the sender that keeps it open (dropped: the body ends).
    fn frames(frames: &[&'static [u8]]) -> (Sent, mpsc::UnboundedSender<&'static [u8]>) {
        let (sender, receiver) = mpsc::unbounded_channel();
        for &frame in frames {
            sender.send(frame).expect("the body is there");
        }
        (Sent(receiver), sender)
    }

    #[tokio::test]
    async fn frames_are_read_in_order_and_a_prefix_kept_across_them() {
        let (body, _) = frames(&[b"{\"id\"", b": 1", b"}"]);
        assert!(matches!(read(body, 9).await, Read::Whole(bytes) if bytes == "{\"id\": 1}"));
        let long: &'static [u8] = &[b'y'; 2 * KEPT_PREFIX];
        let (body, _) = frames(&[b"xx", long]);
        let Read::Oversized(prefix) = read(body, 100).await else {
            panic!("over the limit");
        };
        assert_eq!(prefix.len(), KEPT_PREFIX);
        assert!(prefix.starts_with(b"xxy"));
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_stops_coming_is_given_up_after_the_timeout() {
        let (whole, _) = frames(&[b"{}"]);
        let read = read_within(whole, 10, Duration::from_secs(5)).await;
        assert!(matches!(read, Some(Read::Whole(bytes)) if bytes == "{}"));
        let (stalled, _open) = frames(&[b"{"]);
        assert!(
            read_within(stalled, 10, Duration::from_secs(5))
                .await
                .is_none()
        );
    }

    #[tokio::test]
    async fn reads_up_to_the_limit_and_keeps_a_prefix_beyond() {
        let small = Full::new(Bytes::from_static(b"{\"id\": 1}"));
        assert!(matches!(read(small, 9).await, Read::Whole(bytes) if bytes.len() == 9));
        let large = Full::new(Bytes::from(vec![b'x'; 10_000]));
        let Read::Oversized(prefix) = read(large, 100).await else {
            panic!("over the limit");
        };
        assert_eq!(prefix.len(), KEPT_PREFIX);
    }
}
